// Gated activations from torch-mlir output (the PyTorch expression is above each program):
// two fused projections of the same input and their elementwise combination become one
// pairwise(contract) coda.gemm over interleaved weights. Structure with FileCheck, meaning
// with coda-run.
// RUN: split-file %s %t
// RUN: coda-opt --coda-fuse-epilogue --coda-fuse-gated %t/swiglu.mlir -o %t/swiglu.fused.mlir
// RUN: FileCheck %s --check-prefix=SWIGLU < %t/swiglu.fused.mlir
// RUN: coda-run %t/swiglu.fused.mlir --against %t/swiglu.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-epilogue --coda-fuse-gated %t/geglu_untransposed_row_scale.mlir -o %t/geglu_untransposed_row_scale.fused.mlir
// RUN: FileCheck %s --check-prefix=GEGLU < %t/geglu_untransposed_row_scale.fused.mlir
// RUN: coda-run %t/geglu_untransposed_row_scale.fused.mlir --against %t/geglu_untransposed_row_scale.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-epilogue --coda-fuse-gated %t/different_inputs_not_gated.mlir -o %t/different_inputs_not_gated.fused.mlir
// RUN: FileCheck %s --check-prefix=NOTGATED < %t/different_inputs_not_gated.fused.mlir
// RUN: coda-run %t/different_inputs_not_gated.fused.mlir --against %t/different_inputs_not_gated.mlir | FileCheck %s --check-prefix=SAME
// SAME: result #0: {{.*}}: ok

// SWIGLU-LABEL: func.func @swiglu
// SWIGLU:       %[[W:.*]] = call @coda_interleave_48x32_rows(%arg1, %arg2) : (tensor<48x32xf32>, tensor<48x32xf32>) -> tensor<96x32xf32>
// SWIGLU:       %[[Y:.*]] = coda.gemm %arg0, %[[W]] transpose_b pairwise(contract) : tensor<8x32xf32>, tensor<96x32xf32>
// SWIGLU-NEXT:    -> (store tensor<8x48xf32>)
// SWIGLU-NEXT:    epilogue(%[[G:.*]]: f32, %[[U:.*]]: f32, %{{.*}}: index, %{{.*}}: index) {
// SWIGLU:         arith.negf %[[G]]
// SWIGLU:         math.exp
// SWIGLU:         arith.mulf %[[G]], %{{.*}}
// SWIGLU:         %[[OUT:.*]] = arith.mulf %{{.*}}, %[[U]] : f32
// SWIGLU:         coda.yield %[[OUT]] : f32
// SWIGLU:       return %[[Y]]
// SWIGLU-NOT:   coda.gemm
// SWIGLU-LABEL: func.func private @coda_interleave_48x32_rows(%{{.*}}: tensor<48x32xf32>, %{{.*}}: tensor<48x32xf32>) -> tensor<96x32xf32> attributes {coda.weight_prep}
// SWIGLU:         linalg.index 1 : index
// SWIGLU:         tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<48x2x32xf32> into tensor<96x32xf32>

// GEGLU-LABEL: func.func @geglu_untransposed_row_scale
// GEGLU:       call @coda_interleave_32x48_cols
// GEGLU:       coda.gemm %arg0, %{{.*}} pairwise(contract) : tensor<8x32xf32>, tensor<32x96xf32>
// GEGLU-NEXT:    -> (store tensor<8x48xf32>)
// GEGLU:         math.erf
// The row scale that follows the combination stays a separate elementwise op for now.
// GEGLU:       linalg.generic
// GEGLU-NOT:   coda.gemm
// GEGLU-LABEL: func.func private @coda_interleave_32x48_cols
// GEGLU:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<32x48x2xf32> into tensor<32x96xf32>

// NOTGATED-LABEL: func.func @different_inputs_not_gated
// NOTGATED-NOT:   pairwise
// NOTGATED-COUNT-2: coda.gemm
// NOTGATED-NOT:   coda_interleave

