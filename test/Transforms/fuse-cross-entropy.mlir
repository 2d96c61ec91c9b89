// LM head + cross-entropy from torch-mlir output (the PyTorch expression is above each
// program): the log-softmax and the label gather become an online log-sum-exp and a target
// logit selected by column index in the gemm epilogue. Labels index a 64-word vocabulary.
// RUN: split-file %s %t
// RUN: coda-opt --coda-fuse-epilogue --coda-fuse-cross-entropy %t/cross_entropy.mlir -o %t/cross_entropy.fused.mlir
// RUN: FileCheck %s --check-prefix=CE < %t/cross_entropy.fused.mlir
// RUN: coda-run %t/cross_entropy.fused.mlir --against %t/cross_entropy.mlir --int-max 64 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/cross_entropy.fused.mlir --against %t/cross_entropy.mlir --int-max 64 --seed 1 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-epilogue --coda-fuse-cross-entropy %t/softcapped_logits_kept.mlir -o %t/softcapped_logits_kept.fused.mlir
// RUN: FileCheck %s --check-prefix=KEPT < %t/softcapped_logits_kept.fused.mlir
// RUN: coda-run %t/softcapped_logits_kept.fused.mlir --against %t/softcapped_logits_kept.mlir --int-max 64 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/softcapped_logits_kept.fused.mlir --against %t/softcapped_logits_kept.mlir --int-max 64 --seed 1 | FileCheck %s --check-prefix=SAME
// SAME-NOT: MISMATCH
// SAME: result #0: {{.*}}: ok
// SAME-NOT: MISMATCH

// CE-LABEL: func.func @cross_entropy
// CE:       %[[L:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<8x1xi64> into tensor<8xi64>
// CE:       %[[G:.*]]:2 = coda.gemm %arg0, %arg1 transpose_b : tensor<8x32xf32>, tensor<64x32xf32>
// CE-NEXT:    with(%[[L]] as row : tensor<8xi64>)
// CE-NEXT:    -> (reduce<row, lse> tensor<8xf32>, reduce<row, sum> tensor<8xf32>)
// CE-NEXT:    epilogue(%[[Z:.*]]: f32, %[[LABEL:.*]]: i64, %{{.*}}: index, %[[J:.*]]: index) {
// CE:         %[[COL:.*]] = arith.index_cast %[[J]] : index to i64
// CE:         %[[HIT:.*]] = arith.cmpi eq, %[[COL]], %[[LABEL]] : i64
// CE:         %[[T:.*]] = arith.select %[[HIT]], %[[Z]], %{{.*}} : f32
// CE:         coda.yield %[[Z]], %[[T]] : f32, f32
// CE:       linalg.generic {{.*}} ins(%[[G]]#1, %[[G]]#0 : tensor<8xf32>, tensor<8xf32>)
// CE:         arith.subf
// CE-NOT:   tensor<8x64xf32>
// CE-NOT:   math.exp

// KEPT-LABEL: func.func @softcapped_logits_kept
// KEPT:       %[[G:.*]]:3 = coda.gemm %arg0, %arg1 transpose_b
// KEPT-NEXT:    with(%{{.*}} as row : tensor<8xi64>)
// KEPT-NEXT:    -> (store tensor<8x64xf32>, reduce<row, lse> tensor<8xf32>, reduce<row, sum> tensor<8xf32>)
// KEPT:         math.tanh
// KEPT-NOT:   math.exp
// KEPT:       return %[[G]]#0, %{{.*}} : tensor<8x64xf32>, tensor<f32>

