//===- Math.cuh - scalar math for coda's generated code --------------------===//
//
// Functions the emitted epilogue regions and generated kernels call beyond CUDA's math library.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_MATH_CUH
#define CODA_RUNTIME_MATH_CUH

namespace coda::rt {

/// The hardware's tanh (sm_75 and later, one instruction, about 2^-11 relative error): for
/// results rounded to bf16 or f16, whose rounding is coarser than that error.
__device__ __forceinline__ float tanhApprox(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// fp32 division to 2 ulp over the whole range in a few instructions (PTX div.full.f32, what
/// Triton's fp32 `/` is), against IEEE division's correction steps and slow path: for epilogues
/// whose results are all rounded to bf16 or f16 (2^-9), far coarser than that error.
__device__ __forceinline__ float divFull(float a, float b) {
  float q;
  asm("div.full.f32 %0, %1, %2;" : "=f"(q) : "f"(a), "f"(b));
  return q;
}

} // namespace coda::rt

#endif // CODA_RUNTIME_MATH_CUH
