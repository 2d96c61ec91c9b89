// Rotate-half RoPE from torch-mlir output (rope(x) = x * cos + cat(-x2, x1) * sin on the
// [H, M, HD] heads of the q and k projections) becomes a pairwise(rotate) epilogue of the merged
// projection, with each head's weight columns permuted so rotated pairs (d, d + HD/2) are
// adjacent and cos/sin permuted alike as tiled operands.
//
// Why q·kᵀ is unchanged: the permuted heads are q P and k P for one permutation matrix P of the
// head dimension, and (q P)(k P)ᵀ = q P Pᵀ kᵀ = q kᵀ because P Pᵀ = I. When the rotated heads
// only meet in that product (qk_rope_scores) they stay permuted; when q is also returned
// (qk_rope) the kernel writes the pairs back into the heads' halves. Every run below compares
// the rewritten program with the original on random inputs.
// RUN: split-file %s %t
// RUN: coda-opt --coda-fuse %t/qk_rope_scores.mlir -o %t/qk_rope_scores.fused.mlir
// RUN: coda-run %t/qk_rope_scores.fused.mlir --against %t/qk_rope_scores.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse %t/qk_rope.mlir -o %t/qk_rope.fused.mlir
// RUN: coda-run %t/qk_rope.fused.mlir --against %t/qk_rope.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse %t/qk_rope_interleaved.mlir -o %t/qk_rope_interleaved.fused.mlir
// RUN: coda-run %t/qk_rope_interleaved.fused.mlir --against %t/qk_rope_interleaved.mlir | FileCheck %s --check-prefix=SAME
// RUN: FileCheck %s --check-prefix=INTERLEAVED < %t/qk_rope_interleaved.fused.mlir
// RUN: FileCheck %s --check-prefix=SCORES < %t/qk_rope_scores.fused.mlir
// RUN: FileCheck %s --check-prefix=HALVES < %t/qk_rope.fused.mlir
// RUN: coda-opt --coda-fuse %t/qk_partial_rope_scores.mlir -o %t/qk_partial_rope_scores.fused.mlir
// RUN: coda-run %t/qk_partial_rope_scores.fused.mlir --against %t/qk_partial_rope_scores.mlir | FileCheck %s --check-prefix=SAME
// RUN: FileCheck %s --check-prefix=PARTIAL < %t/qk_partial_rope_scores.fused.mlir
// RUN: coda-opt --coda-fuse %t/qk_partial_rope_read.mlir -o %t/qk_partial_rope_read.fused.mlir
// RUN: coda-run %t/qk_partial_rope_read.fused.mlir --against %t/qk_partial_rope_read.mlir | FileCheck %s --check-prefix=SAME
// RUN: FileCheck %s --check-prefix=READ < %t/qk_partial_rope_read.fused.mlir
// RUN: coda-opt --coda-fuse %t/qk_rope_ragged.mlir -o %t/qk_rope_ragged.fused.mlir
// RUN: coda-run %t/qk_rope_ragged.fused.mlir --against %t/qk_rope_ragged.mlir | FileCheck %s --check-prefix=SAME
// RUN: FileCheck %s --check-prefix=RAGGED < %t/qk_rope_ragged.fused.mlir
// SAME-NOT: MISMATCH
// SAME: result #0: {{.*}}: ok
// SAME-NOT: MISMATCH

