//===- RowPass.cuh - a norm's output computed beside the GEMM it follows -------===//
//
// A linalg.generic right after a GEMM that reads the GEMM's stored result together with row
// reductions of it (RMSNorm's y = h · rsqrt(Σh²/D + ε) · γ) needs every column of a row before
// any element of it: run after the kernel, it reads the whole result back from memory. Here it
// runs beside the GEMM instead, a row block (the GEMM's tile M) at a time, as soon as the block's
// rows are complete, reading them from L2, where they were just written:
//
//   - the GEMM's epilogue (`RowPass`, around the epilogue DAG): after a tile's stores, its TMA
//     stores land and it adds one to its row block's count (`counts[m]`, release). The row
//     block's last tile combines each row reduction's partials (in tile order: deterministic)
//     and adds one more: the rows are complete. At its first tile each CTA lets the next kernel
//     launch (griddepcontrol.launch_dependents).
//   - the pass (`rowPassBeside`), launched right behind the GEMM with programmatic dependent
//     launch: its CTAs start on the SMs the GEMM leaves idle (whole waves leave some) and, as
//     the GEMM's CTAs finish, on the others. They take the row blocks in order, wait for each
//     one's count (acquire) and run the generic over its rows.
//
// The GEMM never waits for the pass, and the pass's CTAs start only once every GEMM CTA has
// started, so every wait ends. Without programmatic launch the pass runs after the GEMM.
//
// Held (`RowPass<Node, Pass, true>`, --row-pass-held): no pass beside and no read of the result
// back. Each tile keeps the values it stores (as stored: 16-bit) in registers, counts itself
// once its partials are out, waits for its row block's combine, and runs the generic's steps on
// the values it holds. Every CTA of a persistent kernel is resident, and a tile waits only for
// tiles of its own row block, which no CTA reaches after a tile it waits in: every wait ends.
// Tiles along N on a grid of whole row blocks put a row block's tiles in one wave, so that the
// wait is for the slowest of them only.
//
// `Pass` is generated per kernel: the generic's operands, `kSteps` steps of 8 elements per row,
// `load(point)` (a step's loads; held: `held(point, h)`, those but for the result's, which the
// tile gives) and `finish(point, loaded)` (its math and stores), and `combine(row, tiles)` (the
// row reductions of one row, from their partials).
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_ROWPASS_CUH
#define CODA_RUNTIME_ROWPASS_CUH

#include <atomic>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "cutlass/arch/barrier.h"
#include "coda/Runtime/Epilogue.cuh"
#include "coda/Runtime/KernelAttributes.cuh"
#include "coda/Runtime/Overlap.cuh"
#include "coda/Runtime/Tensor.cuh"

namespace coda::rt {

/// The handover between the GEMM and the pass; counts == nullptr: no pass (the kernel alone).
struct RowPassState {
  unsigned *counts = nullptr; // per row block: tiles counted, + 1 once combined
  unsigned *next = nullptr;   // the next row block a pass CTA takes
};

/// Bytes of the counts for an m-row problem in tiles of tileM rows.
inline size_t rowPassBytes(int m, int tileM) {
  size_t tilesM = (m + tileM - 1) / tileM;
  return ((tilesM + 1) * sizeof(unsigned) + 255) / 256 * 256;
}

/// The bookkeeping at `at` (rowPassBytes of it) into `state`, cleared on the stream; returns
/// the clearing's status.
inline cudaError_t rowPassState(void *at, int m, int tileM, cudaStream_t stream,
                                RowPassState &state) {
  size_t tilesM = (m + tileM - 1) / tileM;
  state = {static_cast<unsigned *>(at), static_cast<unsigned *>(at) + tilesM};
  return cudaMemsetAsync(at, 0, rowPassBytes(m, tileM), stream);
}

/// The clusters of `Kernel` the current device holds at once, its shared memory and cluster
/// shape counted (cudaOccupancyMaxActiveClusters, its attributes set first); 0 when unknown.
/// Asked once per device (the first 64). Static for the reason kernelAttributesOnce is.
template <class Kernel> static int maxActiveClusters() {
  static std::atomic<int> known[64];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess)
    return 0;
  if (device < 64)
    if (int clusters = known[device].load(std::memory_order_relaxed))
      return clusters;
  if (kernelAttributesOnce<Kernel>() != cudaSuccess)
    return 0;
  dim3 cluster = clusterShape<Kernel>();
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster.x;
  attribute.val.clusterDim.y = cluster.y;
  attribute.val.clusterDim.z = cluster.z;
  cudaLaunchConfig_t config = {};
  config.gridDim = cluster;
  config.blockDim = Kernel::get_block_shape();
  config.dynamicSmemBytes = size_t(Kernel::SharedStorageSize);
  config.attrs = &attribute;
  config.numAttrs = 1;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernelEntry<Kernel>(), &config) != cudaSuccess)
    return 0;
  if (device < 64)
    known[device].store(clusters, std::memory_order_relaxed);
  return clusters;
}