//--- cross_entropy.mlir
// F.cross_entropy(x @ w.t(), labels)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<() -> ()>
module {
  func.func @cross_entropy(%arg0: tensor<8x32xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<8xi64>) -> tensor<f32> {
    %c-100_i64 = arith.constant -100 : i64
    %c64 = arith.constant 64 : index
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<32x64xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<64x32xf32>) outs(%0 : tensor<32x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x64xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x64xf32>) outs(%2 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %4 = tensor.empty() : tensor<8xi64>
    %5 = linalg.fill ins(%c0_i64 : i64) outs(%4 : tensor<8xi64>) -> tensor<8xi64>
    %6 = tensor.empty() : tensor<8xf32>
    %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<8xf32>) -> tensor<8xf32>
    %8:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%3 : tensor<8x64xf32>) outs(%7, %5 : tensor<8xf32>, tensor<8xi64>) {
    ^bb0(%in: f32, %out: f32, %out_4: i64):
      %30 = linalg.index 1 : index
      %31 = arith.index_cast %30 : index to i64
      %32 = arith.maximumf %in, %out : f32
      %33 = arith.cmpf ogt, %in, %out : f32
      %34 = arith.select %33, %31, %out_4 : i64
      linalg.yield %32, %34 : f32, i64
    } -> (tensor<8xf32>, tensor<8xi64>)
    %expanded = tensor.expand_shape %8#0 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %expanded : tensor<8x64xf32>, tensor<8x1xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %30 = arith.subf %in, %in_4 : f32
      linalg.yield %30 : f32
    } -> tensor<8x64xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %30 = math.exp %in : f32
      linalg.yield %30 : f32
    } -> tensor<8x64xf32>
    %11 = tensor.empty() : tensor<8x1xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%10 : tensor<8x64xf32>) outs(%12 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %30 = arith.addf %in, %out : f32
      linalg.yield %30 : f32
    } -> tensor<8x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<8x1xf32>) outs(%11 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %30 = math.log %in : f32
      linalg.yield %30 : f32
    } -> tensor<8x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %14 : tensor<8x64xf32>, tensor<8x1xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %30 = arith.subf %in, %in_4 : f32
      linalg.yield %30 : f32
    } -> tensor<8x64xf32>
    %16 = tensor.empty() : tensor<8xi1>
    %17 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg2 : tensor<8xi64>) outs(%16 : tensor<8xi1>) {
    ^bb0(%in: i64, %out: i1):
      %30 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %30 : i1
    } -> tensor<8xi1>
    %18 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%17, %arg2, %cst_2 : tensor<8xi1>, tensor<8xi64>, tensor<i64>) outs(%4 : tensor<8xi64>) {
    ^bb0(%in: i1, %in_4: i64, %in_5: i64, %out: i64):
      %30 = arith.select %in, %in_4, %in_5 : i64
      linalg.yield %30 : i64
    } -> tensor<8xi64>
    %expanded_3 = tensor.expand_shape %18 [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_3 : tensor<8x1xi64>) outs(%12 : tensor<8x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %30 = linalg.index 0 : index
      %31 = arith.index_cast %in : i64 to index
      %32 = arith.cmpi slt, %31, %c64 : index
      cf.assert %32, "index must be smaller than dim size"
      %33 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %33, "index must be larger or equal to 0"
      %extracted = tensor.extract %15[%30, %31] : tensor<8x64xf32>
      linalg.yield %extracted : f32
    } -> tensor<8x1xf32>
    %collapsed = tensor.collapse_shape %19 [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
    %20 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%collapsed : tensor<8xf32>) outs(%6 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %30 = arith.negf %in : f32
      linalg.yield %30 : f32
    } -> tensor<8xf32>
    %21 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%17, %20, %cst_1 : tensor<8xi1>, tensor<8xf32>, tensor<f32>) outs(%6 : tensor<8xf32>) {
    ^bb0(%in: i1, %in_4: f32, %in_5: f32, %out: f32):
      %30 = arith.select %in, %in_4, %in_5 : f32
      linalg.yield %30 : f32
    } -> tensor<8xf32>
    %22 = tensor.empty() : tensor<i64>
    %23 = linalg.fill ins(%c0_i64 : i64) outs(%22 : tensor<i64>) -> tensor<i64>
    %24 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%17 : tensor<8xi1>) outs(%23 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %30 = arith.extui %in : i1 to i64
      %31 = arith.addi %30, %out : i64
      linalg.yield %31 : i64
    } -> tensor<i64>
    %25 = tensor.empty() : tensor<f32>
    %26 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%24 : tensor<i64>) outs(%25 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %30 = arith.sitofp %in : i64 to f32
      linalg.yield %30 : f32
    } -> tensor<f32>
    %27 = linalg.fill ins(%cst : f32) outs(%25 : tensor<f32>) -> tensor<f32>
    %28 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%21 : tensor<8xf32>) outs(%27 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %30 = arith.addf %in, %out : f32
      linalg.yield %30 : f32
    } -> tensor<f32>
    %29 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%28, %26 : tensor<f32>, tensor<f32>) outs(%25 : tensor<f32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %30 = arith.divf %in, %in_4 : f32
      linalg.yield %30 : f32
    } -> tensor<f32>
    return %29 : tensor<f32>
  }
}

