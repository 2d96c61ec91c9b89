// torch-mlir's biased bf16 F.linear widens both operands to f32 before the product; the
// product reads the bf16 operands instead (exact: bf16 products are exact in f32, the sum
// accumulates in f32 as before) and the widened copies of x and Wᵀ are gone. Meaning checked
// with coda-run, bit for bit, on two seeds.
// RUN: coda-opt --coda-narrow-products %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: coda-run %t.mlir --against %s --entry biased_linear --rtol 0 --atol 0 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --against %s --entry biased_linear --rtol 0 --atol 0 --seed 1 | FileCheck %s --check-prefix=SAME
// SAME: result #0: {{.*}}: ok

// CHECK-LABEL: func.func @biased_linear
// CHECK:         %[[WT:.*]] = linalg.transpose ins(%arg1 : tensor<32x16xbf16>)
// CHECK:         %[[B:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<32xbf16>) outs(%{{.*}} : tensor<32xf32>)
// CHECK:         %[[P:.*]] = linalg.matmul ins(%arg0, %[[WT]] : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK-NOT:     tensor<8x16xf32>
// CHECK-NOT:     tensor<16x32xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %[[B]] : tensor<8x32xf32>, tensor<32xf32>)

// A product of widened operands of different narrow types stays as it is.
// CHECK-LABEL: func.func @mixed
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>)

// F.linear(x, w, b), x: [8, 16], w: [32, 16], bf16
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @biased_linear(%arg0: tensor<8x16xbf16>, %arg1: tensor<32x16xbf16>, %arg2: tensor<32xbf16>) -> tensor<8x32xbf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<16x32xbf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<32x16xbf16>) outs(%0 : tensor<16x32xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<32xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg2 : tensor<32xbf16>) outs(%1 : tensor<32xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %13 = arith.extf %in : bf16 to f32
      linalg.yield %13 : f32
    } -> tensor<32xf32>
    %3 = tensor.empty() : tensor<8x16xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xbf16>) outs(%3 : tensor<8x16xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %13 = arith.extf %in : bf16 to f32
      linalg.yield %13 : f32
    } -> tensor<8x16xf32>
    %5 = tensor.empty() : tensor<16x32xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%transposed : tensor<16x32xbf16>) outs(%5 : tensor<16x32xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %13 = arith.extf %in : bf16 to f32
      linalg.yield %13 : f32
    } -> tensor<16x32xf32>
    %7 = tensor.empty() : tensor<8x32xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %9 = linalg.matmul ins(%4, %6 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%8 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%9, %2 : tensor<8x32xf32>, tensor<32xf32>) outs(%7 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %13 = arith.addf %in, %in_0 : f32
      linalg.yield %13 : f32
    } -> tensor<8x32xf32>
    %11 = tensor.empty() : tensor<8x32xbf16>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<8x32xf32>) outs(%11 : tensor<8x32xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %13 = arith.truncf %in : f32 to bf16
      linalg.yield %13 : bf16
    } -> tensor<8x32xbf16>
    return %12 : tensor<8x32xbf16>
  }
  func.func @mixed(%arg0: tensor<8x16xbf16>, %arg1: tensor<16x32xf16>) -> tensor<8x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xbf16>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %5 = arith.extf %in : bf16 to f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    %2 = tensor.empty() : tensor<16x32xf32>
    %3 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16x32xf16>) outs(%2 : tensor<16x32xf32>) {
    ^bb0(%in: f16, %out: f32):
      %5 = arith.extf %in : f16 to f32
      linalg.yield %5 : f32
    } -> tensor<16x32xf32>
    %4 = tensor.empty() : tensor<8x32xf32>
    %fill = linalg.fill ins(%cst : f32) outs(%4 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %5 = linalg.matmul ins(%1, %3 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%fill : tensor<8x32xf32>) -> tensor<8x32xf32>
    return %5 : tensor<8x32xf32>
  }
}
