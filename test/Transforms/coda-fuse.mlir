// The --coda-fuse pipeline on torch-mlir output of a residual + RMSNorm + linear (the PyTorch
// expression is above the program): inference folds γ into the weights; training keeps it on
// the activations, where the producer applies it in its epilogue. A program with nothing to
// fuse comes out unchanged. Meaning checked with coda-run in both modes.
// RUN: split-file %s %t
// RUN: coda-opt --coda-fuse %t/block.mlir -o %t/inference.mlir
// RUN: coda-opt --coda-fuse=training=true %t/block.mlir -o %t/training.mlir
// RUN: FileCheck %s --check-prefix=INFER < %t/inference.mlir
// RUN: FileCheck %s --check-prefix=TRAIN < %t/training.mlir
// RUN: coda-run %t/inference.mlir --against %t/block.mlir --atol 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/training.mlir --against %t/block.mlir --atol 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse %t/lone.mlir -o %t/lone.fused.mlir
// RUN: coda-opt %t/lone.mlir | diff - %t/lone.fused.mlir
// SAME: result #0: {{.*}}: ok
// SAME: result #1: {{.*}}: ok

// INFER-LABEL: func.func @residual_rmsnorm_linear
// INFER:       %[[H:.*]]:2 = coda.gemm %arg0, %arg1 transpose_b
// INFER-NEXT:    with(%arg2 as matrix : tensor<8x32xf32>)
// INFER-NEXT:    -> (store tensor<8x32xf32>, reduce<row, sum> tensor<8xf32>)
// INFER:       %[[W:.*]] = call @coda_norm_weights_48x32_nk_scale1(%arg4, %arg3)
// INFER:       coda.gemm %[[H]]#0, %[[W]] transpose_b
// INFER-NEXT:    with(%[[H]]#1 as row : tensor<8xf32>)
// INFER:         math.rsqrt
// INFER-NOT:   linalg.
// INFER-LABEL: func.func private @coda_norm_weights_48x32_nk_scale1

// TRAIN-LABEL: func.func @residual_rmsnorm_linear
// TRAIN:       %[[H:.*]]:3 = coda.gemm %arg0, %arg1 transpose_b
// TRAIN-NEXT:    with(%arg2 as matrix : tensor<8x32xf32>, %arg3 as col : tensor<32xf32>)
// TRAIN-NEXT:    -> (store tensor<8x32xf32>, store tensor<8x32xf32>, reduce<row, sum> tensor<8xf32>)
// TRAIN:       coda.gemm %[[H]]#1, %arg4 transpose_b
// TRAIN-NEXT:    with(%[[H]]#2 as row : tensor<8xf32>)
// TRAIN-NOT:   coda.weight_prep

//--- block.mlir
// h = res + x @ wo.t(); return h, rmsnorm(h, g) @ w.t()
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @residual_rmsnorm_linear(%arg0: tensor<8x32xf32>, %arg1: tensor<32x32xf32>, %arg2: tensor<8x32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<48x32xf32>) -> (tensor<8x32xf32>, tensor<8x48xf32>) {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 3.200000e+01 : f32
    %0 = tensor.empty() : tensor<32x32xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<32x32xf32>) outs(%0 : tensor<32x32xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x32xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x32xf32>) outs(%2 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %3 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%1 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %18 = arith.addf %in, %in_3 : f32
      linalg.yield %18 : f32
    } -> tensor<8x32xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x32xf32>) outs(%1 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %18 : f32
    } -> tensor<8x32xf32>
    %6 = tensor.empty() : tensor<8x1xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%5 : tensor<8x32xf32>) outs(%7 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.addf %in, %out : f32
      linalg.yield %18 : f32
    } -> tensor<8x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<8x1xf32>) outs(%6 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.divf %in, %cst_1 : f32
      linalg.yield %18 : f32
    } -> tensor<8x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<8x1xf32>) outs(%6 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.truncf %cst_0 : f64 to f32
      %19 = arith.addf %in, %18 : f32
      linalg.yield %19 : f32
    } -> tensor<8x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<8x1xf32>) outs(%6 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = math.rsqrt %in : f32
      linalg.yield %18 : f32
    } -> tensor<8x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %11 : tensor<8x32xf32>, tensor<8x1xf32>) outs(%1 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %18 = arith.mulf %in, %in_3 : f32
      linalg.yield %18 : f32
    } -> tensor<8x32xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %arg3 : tensor<8x32xf32>, tensor<32xf32>) outs(%1 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %18 = arith.mulf %in, %in_3 : f32
      linalg.yield %18 : f32
    } -> tensor<8x32xf32>
    %14 = tensor.empty() : tensor<32x48xf32>
    %transposed_2 = linalg.transpose ins(%arg4 : tensor<48x32xf32>) outs(%14 : tensor<32x48xf32>) permutation = [1, 0] 
    %15 = tensor.empty() : tensor<8x48xf32>
    %16 = linalg.fill ins(%cst : f32) outs(%15 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %17 = linalg.matmul ins(%13, %transposed_2 : tensor<8x32xf32>, tensor<32x48xf32>) outs(%16 : tensor<8x48xf32>) -> tensor<8x48xf32>
    return %4, %17 : tensor<8x32xf32>, tensor<8x48xf32>
  }
}

//--- lone.mlir
// x @ w
module {
  func.func @lone_matmul_unchanged(%arg0: tensor<8x32xf32>, %arg1: tensor<32x64xf32>) -> tensor<8x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x64xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    return %2 : tensor<8x64xf32>
  }
}
