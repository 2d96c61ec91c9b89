//===- Overlap.cuh - a row reduction running beside the GEMM that reads it --===//
//
// A GEMM whose epilogue reads per-row values (a norm's Σx², Σx) that a row reduction computes
// from its A would otherwise wait for the whole reduction: a pass over A before the GEMM starts.
// Here the reduction hands its rows over a row block (the GEMM's tile M) at a time:
//
//   - the reduction kernel (`publishRows`) runs on every SM at first, but only over the rows the
//     GEMM's first wave of tiles reads; those CTAs then leave, and `side` CTAs go on with the
//     remaining row blocks in order, beside the GEMM. After each row block it adds the rows it
//     finished to `done[block]`, with release semantics;
//   - the GEMM is launched right behind it with programmatic dependent launch (the reduction lets
//     it start at once) on the SMs the side CTAs leave (`RowsOverlap::sms`), and its epilogue
//     (`AwaitedRows`, around the nodes that read those values) waits, per tile, until its row
//     block's count is complete.
//
// The side SMs cost the GEMM nothing when its tiles come in whole waves either way (the SMs it
// leaves are those its last wave would have left idle): `rowsOverlap` only picks such a split.
// `done` must be zero when the reduction starts (the launcher clears it on the stream).
//
// `wholeWaves` is that CTA count on its own: every persistent kernel runs on it (coda-translate
// whole-waves), so that each wave of tiles is a whole one.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_OVERLAP_CUH
#define CODA_RUNTIME_OVERLAP_CUH

#include <cuda_runtime.h>

#include "cutlass/numeric_conversion.h"
#include "cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp"
#include "cutlass/gemm/kernel/tile_scheduler_params.h"

namespace coda::rt {

/// How a row reduction and the GEMM reading it share the GPU; side == 0: one after the other.
struct RowsOverlap {
  int sms = 0;        // the GEMM's SMs
  int side = 0;       // CTAs that finish the reduction beside the GEMM
  long long early = 0; // rows done first, on every SM: those the GEMM's first wave reads
};

inline int smCount() {
  int device = 0, count = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return 0;
  return count;
}

/// How CUTLASS's persistent scheduler lays out an m × n problem in tiles of tileM × tileN and
/// clusters of clusterM × clusterN (its swizzle and raster order) on a GPU of `sms` SMs, and the
/// fewest CTAs that run it in as many waves as one CTA per SM does.
struct Waves {
  cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90Params scheduler;
  int sms = 0;  // the GPU's
  int ctas = 0; // whole waves; 0: unknown (no SMs given)
};

inline Waves wavesOn(int sms, int m, int n, int tileM, int tileN, int clusterM, int clusterN,
                     int maxSwizzle, cutlass::gemm::kernel::detail::RasterOrderOptions raster) {
  using Params = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90Params;
  Waves w;
  w.sms = sms;
  cutlass::gemm::GemmCoord cluster(clusterM, clusterN, 1);
  dim3 blocks = Params::get_tiled_cta_shape_mnl(cutlass::gemm::BatchedGemmCoord(m, n, 1, 1),
                                                cutlass::gemm::GemmCoord(tileM, tileN, 1), cluster);
  cutlass::KernelHardwareInfo hw;
  hw.sm_count = sms;
  w.scheduler.initialize(blocks, cluster, hw, maxSwizzle, raster);
  long long clusterSize = clusterM * clusterN;
  long long clusters = (long long)w.scheduler.problem_tiles_m_ * w.scheduler.problem_tiles_n_;
  long long perWave = sms / clusterSize;
  if (perWave < 1)
    return w;
  long long waves = (clusters + perWave - 1) / perWave;
  w.ctas = int((clusters + waves - 1) / waves * clusterSize);
  return w;
}

/// The split for a persistent GEMM (arguments as wavesOn): the SMs its waves do not need, and
/// the rows of the tile groups its first wave starts on (a whole number of row blocks). None
/// when the tiles run along M (the first wave would read every row) or every SM is needed.
inline RowsOverlap rowsOverlapOn(int sms, int m, int n, int tileM, int tileN, int clusterM,
                                 int clusterN, int maxSwizzle,
                                 cutlass::gemm::kernel::detail::RasterOrderOptions raster) {
  Waves w = wavesOn(sms, m, n, tileM, tileN, clusterM, clusterN, maxSwizzle, raster);
  int side = w.sms - w.ctas;
  if (w.ctas < 1 || side < 1 ||
      w.scheduler.raster_order_ != cutlass::gemm::kernel::detail::RasterOrder::AlongN)
    return {};
  // Along N, groups of 2^swizzle cluster rows sweep every column.
  long long groupRows = 1LL << w.scheduler.log_swizzle_size_;
  long long groupClusters = groupRows * w.scheduler.problem_tiles_n_;
  long long wave = w.ctas / (clusterM * clusterN);
  long long groups = (wave + groupClusters - 1) / groupClusters;
  long long early = groups * groupRows * clusterM * tileM;
  return {w.ctas, side, early < m ? early : m};
}

/// The CTAs a persistent kernel runs on, on this GPU: whole waves (0 when the GPU is not known:
/// then CUTLASS takes every SM).
inline int wholeWaves(int m, int n, int tileM, int tileN, int clusterM, int clusterN,
                      int maxSwizzle, cutlass::gemm::kernel::detail::RasterOrderOptions raster) {
  return wavesOn(smCount(), m, n, tileM, tileN, clusterM, clusterN, maxSwizzle, raster).ctas;
}

/// rowsOverlapOn for this GPU.
inline RowsOverlap rowsOverlap(int m, int n, int tileM, int tileN, int clusterM, int clusterN,
                               int maxSwizzle,
                               cutlass::gemm::kernel::detail::RasterOrderOptions raster) {
  return rowsOverlapOn(smCount(), m, n, tileM, tileN, clusterM, clusterN, maxSwizzle, raster);
}

/// The reduction's side of the handover. `row(point, lane)` reduces one row (a warp per row);
/// `rows` rows in blocks of tileM. CTAs [0, gridDim.x − side) share the rows [0, early); the
/// last `side` CTAs take the row blocks after them in turn.
template <class Row>
__device__ void publishRows(long long rows, int tileM, long long early, int side,
                            unsigned *done, Row row) {
  // The GEMM waits on `done`, not on this grid: let it launch now.
  asm volatile("griddepcontrol.launch_dependents;");
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  // The side CTAs start at a row block: the early rows end at one (or at the last row).
  early = early >= rows ? rows : early / tileM * tileM;
  auto run = [&](long long r0, long long r1) {
    for (long long p = r0 + warp; p < r1; p += warps)
      row(p, lane);
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence(); // the CTA's results before the counts that announce them
      for (long long b = r0 / tileM; b * tileM < r1; ++b) {
        long long lo = b * tileM > r0 ? b * tileM : r0;
        long long hi = (b + 1) * tileM < r1 ? (b + 1) * tileM : r1;
        atomicAdd(done + b, unsigned(hi - lo));
      }
    }
  };
  int first = int(gridDim.x) - side;
  if (int(blockIdx.x) < first) {
    long long r0 = early * blockIdx.x / first, r1 = early * (blockIdx.x + 1) / first;
    if (r0 < r1)
      run(r0, r1);
    return;
  }
  long long blocks = (rows + tileM - 1) / tileM;
  for (long long b = (early + tileM - 1) / tileM + (blockIdx.x - first); b < blocks; b += side)
    run(b * tileM, b * tileM + tileM < rows ? b * tileM + tileM : rows);
}

