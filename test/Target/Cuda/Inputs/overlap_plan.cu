// Prints coda::rt's plans for persistent kernels on a GPU of a given size (host code only):
// whole waves (wavesOn), the split of a row reduction beside its GEMM (rowsOverlapOn) and the
// CTAs of a kernel whose tiles wait for their row blocks (rowBlockWavesOn).
#include "coda/Runtime/Overlap.cuh"

#include <cstdio>

using Raster = cutlass::gemm::kernel::detail::RasterOrderOptions;

static void show(const char *what, int sms, int m, int n, int tileM, int tileN, int clusterM,
                 int clusterN, int swizzle, Raster raster) {
  coda::rt::Waves w = coda::rt::wavesOn(sms, m, n, tileM, tileN, clusterM, clusterN, swizzle, raster);
  coda::rt::RowsOverlap o =
      coda::rt::rowsOverlapOn(sms, m, n, tileM, tileN, clusterM, clusterN, swizzle, raster);
  std::printf("%s: ctas %d; beside: sms %d side %d early %lld\n", what, w.ctas, o.sms, o.side,
              o.early);
}

static void showRowBlocks(const char *what, int sms, int clusters, int m, int n, int tileM,
                          int tileN, int clusterM, int clusterN, int swizzle, Raster raster) {
  std::printf("row blocks %s: ctas %d\n", what,
              coda::rt::rowBlockWavesOn(sms, clusters, m, n, tileM, tileN, clusterM, clusterN,
                                        swizzle, raster));
}

int main() {
  show("qkv", 132, 8192, 6144, 128, 256, 2, 1, 8, Raster::Heuristic);
  show("qkv_pingpong", 132, 8192, 6144, 128, 128, 2, 1, 8, Raster::Heuristic);
  show("qkv_no_swizzle", 132, 8192, 6144, 128, 256, 2, 1, 1, Raster::Heuristic);
  show("qkv_along_m", 132, 8192, 6144, 128, 256, 2, 1, 8, Raster::AlongM);
  show("lm_head", 132, 8192, 128256, 64, 256, 2, 1, 1, Raster::AlongM);
  show("small", 132, 256, 768, 128, 256, 2, 1, 1, Raster::Heuristic);
  show("every_sm", 132, 8448, 4096, 128, 256, 2, 1, 1, Raster::AlongN);
  show("no_gpu", 0, 8192, 6144, 128, 256, 2, 1, 8, Raster::Heuristic);
  showRowBlocks("residual_rmsnorm", 132, 66, 8192, 4096, 128, 256, 2, 1, 1, Raster::AlongN);
  showRowBlocks("residual_rmsnorm_128", 132, 66, 8192, 4096, 128, 128, 2, 1, 1, Raster::AlongN);
  showRowBlocks("unknown_clusters", 132, 0, 8192, 4096, 128, 256, 2, 1, 1, Raster::AlongN);
  showRowBlocks("few_clusters", 132, 30, 8192, 4096, 128, 256, 2, 2, 1, Raster::AlongN);
  showRowBlocks("ragged", 132, 66, 8191, 1000, 128, 128, 2, 1, 1, Raster::AlongN);
  showRowBlocks("ffn_width", 132, 66, 8192, 14336, 128, 256, 2, 1, 1, Raster::AlongN);
  showRowBlocks("too_wide", 132, 132, 8192, 65536, 128, 256, 1, 1, 1, Raster::AlongN);
  showRowBlocks("swizzled", 132, 66, 8192, 4096, 128, 256, 2, 1, 8, Raster::AlongN);
  showRowBlocks("along_m", 132, 66, 8192, 4096, 128, 256, 2, 1, 1, Raster::AlongM);
  showRowBlocks("no_gpu", 0, 0, 8192, 4096, 128, 256, 2, 1, 1, Raster::AlongN);
  return 0;
}
