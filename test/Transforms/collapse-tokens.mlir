// [B, S, D] programs as torch-mlir writes them become [B·S, D] programs: products over the
// tokens, rank-2 elementwise ops and reductions, RoPE on the tokens-first head view with the
// heads' transpose after it, attention's head merge read as one product. Programs without
// token reshapes stay as they are. Meaning checked with coda-run on two seeds (the rewrite
// only moves reshapes and transposes: results are bit-identical).
// RUN: split-file %s %t
// RUN: coda-opt --coda-collapse-tokens %t/linear_residual_rmsnorm.mlir -o %t/a.mlir
// RUN: FileCheck %s --check-prefix=NORM < %t/a.mlir
// RUN: coda-run %t/a.mlir --against %t/linear_residual_rmsnorm.mlir --rtol 0 --atol 0 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/a.mlir --against %t/linear_residual_rmsnorm.mlir --rtol 0 --atol 0 --seed 1 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-collapse-tokens %t/rope_heads.mlir -o %t/b.mlir
// RUN: FileCheck %s --check-prefix=ROPE < %t/b.mlir
// RUN: coda-run %t/b.mlir --against %t/rope_heads.mlir --rtol 0 --atol 0 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/b.mlir --against %t/rope_heads.mlir --rtol 0 --atol 0 --seed 1 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-collapse-tokens %t/heads_out.mlir -o %t/c.mlir
// RUN: FileCheck %s --check-prefix=HEADS < %t/c.mlir
// RUN: coda-run %t/c.mlir --against %t/heads_out.mlir --rtol 0 --atol 0 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-collapse-tokens %t/tokens.mlir -o %t/d.mlir
// RUN: coda-opt %t/tokens.mlir -o %t/tokens.printed.mlir
// RUN: diff %t/d.mlir %t/tokens.printed.mlir
// SAME: result #0: {{.*}}: ok

// NORM-LABEL: func.func @linear_residual_rmsnorm
// NORM:         %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
// NORM:         %[[P:.*]] = linalg.matmul ins(%[[X]], %{{.*}} : tensor<8x16xf32>, tensor<16x16xf32>)
// NORM:         linalg.generic {{.*}} ins(%[[X]], %[[P]] : tensor<8x16xf32>, tensor<8x16xf32>)
// NORM:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<8x16xf32>) outs(%{{.*}} : tensor<8xf32>)
// NORM-NOT:     tensor<2x4x1xf32>
// NORM:         %[[Y:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
// NORM-NEXT:    return %[[Y]]

// ROPE-LABEL: func.func @rope_heads
// ROPE-DAG:     %[[SIN:.*]] = tensor.collapse_shape %arg3 {{\[\[}}0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
// ROPE-DAG:     %[[COS:.*]] = tensor.collapse_shape %arg2 {{\[\[}}0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
// ROPE:         %[[Q:.*]] = linalg.matmul
// ROPE:         %[[VIEW:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
// ROPE-DAG:     tensor.extract_slice %[[VIEW]][0, 0, 0] [8, 2, 4] [1, 1, 1]
// ROPE-DAG:     tensor.extract_slice %[[VIEW]][0, 0, 4] [8, 2, 4] [1, 1, 1]
// ROPE-DAG:     linalg.generic {{.*}} ins(%[[VIEW]], %[[COS]] : tensor<8x2x8xf32>, tensor<8x8xf32>)
// ROPE:         tensor.concat dim(2)
// ROPE:         linalg.generic {{.*}} ins(%{{.*}}, %[[SIN]] : tensor<8x2x8xf32>, tensor<8x8xf32>)
// ROPE:         %[[ROT:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x2x8xf32>, tensor<8x2x8xf32>)
// ROPE:         %[[TOK:.*]] = tensor.expand_shape %[[ROT]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 4, 2, 8]
// ROPE:         %[[T:.*]] = linalg.transpose ins(%[[TOK]] : tensor<2x4x2x8xf32>) {{.*}} permutation = [0, 2, 1, 3]
// ROPE-NEXT:    return %[[T]]

// HEADS-LABEL: func.func @heads_out
// HEADS:         %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<2x2x4x8xf32>) {{.*}} permutation = [0, 2, 1, 3]
// HEADS:         %[[A:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2, 3]] : tensor<2x4x2x8xf32> into tensor<8x16xf32>
// HEADS:         linalg.matmul ins(%[[A]], %{{.*}} : tensor<8x16xf32>, tensor<16x16xf32>)
// HEADS-NOT:     linalg.batch_matmul

