// RUN: coda-opt %s --coda-cleanup-fused | FileCheck %s

// A function with a coda.gemm is canonicalized: the dead constant and the duplicate go.
// CHECK-LABEL: func.func @fused
// CHECK-NOT:     arith.constant 3.0
// CHECK:         coda.gemm
// CHECK-NOT:     coda.gemm
func.func @fused(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %dead = arith.constant 3.0 : f32
  %0 = coda.gemm %x, %w : tensor<4x8xf32>, tensor<8x4xf32>
      -> (store tensor<4x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %1 = coda.gemm %x, %w : tensor<4x8xf32>, tensor<8x4xf32>
      -> (store tensor<4x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// A function fusion did not touch keeps even its dead code.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    arith.constant 3.0
// CHECK-NEXT:    return
func.func @untouched() {
  %dead = arith.constant 3.0 : f32
  return
}
