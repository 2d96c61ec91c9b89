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
// `Pass` is generated per kernel: the generic's operands, `kSteps` steps of 8 elements per row,
// `load(point)` (a step's loads) and `finish(point, loaded)` (its math and stores), and
// `combine(row, tiles)` (the row reductions of one row, from their partials).
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_ROWPASS_CUH
#define CODA_RUNTIME_ROWPASS_CUH

#include <cuda_runtime.h>

#include "cutlass/arch/barrier.h"
#include "coda/Runtime/Overlap.cuh"

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

/// The root of an epilogue DAG (`Node`) that also counts each tile for the pass beside it.
template <class Node, class Pass> struct RowPass : NodeWith<Node, RowPassParams<Pass>> {
  using NodeWith<Node, RowPassParams<Pass>>::NodeWith;
  bool launched = false; // this thread has let the pass launch

  /// After tile (m, n)'s epilogue: count it, and combine its row block if it is the last.
  CUTLASS_DEVICE void afterTile(int m, int n, int M, int N, int tileM, int tileN, int thread,
                                int threads) {
    if (!launched) {
      asm volatile("griddepcontrol.launch_dependents;");
      launched = true;
    }
    RowPassState const &state = this->extra.state;
    int tilesM = (M + tileM - 1) / tileM, tilesN = (N + tileN - 1) / tileN;
    if (m >= tilesM || n >= tilesN)
      return; // a tile the scheduler pads the grid with
    // The tile's TMA stores (issued by warp 0) land, then every thread's stores are published
    // before the count.
    if (thread < 32)
      asm volatile("cp.async.bulk.wait_group 0;\n  fence.proxy.async.global;" ::: "memory");
    __threadfence();
    epilogueBarrier(threads);
    bool last = thread == 0 && atomicAdd(state.counts + m, 1u) == unsigned(tilesN) - 1;
    if (!epilogueBarrierOr(threads, last))
      return;
    __threadfence(); // the other tiles' partials, seen through the count
    int rows = min(tileM, M - m * tileM);
    for (int r = thread; r < rows; r += threads)
      this->extra.pass.combine((long long)m * tileM + r, tilesN);
    __threadfence();
    epilogueBarrier(threads);
    if (thread == 0)
      atomicAdd(state.counts + m, 1u);
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

  template <bool ReferenceSrc, class... A>
  CUTLASS_DEVICE auto
  get_consumer_store_callbacks(cutlass::epilogue::fusion::detail::ConsumerStoreArgs<A...> const &args) {
    auto inner = Node::template get_consumer_store_callbacks<ReferenceSrc>(args);
    auto [M, N, K, L] = args.problem_shape_mnkl;
    return Callbacks<decltype(inner)>(
        static_cast<decltype(inner) &&>(inner), this, int(cute::get<0>(args.tile_coord_mnkl)),
        int(cute::get<1>(args.tile_coord_mnkl)), int(M), int(N),
        int(cute::get<0>(args.tile_shape_mnk)), int(cute::get<1>(args.tile_shape_mnk)),
        int(args.thread_idx), int(cute::size(args.tiled_mma)));
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
