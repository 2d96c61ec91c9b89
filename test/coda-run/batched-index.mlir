// A batch dimension with both operands transposed, f16 inputs, and the column index inside
// the epilogue selecting each row's target column (as cross-entropy does with labels).
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --seed 8 --int-max 24 | FileCheck %s
// CHECK: result #0: tensor<2x8x24xf32> {{.*}}: ok
// CHECK: result #1: tensor<2x8xf32> {{.*}}: ok

//--- coda.mlir
func.func @main(%a: tensor<2x16x8xf16>, %b: tensor<2x24x16xf16>, %labels: tensor<2x8xi64>)
    -> (tensor<2x8x24xf32>, tensor<2x8xf32>) {
  %0:2 = coda.gemm %a, %b transpose_a transpose_b : tensor<2x16x8xf16>, tensor<2x24x16xf16>
      with(%labels as row : tensor<2x8xi64>)
      -> (store tensor<2x8x24xf32>, reduce<row, sum> tensor<2x8xf32>)
      epilogue(%acc: f32, %label: i64, %i: index, %j: index) {
    %ji = arith.index_cast %j : index to i64
    %hit = arith.cmpi eq, %ji, %label : i64
    %zero = arith.constant 0.0 : f32
    %v = arith.select %hit, %acc, %zero : f32
    coda.yield %acc, %v : f32, f32
  }
  return %0#0, %0#1 : tensor<2x8x24xf32>, tensor<2x8xf32>
}

//--- linalg.mlir
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%a: tensor<2x16x8xf16>, %b: tensor<2x24x16xf16>, %labels: tensor<2x8xi64>)
    -> (tensor<2x8x24xf32>, tensor<2x8xf32>) {
  %ea = tensor.empty() : tensor<2x8x16xf16>
  %at = linalg.transpose ins(%a : tensor<2x16x8xf16>) outs(%ea : tensor<2x8x16xf16>) permutation = [0, 2, 1]
  %eb = tensor.empty() : tensor<2x16x24xf16>
  %bt = linalg.transpose ins(%b : tensor<2x24x16xf16>) outs(%eb : tensor<2x16x24xf16>) permutation = [0, 2, 1]
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x24xf32>) -> tensor<2x8x24xf32>
  %acc = linalg.batch_matmul ins(%at, %bt : tensor<2x8x16xf16>, tensor<2x16x24xf16>)
      outs(%z : tensor<2x8x24xf32>) -> tensor<2x8x24xf32>
  %et = tensor.empty() : tensor<2x8xf32>
  %target = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%labels : tensor<2x8xi64>) outs(%et : tensor<2x8xf32>) {
  ^bb0(%l: i64, %o: f32):
    %bi = linalg.index 0 : index
    %ri = linalg.index 1 : index
    %li = arith.index_cast %l : i64 to index
    %v = tensor.extract %acc[%bi, %ri, %li] : tensor<2x8x24xf32>
    linalg.yield %v : f32
  } -> tensor<2x8xf32>
  return %acc, %target : tensor<2x8x24xf32>, tensor<2x8xf32>
}
