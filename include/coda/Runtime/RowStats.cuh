//===- RowStats.cuh - row statistics of A computed in the GEMM mainloop ---===//
//
// A coda.gemm with `row_sum` / `row_sumsq` operands of its own A needs, per row i, Σ_k A[i,k]
// and/or Σ_k A[i,k]² (RMSNorm's and LayerNorm's statistics, reparametrized into the epilogue).
// Every k-tile of the CTA's rows of A passes through shared memory on its way to the tensor
// cores, so the consumer warps sum it there while the asynchronous wgmma of the same stage runs:
// no pass over A in global memory before the GEMM. (On the H200 this costs the mainloop more
// than the pass it saves, so --coda-fuse asks for it only with mainloop-row-stats=true.)
//
//   RowStatsMainloop<Base, Stats>  CUTLASS's sm90 TMA warp-specialized mainloop (Base, as its
//                       CollectiveBuilder made it) whose consumer loop also sums the rows of
//                       each A stage before releasing it, and at the end of a tile publishes the
//                       sums in shared memory.
//   RowStat<Stats, S>   an epilogue visitor leaf: statistic S of each element's row, read there.
//
// Stats<TileM, Threads, PerWarpGroup, Sum, SumSq> fixes the layout both share: the consumer
// threads that work on one tile (256 cooperative, 128 per warp group in ping-pong, where each
// warp group has a buffer of its own), split into Threads / TileM parts of A's 16-byte chunks per
// row. Consecutive threads take consecutive rows, so a quarter warp reads one chunk of 8 rows:
// 8 different bank groups under the 128-byte swizzle.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_ROWSTATS_CUH
#define CODA_RUNTIME_ROWSTATS_CUH

#include "coda/Runtime/Epilogue.cuh"
#include "cutlass/arch/barrier.h"

