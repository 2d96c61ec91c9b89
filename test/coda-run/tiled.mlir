// Tiled operands: a [M, T] table read at column j mod T, here once per element and once per
// rotated pair, against the same computation on the table repeated to [M, N] by hand.
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --entry plain --seed 9 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --entry pairs --seed 10 | FileCheck %s
// CHECK: result #0: {{.*}}: ok

//--- coda.mlir
func.func @plain(%x: tensor<4x8xf32>, %w: tensor<8x12xf32>, %t: tensor<4x3xf32>) -> tensor<4x12xf32> {
  %0 = coda.gemm %x, %w : tensor<4x8xf32>, tensor<8x12xf32>
      with(%t as tiled : tensor<4x3xf32>)
      -> (store tensor<4x12xf32>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    %y = arith.mulf %acc, %v : f32
    coda.yield %y : f32
  }
  return %0 : tensor<4x12xf32>
}

func.func @pairs(%x: tensor<4x8xf32>, %w: tensor<8x12xf32>, %t: tensor<4x6xf32>) -> tensor<4x12xf32> {
  %0 = coda.gemm %x, %w pairwise(rotate) : tensor<4x8xf32>, tensor<8x12xf32>
      with(%t as tiled : tensor<4x6xf32>)
      -> (store tensor<4x12xf32>)
      epilogue(%a: f32, %b: f32, %t0: f32, %t1: f32, %i: index, %p: index) {
    %x0 = arith.mulf %b, %t0 : f32
    %x1 = arith.mulf %a, %t1 : f32
    coda.yield %x0, %x1 : f32, f32
  }
  return %0 : tensor<4x12xf32>
}

//--- linalg.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @repeat(%t: tensor<4x3xf32>) -> tensor<4x12xf32> {
  %e = tensor.empty() : tensor<4x4x3xf32>
  %b = linalg.broadcast ins(%t : tensor<4x3xf32>) outs(%e : tensor<4x4x3xf32>) dimensions = [1]
  %c = tensor.collapse_shape %b [[0], [1, 2]] : tensor<4x4x3xf32> into tensor<4x12xf32>
  return %c : tensor<4x12xf32>
}

func.func @plain(%x: tensor<4x8xf32>, %w: tensor<8x12xf32>, %t: tensor<4x3xf32>) -> tensor<4x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x12xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x12xf32>) -> tensor<4x12xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x12xf32>) outs(%z : tensor<4x12xf32>) -> tensor<4x12xf32>
  %full = func.call @repeat(%t) : (tensor<4x3xf32>) -> tensor<4x12xf32>
  %y = linalg.mul ins(%acc, %full : tensor<4x12xf32>, tensor<4x12xf32>) outs(%e : tensor<4x12xf32>) -> tensor<4x12xf32>
  return %y : tensor<4x12xf32>
}

func.func @pairs(%x: tensor<4x8xf32>, %w: tensor<8x12xf32>, %t: tensor<4x6xf32>) -> tensor<4x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x12xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x12xf32>) -> tensor<4x12xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x12xf32>) outs(%z : tensor<4x12xf32>) -> tensor<4x12xf32>
  // table repeated twice along the columns: [4, 6] -> [4, 12]
  %eb = tensor.empty() : tensor<4x2x6xf32>
  %b = linalg.broadcast ins(%t : tensor<4x6xf32>) outs(%eb : tensor<4x2x6xf32>) dimensions = [1]
  %full = tensor.collapse_shape %b [[0], [1, 2]] : tensor<4x2x6xf32> into tensor<4x12xf32>
  // even columns: acc[2p+1] * t[2p]; odd columns: acc[2p] * t[2p+1]
  %ae = tensor.extract_slice %acc[0, 0] [4, 6] [1, 2] : tensor<4x12xf32> to tensor<4x6xf32>
  %ao = tensor.extract_slice %acc[0, 1] [4, 6] [1, 2] : tensor<4x12xf32> to tensor<4x6xf32>
  %te = tensor.extract_slice %full[0, 0] [4, 6] [1, 2] : tensor<4x12xf32> to tensor<4x6xf32>
  %to = tensor.extract_slice %full[0, 1] [4, 6] [1, 2] : tensor<4x12xf32> to tensor<4x6xf32>
  %e6 = tensor.empty() : tensor<4x6xf32>
  %even = linalg.mul ins(%ao, %te : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e6 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %odd = linalg.mul ins(%ae, %to : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e6 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %o1 = tensor.insert_slice %even into %e[0, 0] [4, 6] [1, 2] : tensor<4x6xf32> into tensor<4x12xf32>
  %o2 = tensor.insert_slice %odd into %o1[0, 1] [4, 6] [1, 2] : tensor<4x6xf32> into tensor<4x12xf32>
  return %o2 : tensor<4x12xf32>
}