/// The consumer warp groups' named barrier for the epilogue (CUTLASS's, free between tiles).
CUTLASS_DEVICE void epilogueBarrier(int threads) {
  cutlass::arch::NamedBarrier::sync(threads, cutlass::arch::ReservedNamedBarriers::EpilogueBarrier);
}

/// epilogueBarrier that also returns whether any thread's `pred` held.
CUTLASS_DEVICE bool epilogueBarrierOr(int threads, bool pred) {
  unsigned out;
  asm volatile("{\n  .reg .pred p;\n  setp.ne.u32 p, %1, 0;\n"
               "  bar.red.or.pred p, %2, %3, p;\n  selp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(out)
               : "r"(unsigned(pred)),
                 "r"(int(cutlass::arch::ReservedNamedBarriers::EpilogueBarrier)), "r"(threads)
               : "memory");
  return out != 0;
}

/// RowPass's parameters: the pass (for its combine) and the handover.
template <class Pass> struct RowPassParams {
  Pass pass;
  RowPassState state;
};

/// The root of an epilogue DAG (`Node`) that also counts each tile for the pass beside it, or,
/// `Held`, runs the pass on each tile itself.
template <class Node, class Pass, bool Held = false>
struct RowPass : NodeWith<Node, RowPassParams<Pass>> {
  using NodeWith<Node, RowPassParams<Pass>>::NodeWith;
  bool launched = false; // this thread has let the pass launch

  /// Counts a tile of row block m once this thread's stores are out (every thread's, through
  /// the barrier); the row block's last tile folds each row reduction's partials and counts once
  /// more: true there.
  CUTLASS_DEVICE bool countTile(int m, int M, int tileM, int tilesN, int thread, int threads) {
    RowPassState const &state = this->extra.state;
    __threadfence();
    epilogueBarrier(threads);
    bool last = thread == 0 && atomicAdd(state.counts + m, 1u) == unsigned(tilesN) - 1;
    if (!epilogueBarrierOr(threads, last))
      return false;
    __threadfence(); // the other tiles' partials, seen through the count
    int rows = min(tileM, M - m * tileM);
    for (int r = thread; r < rows; r += threads)
      this->extra.pass.combine((long long)m * tileM + r, tilesN);
    __threadfence();
    epilogueBarrier(threads);
    if (thread == 0)
      atomicAdd(state.counts + m, 1u);
    return true;
  }

  /// After tile (m, n)'s epilogue: count it, and combine its row block if it is the last.
  CUTLASS_DEVICE void afterTile(int m, int n, int M, int N, int tileM, int tileN, int thread,
                                int threads) {
    if (!launched) {
      asm volatile("griddepcontrol.launch_dependents;");
      launched = true;
    }
    int tilesM = (M + tileM - 1) / tileM, tilesN = (N + tileN - 1) / tileN;
    if (m >= tilesM || n >= tilesN)
      return; // a tile the scheduler pads the grid with
    // The tile's TMA stores (issued by warp 0) land before the count.
    if (thread < 32)
      asm volatile("cp.async.bulk.wait_group 0;\n  fence.proxy.async.global;" ::: "memory");
    countTile(m, M, tileM, tilesN, thread, threads);
  }

  /// Held: after tile (m, n)'s epilogue, count it once its partials are out (they are stored in
  /// its last subtile; its stores of the result need not land: nothing reads them back), and
  /// unless it combined its row block, wait for that. False for a tile the scheduler pads the
  /// grid with.
  CUTLASS_DEVICE bool awaitRowBlock(int m, int n, int M, int N, int tileM, int tileN, int thread,
                                    int threads) {
    int tilesM = (M + tileM - 1) / tileM, tilesN = (N + tileN - 1) / tileN;
    if (m >= tilesM || n >= tilesN)
      return false;
    if (!countTile(m, M, tileM, tilesN, thread, threads)) {
      if (thread == 0)
        awaitRows(this->extra.state.counts + m, unsigned(tilesN) + 1);
      epilogueBarrier(threads);
    }
    return true;
  }

  template <class Inner> struct Callbacks : Inner {
    CUTLASS_DEVICE Callbacks(Inner &&inner, RowPass *node, int m, int n, int M, int N, int tileM,
                             int tileN, int thread, int threads)
        : Inner(static_cast<Inner &&>(inner)), node(node), m(m), n(n), M(M), N(N), tileM(tileM),
          tileN(tileN), thread(thread), threads(threads) {}
    RowPass *node;
    int m, n, M, N, tileM, tileN, thread, threads;
    CUTLASS_DEVICE void end() {
      Inner::end();
      if (node->extra.state.counts)
        node->afterTile(m, n, M, N, tileM, tileN, thread, threads);
    }
  };

