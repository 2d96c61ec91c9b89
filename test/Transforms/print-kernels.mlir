// RUN: coda-opt %s --coda-print-kernels -o %t | FileCheck %s
// The pass is an analysis: the IR comes out unchanged.
// RUN: coda-opt %s > %t.expected && diff %t %t.expected

// CHECK-LABEL: @prepare: 1 kernel
// CHECK-LABEL: @block: 2 kernels
// CHECK-NEXT:    kernel 0 at {{.*}}print-kernels.mlir:[[# @LINE + 26]]:{{[0-9]+}}
// CHECK-NEXT:      gemm      2 x 8x16 · 16x32 (bf16, fp32 accumulation, A transposed, B transposed)
// CHECK-NEXT:      operands  %arg2 as col 2x32, %arg3 as scalar
// CHECK-NEXT:      epilogue  arith.addf, arith.mulf
// CHECK-NEXT:      results   store tensor<2x8x32xbf16>, reduce<row, max> tensor<2x8xf32>
// CHECK-NEXT:    kernel 1 at
// CHECK-NEXT:      gemm      8x16 · 16x32 (f32, fp32 accumulation)
// CHECK-NEXT:      pairwise  rotate (2 -> 2 columns)
// CHECK-NEXT:      epilogue  (accumulator only)
// CHECK-NEXT:      results   accumulate(%arg6) tensor<8x32xf32>
// CHECK-NEXT:  weight preparation (run once): @prepare
// CHECK-NOT:   kernel

func.func @prepare(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32>
    attributes {coda.weight_prep} {
  %0 = coda.gemm %x, %w : tensor<4x8xf32>, tensor<8x4xf32>
      -> (store tensor<4x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %0 : tensor<4x4xf32>
}

func.func @block(%a: tensor<2x16x8xbf16>, %b: tensor<2x32x16xbf16>, %bias: tensor<2x32xf32>,
    %s: tensor<f32>, %x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %o: tensor<8x32xf32>)
    -> (tensor<2x8x32xbf16>, tensor<2x8xf32>, tensor<8x32xf32>) {
  %0:2 = coda.gemm %a, %b transpose_a transpose_b : tensor<2x16x8xbf16>, tensor<2x32x16xbf16>
      with(%bias as col : tensor<2x32xf32>, %s as scalar : tensor<f32>)
      -> (store tensor<2x8x32xbf16>, reduce<row, max> tensor<2x8xf32>)
      epilogue(%acc: f32, %bv: f32, %sv: f32, %i: index, %j: index) {
    %y = arith.addf %acc, %bv : f32
    %z = arith.mulf %y, %sv : f32
    coda.yield %z, %z : f32, f32
  }
  %1 = coda.gemm %x, %w pairwise(rotate) : tensor<8x16xf32>, tensor<16x32xf32>
      -> (accumulate(%o) tensor<8x32xf32>)
      epilogue(%p: f32, %q: f32, %i: index, %j: index) {
    coda.yield %q, %p : f32, f32
  }
  return %0#0, %0#1, %1 : tensor<2x8x32xbf16>, tensor<2x8xf32>, tensor<8x32xf32>
}

func.func @nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
