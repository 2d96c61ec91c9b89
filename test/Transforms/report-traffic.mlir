// RUN: coda-opt %s --coda-report-traffic -o %t | FileCheck %s
// The report is an analysis: the IR comes out unchanged.
// RUN: coda-opt %s | diff - %t

// Bytes per kernel: reads of every operand once (A 8x16 f32 = 512, B 16x32 = 2048, bias 128),
// writes of every result (8x32 f32 = 1024, a reduction 8 floats = 32). "Before" comes from
// coda.unfused_bytes; kernels without it were not fused and count the same before and after.
// CHECK-LABEL: @main: bytes read + written per kernel (before fusion -> after)
// CHECK-NEXT:    coda.gemm                 9000 + 5000         ->         2688 + 1056
// CHECK-NEXT:    linalg.generic            1024 + 1024         ->         1024 + 1024
// CHECK-NEXT:    total: 16048 bytes -> 5792 bytes (2.77x less)

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>)
    -> (tensor<8x32xf32>, tensor<8xf32>, tensor<8x32xf32>) {
  %0:2 = coda.gemm %x, %w : tensor<8x16xf32>, tensor<16x32xf32>
      with(%b as col : tensor<32xf32>)
      -> (store tensor<8x32xf32>, reduce<row, max> tensor<8xf32>)
      attributes {coda.unfused_bytes = array<i64: 9000, 5000>}
      epilogue(%acc: f32, %bv: f32, %i: index, %j: index) {
    %s = arith.addf %acc, %bv : f32
    coda.yield %s, %s : f32, f32
  }
  %e = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0#0 : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<8x32xf32>
  return %0#0, %0#1, %1 : tensor<8x32xf32>, tensor<8xf32>, tensor<8x32xf32>
}

// Fusion credits only the computations a kernel replaces: the weight transpose torch-mlir
// writes for F.linear and the product's zero fill are data movement any GEMM does without, so
// they count neither before nor after. Before: the product (A 512 + B 2048, the fill not read;
// writes 1024) and the bias add (1024 + 128; writes 1024).
// RUN: coda-opt --coda-fuse-epilogue %s | coda-opt --coda-report-traffic -o /dev/null | FileCheck %s --check-prefix=FUSED
// FUSED-LABEL: @linear_bias: bytes read + written per kernel (before fusion -> after)
// FUSED-NEXT:    coda.gemm                 3712 + 2048         ->         2688 + 1024
// FUSED-NEXT:    total: 5760 bytes -> 3712 bytes (1.55x less)

#bias = affine_map<(d0, d1) -> (d1)>
func.func @linear_bias(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<16x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%et : tensor<16x32xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<8x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %p = linalg.matmul ins(%x, %wt : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]} ins(%p, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%in: f32, %bv: f32, %out: f32):
    %s = arith.addf %in, %bv : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// index tensors count 8 bytes an element; sizes no machine holds saturate instead of wrapping.
// CHECK-LABEL: @index_and_huge: bytes read + written per kernel
// CHECK-NEXT:    linalg.generic 128 + 128 -> 128 + 128 line
// CHECK-NEXT:    linalg.generic 9223372036854775807 + 9223372036854775807 -> 9223372036854775807 + 9223372036854775807 line
// CHECK-NEXT:    total: 9223372036854775807 bytes
func.func @index_and_huge(%i: tensor<16xindex>, %h: tensor<4611686018427387904x4xf32>) -> (tensor<16xindex>, tensor<4611686018427387904x4xf32>) {
  %e = tensor.empty() : tensor<16xindex>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<16xindex>) outs(%e : tensor<16xindex>) {
  ^bb0(%a: index, %o: index):
    %s = arith.addi %a, %a : index
    linalg.yield %s : index
  } -> tensor<16xindex>
  %eh = tensor.empty() : tensor<4611686018427387904x4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<4611686018427387904x4xf32>) outs(%eh : tensor<4611686018427387904x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4611686018427387904x4xf32>
  return %r, %g : tensor<16xindex>, tensor<4611686018427387904x4xf32>
}
