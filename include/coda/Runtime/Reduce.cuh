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
template <Combiner C, class P>
__global__ void combinePartials(const P *part, float *out, int count, int tiles, long long pitch,
                                int group) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= count)
    return;
  P acc = part[o * group];
  for (int t = 0; t < tiles; ++t)
    for (int g = 0; g < group; ++g) {
      if (t == 0 && g == 0)
        continue;
      P v = part[t * pitch + (long long)o * group + g];
      if constexpr (C == Combiner::Sum)
        acc = acc + v;
      else if constexpr (C == Combiner::Max)
        acc = fmaxf(acc, v);
      else
        acc = combineLse(acc, v);
    }
  if constexpr (C == Combiner::Lse)
    out[o] = acc.m + __logf(acc.s);
  else
    out[o] = acc;
}

template <Combiner C, class P>
inline cudaError_t launchCombine(const void *part, float *out, int count, int tiles,
                                 long long pitch, int group, cudaStream_t stream) {
  if (count <= 0)
    return cudaSuccess;
  int threads = 256;
  combinePartials<C, P><<<(count + threads - 1) / threads, threads, 0, stream>>>(
      static_cast<const P *>(part), out, count, tiles, pitch, group);
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
