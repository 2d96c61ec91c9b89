// RUN: coda-opt %s --coda-fp32-epilogues --split-input-file | FileCheck %s
// RUN: coda-opt --coda-fuse=fp32-epilogues=true %coda_src/bench/programs/small/bias_gelu.mlir -o %t.mlir
// RUN: coda-run %t.mlir --against %coda_src/bench/programs/small/bias_gelu.mlir --atol 0.5 --rtol 2e-2 | FileCheck %s --check-prefix=SAME
// RUN: coda-translate --coda-to-cuda %t.mlir | FileCheck %s --check-prefix=CUDA
// The default pipeline computes epilogues in fp32; fp32-epilogues=false keeps every rounding.
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/small/bias_gelu.mlir | diff - %t.mlir
// RUN: coda-opt --coda-fuse=fp32-epilogues=false %coda_src/bench/programs/small/bias_gelu.mlir | coda-translate --coda-to-cuda | FileCheck %s --check-prefix=BF16

// A bf16 chain as torch-mlir writes it (each op rounds to bf16) computed in fp32: the rounding
// of the accumulator and the final widening disappear, the bf16 operand is widened once, the
// constant is an f32 one, and tanh may be approximate (afn): its result needed bf16 accuracy.
// CHECK-LABEL: func.func @chain
// CHECK:       coda.gemm
// CHECK:       epilogue(%[[ACC:.*]]: f32, %[[B:.*]]: bf16, %{{.*}}: index, %{{.*}}: index)
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[BW:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK:         %[[X:.*]] = arith.addf %[[ACC]], %[[BW]] : f32
// CHECK-NEXT:    %[[T:.*]] = math.tanh %[[X]] fastmath<afn> : f32
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[T]], %[[HALF]] : f32
// CHECK-NEXT:    %[[C:.*]] = arith.cmpf ogt, %[[Y]], %[[X]] : f32
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[C]], %[[Y]], %[[X]] : f32
// CHECK-NEXT:    coda.yield %[[S]] : f32
// CHECK-NOT:     bf16 to f32
func.func @chain(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %b: tensor<32xbf16>) -> tensor<8x32xbf16> {
  %0 = coda.gemm %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>
      with(%b as col : tensor<32xbf16>)
      -> (store tensor<8x32xbf16>)
      epilogue(%acc: f32, %bias: bf16, %i: index, %j: index) {
    %half = arith.constant 5.000000e-01 : bf16
    %a = arith.truncf %acc : f32 to bf16
    %s = arith.addf %a, %bias : bf16
    %t = math.tanh %s : bf16
    %y = arith.mulf %t, %half : bf16
    %c = arith.cmpf ogt, %y, %s : bf16
    %m = arith.select %c, %y, %s : bf16
    %e = arith.extf %m : bf16 to f32
    coda.yield %e : f32
  }
  return %0 : tensor<8x32xbf16>
}

// -----

// fp32 epilogues stay as they are: their tanh keeps its accuracy.
// CHECK-LABEL: func.func @already_f32
// CHECK:         math.tanh %{{.*}} : f32
// CHECK-NOT:     fastmath
func.func @already_f32(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>) -> tensor<8x32xf32> {
  %0 = coda.gemm %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>
      -> (store tensor<8x32xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    %t = math.tanh %acc : f32
    coda.yield %t : f32
  }
  return %0 : tensor<8x32xf32>
}

// The bias + GELU anchor program in fp32 epilogues: it still computes what the original does
// (closer to fp32 than the op-by-op bf16 rounding), and its kernel rounds once.
// SAME-NOT: MISMATCH
// SAME: ok
// BF16-LABEL: __device__ __forceinline__ void main_k0_epilogue(
// BF16:         __float2bfloat16_rn
// CUDA-LABEL: __device__ __forceinline__ void main_k0_epilogue(
// CUDA-NOT:     __float2bfloat16_rn
// CUDA:         coda::rt::tanhApprox(
// CUDA-NOT:     __float2bfloat16_rn
// CUDA:         out[0] =
