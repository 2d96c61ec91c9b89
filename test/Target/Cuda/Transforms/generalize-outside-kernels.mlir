// The ops torch-mlir writes beside the fused kernels become what a function launcher runs: a
// named linalg op its generic, a tensor.pad a fill and an insert_slice; fills stay. The meaning
// does not change, and the function gets a launcher.
// RUN: coda-opt --coda-generalize-outside-kernels %s | FileCheck %s
// RUN: coda-opt --coda-generalize-outside-kernels %s -o %t.mlir
// RUN: coda-run %t.mlir --against %s | FileCheck %s --check-prefix=SAME
// RUN: coda-translate --coda-to-cuda %s 2>&1 | FileCheck %s --check-prefix=CUDA

// CHECK-LABEL: func.func @main(
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     linalg.batch_matmul
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.generic {indexing_maps = [#[[$T:.*]], #[[$ID:.*]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:         linalg.fill
// CHECK:         tensor.insert_slice {{.*}}[0, 1] [4, 7] [1, 1] : tensor<4x7xi64> into tensor<4x8xi64>
// SAME: result #0: {{.*}} max abs err 0.000e+00 {{.*}}: ok
// SAME: result #1: {{.*}} max abs err 0.000e+00 {{.*}}: ok
// CUDA-NOT:    warning: no launcher
// CUDA:        extern "C" int main_run(
func.func @main(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %labels: tensor<4x7xi64>)
    -> (tensor<2x16x16xf32>, tensor<4x8xi64>) {
  %e = tensor.empty() : tensor<2x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x16x8xf32>) outs(%e : tensor<2x8x16xf32>) permutation = [0, 2, 1]
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<2x16x16xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x16x8xf32>, tensor<2x8x16xf32>) outs(%s1 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %ignore = arith.constant -100 : i64
  %shifted = tensor.pad %labels low[0, 1] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %ignore : i64
  } : tensor<4x7xi64> to tensor<4x8xi64>
  return %s, %shifted : tensor<2x16x16xf32>, tensor<4x8xi64>
}