//--- linear_residual_rmsnorm.mlir
// h = x + F.linear(x, w); h * rsqrt(mean(h²) + eps) * g on x: [2, 4, 16]
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map2 = affine_map<(d0, d1, d2) -> (d2)>
module {
  func.func @linear_residual_rmsnorm(%arg0: tensor<2x4x16xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<16xf32>) -> tensor<2x4x16xf32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999995E-7 : f64
    %cst_1 = arith.constant 1.600000e+01 : f32
    %0 = tensor.empty() : tensor<16x16xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<16x16xf32>) outs(%0 : tensor<16x16xf32>) permutation = [1, 0] 
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
    %1 = tensor.empty() : tensor<8x16xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = linalg.matmul ins(%collapsed, %transposed : tensor<8x16xf32>, tensor<16x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %3 [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
    %4 = tensor.empty() : tensor<2x4x16xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %expanded : tensor<2x4x16xf32>, tensor<2x4x16xf32>) outs(%4 : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.addf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<2x4x16xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<2x4x16xf32>) outs(%4 : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %15 : f32
    } -> tensor<2x4x16xf32>
    %7 = tensor.empty() : tensor<2x4x1xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%6 : tensor<2x4x16xf32>) outs(%8 : tensor<2x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.addf %in, %out : f32
      linalg.yield %15 : f32
    } -> tensor<2x4x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<2x4x1xf32>) outs(%7 : tensor<2x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.divf %in, %cst_1 : f32
      linalg.yield %15 : f32
    } -> tensor<2x4x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10 : tensor<2x4x1xf32>) outs(%7 : tensor<2x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.truncf %cst_0 : f64 to f32
      %16 = arith.addf %in, %15 : f32
      linalg.yield %16 : f32
    } -> tensor<2x4x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11 : tensor<2x4x1xf32>) outs(%7 : tensor<2x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = math.rsqrt %in : f32
      linalg.yield %15 : f32
    } -> tensor<2x4x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %12 : tensor<2x4x16xf32>, tensor<2x4x1xf32>) outs(%4 : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.mulf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<2x4x16xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %arg2 : tensor<2x4x16xf32>, tensor<16xf32>) outs(%4 : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.mulf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<2x4x16xf32>
    return %14 : tensor<2x4x16xf32>
  }
}

//--- rope_heads.mlir
// q = F.linear(x, w).view(B, S, H, HD).transpose(1, 2); q * cos.unsqueeze(1) + rotate_half(q) * sin.unsqueeze(1)
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
module {
  func.func @rope_heads(%arg0: tensor<2x4x16xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<2x4x8xf32>, %arg3: tensor<2x4x8xf32>) -> tensor<2x2x4x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<16x16xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<16x16xf32>) outs(%0 : tensor<16x16xf32>) permutation = [1, 0] 
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
    %1 = tensor.empty() : tensor<8x16xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = linalg.matmul ins(%collapsed, %transposed : tensor<8x16xf32>, tensor<16x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %3 [[0, 1], [2, 3]] output_shape [2, 4, 2, 8] : tensor<8x16xf32> into tensor<2x4x2x8xf32>
    %4 = tensor.empty() : tensor<2x2x4x8xf32>
    %transposed_0 = linalg.transpose ins(%expanded : tensor<2x4x2x8xf32>) outs(%4 : tensor<2x2x4x8xf32>) permutation = [0, 2, 1, 3] 
    %expanded_1 = tensor.expand_shape %arg2 [[0], [1, 2], [3]] output_shape [2, 1, 4, 8] : tensor<2x4x8xf32> into tensor<2x1x4x8xf32>
    %expanded_2 = tensor.expand_shape %arg3 [[0], [1, 2], [3]] output_shape [2, 1, 4, 8] : tensor<2x4x8xf32> into tensor<2x1x4x8xf32>
    %extracted_slice = tensor.extract_slice %transposed_0[0, 0, 0, 0] [2, 2, 4, 4] [1, 1, 1, 1] : tensor<2x2x4x8xf32> to tensor<2x2x4x4xf32>
    %extracted_slice_3 = tensor.extract_slice %transposed_0[0, 0, 0, 4] [2, 2, 4, 4] [1, 1, 1, 1] : tensor<2x2x4x8xf32> to tensor<2x2x4x4xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_0, %expanded_1 : tensor<2x2x4x8xf32>, tensor<2x1x4x8xf32>) outs(%4 : tensor<2x2x4x8xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %10 = arith.mulf %in, %in_4 : f32
      linalg.yield %10 : f32
    } -> tensor<2x2x4x8xf32>
    %6 = tensor.empty() : tensor<2x2x4x4xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%extracted_slice_3 : tensor<2x2x4x4xf32>) outs(%6 : tensor<2x2x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.negf %in : f32
      linalg.yield %10 : f32
    } -> tensor<2x2x4x4xf32>
    %concat = tensor.concat dim(3) %7, %extracted_slice : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x8xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%concat, %expanded_2 : tensor<2x2x4x8xf32>, tensor<2x1x4x8xf32>) outs(%4 : tensor<2x2x4x8xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %10 = arith.mulf %in, %in_4 : f32
      linalg.yield %10 : f32
    } -> tensor<2x2x4x8xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5, %8 : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) outs(%4 : tensor<2x2x4x8xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %10 = arith.addf %in, %in_4 : f32
      linalg.yield %10 : f32
    } -> tensor<2x2x4x8xf32>
    return %9 : tensor<2x2x4x8xf32>
  }
}

