// A post-norm read as the next kernel's residual is computed in that kernel's epilogue: the
// kernel reads h, the row statistics and the norm weight instead of the normalized tensor.
// A normalized tensor that something else reads too stays where it is. Meaning checked with
// coda-run (the same arithmetic, in the same order).
// RUN: coda-opt --coda-inline-matrix-operands %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: coda-run %t.mlir --entry post_norm --against %s --rtol 0 --atol 0 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --entry post_norm --against %s --rtol 0 --atol 0 --seed 1 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --entry shared --against %s --rtol 0 --atol 0 | FileCheck %s --check-prefix=SAME
// SAME: result #0: {{.*}}: ok

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @post_norm
// CHECK-NOT:     linalg.generic
// CHECK:         %[[MU:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<8x1xf32> into tensor<8xf32>
// CHECK:         coda.gemm %arg5, %arg6 : tensor<8x32xf32>, tensor<32x16xf32>
// CHECK-NEXT:      with(%arg0 as matrix : tensor<8x16xf32>, %[[MU]] as row : tensor<8xf32>, %arg2 as row : tensor<8xf32>, %arg3 as col : tensor<16xf32>, %arg4 as col : tensor<16xf32>)
// CHECK:         epilogue(%[[ACC:.*]]: f32, %[[H:.*]]: f32, %[[M:.*]]: f32, %[[R:.*]]: f32, %[[G:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: index, %{{.*}}: index)
// CHECK-NEXT:      %[[C:.*]] = arith.subf %[[H]], %[[M]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[C]], %[[R]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.mulf %[[S]], %[[G]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.addf %[[T]], %[[B]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.addf %[[ACC]], %[[N]] : f32
// CHECK-NEXT:      coda.yield %[[Y]] : f32
func.func @post_norm(%h: tensor<8x16xf32>, %mu: tensor<8x1xf32>, %r: tensor<8xf32>,
                     %g: tensor<16xf32>, %b: tensor<16xf32>, %x: tensor<8x32xf32>,
                     %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %n = linalg.generic {indexing_maps = [#id, #keep, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %mu, %r, %g, %b : tensor<8x16xf32>, tensor<8x1xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>)
      outs(%e : tensor<8x16xf32>) {
  ^bb0(%hv: f32, %m: f32, %rv: f32, %gv: f32, %bv: f32, %o: f32):
    %c = arith.subf %hv, %m : f32
    %s = arith.mulf %c, %rv : f32
    %t = arith.mulf %s, %gv : f32
    %u = arith.addf %t, %bv : f32
    linalg.yield %u : f32
  } -> tensor<8x16xf32>
  %y = coda.gemm %x, %w : tensor<8x32xf32>, tensor<32x16xf32>
      with(%n as matrix : tensor<8x16xf32>)
      -> (store tensor<8x16xf32>)
      epilogue(%acc: f32, %nv: f32, %i: index, %j: index) {
    %s = arith.addf %acc, %nv : f32
    coda.yield %s : f32
  }
  return %y : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @shared
// CHECK:         %[[N:.*]] = linalg.generic
// CHECK:         coda.gemm %arg2, %arg3 : tensor<8x32xf32>, tensor<32x16xf32>
// CHECK-NEXT:      with(%[[N]] as matrix : tensor<8x16xf32>)
func.func @shared(%h: tensor<8x16xf32>, %r: tensor<8xf32>, %x: tensor<8x32xf32>,
                  %w: tensor<32x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %n = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %r : tensor<8x16xf32>, tensor<8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%hv: f32, %rv: f32, %o: f32):
    %s = arith.mulf %hv, %rv : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %y = coda.gemm %x, %w : tensor<8x32xf32>, tensor<32x16xf32>
      with(%n as matrix : tensor<8x16xf32>)
      -> (store tensor<8x16xf32>)
      epilogue(%acc: f32, %nv: f32, %i: index, %j: index) {
    %s = arith.addf %acc, %nv : f32
    coda.yield %s : f32
  }
  return %y, %n : tensor<8x16xf32>, tensor<8x16xf32>
}
