//===- Tf32Split.cuh - fp32 products exact to fp32 on TF32 tensor cores -------===//
//
// TF32 wgmma multiplies the top 10 mantissa bits of each fp32 input. Writing x = hi + lo, with
// hi = x rounded to TF32 and lo = x - hi (exact in fp32), the product a·b is hi_a·hi_b +
// hi_a·lo_b + lo_a·hi_b up to lo_a·lo_b (2^-22 relative) and the TF32 rounding of the lo terms
// (2^-11 of 2^-11): about fp32's own accuracy. The three products are one GEMM over 3K: A's K
// columns become [hi | hi | lo] and B's [hi | lo | hi], so CUTLASS's TF32 kernel runs unchanged
// on copies three times as long along K, which the launch's Restaging allocates and frees.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_TF32SPLIT_CUH
#define CODA_RUNTIME_TF32SPLIT_CUH

#include <algorithm>
#include <cstdint>
#include <cuda_runtime.h>

#include "coda/Runtime/Restage.cuh"

namespace coda::rt {

/// x rounded to TF32 (10 mantissa bits, to nearest, ties away), as an fp32 value.
__device__ __forceinline__ float tf32Hi(float x) {
  uint32_t bits;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}

/// Writes the 3K-long copy of a matrix of `rows` rows: K along its rows (`kAlongRows`: the
/// matrix is [K, cols], K-major segments stacked as rows) or along its columns ([rows, K]).
/// Segment s of the three takes hi or lo of the source as `order` (bit s set: lo) says.
static __global__ void tf32SplitKernel(const float *src, long long ld, float *dst, long long dstLd,
                                long long rows, long long cols, bool kAlongRows, unsigned order) {
  long long total = 3 * rows * cols;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    // The destination is [3·rows, cols] (K along rows) or [rows, 3·cols] (K along columns).
    long long r, c, s;
    if (kAlongRows) {
      r = e / cols;
      c = e % cols;
      s = r / rows;
      r %= rows;
    } else {
      r = e / (3 * cols);
      c = e % (3 * cols);
      s = c / cols;
      c %= cols;
    }
    float x = src[r * ld + c];
    float hi = tf32Hi(x);
    float v = (order >> s) & 1 ? x - hi : hi;
    if (kAlongRows)
      dst[(s * rows + r) * dstLd + c] = v;
    else
      dst[r * dstLd + s * cols + c] = v;
  }
}

/// Replaces `ptr` (fp32, `rows` rows of `cols` at pitch `ld`) by its 3K copy, whose 16-byte
/// rows `copies` allocates and frees behind the launch; `kAlongRows`: K is its row index.
/// `isA`: segments [hi, hi, lo], else [hi, lo, hi].
inline cudaError_t splitTf32(Restaging &copies, const void *&ptr, long long &ld, long long rows,
                             long long cols, bool kAlongRows, bool isA, cudaStream_t stream) {
  long long outRows = kAlongRows ? 3 * rows : rows;
  long long outCols = kAlongRows ? cols : 3 * cols;
  long long from = ld;
  void *copy = nullptr;
  if (cudaError_t e = copies.allocate(ld, outRows, outCols, sizeof(float), copy))
    return e;
  long long total = 3 * rows * cols;
  int blocks = int(std::min<long long>((total + 255) / 256, 65535LL * 8));
  tf32SplitKernel<<<blocks, 256, 0, stream>>>(static_cast<const float *>(ptr), from,
                                              static_cast<float *>(copy), ld, rows, cols,
                                              kAlongRows, isA ? 0b100u : 0b010u);
  ptr = copy;
  return cudaGetLastError();
}

} // namespace coda::rt

#endif // CODA_RUNTIME_TF32SPLIT_CUH