namespace coda::rt {

enum class Stat { Sum = 0, SumSq = 1 };

template <int TileM, int Threads, bool PerWarpGroup, bool HasSum, bool HasSumSq> struct Stats {
  static constexpr int kTileM = TileM, kThreads = Threads;
  static_assert(Threads % TileM == 0, "every row needs at least one thread");
  static constexpr int kParts = Threads / TileM;
  static constexpr int kSlots = PerWarpGroup ? 2 : 1;
  static constexpr bool kSum = HasSum, kSumSq = HasSumSq;
  static constexpr int kStats = 2;
  /// Bytes of shared memory the buffer takes (for the mainloop's stage-count carveout).
  static constexpr int kBytes = kSlots * kParts * kStats * TileM * int(sizeof(float));

  /// This CTA's buffer: [slot][part][stat][row]. A function-local __shared__ array, so that the
  /// mainloop and the epilogue of one kernel see the same one.
  CUTLASS_DEVICE static float *buffer() {
    __shared__ float storage[kSlots * kParts * kStats * TileM];
    return storage;
  }
  /// The slot of the calling consumer thread: its warp group's in ping-pong (warp groups 1 and
  /// 2 consume; 0 produces), else the one shared slot.
  CUTLASS_DEVICE static int slot() {
    return PerWarpGroup ? cutlass::canonical_warp_group_idx() - 1 : 0;
  }
  CUTLASS_DEVICE static float *at(int slot, int part, Stat s, int row) {
    return buffer() + ((slot * kParts + part) * kStats + int(s)) * TileM + row;
  }
  /// Statistic s of tile row `row` (its parts summed into part 0 by the mainloop).
  CUTLASS_DEVICE static float read(Stat s, int row) { return *at(slot(), 0, s, row); }
  /// A barrier of the threads of one tile (a warp group's in ping-pong), with a constant id:
  /// CUTLASS's user barriers 0 and 1 (it numbers them after the ones it reserves). The barrier
  /// also makes every thread's loads of the last stage done before CUTLASS's mma_tail releases
  /// it.
  CUTLASS_DEVICE static void sync() {
    if (slot() == 0)
      cutlass::arch::NamedBarrier::sync(Threads, 0);
    else
      cutlass::arch::NamedBarrier::sync(Threads, 1);
  }
};

template <class Base, class S> struct RowStatsMainloop : Base {
  using typename Base::MainloopPipeline;
  using typename Base::Params;
  using typename Base::PipelineState;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::TensorStorage;
  using typename Base::TiledMma;
  using ElementA = typename TiledMma::ValTypeA;
  static constexpr int kChunk = 16 / int(sizeof(ElementA)); // elements per 16-byte load
  static constexpr int kTileK = int(cute::size<1>(SmemLayoutA{}));
  static_assert(int(cute::size<0>(SmemLayoutA{})) == S::kTileM, "stats for another tile");
  static_assert(kTileK % (kChunk * S::kParts) == 0, "a part is a whole number of chunks");
  static_assert(Base::K_PIPE_MMAS == 1, "the loop below keeps one wgmma batch in flight");

  /// One thread's running sums for its row and part.
  struct Partial {
    int row, part;
    float sum = 0.f, sumsq = 0.f;

    /// Adds this thread's part of its row of the A stage. All loads first, then per chunk a
    /// pairwise sum (short dependency chains), then the chunks in order: deterministic.
    template <class SmemA> CUTLASS_DEVICE void add(SmemA const &sA, int stage) {
      constexpr int chunks = kTileK / kChunk / S::kParts;
      uint32_t w[chunks][4];
      CUTLASS_PRAGMA_UNROLL
      for (int c = 0; c < chunks; ++c) {
        int k = (part * chunks + c) * kChunk;
        // 8 (4) consecutive k stay contiguous under the swizzle, which moves 16-byte chunks: one
        // 16-byte shared-memory load each.
        uint32_t at = cute::cast_smem_ptr_to_uint(&sA(row, k, stage));
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(w[c][0]), "=r"(w[c][1]), "=r"(w[c][2]), "=r"(w[c][3])
                     : "r"(at));
      }
      CUTLASS_PRAGMA_UNROLL
      for (int c = 0; c < chunks; ++c) {
        cutlass::Array<ElementA, kChunk> v;
        memcpy(&v, w[c], sizeof(v)); // the words as elements, without breaking aliasing rules
        auto f = cutlass::NumericArrayConverter<float, ElementA, kChunk>{}(v);
        if constexpr (S::kSum)
          sum += pairwiseSum(f, [](float x) { return x; });
        if constexpr (S::kSumSq)
          sumsq += pairwiseSum(f, [](float x) { return x * x; });
      }
    }

    template <class F>
    CUTLASS_DEVICE static float pairwiseSum(cutlass::Array<float, kChunk> const &x, F f) {
      float t[kChunk];
      CUTLASS_PRAGMA_UNROLL
      for (int e = 0; e < kChunk; ++e)
        t[e] = f(x[e]);
      CUTLASS_PRAGMA_UNROLL
      for (int w = kChunk / 2; w > 0; w /= 2)
        CUTLASS_PRAGMA_UNROLL
        for (int e = 0; e < w; ++e)
          t[e] += t[e + w];
      return t[0];
    }

    /// Writes the sums where the epilogue reads them: after every thread of the tile is past the
    /// previous tile's epilogue, and before any starts this one's. Part 0 of each row then adds
    /// the other parts, in part order (deterministic), so that the epilogue reads one value.
    CUTLASS_DEVICE void publish() const {
      S::sync();
      int slot = S::slot();
      if constexpr (S::kSum)
        *S::at(slot, part, Stat::Sum, row) = sum;
      if constexpr (S::kSumSq)
        *S::at(slot, part, Stat::SumSq, row) = sumsq;
      if constexpr (S::kParts > 1) {
        S::sync();
        if (part == 0) {
          float total[2] = {sum, sumsq};
          CUTLASS_PRAGMA_UNROLL
          for (int p = 1; p < S::kParts; ++p) {
            if constexpr (S::kSum)
              total[0] += *S::at(slot, p, Stat::Sum, row);
            if constexpr (S::kSumSq)
              total[1] += *S::at(slot, p, Stat::SumSq, row);
          }
          if constexpr (S::kSum)
            *S::at(slot, 0, Stat::Sum, row) = total[0];
          if constexpr (S::kSumSq)
            *S::at(slot, 0, Stat::SumSq, row) = total[1];
        }
      }
      S::sync();
    }
  };

