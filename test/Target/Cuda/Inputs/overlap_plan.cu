// Prints coda::rt's plans for persistent kernels on a GPU of a given size (host code only):
// whole waves (wavesOn) and the split of a row reduction beside its GEMM (rowsOverlapOn).
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

int main() {
  show("qkv", 132, 8192, 6144, 128, 256, 2, 1, 8, Raster::Heuristic);
  show("qkv_pingpong", 132, 8192, 6144, 128, 128, 2, 1, 8, Raster::Heuristic);
  show("qkv_no_swizzle", 132, 8192, 6144, 128, 256, 2, 1, 1, Raster::Heuristic);
  show("qkv_along_m", 132, 8192, 6144, 128, 256, 2, 1, 8, Raster::AlongM);
  show("lm_head", 132, 8192, 128256, 64, 256, 2, 1, 1, Raster::AlongM);
  show("small", 132, 256, 768, 128, 256, 2, 1, 1, Raster::Heuristic);
  show("every_sm", 132, 8448, 4096, 128, 256, 2, 1, 1, Raster::AlongN);
  show("no_gpu", 0, 8192, 6144, 128, 256, 2, 1, 8, Raster::Heuristic);
  return 0;
}