  /// Held: the callbacks also keep every value the DAG's root stores, rounded as stored (16-bit
  /// pairs), indexed by subtile and fragment: the epilogue's loops are unrolled, so the index is
  /// a constant and the values stay in registers (as the accumulators they replace did).
  template <class Inner, class Coords> struct HeldCallbacks : Callbacks<Inner> {
    using Shape = decltype(cute::shape(std::declval<decltype(Coords::tCcD) const &>()));
    static constexpr int kPerSubtile = decltype(cute::size(cute::take<0, 3>(Shape{})))::value;
    static constexpr int kSubtilesM = decltype(cute::size<3>(Shape{}))::value;
    static constexpr int kSubtiles = kSubtilesM * decltype(cute::size<4>(Shape{}))::value;
    static constexpr int kPairs = kPerSubtile * kSubtiles / 2;
    static_assert(kPairs % 4 == 0, "a thread holds whole 8-column steps, four pairs at a time");

    CUTLASS_DEVICE HeldCallbacks(Callbacks<Inner> &&base, Coords coords)
        : Callbacks<Inner>(static_cast<Callbacks<Inner> &&>(base)), coords(coords) {}
    Coords coords;
    __nv_bfloat162 held[kPairs];

    template <class ElementAcc, int F>
    CUTLASS_DEVICE auto visit(Array<ElementAcc, F> const &frg_acc, int epi_v, int epi_m,
                              int epi_n) {
      static_assert(F % 2 == 0, "fragments of column pairs");
      auto out = Inner::visit(frg_acc, epi_v, epi_m, epi_n);
      int first = ((epi_n * kSubtilesM + epi_m) * kPerSubtile + epi_v * F) / 2;
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < F / 2; ++i)
        held[first + i] = __floats2bfloat162_rn(float(out[2 * i]), float(out[2 * i + 1]));
      return out;
    }

    /// The (row, column) of held element `e` (pair e / 2) relative to the fragments' first.
    CUTLASS_DEVICE void elementAt(int e, int &row, int &col) const {
      int subtile = e / kPerSubtile;
      auto rc = coords.tCcD(cute::_, cute::_, cute::_, subtile % kSubtilesM,
                            subtile / kSubtilesM)(e % kPerSubtile);
      row = int(cute::get<0>(rc));
      col = int(cute::get<1>(rc));
    }

    CUTLASS_DEVICE void end() {
      Inner::end();
      if (!this->node->extra.state.counts || // the kernel alone: no pass
          !this->node->awaitRowBlock(this->m, this->n, this->M, this->N, this->tileM,
                                     this->tileN, this->thread, this->threads))
        return;
      // The lane and the fragments' first element, opaque to the compiler: the steps' index
      // math stays here, after the wait, instead of holding registers through the mainloop
      // (the accumulators leave none to spare there).
      int lane, m0, n0;
      asm volatile("mov.u32 %0, %%laneid;\n  mov.b32 %1, %3;\n  mov.b32 %2, %4;"
                   : "=r"(lane), "=r"(m0), "=r"(n0)
                   : "r"(coords.m0), "r"(coords.n0));
      // The accumulator layout of wgmma: the four lanes of a quad hold, in each of their pairs
      // in turn, the same row's eight consecutive columns, two each in lane order. A 4×4
      // exchange in the quad gives each lane one whole 8-column step of every four pairs.
      int q = lane % 4;
      int row0, col0, row1, col1;
      elementAt(0, row0, col0);
      elementAt(1, row1, col1);
      if ((n0 + col0) % 8 != 2 * q || row1 != row0 || col1 != col0 + 1)
        __trap(); // a fragment layout this pass was not written for
      Pass const &pass = this->node->extra.pass;
      CUTLASS_PRAGMA_UNROLL
      for (int g = 0; g < kPairs / 4; ++g) {
        unsigned mine[4], got[4];
        CUTLASS_PRAGMA_UNROLL
        for (int k = 0; k < 4; ++k)
          mine[k] = reinterpret_cast<unsigned const &>(held[4 * g + k]);
        // Round r: lane q reads from lane q + r (in the quad), which sends its pair of index
        // q, its own index less r.
        CUTLASS_PRAGMA_UNROLL
        for (int r = 0; r < 4; ++r) {
          int send = (q - r) & 3;
          unsigned word = send == 0 ? mine[0] : send == 1 ? mine[1] : send == 2 ? mine[2] : mine[3];
          got[r] = __shfl_sync(0xffffffffu, word, (lane & ~3) | ((q + r) & 3));
        }
        int row = 0, col = 0;
        CUTLASS_PRAGMA_UNROLL
        for (int k = 0; k < 4; ++k) {
          int r_, c_;
          elementAt(2 * (4 * g + k), r_, c_);
          if (k == q)
            row = r_, col = c_;
        }
        Vec8 h;
        CUTLASS_PRAGMA_UNROLL
        for (int p = 0; p < 4; ++p) { // columns 2p, 2p + 1 of the step came in round p − q
          int r = (p - q) & 3;
          unsigned word = r == 0 ? got[0] : r == 1 ? got[1] : r == 2 ? got[2] : got[3];
          float2 v = __bfloat1622float2(reinterpret_cast<__nv_bfloat162 const &>(word));
          h.v[2 * p] = v.x;
          h.v[2 * p + 1] = v.y;
        }
        row += m0;
        col += n0;
        col -= col % 8;
        if (row < this->M && col < this->N) {
          long long point = (long long)row * Pass::kSteps + col / 8;
          pass.finish(point, pass.held(point, h));
        }
      }
    }
  };

  template <bool ReferenceSrc, class... A>
  CUTLASS_DEVICE auto
  get_consumer_store_callbacks(cutlass::epilogue::fusion::detail::ConsumerStoreArgs<A...> const &args) {
    auto inner = Node::template get_consumer_store_callbacks<ReferenceSrc>(args);
    auto [M, N, K, L] = args.problem_shape_mnkl;
    Callbacks<decltype(inner)> callbacks(
        static_cast<decltype(inner) &&>(inner), this, int(cute::get<0>(args.tile_coord_mnkl)),
        int(cute::get<1>(args.tile_coord_mnkl)), int(M), int(N),
        int(cute::get<0>(args.tile_shape_mnk)), int(cute::get<1>(args.tile_shape_mnk)),
        int(args.thread_idx), int(cute::size(args.tiled_mma)));
    if constexpr (Held) {
      auto coords = fragmentCoords(args);
      return HeldCallbacks<decltype(inner), decltype(coords)>(
          static_cast<Callbacks<decltype(inner)> &&>(callbacks), coords);
    } else {
      return callbacks;
    }
  }
};