//--- heads_out.mlir
// F.linear(a.transpose(1, 2).reshape(B, S, H * HD), w): torch-mlir writes a batch_matmul over a broadcast weight
module {
  func.func @heads_out(%arg0: tensor<2x2x4x8xf32>, %arg1: tensor<16x16xf32>) -> tensor<2x4x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x4x2x8xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<2x2x4x8xf32>) outs(%0 : tensor<2x4x2x8xf32>) permutation = [0, 2, 1, 3] 
    %1 = tensor.empty() : tensor<16x16xf32>
    %transposed_0 = linalg.transpose ins(%arg1 : tensor<16x16xf32>) outs(%1 : tensor<16x16xf32>) permutation = [1, 0] 
    %collapsed = tensor.collapse_shape %transposed [[0, 1], [2, 3]] : tensor<2x4x2x8xf32> into tensor<8x16xf32>
    %2 = tensor.empty() : tensor<8x16xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %4 = linalg.matmul ins(%collapsed, %transposed_0 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%3 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %4 [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
    return %expanded : tensor<2x4x16xf32>
  }
}

//--- tokens.mlir
// A [tokens, D] program (F.layer_norm on [8, 32]): nothing to do.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @layer_norm(%arg0: tensor<8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> tensor<8x32xf32> {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %cst_2 = arith.constant 3.200000e+01 : f64
    %cst_3 = arith.constant 3.200000e+01 : f32
    %0 = tensor.empty() : tensor<8x32xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x32xf32>) outs(%0 : tensor<8x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %22 = arith.extf %in : f32 to f64
      linalg.yield %22 : f64
    } -> tensor<8x32xf64>
    %2 = tensor.empty() : tensor<8x1xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<8x1xf64>) -> tensor<8x1xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8x32xf64>) outs(%3 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.addf %in, %out : f64
      linalg.yield %22 : f64
    } -> tensor<8x1xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x1xf64>) outs(%2 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.divf %in, %cst_2 : f64
      linalg.yield %22 : f64
    } -> tensor<8x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %5 : tensor<8x32xf64>, tensor<8x1xf64>) outs(%0 : tensor<8x32xf64>) {
    ^bb0(%in: f64, %in_4: f64, %out: f64):
      %22 = arith.subf %in, %in_4 : f64
      linalg.yield %22 : f64
    } -> tensor<8x32xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %6 : tensor<8x32xf64>, tensor<8x32xf64>) outs(%0 : tensor<8x32xf64>) {
    ^bb0(%in: f64, %in_4: f64, %out: f64):
      %22 = arith.mulf %in, %in_4 : f64
      linalg.yield %22 : f64
    } -> tensor<8x32xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<8x32xf64>) outs(%3 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.addf %in, %out : f64
      linalg.yield %22 : f64
    } -> tensor<8x1xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<8x1xf64>) outs(%2 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.divf %in, %cst_2 : f64
      linalg.yield %22 : f64
    } -> tensor<8x1xf64>
    %10 = tensor.empty() : tensor<8x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<8x1xf64>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %22 = arith.truncf %in : f64 to f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x32xf32>) outs(%12 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.addf %in, %out : f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.divf %in, %cst_3 : f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.truncf %cst_1 : f64 to f32
      %23 = arith.addf %in, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<8x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.rsqrt %in : f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %17 = tensor.empty() : tensor<8x32xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %14 : tensor<8x32xf32>, tensor<8x1xf32>) outs(%17 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %22 = arith.subf %in, %in_4 : f32
      linalg.yield %22 : f32
    } -> tensor<8x32xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%18, %16 : tensor<8x32xf32>, tensor<8x1xf32>) outs(%17 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %22 = arith.mulf %in, %in_4 : f32
      linalg.yield %22 : f32
    } -> tensor<8x32xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %arg1 : tensor<8x32xf32>, tensor<32xf32>) outs(%17 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %22 = arith.mulf %in, %in_4 : f32
      linalg.yield %22 : f32
    } -> tensor<8x32xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %arg2 : tensor<8x32xf32>, tensor<32xf32>) outs(%17 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %22 = arith.addf %in, %in_4 : f32
      linalg.yield %22 : f32
    } -> tensor<8x32xf32>
    return %21 : tensor<8x32xf32>
  }
}