//--- swiglu.mlir
// F.silu(x @ wg.t()) * (x @ wu.t())
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @swiglu(%arg0: tensor<8x32xf32>, %arg1: tensor<48x32xf32>, %arg2: tensor<48x32xf32>) -> tensor<8x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x48xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<48x32xf32>) outs(%0 : tensor<32x48xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x48xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x48xf32>) outs(%2 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8x48xf32>) outs(%1 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = arith.negf %in : f32
      %9 = math.exp %8 : f32
      %10 = arith.addf %9, %cst_0 : f32
      %11 = arith.divf %cst_0, %10 : f32
      linalg.yield %11 : f32
    } -> tensor<8x48xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %4 : tensor<8x48xf32>, tensor<8x48xf32>) outs(%1 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %8 = arith.mulf %in, %in_2 : f32
      linalg.yield %8 : f32
    } -> tensor<8x48xf32>
    %transposed_1 = linalg.transpose ins(%arg2 : tensor<48x32xf32>) outs(%0 : tensor<32x48xf32>) permutation = [1, 0] 
    %6 = linalg.matmul ins(%arg0, %transposed_1 : tensor<8x32xf32>, tensor<32x48xf32>) outs(%2 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %6 : tensor<8x48xf32>, tensor<8x48xf32>) outs(%1 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %8 = arith.mulf %in, %in_2 : f32
      linalg.yield %8 : f32
    } -> tensor<8x48xf32>
    return %7 : tensor<8x48xf32>
  }
}

//--- geglu_untransposed_row_scale.mlir
// F.gelu(x @ wg) * (x @ wu) * s   (s: [8, 1])
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @geglu_untransposed_row_scale(%arg0: tensor<8x32xf32>, %arg1: tensor<32x48xf32>, %arg2: tensor<32x48xf32>, %arg3: tensor<8x1xf32>) -> tensor<8x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 5.000000e-01 : f32
    %cst_2 = arith.constant 1.41421354 : f32
    %0 = tensor.empty() : tensor<8x48xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<8x32xf32>, tensor<32x48xf32>) outs(%1 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<8x48xf32>) outs(%0 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.divf %in, %cst_2 : f32
      %8 = math.erf %7 : f32
      %9 = arith.addf %8, %cst_0 : f32
      %10 = arith.mulf %9, %cst_1 : f32
      %11 = arith.mulf %in, %10 : f32
      linalg.yield %11 : f32
    } -> tensor<8x48xf32>
    %4 = linalg.matmul ins(%arg0, %arg2 : tensor<8x32xf32>, tensor<32x48xf32>) outs(%1 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %4 : tensor<8x48xf32>, tensor<8x48xf32>) outs(%0 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %7 = arith.mulf %in, %in_3 : f32
      linalg.yield %7 : f32
    } -> tensor<8x48xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %arg3 : tensor<8x48xf32>, tensor<8x1xf32>) outs(%0 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %7 = arith.mulf %in, %in_3 : f32
      linalg.yield %7 : f32
    } -> tensor<8x48xf32>
    return %6 : tensor<8x48xf32>
  }
}

//--- different_inputs_not_gated.mlir
// F.silu(x @ wg.t()) * (y @ wu.t())
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @different_inputs_not_gated(%arg0: tensor<8x32xf32>, %arg1: tensor<8x32xf32>, %arg2: tensor<48x32xf32>, %arg3: tensor<48x32xf32>) -> tensor<8x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x48xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<48x32xf32>) outs(%0 : tensor<32x48xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x48xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x48xf32>) outs(%2 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8x48xf32>) outs(%1 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = arith.negf %in : f32
      %9 = math.exp %8 : f32
      %10 = arith.addf %9, %cst_0 : f32
      %11 = arith.divf %cst_0, %10 : f32
      linalg.yield %11 : f32
    } -> tensor<8x48xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %4 : tensor<8x48xf32>, tensor<8x48xf32>) outs(%1 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %8 = arith.mulf %in, %in_2 : f32
      linalg.yield %8 : f32
    } -> tensor<8x48xf32>
    %transposed_1 = linalg.transpose ins(%arg3 : tensor<48x32xf32>) outs(%0 : tensor<32x48xf32>) permutation = [1, 0] 
    %6 = linalg.matmul ins(%arg1, %transposed_1 : tensor<8x32xf32>, tensor<32x48xf32>) outs(%2 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %6 : tensor<8x48xf32>, tensor<8x48xf32>) outs(%1 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %8 = arith.mulf %in, %in_2 : f32
      linalg.yield %8 : f32
    } -> tensor<8x48xf32>
    return %7 : tensor<8x48xf32>
  }
}