// SCORES-LABEL: func.func @qk_rope_scores
// SCORES:       %[[W:.*]] = call @coda_rope_permute_32x32_{{.*}}d8{{.*}}d8(%{{.*}}) : (tensor<32x32xf32>) -> tensor<32x32xf32>
// The tables' two permutations are one generic (coda-fuse-leftovers merges them: one launch).
// SCORES:       %[[T:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>)
// SCORES:         tensor.extract %arg3
// SCORES:         tensor.extract %arg4
// SCORES:       %[[G:.*]] = coda.gemm %arg0, %[[W]] transpose_b pairwise(rotate) : tensor<8x32xf32>, tensor<32x32xf32>
// SCORES-NEXT:    with(%[[T]]#0 as tiled : tensor<8x8xf32>, %[[T]]#1 as tiled : tensor<8x8xf32>)
// SCORES-NEXT:    -> (store tensor<8x32xf32>)
// SCORES-NEXT:    epilogue(%[[X0:.*]]: f32, %[[X1:.*]]: f32, %[[C0:.*]]: f32, %[[C1:.*]]: f32, %[[S0:.*]]: f32, %[[S1:.*]]: f32, %{{.*}}: index, %{{.*}}: index) {
// SCORES-DAG:     %[[A:.*]] = arith.mulf %[[X0]], %[[C0]] : f32
// SCORES-DAG:     %[[B:.*]] = arith.mulf %[[X1]], %[[S0]] : f32
// SCORES:         arith.subf %[[A]], %[[B]] : f32
// SCORES:         coda.yield
// SCORES-NOT:   tensor.concat
// The scores q·kᵀ (no softmax follows: not attention) are one batched kernel.
// SCORES:       coda.gemm %{{.*}}, %{{.*}} transpose_b : tensor<2x8x8xf32>, tensor<2x8x8xf32>
// SCORES-LABEL: func.func private @coda_rope_permute_32x32
// SCORES-SAME:    attributes {coda.weight_prep}

// The interleaved convention (pairs (2d, 2d + 1), cos/sin per pair [M, HD/2]) needs no
// permutation: the tables are read by both columns of a pair, and no order is restored.
// INTERLEAVED-LABEL: func.func @qk_rope_interleaved
// INTERLEAVED-NOT:   coda_rope_permute
// INTERLEAVED:       %[[T:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<8x8xf32>, tensor<8x8xf32>)
// INTERLEAVED:         tensor.extract %arg3
// INTERLEAVED:         tensor.extract %arg4
// INTERLEAVED:       coda.gemm %arg0, %{{.*}} transpose_b pairwise(rotate)
// INTERLEAVED-NEXT:    with(%[[T]]#0 as tiled : tensor<8x8xf32>, %[[T]]#1 as tiled : tensor<8x8xf32>)
// INTERLEAVED-NOT:   tensor.concat
// INTERLEAVED-NOT:   coda_rope_permute

// Partial rotary (the first R = 4 of each head's 8 columns rotated, pairs (d, d + R/2); the
// rest passed through): the same pairwise(rotate) kernel, the weights' pairs permuted within the
// rotated columns only, the [M, R] tables widened to the head's 8 columns, and the epilogue
// rotating the first R columns of each head. q's softmax scale and k's transpose do not stop
// the permuted heads from meeting only in q·kᵀ. (A partial rotary whose heads must come back
// in order is left alone: the halves layout pairs d with d + HD/2.)
// PARTIAL-LABEL: func.func @qk_partial_rope_scores
// PARTIAL:       call @coda_rope_permute_32x32_c16w16d8o0r4_c0w16d8o0r4(
// PARTIAL:       coda.gemm %arg0, %{{.*}} transpose_b pairwise(rotate) : tensor<8x32xf32>, tensor<32x32xf32>
// PARTIAL-NEXT:    with(%{{.*}} as tiled : tensor<8x8xf32>, %{{.*}} as tiled : tensor<8x8xf32>)
// PARTIAL:         arith.remui %{{.*}}, %c8
// PARTIAL:         arith.cmpi ult, %{{.*}}, %c4
// PARTIAL:         coda.yield
// PARTIAL-NOT:   tensor.concat
// PARTIAL:       coda.gemm %{{.*}}, %{{.*}} transpose_b : tensor<2x8x8xf32>, tensor<2x8x8xf32>
// PARTIAL-LABEL: func.func private @coda_rope_permute_32x32_c16w16d8o0r4_c0w16d8o0r4

// A head read otherwise besides its rotated and passed-through columns would see the
// permutation: the rotation stays as written.
// READ-LABEL: func.func @qk_partial_rope_read
// READ-NOT:   pairwise(rotate)
// READ:       tensor.concat

// When q is returned, the kernel writes each rotated pair into its head's halves itself
// (`halves 8`): every head of the merged product is permuted and nothing is restored after it.
// HALVES-LABEL: func.func @qk_rope
// HALVES:       call @coda_rope_permute_32x32_c0w32d8(
// HALVES:       coda.gemm {{.*}} pairwise(rotate, halves 8)
// HALVES-NOT:   tensor.extract_slice {{.*}} [1, 1, 2]
// HALVES-NOT:   tensor.concat

