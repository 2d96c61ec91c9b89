// RUN: coda-opt --canonicalize %s | FileCheck %s
// RUN: coda-opt --canonicalize %s -o %t.mlir
// RUN: coda-run %t.mlir --against %s | FileCheck %s --check-prefix=SAME
// SAME: result #0: {{.*}}: ok

// One value passed twice with the same role is read once; the epilogue's two arguments for it
// become one.
// CHECK-LABEL: func.func @main
// CHECK:         coda.gemm %arg0, %arg1 : tensor<8x4xf32>, tensor<4x16xf32>
// CHECK-NEXT:      with(%arg2 as row : tensor<8xf32>, %arg3 as col : tensor<16xf32>)
// CHECK:           epilogue(%[[ACC:.*]]: f32, %[[R:.*]]: f32, %[[C:.*]]: f32, %{{.*}}: index, %{{.*}}: index)
// CHECK-NEXT:      %[[A:.*]] = arith.mulf %[[ACC]], %[[R]] : f32
// CHECK-NEXT:      %[[B:.*]] = arith.addf %[[A]], %[[R]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.mulf %[[B]], %[[C]] : f32
// CHECK-NEXT:      coda.yield %[[D]] : f32
func.func @main(%x: tensor<8x4xf32>, %w: tensor<4x16xf32>, %r: tensor<8xf32>, %c: tensor<16xf32>)
    -> tensor<8x16xf32> {
  %y = coda.gemm %x, %w : tensor<8x4xf32>, tensor<4x16xf32>
      with(%r as row : tensor<8xf32>, %c as col : tensor<16xf32>, %r as row : tensor<8xf32>)
      -> (store tensor<8x16xf32>)
      epilogue(%acc: f32, %r1: f32, %cv: f32, %r2: f32, %i: index, %j: index) {
    %a = arith.mulf %acc, %r1 : f32
    %b = arith.addf %a, %r2 : f32
    %d = arith.mulf %b, %cv : f32
    coda.yield %d : f32
  }
  return %y : tensor<8x16xf32>
}