/// Spins until `done` counts `want` rows (acquire: the rows' values are visible after it).
CUTLASS_DEVICE void awaitRows(unsigned const *done, unsigned want) {
  unsigned have;
  while (true) {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(have) : "l"(done) : "memory");
    if (have >= want)
      return;
    __nanosleep(100);
  }
}

/// A node around `Node` with parameters of its own (`Extra`, given after Node's arguments) for
/// its callbacks; its host side is Node's.
template <class Node, class Extra> struct NodeWith : Node {
  struct Arguments {
    typename Node::Arguments node;
    Extra extra{};
  };
  struct Params {
    typename Node::Params node;
    Extra extra;
  };
  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const &problem,
                                                  Arguments const &args, void *workspace) {
    return {Node::to_underlying_arguments(problem, args.node, workspace), args.extra};
  }
  template <class ProblemShape>
  static bool can_implement(ProblemShape const &problem, Arguments const &args) {
    return Node::can_implement(problem, args.node);
  }
  template <class ProblemShape>
  static size_t get_workspace_size(ProblemShape const &problem, Arguments const &args) {
    return Node::get_workspace_size(problem, args.node);
  }
  template <class ProblemShape>
  static cutlass::Status initialize_workspace(ProblemShape const &problem, Arguments const &args,
                                              void *workspace, cudaStream_t stream,
                                              cutlass::CudaHostAdapter *adapter = nullptr) {
    return Node::initialize_workspace(problem, args.node, workspace, stream, adapter);
  }

  CUTLASS_HOST_DEVICE NodeWith() {}
  CUTLASS_HOST_DEVICE NodeWith(Params const &params, typename Node::SharedStorage const &shared)
      : Node(params.node, shared), extra(params.extra) {}
  Extra extra{};
};

/// An epilogue node that reads per-row values (CUTLASS's Sm90ColBroadcast) and, given a `done`
/// array (its extra parameter), first waits until the rows of its tile are complete.
template <class Node> struct AwaitedRows : NodeWith<Node, unsigned const *> {
  using NodeWith<Node, unsigned const *>::NodeWith;

  template <class Inner> struct Callbacks : Inner {
    CUTLASS_DEVICE Callbacks(Inner &&inner, unsigned const *done, unsigned want)
        : Inner(static_cast<Inner &&>(inner)), done(done), want(want) {}
    unsigned const *done;
    unsigned want;
    CUTLASS_DEVICE void begin() {
      if (done)
        awaitRows(done, want);
      Inner::begin();
    }
  };

  template <bool ReferenceSrc, class... A>
  CUTLASS_DEVICE auto
  get_consumer_store_callbacks(cutlass::epilogue::fusion::detail::ConsumerStoreArgs<A...> const &args) {
    auto inner = Node::template get_consumer_store_callbacks<ReferenceSrc>(args);
    int tileM = int(cute::get<0>(args.tile_shape_mnk));
    int m = int(cute::get<0>(args.tile_coord_mnkl));
    int rows = int(cute::get<0>(args.problem_shape_mnkl)) - m * tileM;
    unsigned const *done = this->extra;
    return Callbacks<decltype(inner)>(static_cast<decltype(inner) &&>(inner),
                                      done && rows > 0 ? done + m : nullptr,
                                      unsigned(rows < tileM ? rows : tileM));
  }
};

} // namespace coda::rt

#endif // CODA_RUNTIME_OVERLAP_CUH
