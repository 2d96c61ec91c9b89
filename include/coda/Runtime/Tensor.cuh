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

namespace coda::rt {

__device__ __forceinline__ float load(const float *p, long long i) { return p[i]; }
__device__ __forceinline__ float load(const __nv_bfloat16 *p, long long i) {
  return __bfloat162float(p[i]);
}
__device__ __forceinline__ float load(const __half *p, long long i) { return __half2float(p[i]); }
__device__ __forceinline__ long long load(const long long *p, long long i) { return p[i]; }
__device__ __forceinline__ int load(const int *p, long long i) { return p[i]; }
__device__ __forceinline__ bool load(const bool *p, long long i) { return p[i]; }

__device__ __forceinline__ void store(float *p, long long i, float v) { p[i] = v; }
__device__ __forceinline__ void store(__nv_bfloat16 *p, long long i, float v) {
  p[i] = __float2bfloat16_rn(v);
}
__device__ __forceinline__ void store(__half *p, long long i, float v) { p[i] = __float2half_rn(v); }
__device__ __forceinline__ void store(long long *p, long long i, long long v) { p[i] = v; }
__device__ __forceinline__ void store(int *p, long long i, int v) { p[i] = v; }
__device__ __forceinline__ void store(bool *p, long long i, bool v) { p[i] = v; }

} // namespace coda::rt

#endif // CODA_RUNTIME_TENSOR_CUH
