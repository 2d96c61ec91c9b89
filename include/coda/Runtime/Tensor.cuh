//===- Tensor.cuh - element access for coda's generated data movement -----===//
//
// The code --coda-to-cuda writes for the parts of a function outside coda.gemm kernels (weight
// preparation: column permutations, interleaving, diag(γ)·W, column sums; table gathers) reads
// and writes dense row-major buffers through these overloads: arithmetic runs in fp32 (or the
// integer type), storage keeps the tensor's element type.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_TENSOR_CUH
#define CODA_RUNTIME_TENSOR_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace coda::rt {

__device__ __forceinline__ float load(const float *p, long long i) { return p[i]; }
__device__ __forceinline__ float load(const __nv_bfloat16 *p, long long i) {
  return __bfloat162float(p[i]);
}
__device__ __forceinline__ float load(const __half *p, long long i) { return __half2float(p[i]); }
__device__ __forceinline__ long long load(const long long *p, long long i) { return p[i]; }
__device__ __forceinline__ int load(const int *p, long long i) { return p[i]; }
__device__ __forceinline__ bool load(const bool *p, long long i) { return p[i]; }
__device__ __forceinline__ signed char load(const signed char *p, long long i) { return p[i]; }

__device__ __forceinline__ void store(float *p, long long i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__nv_bfloat16 *p, long long i, float v) {
  p[i] = __float2bfloat16_rn(v);
}
__device__ __forceinline__ void store(__half *p, long long i, float v) { p[i] = __float2half_rn(v); }
__device__ __forceinline__ void store(long long *p, long long i, long long v) { p[i] = v; }
__device__ __forceinline__ void store(int *p, long long i, int v) { p[i] = v; }
__device__ __forceinline__ void store(bool *p, long long i, bool v) { p[i] = v; }
__device__ __forceinline__ void store(signed char *p, long long i, signed char v) { p[i] = v; }

/// Eight consecutive elements in fp32: what a generic kernel moves per 16-byte access (two
/// for f32) along the contiguous last dimension. `i` is a multiple of 8 and the buffer 16-byte
/// aligned (the launcher checks the pointers; the emitter, the shapes).
struct Vec8 {
  float v[8];
};

__device__ __forceinline__ Vec8 load8(const float *p, long long i) {
  float4 a = *reinterpret_cast<const float4 *>(p + i), b = *reinterpret_cast<const float4 *>(p + i + 4);
  return {{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w}};
}
__device__ __forceinline__ void store8(float *p, long long i, const Vec8 &x) {
  *reinterpret_cast<float4 *>(p + i) = make_float4(x.v[0], x.v[1], x.v[2], x.v[3]);
  *reinterpret_cast<float4 *>(p + i + 4) = make_float4(x.v[4], x.v[5], x.v[6], x.v[7]);
}

/// 16-bit floats travel as four pairs in one 16-byte word.
template <class T> struct Pair;
template <> struct Pair<__nv_bfloat16> {
  using type = __nv_bfloat162;
  static __device__ __forceinline__ float2 widen(type x) { return __bfloat1622float2(x); }
  static __device__ __forceinline__ type narrow(float a, float b) { return __floats2bfloat162_rn(a, b); }
};
template <> struct Pair<__half> {
  using type = __half2;
  static __device__ __forceinline__ float2 widen(type x) { return __half22float2(x); }
  static __device__ __forceinline__ type narrow(float a, float b) { return __floats2half2_rn(a, b); }
};

template <class T> __device__ __forceinline__ Vec8 load8(const T *p, long long i) {
  uint4 raw = *reinterpret_cast<const uint4 *>(p + i);
  const auto *pairs = reinterpret_cast<const typename Pair<T>::type *>(&raw);
  Vec8 out;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    float2 f = Pair<T>::widen(pairs[k]);
    out.v[2 * k] = f.x;
    out.v[2 * k + 1] = f.y;
  }
  return out;
}
template <class T> __device__ __forceinline__ void store8(T *p, long long i, const Vec8 &x) {
  uint4 raw;
  auto *pairs = reinterpret_cast<typename Pair<T>::type *>(&raw);
#pragma unroll
  for (int k = 0; k < 4; ++k)
    pairs[k] = Pair<T>::narrow(x.v[2 * k], x.v[2 * k + 1]);
  *reinterpret_cast<uint4 *>(p + i) = raw;
}

/// Copies 8 consecutive elements, bytes as they are, in the widest accesses they fill (the
/// launcher checks that the buffers are 16-byte aligned; the elements start at a multiple of 8).
template <class T> __device__ __forceinline__ void copy8(T *dst, const T *src) {
  constexpr int kBytes = 8 * sizeof(T);
  if constexpr (kBytes % 16 == 0) {
#pragma unroll
    for (int i = 0; i < kBytes / 16; ++i)
      reinterpret_cast<uint4 *>(dst)[i] = reinterpret_cast<const uint4 *>(src)[i];
  } else {
    static_assert(kBytes == 8, "8 elements of 1, 2, 4 or 8 bytes");
    *reinterpret_cast<uint2 *>(dst) = *reinterpret_cast<const uint2 *>(src);
  }
}

/// out[i, h P + d + o P/2] = in[i, h P + 2d + o] (row i, head h, d < P/2, o = 0, 1; `in` packed,
/// `out` rows ldOut apart): a pairwise(rotate, halves P) result, stored by the GEMM with each
/// rotated pair side by side, moved into the halves of its head. A thread moves 8 pairs of 16-bit
/// values (one 32-byte load, two 16-byte stores) where the half head holds whole groups of 8.
template <class T, int P> constexpr int kPairsPerThread = sizeof(T) == 2 && (P / 2) % 8 == 0 ? 8 : 1;

template <class T, int P>
__global__ void pairsToHalves(const T *__restrict__ in, T *__restrict__ out, int m, int n,
                              long long ldOut) {
  constexpr int kPairs = kPairsPerThread<T, P>;
  long long groupsPerRow = n / 2 / kPairs;
  long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  long long row = t / groupsPerRow, p = t % groupsPerRow * kPairs;
  if (row >= m)
    return;
  const T *src = in + row * n + 2 * p;
  T *even = out + row * ldOut + p / (P / 2) * P + p % (P / 2), *odd = even + P / 2;
  if constexpr (kPairs == 8) {
    uint4 raw[2] = {reinterpret_cast<const uint4 *>(src)[0], reinterpret_cast<const uint4 *>(src)[1]};
    const T *x = reinterpret_cast<const T *>(raw);
    uint4 evens, odds;
    T *e = reinterpret_cast<T *>(&evens), *o = reinterpret_cast<T *>(&odds);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      e[k] = x[2 * k];
      o[k] = x[2 * k + 1];
    }
    *reinterpret_cast<uint4 *>(even) = evens;
    *reinterpret_cast<uint4 *>(odd) = odds;
  } else {
    *even = src[0];
    *odd = src[1];
  }
}

template <class T, int P>
inline cudaError_t launchPairsToHalves(const T *in, T *out, int m, int n, long long ldOut,
                                       cudaStream_t stream) {
  long long threads = (long long)m * (n / 2 / kPairsPerThread<T, P>);
  pairsToHalves<T, P><<<(threads + 255) / 256, 256, 0, stream>>>(in, out, m, n, ldOut);
  return cudaGetLastError();
}

} // namespace coda::rt

#endif // CODA_RUNTIME_TENSOR_CUH