// With a projection of 4 columns merged beside q, the product (20 columns) is not made of
// whole heads: cos and sin cannot be tiled operands, and RoPE stays outside the kernel.
// RAGGED-LABEL: func.func @qk_rope_ragged
// RAGGED:       coda.gemm {{.*}} : tensor<8x32xf32>, tensor<20x32xf32>
// RAGGED-NOT:   pairwise
// RAGGED:       tensor.concat dim(2)

//--- qk_rope_scores.mlir
// q, k = rope(x @ wq.t() as [H, M, HD], cos, sin), rope(x @ wk.t() ...); return q @ k.transpose(1, 2)
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @qk_rope_scores(%arg0: tensor<8x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<16x32xf32>, %arg3: tensor<8x8xf32>, %arg4: tensor<8x8xf32>) -> tensor<2x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x16xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x16xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %3 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %4 = tensor.empty() : tensor<2x8x8xf32>
    %transposed_0 = linalg.transpose ins(%expanded : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %transposed_1 = linalg.transpose ins(%arg2 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %5 = linalg.matmul ins(%arg0, %transposed_1 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded_2 = tensor.expand_shape %5 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %transposed_3 = linalg.transpose ins(%expanded_2 : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_0, %arg3 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %extracted_slice = tensor.extract_slice %transposed_0[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %7 = tensor.empty() : tensor<2x8x4xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice : tensor<2x8x4xf32>) outs(%7 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.negf %in : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x4xf32>
    %extracted_slice_4 = tensor.extract_slice %transposed_0[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %concat = tensor.concat dim(2) %8, %extracted_slice_4 : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %arg4 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %9 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.addf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_3, %arg3 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %extracted_slice_5 = tensor.extract_slice %transposed_3[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_5 : tensor<2x8x4xf32>) outs(%7 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.negf %in : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x4xf32>
    %extracted_slice_6 = tensor.extract_slice %transposed_3[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %concat_7 = tensor.concat dim(2) %12, %extracted_slice_6 : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat_7, %arg4 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %13 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.addf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %transposed_8 = linalg.transpose ins(%14 : tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [0, 2, 1] 
    %15 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %16 = linalg.batch_matmul ins(%10, %transposed_8 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%15 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    return %16 : tensor<2x8x8xf32>
  }
}

//--- qk_rope.mlir
// same, returning q @ k.transpose(1, 2) and the rotated q itself
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @qk_rope(%arg0: tensor<8x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<16x32xf32>, %arg3: tensor<8x8xf32>, %arg4: tensor<8x8xf32>) -> (tensor<2x8x8xf32>, tensor<2x8x8xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x16xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x16xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %3 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %4 = tensor.empty() : tensor<2x8x8xf32>
    %transposed_0 = linalg.transpose ins(%expanded : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %transposed_1 = linalg.transpose ins(%arg2 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %5 = linalg.matmul ins(%arg0, %transposed_1 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded_2 = tensor.expand_shape %5 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %transposed_3 = linalg.transpose ins(%expanded_2 : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_0, %arg3 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %extracted_slice = tensor.extract_slice %transposed_0[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %7 = tensor.empty() : tensor<2x8x4xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice : tensor<2x8x4xf32>) outs(%7 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.negf %in : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x4xf32>
    %extracted_slice_4 = tensor.extract_slice %transposed_0[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %concat = tensor.concat dim(2) %8, %extracted_slice_4 : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %arg4 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %9 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.addf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_3, %arg3 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %extracted_slice_5 = tensor.extract_slice %transposed_3[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_5 : tensor<2x8x4xf32>) outs(%7 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.negf %in : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x4xf32>
    %extracted_slice_6 = tensor.extract_slice %transposed_3[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %concat_7 = tensor.concat dim(2) %12, %extracted_slice_6 : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat_7, %arg4 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %13 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.addf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %transposed_8 = linalg.transpose ins(%14 : tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [0, 2, 1] 
    %15 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %16 = linalg.batch_matmul ins(%10, %transposed_8 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%15 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    return %16, %10 : tensor<2x8x8xf32>, tensor<2x8x8xf32>
  }
}

//--- qk_rope_interleaved.mlir
// x1, x2 = x[..., 0::2], x[..., 1::2]; rope = stack(x1 cos - x2 sin, x1 sin + x2 cos, -1).flatten(-2)
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @qk_rope_interleaved(%arg0: tensor<8x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<16x32xf32>, %arg3: tensor<8x4xf32>, %arg4: tensor<8x4xf32>) -> tensor<2x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x16xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x16xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %3 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %4 = tensor.empty() : tensor<2x8x8xf32>
    %transposed_0 = linalg.transpose ins(%expanded : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %transposed_1 = linalg.transpose ins(%arg2 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %5 = linalg.matmul ins(%arg0, %transposed_1 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded_2 = tensor.expand_shape %5 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %transposed_3 = linalg.transpose ins(%expanded_2 : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %extracted_slice = tensor.extract_slice %transposed_0[0, 0, 0] [2, 8, 4] [1, 1, 2] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %extracted_slice_4 = tensor.extract_slice %transposed_0[0, 0, 1] [2, 8, 4] [1, 1, 2] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %6 = tensor.empty() : tensor<2x8x4xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice, %arg3 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.mulf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_4, %arg4 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.mulf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %8 : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.subf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice, %arg4 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.mulf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_4, %arg3 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.mulf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %11 : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.addf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %expanded_5 = tensor.expand_shape %9 [[0], [1], [2, 3]] output_shape [2, 8, 4, 1] : tensor<2x8x4xf32> into tensor<2x8x4x1xf32>
    %expanded_6 = tensor.expand_shape %12 [[0], [1], [2, 3]] output_shape [2, 8, 4, 1] : tensor<2x8x4xf32> into tensor<2x8x4x1xf32>
    %concat = tensor.concat dim(3) %expanded_5, %expanded_6 : (tensor<2x8x4x1xf32>, tensor<2x8x4x1xf32>) -> tensor<2x8x4x2xf32>
    %collapsed = tensor.collapse_shape %concat [[0], [1], [2, 3]] : tensor<2x8x4x2xf32> into tensor<2x8x8xf32>
    %extracted_slice_7 = tensor.extract_slice %transposed_3[0, 0, 0] [2, 8, 4] [1, 1, 2] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %extracted_slice_8 = tensor.extract_slice %transposed_3[0, 0, 1] [2, 8, 4] [1, 1, 2] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_7, %arg3 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.mulf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_8, %arg4 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.mulf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %14 : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.subf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_7, %arg4 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.mulf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_8, %arg3 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.mulf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%16, %17 : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%6 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %21 = arith.addf %in, %in_14 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8x4xf32>
    %expanded_9 = tensor.expand_shape %15 [[0], [1], [2, 3]] output_shape [2, 8, 4, 1] : tensor<2x8x4xf32> into tensor<2x8x4x1xf32>
    %expanded_10 = tensor.expand_shape %18 [[0], [1], [2, 3]] output_shape [2, 8, 4, 1] : tensor<2x8x4xf32> into tensor<2x8x4x1xf32>
    %concat_11 = tensor.concat dim(3) %expanded_9, %expanded_10 : (tensor<2x8x4x1xf32>, tensor<2x8x4x1xf32>) -> tensor<2x8x4x2xf32>
    %collapsed_12 = tensor.collapse_shape %concat_11 [[0], [1], [2, 3]] : tensor<2x8x4x2xf32> into tensor<2x8x8xf32>
    %transposed_13 = linalg.transpose ins(%collapsed_12 : tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [0, 2, 1] 
    %19 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %20 = linalg.batch_matmul ins(%collapsed, %transposed_13 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%19 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    return %20 : tensor<2x8x8xf32>
  }
}

//--- qk_partial_rope_scores.mlir
// q, k = partial rotary (the first 4 of each head's 8 columns, as GPT-NeoX and Phi do) on
// [H, M, HD] heads; q scaled by 1/sqrt(HD); return q @ k.transpose(1, 2)
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @qk_partial_rope_scores(%arg0: tensor<8x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<16x32xf32>, %arg3: tensor<8x4xf32>, %arg4: tensor<8x4xf32>) -> tensor<2x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %scale = arith.constant 0.353553385 : f32
    %0 = tensor.empty() : tensor<32x16xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x16xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %3 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %4 = tensor.empty() : tensor<2x8x8xf32>
    %e4 = tensor.empty() : tensor<2x8x4xf32>
    %e2 = tensor.empty() : tensor<2x8x2xf32>
    %q0 = linalg.transpose ins(%expanded : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %transposed_1 = linalg.transpose ins(%arg2 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %5 = linalg.matmul ins(%arg0, %transposed_1 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded_2 = tensor.expand_shape %5 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %k0 = linalg.transpose ins(%expanded_2 : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %q_r = tensor.extract_slice %q0[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %q_p = tensor.extract_slice %q0[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %q_a = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q_r, %arg3 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.mulf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %q_hi = tensor.extract_slice %q_r[0, 0, 2] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
    %q_n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q_hi : tensor<2x8x2xf32>) outs(%e2 : tensor<2x8x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.negf %in : f32
      linalg.yield %m : f32
    } -> tensor<2x8x2xf32>
    %q_lo = tensor.extract_slice %q_r[0, 0, 0] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
    %q_c = tensor.concat dim(2) %q_n, %q_lo : (tensor<2x8x2xf32>, tensor<2x8x2xf32>) -> tensor<2x8x4xf32>
    %q_b = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q_c, %arg4 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.mulf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %q_s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q_a, %q_b : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.addf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %q = tensor.concat dim(2) %q_s, %q_p : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    %k_r = tensor.extract_slice %k0[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %k_p = tensor.extract_slice %k0[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %k_a = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k_r, %arg3 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.mulf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %k_hi = tensor.extract_slice %k_r[0, 0, 2] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
    %k_n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k_hi : tensor<2x8x2xf32>) outs(%e2 : tensor<2x8x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.negf %in : f32
      linalg.yield %m : f32
    } -> tensor<2x8x2xf32>
    %k_lo = tensor.extract_slice %k_r[0, 0, 0] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
    %k_c = tensor.concat dim(2) %k_n, %k_lo : (tensor<2x8x2xf32>, tensor<2x8x2xf32>) -> tensor<2x8x4xf32>
    %k_b = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k_c, %arg4 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.mulf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %k_s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k_a, %k_b : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.addf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %k = tensor.concat dim(2) %k_s, %k_p : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    %qs = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %scale : f32
      linalg.yield %m : f32
    } -> tensor<2x8x8xf32>
    %kt = linalg.transpose ins(%k : tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [0, 2, 1] 
    %15 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %16 = linalg.batch_matmul ins(%qs, %kt : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%15 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    return %16 : tensor<2x8x8xf32>
  }
}

//--- qk_partial_rope_read.mlir
// qk_partial_rope_scores, with the first 2 columns of q's heads also returned before rotation
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @qk_partial_rope_read(%arg0: tensor<8x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<16x32xf32>, %arg3: tensor<8x4xf32>, %arg4: tensor<8x4xf32>) -> (tensor<2x8x8xf32>, tensor<2x8x2xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %scale = arith.constant 0.353553385 : f32
    %0 = tensor.empty() : tensor<32x16xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x16xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %3 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %4 = tensor.empty() : tensor<2x8x8xf32>
    %e4 = tensor.empty() : tensor<2x8x4xf32>
    %e2 = tensor.empty() : tensor<2x8x2xf32>
    %q0 = linalg.transpose ins(%expanded : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %transposed_1 = linalg.transpose ins(%arg2 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %5 = linalg.matmul ins(%arg0, %transposed_1 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded_2 = tensor.expand_shape %5 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %k0 = linalg.transpose ins(%expanded_2 : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %q_r = tensor.extract_slice %q0[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %q_p = tensor.extract_slice %q0[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %q_a = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q_r, %arg3 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.mulf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %q_hi = tensor.extract_slice %q_r[0, 0, 2] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
    %q_n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q_hi : tensor<2x8x2xf32>) outs(%e2 : tensor<2x8x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.negf %in : f32
      linalg.yield %m : f32
    } -> tensor<2x8x2xf32>
    %q_lo = tensor.extract_slice %q_r[0, 0, 0] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
    %q_c = tensor.concat dim(2) %q_n, %q_lo : (tensor<2x8x2xf32>, tensor<2x8x2xf32>) -> tensor<2x8x4xf32>
    %q_b = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q_c, %arg4 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.mulf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %q_s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q_a, %q_b : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.addf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %q = tensor.concat dim(2) %q_s, %q_p : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    %k_r = tensor.extract_slice %k0[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %k_p = tensor.extract_slice %k0[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %k_a = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k_r, %arg3 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.mulf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %k_hi = tensor.extract_slice %k_r[0, 0, 2] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
    %k_n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k_hi : tensor<2x8x2xf32>) outs(%e2 : tensor<2x8x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.negf %in : f32
      linalg.yield %m : f32
    } -> tensor<2x8x2xf32>
    %k_lo = tensor.extract_slice %k_r[0, 0, 0] [2, 8, 2] [1, 1, 1] : tensor<2x8x4xf32> to tensor<2x8x2xf32>
    %k_c = tensor.concat dim(2) %k_n, %k_lo : (tensor<2x8x2xf32>, tensor<2x8x2xf32>) -> tensor<2x8x4xf32>
    %k_b = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k_c, %arg4 : tensor<2x8x4xf32>, tensor<8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.mulf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %k_s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k_a, %k_b : tensor<2x8x4xf32>, tensor<2x8x4xf32>) outs(%e4 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %m = arith.addf %in, %in_9 : f32
      linalg.yield %m : f32
    } -> tensor<2x8x4xf32>
    %k = tensor.concat dim(2) %k_s, %k_p : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    %qs = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %scale : f32
      linalg.yield %m : f32
    } -> tensor<2x8x8xf32>
    %kt = linalg.transpose ins(%k : tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [0, 2, 1] 
    %15 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %16 = linalg.batch_matmul ins(%qs, %kt : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%15 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %read = tensor.extract_slice %q0[0, 0, 0] [2, 8, 2] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x2xf32>
    return %16, %read : tensor<2x8x8xf32>, tensor<2x8x2xf32>
  }
}

//--- qk_rope_ragged.mlir
// q = rope(x @ wq.t() as [H, M, HD], cos, sin) and p = x @ wp.t() (4 columns), both returned
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @qk_rope_ragged(%arg0: tensor<8x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<4x32xf32>, %arg3: tensor<8x8xf32>, %arg4: tensor<8x8xf32>) -> (tensor<2x8x8xf32>, tensor<8x4xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x16xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<16x32xf32>) outs(%0 : tensor<32x16xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x16xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x16xf32>) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %3 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %4 = tensor.empty() : tensor<2x8x8xf32>
    %transposed_0 = linalg.transpose ins(%expanded : tensor<8x2x8xf32>) outs(%4 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_0, %arg3 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %extracted_slice = tensor.extract_slice %transposed_0[0, 0, 4] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %7 = tensor.empty() : tensor<2x8x4xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice : tensor<2x8x4xf32>) outs(%7 : tensor<2x8x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.negf %in : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x4xf32>
    %extracted_slice_4 = tensor.extract_slice %transposed_0[0, 0, 0] [2, 8, 4] [1, 1, 1] : tensor<2x8x8xf32> to tensor<2x8x4xf32>
    %concat = tensor.concat dim(2) %8, %extracted_slice_4 : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %arg4 : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.mulf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %9 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%4 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %17 = arith.addf %in, %in_9 : f32
      linalg.yield %17 : f32
    } -> tensor<2x8x8xf32>
    %11 = tensor.empty() : tensor<32x4xf32>
    %transposed_p = linalg.transpose ins(%arg2 : tensor<4x32xf32>) outs(%11 : tensor<32x4xf32>) permutation = [1, 0] 
    %12 = tensor.empty() : tensor<8x4xf32>
    %13 = linalg.fill ins(%cst : f32) outs(%12 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %14 = linalg.matmul ins(%arg0, %transposed_p : tensor<8x32xf32>, tensor<32x4xf32>) outs(%13 : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %10, %14 : tensor<2x8x8xf32>, tensor<8x4xf32>
  }
}