/// The pass over rows [r0, r1): its steps shared among the block's threads, eight steps' loads
/// in flight per thread before their math and stores.
template <class Pass> __device__ void passRows(Pass const &pass, long long r0, long long r1) {
  constexpr int kAhead = 8;
  long long first = r0 * Pass::kSteps, total = (r1 - r0) * Pass::kSteps;
  long long i = threadIdx.x, threads = blockDim.x;
  for (; i + (kAhead - 1) * threads < total; i += kAhead * threads) {
    typename Pass::Loaded in[kAhead];
#pragma unroll
    for (int a = 0; a < kAhead; ++a)
      in[a] = pass.load(first + i + a * threads);
#pragma unroll
    for (int a = 0; a < kAhead; ++a)
      pass.finish(first + i + a * threads, in[a]);
  }
  for (; i < total; i += threads)
    pass.finish(first + i, pass.load(first + i));
}

/// The pass beside the GEMM: each CTA takes the next row block, waits until its rows are
/// complete, and runs the generic over them.
template <class Pass>
__global__ void __launch_bounds__(512) rowPassBeside(Pass pass, RowPassState state, int M,
                                                      int tileM, int tilesN) {
  __shared__ int block;
  int tilesM = (M + tileM - 1) / tileM;
  while (true) {
    if (threadIdx.x == 0) {
      block = int(atomicAdd(state.next, 1u));
      if (block < tilesM)
        awaitRows(state.counts + block, unsigned(tilesN) + 1);
    }
    __syncthreads();
    int m = block;
    if (m >= tilesM)
      return;
    passRows(pass, (long long)m * tileM, min((long long)M, (long long)(m + 1) * tileM));
    __syncthreads(); // before `block` changes
  }
}

/// Launches the pass right behind the GEMM on `stream` (programmatic dependent launch): two
/// CTAs of 512 threads per SM at most, none more than there are row blocks.
template <class Pass>
inline cudaError_t launchRowPassBeside(Pass const &pass, RowPassState const &state, int m, int n,
                                       int tileM, int tileN, cudaStream_t stream) {
  int tilesM = (m + tileM - 1) / tileM, tilesN = (n + tileN - 1) / tileN;
  int sms = smCount();
  dim3 grid(unsigned(sms > 0 && 2 * sms < tilesM ? 2 * sms : tilesM));
  return launchProgrammatic(rowPassBeside<Pass>, grid, dim3(512), stream, pass, state, m, tileM,
                            tilesN);
}

} // namespace coda::rt

#endif // CODA_RUNTIME_ROWPASS_CUH