  /// A barrier of the calling consumer warp group (consumer warp groups are 1 and 2, in both
  /// schedules): CUTLASS's user barriers 2 and 3.
  CUTLASS_DEVICE static void warpGroupSync() {
    if (cutlass::canonical_warp_group_idx() == 1)
      cutlass::arch::NamedBarrier::sync(cutlass::NumThreadsPerWarpGroup, 2);
    else
      cutlass::arch::NamedBarrier::sync(cutlass::NumThreadsPerWarpGroup, 3);
  }

  /// CUTLASS's consumer loop (one wgmma batch in flight, each stage released once the batch
  /// after it is issued), with the row sums of each A stage taken while its wgmma runs. One
  /// thread per warp group releases a stage, as soon as the stage's wgmma is complete, which
  /// only needs every warp to have issued it: the warp group's barrier before the release
  /// makes sure every warp's loads of the stage are done too.
  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState read, FrgTensorC &accum,
                          int k_tile_count, int thread_idx, TensorStorage &storage,
                          Params const &) {
    using namespace cute;
    Tensor sA = make_tensor(make_smem_ptr(storage.smem_A.data()), SmemLayoutA{}); // (M, K, PIPE)
    Tensor sB = make_tensor(make_smem_ptr(storage.smem_B.data()), SmemLayoutB{}); // (N, K, PIPE)
    TiledMma tiled_mma;
    int warp_group = __shfl_sync(0xffffffff, thread_idx / cutlass::NumThreadsPerWarpGroup, 0);
    auto thread_mma = tiled_mma.get_slice(warp_group * cutlass::NumThreadsPerWarpGroup);
    Tensor tCrA = thread_mma.make_fragment_A(thread_mma.partition_A(sA)); // (MMA, M, K, PIPE)
    Tensor tCrB = thread_mma.make_fragment_B(thread_mma.partition_B(sB)); // (MMA, N, K, PIPE)
    Partial partial{thread_idx % S::kTileM, thread_idx / S::kTileM};

    PipelineState release = read;
    warpgroup_fence_operand(accum);
    {
      pipeline.consumer_wait(read, pipeline.consumer_try_wait(read));
      int stage = read.index();
      warpgroup_arrive();
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      CUTLASS_PRAGMA_UNROLL
      for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
        cute::gemm(tiled_mma, tCrA(_, _, k_block, stage), tCrB(_, _, k_block, stage), accum);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      partial.add(sA, stage);
      ++read;
    }
    warpgroup_fence_operand(accum);
    CUTLASS_PRAGMA_NO_UNROLL
    for (--k_tile_count; k_tile_count > 0; --k_tile_count) {
      pipeline.consumer_wait(read, pipeline.consumer_try_wait(read));
      int stage = read.index();
      warpgroup_fence_operand(accum);
      warpgroup_arrive();
      cute::gemm(tiled_mma, tCrA(_, _, _, stage), tCrB(_, _, _, stage), accum);
      warpgroup_commit_batch();
      partial.add(sA, stage);
      warpgroup_wait<1>();
      warpgroup_fence_operand(accum);
      warpGroupSync();
      pipeline.consumer_release(release);
      ++read;
      ++release;
    }
    warpgroup_fence_operand(accum);
    partial.publish();
  }
};

/// Statistic St of each element's row, from the buffer RowStatsMainloop<_, S> filled.
template <class S, Stat St> struct RowStatCallbacks {
  template <class Coords> struct type : EmptyConsumerStoreCallbacks {
    CUTLASS_DEVICE type(Coords coords, NoArguments const &) : coords(coords) {}
    Coords coords;

    template <class ElementAcc, int F>
    CUTLASS_DEVICE Array<float, F> visit(Array<ElementAcc, F> const &, int epi_v, int epi_m,
                                         int epi_n) {
      Array<int, F> rows, cols;
      coords.get(epi_v, epi_m, epi_n, rows, cols);
      Array<float, F> out;
      // Tiles start at multiples of the tile: a global row's place in its tile.
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < F; ++i)
        out[i] = S::read(St, rows[i] % S::kTileM);
      return out;
    }
  };
};
template <class S, Stat St>
struct RowStat : CoordNode<RowStatCallbacks<S, St>::template type, NoArguments> {
  using CoordNode<RowStatCallbacks<S, St>::template type, NoArguments>::CoordNode;
};

} // namespace coda::rt

#endif // CODA_RUNTIME_ROWSTATS_CUH
