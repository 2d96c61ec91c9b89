// RUN: coda-translate --coda-to-cuda %s | FileCheck %s

// Scalar math in epilogue regions: small constant powers become products; tanh of a bf16 value
// uses the hardware's approximation (its error is below bf16's rounding), tanh of an f32 value
// the accurate tanhf; other powers stay powf. Every bf16 result is rounded as the IR says.
// CHECK-LABEL: __device__ __forceinline__ void main_k0_epilogue(
// The exponents are spelled where they are used, with no variable left unused.
// CHECK-NOT:     long long {{v[0-9]+}} =
// CHECK:         float [[X:v[0-9]+]] = __bfloat162float(__float2bfloat16_rn([[ACC:v[0-9]+]]));
// CHECK:         float [[CUBE:v[0-9]+]] = __bfloat162float(__float2bfloat16_rn([[X]] * [[X]] * [[X]]));
// CHECK:         float {{v[0-9]+}} = __bfloat162float(__float2bfloat16_rn(coda::rt::tanhApprox([[CUBE]])));
// CHECK:         float {{v[0-9]+}} = tanhf([[ACC]]);
// CHECK:         float {{v[0-9]+}} = powf([[ACC]], (float)7);
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>) -> tensor<256x1024xf32> {
  %y = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      -> (store tensor<256x1024xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    %c3 = arith.constant 3 : i64
    %c7 = arith.constant 7 : i64
    %b = arith.truncf %acc : f32 to bf16
    %cube = math.fpowi %b, %c3 : bf16, i64
    %t = math.tanh %cube : bf16
    %tf = arith.extf %t : bf16 to f32
    %u = math.tanh %acc : f32
    %p = math.fpowi %acc, %c7 : f32, i64
    %s = arith.addf %tf, %u : f32
    %r = arith.addf %s, %p : f32
    coda.yield %r : f32
  }
  return %y : tensor<256x1024xf32>
}
