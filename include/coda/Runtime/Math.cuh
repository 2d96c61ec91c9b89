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

} // namespace coda::rt

#endif // CODA_RUNTIME_MATH_CUH