//--- softcapped_logits_kept.mlir
// z = torch.tanh((x @ w.t()) / 30) * 30; return z, F.cross_entropy(z, labels)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<() -> ()>
module {
  func.func @softcapped_logits_kept(%arg0: tensor<8x32xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<8xi64>) -> (tensor<8x64xf32>, tensor<f32>) {
    %c-100_i64 = arith.constant -100 : i64
    %c64 = arith.constant 64 : index
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant 3.000000e+01 : f32
    %cst_3 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<32x64xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<64x32xf32>) outs(%0 : tensor<32x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x64xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x64xf32>) outs(%2 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.divf %in, %cst_2 : f32
      linalg.yield %33 : f32
    } -> tensor<8x64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = math.tanh %in : f32
      linalg.yield %33 : f32
    } -> tensor<8x64xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.mulf %in, %cst_2 : f32
      linalg.yield %33 : f32
    } -> tensor<8x64xf32>
    %7 = tensor.empty() : tensor<8xi64>
    %8 = linalg.fill ins(%c0_i64 : i64) outs(%7 : tensor<8xi64>) -> tensor<8xi64>
    %9 = tensor.empty() : tensor<8xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<8xf32>) -> tensor<8xf32>
    %11:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%6 : tensor<8x64xf32>) outs(%10, %8 : tensor<8xf32>, tensor<8xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %33 = linalg.index 1 : index
      %34 = arith.index_cast %33 : index to i64
      %35 = arith.maximumf %in, %out : f32
      %36 = arith.cmpf ogt, %in, %out : f32
      %37 = arith.select %36, %34, %out_5 : i64
      linalg.yield %35, %37 : f32, i64
    } -> (tensor<8xf32>, tensor<8xi64>)
    %expanded = tensor.expand_shape %11#0 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %expanded : tensor<8x64xf32>, tensor<8x1xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %33 = arith.subf %in, %in_5 : f32
      linalg.yield %33 : f32
    } -> tensor<8x64xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = math.exp %in : f32
      linalg.yield %33 : f32
    } -> tensor<8x64xf32>
    %14 = tensor.empty() : tensor<8x1xf32>
    %15 = linalg.fill ins(%cst : f32) outs(%14 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%13 : tensor<8x64xf32>) outs(%15 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.addf %in, %out : f32
      linalg.yield %33 : f32
    } -> tensor<8x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%16 : tensor<8x1xf32>) outs(%14 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = math.log %in : f32
      linalg.yield %33 : f32
    } -> tensor<8x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %17 : tensor<8x64xf32>, tensor<8x1xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %33 = arith.subf %in, %in_5 : f32
      linalg.yield %33 : f32
    } -> tensor<8x64xf32>
    %19 = tensor.empty() : tensor<8xi1>
    %20 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg2 : tensor<8xi64>) outs(%19 : tensor<8xi1>) {
    ^bb0(%in: i64, %out: i1):
      %33 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %33 : i1
    } -> tensor<8xi1>
    %21 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%20, %arg2, %cst_3 : tensor<8xi1>, tensor<8xi64>, tensor<i64>) outs(%7 : tensor<8xi64>) {
    ^bb0(%in: i1, %in_5: i64, %in_6: i64, %out: i64):
      %33 = arith.select %in, %in_5, %in_6 : i64
      linalg.yield %33 : i64
    } -> tensor<8xi64>
    %expanded_4 = tensor.expand_shape %21 [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_4 : tensor<8x1xi64>) outs(%15 : tensor<8x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %33 = linalg.index 0 : index
      %34 = arith.index_cast %in : i64 to index
      %35 = arith.cmpi slt, %34, %c64 : index
      cf.assert %35, "index must be smaller than dim size"
      %36 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %36, "index must be larger or equal to 0"
      %extracted = tensor.extract %18[%33, %34] : tensor<8x64xf32>
      linalg.yield %extracted : f32
    } -> tensor<8x1xf32>
    %collapsed = tensor.collapse_shape %22 [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%collapsed : tensor<8xf32>) outs(%9 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.negf %in : f32
      linalg.yield %33 : f32
    } -> tensor<8xf32>
    %24 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%20, %23, %cst_1 : tensor<8xi1>, tensor<8xf32>, tensor<f32>) outs(%9 : tensor<8xf32>) {
    ^bb0(%in: i1, %in_5: f32, %in_6: f32, %out: f32):
      %33 = arith.select %in, %in_5, %in_6 : f32
      linalg.yield %33 : f32
    } -> tensor<8xf32>
    %25 = tensor.empty() : tensor<i64>
    %26 = linalg.fill ins(%c0_i64 : i64) outs(%25 : tensor<i64>) -> tensor<i64>
    %27 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%20 : tensor<8xi1>) outs(%26 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %33 = arith.extui %in : i1 to i64
      %34 = arith.addi %33, %out : i64
      linalg.yield %34 : i64
    } -> tensor<i64>
    %28 = tensor.empty() : tensor<f32>
    %29 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%27 : tensor<i64>) outs(%28 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %33 = arith.sitofp %in : i64 to f32
      linalg.yield %33 : f32
    } -> tensor<f32>
    %30 = linalg.fill ins(%cst : f32) outs(%28 : tensor<f32>) -> tensor<f32>
    %31 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%24 : tensor<8xf32>) outs(%30 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.addf %in, %out : f32
      linalg.yield %33 : f32
    } -> tensor<f32>
    %32 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%31, %29 : tensor<f32>, tensor<f32>) outs(%28 : tensor<f32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %33 = arith.divf %in, %in_5 : f32
      linalg.yield %33 : f32
    } -> tensor<f32>
    return %6, %32 : tensor<8x64xf32>, tensor<f32>
  }
}
