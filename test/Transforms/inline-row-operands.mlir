// The row statistic rsqrt(ss / D + eps) between two kernels moves into the consumer's
// epilogue, which then reads the producer's row sum of squares directly. Input: the residual +
// RMSNorm + linear program of reparametrize-norm.mlir after --coda-reparametrize-norm and
// --coda-fuse-epilogue.
// RUN: split-file %s %t
// RUN: coda-opt --coda-inline-row-operands %t/input.mlir -o %t/inlined.mlir
// RUN: FileCheck %s < %t/inlined.mlir
// RUN: coda-run %t/inlined.mlir --against %t/input.mlir | FileCheck %s --check-prefix=SAME
// SAME: result #0: {{.*}}: ok
// SAME: result #1: {{.*}}: ok

// CHECK-LABEL: func.func @residual_rmsnorm_linear
// CHECK:       %[[P:.*]]:2 = coda.gemm %arg0, %arg1 transpose_b
// CHECK-NEXT:    with(%arg2 as matrix : tensor<8x32xf32>)
// CHECK-NEXT:    -> (store tensor<8x32xf32>, reduce<row, sum> tensor<8xf32>)
// CHECK-NOT:   linalg.generic
// CHECK:       coda.gemm %[[P]]#0, %{{.*}} transpose_b
// CHECK-NEXT:    with(%{{.*}} as row : tensor<8xf32>)
// CHECK-NEXT:    -> (store tensor<8x48xf32>)
// CHECK-NEXT:    epilogue(%[[ACC:.*]]: f32, %[[SS:.*]]: f32, %{{.*}}: index, %{{.*}}: index) {
// CHECK:         %[[MEAN:.*]] = arith.divf %[[SS]], %{{.*}} : f32
// CHECK:         %[[VAR:.*]] = arith.addf %[[MEAN]], %{{.*}} : f32
// CHECK:         %[[R:.*]] = math.rsqrt %[[VAR]] : f32
// CHECK:         %[[Y:.*]] = arith.mulf %[[ACC]], %[[R]] : f32
// CHECK:         coda.yield %[[Y]] : f32

//--- input.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @residual_rmsnorm_linear(%arg0: tensor<8x32xf32>, %arg1: tensor<32x32xf32>, %arg2: tensor<8x32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<48x32xf32>) -> (tensor<8x32xf32>, tensor<8x48xf32>) {
    %cst = arith.constant 1.000000e-05 : f64
    %cst_0 = arith.constant 3.200000e+01 : f32
    %0:2 = coda.gemm %arg0, %arg1 transpose_b : tensor<8x32xf32>, tensor<32x32xf32>
      with(%arg2 as matrix : tensor<8x32xf32>)
      -> (store tensor<8x32xf32>, reduce<row, sum> tensor<8xf32>) attributes {coda.unfused_bytes = array<i64: 14368, 8256>}
      epilogue(%arg5: f32, %arg6: f32, %arg7: index, %arg8: index) {
      %c2_i64 = arith.constant 2 : i64
      %7 = arith.addf %arg6, %arg5 : f32
      %8 = math.fpowi %7, %c2_i64 : f32, i64
      coda.yield %7, %8 : f32, f32
    }
    %expanded = tensor.expand_shape %0#1 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %1 = tensor.empty() : tensor<8x1xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<8x1xf32>) outs(%1 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.divf %in, %cst_0 : f32
      linalg.yield %7 : f32
    } -> tensor<8x1xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<8x1xf32>) outs(%1 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.truncf %cst : f64 to f32
      %8 = arith.addf %in, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<8x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8x1xf32>) outs(%1 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = math.rsqrt %in : f32
      linalg.yield %7 : f32
    } -> tensor<8x1xf32>
    %5 = call @coda_scale_weights_48x32_cols_by1(%arg4, %arg3) : (tensor<48x32xf32>, tensor<32xf32>) -> tensor<48x32xf32>
    %collapsed = tensor.collapse_shape %4 [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
    %6 = coda.gemm %0#0, %5 transpose_b : tensor<8x32xf32>, tensor<48x32xf32>
      with(%collapsed as row : tensor<8xf32>)
      -> (store tensor<8x48xf32>) attributes {coda.unfused_bytes = array<i64: 16416, 10752>}
      epilogue(%arg5: f32, %arg6: f32, %arg7: index, %arg8: index) {
      %7 = arith.mulf %arg5, %arg6 : f32
      coda.yield %7 : f32
    }
    return %0#0, %6 : tensor<8x32xf32>, tensor<8x48xf32>
  }
  func.func private @coda_scale_weights_48x32_cols_by1(%arg0: tensor<48x32xf32>, %arg1: tensor<32xf32>) -> tensor<48x32xf32> attributes {coda.weight_prep} {
    %0 = tensor.empty() : tensor<48x32xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<48x32xf32>, tensor<32xf32>) outs(%0 : tensor<48x32xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %2 = arith.mulf %in, %in_0 : f32
      linalg.yield %2 : f32
    } -> tensor<48x32xf32>
    return %1 : tensor<48x32xf32>
  }
}
