//===- Reduce.cuh - deterministic row/column reductions of epilogues ------===//
//
// coda's reductions are computed in two steps: the GEMM epilogue writes one partial per output
// tile (CUTLASS's Sm90ColReduction / Sm90RowReduction with FinalReduction = false, which reduce
// inside a tile in a fixed order), and a small kernel launched right after the GEMM combines the
// partials of each row (or column) in tile order. No atomics: the result is bitwise the same from
// run to run.
//
// The combiners work on fp32, and on MaxSum for the online log-sum-exp: a partial (m, s) stands
// for s·e^m, so two partials combine as (M, s1·e^(m1−M) + s2·e^(m2−M)) with M = max(m1, m2).
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_REDUCE_CUH
#define CODA_RUNTIME_REDUCE_CUH

#include <cuda_runtime.h>
#include <cmath>


#include "cutlass/array.h"
#include "cutlass/numeric_conversion.h"

namespace coda::rt {

/// An online log-sum-exp partial: the value s·e^m.
struct alignas(8) MaxSum {
  float m;
  float s;
  MaxSum() = default;
  CUTLASS_HOST_DEVICE MaxSum(float m, float s) : m(m), s(s) {}
  /// CUTLASS spells a default reduction identity ElementCompute(0): the empty partial.
  CUTLASS_HOST_DEVICE explicit MaxSum(int) : m(-INFINITY), s(0.f) {}
};

CUTLASS_DEVICE MaxSum combineLse(MaxSum a, MaxSum b) {
  float m = fmaxf(a.m, b.m);
  if (m == -INFINITY)
    return {m, 0.f};
  return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

/// Binary combiners as CUTLASS's reduction nodes expect them: on elements and on fragments.
template <class T> struct Sum {
  CUTLASS_HOST_DEVICE T operator()(T const &a, T const &b) const { return a + b; }
};
template <class T> struct Max {
  CUTLASS_HOST_DEVICE T operator()(T const &a, T const &b) const { return fmaxf(a, b); }
};
template <class T> struct Lse {
  CUTLASS_DEVICE T operator()(T const &a, T const &b) const { return combineLse(a, b); }
};
template <template <class> class Op, class T, int N> struct Elementwise {
  CUTLASS_HOST_DEVICE cutlass::Array<T, N> operator()(cutlass::Array<T, N> const &a,
                                                      cutlass::Array<T, N> const &b) const {
    cutlass::Array<T, N> out;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i)
      out[i] = Op<T>{}(a[i], b[i]);
    return out;
  }
};
template <class T, int N> struct Sum<cutlass::Array<T, N>> : Elementwise<Sum, T, N> {};
template <class T, int N> struct Max<cutlass::Array<T, N>> : Elementwise<Max, T, N> {};
template <class T, int N> struct Lse<cutlass::Array<T, N>> : Elementwise<Lse, T, N> {};

enum class Combiner { Sum, Max, Lse };

/// Combines the partials of `part` for `count` outputs. Output o reads `group` consecutive
/// partial slots (2 for a pairwise-contracted column reduction, where the odd column holds the
/// identity) in each of `tiles` tiles: slot (t, o·group + g) at t·pitch + o·group + g.
/// A block of R × 32 threads takes 32 outputs: row y of the block folds tiles y, y + R, ...
/// (neighbouring threads read neighbouring slots), then row 0 folds the rows in order. R is 8,
/// or 32 from 128 tiles on (an LM head's 501 tiles: 16 partials per thread instead of 63, four
/// times the threads for a latency-bound fold). The order is fixed by the tile count: the
/// result is the same from run to run.
constexpr int kCombineRows = 8, kCombineRowsMany = 32, kManyTiles = 128;
inline int combineRows(int tiles) { return tiles >= kManyTiles ? kCombineRowsMany : kCombineRows; }

template <Combiner C, class P> __device__ __forceinline__ P combine(P a, P b) {
  if constexpr (C == Combiner::Sum)
    return a + b;
  else if constexpr (C == Combiner::Max)
    return fmaxf(a, b);
  else
    return combineLse(a, b);
}

/// The reduction's value from its combined partial: a log-sum-exp's is m + log s.
template <Combiner C, class P> __device__ __forceinline__ float finalValue(P acc) {
  if constexpr (C == Combiner::Lse)
    return acc.m + __logf(acc.s);
  else
    return acc;
}

template <Combiner C, class P>
__global__ void combinePartials(const P *part, float *out, int count, int tiles, long long pitch,
                                int group) {
  __shared__ P rows[kCombineRowsMany][32];
  int o = blockIdx.x * 32 + threadIdx.x, y = threadIdx.y, ys = blockDim.y;
  P acc = part[0]; // replaced below: a thread folds at least one slot
  bool any = false;
  if (o < count)
#pragma unroll 4
    for (int t = y; t < tiles; t += ys)
      for (int g = 0; g < group; ++g) {
        P v = part[t * pitch + (long long)o * group + g];
        acc = any ? combine<C>(acc, v) : v;
        any = true;
      }
  rows[y][threadIdx.x] = acc;
  __syncthreads();
  if (y != 0 || o >= count)
    return;
  for (int r = 1; r < ys && r < tiles; ++r)
    acc = combine<C>(acc, rows[r][threadIdx.x]);
  out[o] = finalValue<C>(acc);
}

template <Combiner C, class P>
inline cudaError_t launchCombine(const void *part, float *out, int count, int tiles,
                                 long long pitch, int group, cudaStream_t stream) {
  if (count <= 0)
    return cudaSuccess;
  dim3 grid((count + 31) / 32), block(32, combineRows(tiles));
  combinePartials<C, P><<<grid, block, 0, stream>>>(static_cast<const P *>(part), out, count,
                                                    tiles, pitch, group);
  return cudaGetLastError();
}

} // namespace coda::rt

namespace cutlass {
/// A value x enters a log-sum-exp as the partial (x, 1); −∞ (a masked or padding value) as the
/// empty partial.
template <FloatRoundStyle Round> struct NumericConverter<coda::rt::MaxSum, float, Round> {
  using result_type = coda::rt::MaxSum;
  using source_type = float;
  CUTLASS_DEVICE static result_type convert(source_type const &x) {
    return {x, x == -INFINITY ? 0.f : 1.f};
  }
  CUTLASS_DEVICE result_type operator()(source_type const &x) const { return convert(x); }
};
} // namespace cutlass

#endif // CODA_RUNTIME_REDUCE_CUH
