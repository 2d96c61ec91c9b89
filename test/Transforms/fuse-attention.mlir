// Attention as torch-mlir writes it, after the rest of --coda-fuse has run (what
// --coda-fuse-attention sees), becomes one coda.attention. Each input is cut from an example
// layer: F.scaled_dot_product_attention(is_causal=True) over GQA heads of a [B, S, D] bf16
// program (examples/torch/hf_llama_bf16.mlir), and an explicit causal softmax over the heads of
// a [tokens, D] f32 program (examples/torch/gpt2_block.mlir). A mask on positions that no
// #coda.mask says becomes a runtime mask computed once. Every rewritten program is run against
// its input.
// RUN: split-file %s %t
// RUN: coda-opt --coda-fuse-attention %t/sdpa.mlir -o %t/sdpa.fused.mlir
// RUN: FileCheck %s --check-prefix=SDPA < %t/sdpa.fused.mlir
// RUN: coda-run %t/sdpa.fused.mlir --against %t/sdpa.mlir --atol 1e-2 --rtol 1e-2 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/sdpa.fused.mlir --against %t/sdpa.mlir --atol 1e-2 --rtol 1e-2 --seed 1 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-attention %t/softmax.mlir -o %t/softmax.fused.mlir
// RUN: FileCheck %s --check-prefix=SOFTMAX < %t/softmax.fused.mlir
// RUN: coda-run %t/softmax.fused.mlir --against %t/softmax.mlir --rtol 1e-4 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-attention %t/shifted.mlir -o %t/shifted.fused.mlir
// RUN: FileCheck %s --check-prefix=SHIFTED < %t/shifted.fused.mlir
// RUN: coda-run %t/shifted.fused.mlir --against %t/shifted.mlir --atol 1e-2 --rtol 1e-2 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-attention %t/window.mlir -o %t/window.fused.mlir
// RUN: FileCheck %s --check-prefix=WINDOW < %t/window.fused.mlir
// RUN: coda-run %t/window.fused.mlir --against %t/window.mlir --atol 1e-2 --rtol 1e-2 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-attention %t/gap.mlir -o %t/gap.fused.mlir
// RUN: FileCheck %s --check-prefix=GAP < %t/gap.fused.mlir
// RUN: coda-run %t/gap.fused.mlir --against %t/gap.mlir --atol 1e-2 --rtol 1e-2 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-attention %t/unit_batch.mlir -o %t/unit_batch.fused.mlir
// RUN: FileCheck %s --check-prefix=UNIT < %t/unit_batch.fused.mlir
// RUN: coda-run %t/unit_batch.fused.mlir --against %t/unit_batch.mlir --atol 1e-2 --rtol 1e-2 | FileCheck %s --check-prefix=SAME

// SAME: result #0: {{.*}}: ok

// GQA (4 query heads, 2 KV heads) read from the token-major heads in place; the scale is the
// product of the sqrt(scale) factors SDPA puts on q and on k; the output replaces the transpose
// back to [B, S, H, d]; the scores, softmax, guard of fully masked rows and products are gone.
// SDPA-LABEL: func.func @sdpa_gqa_causal
// SDPA-SAME:    (%[[Q:.*]]: tensor<2x8x4x16xbf16>, %[[K:.*]]: tensor<2x8x2x16xbf16>, %[[V:.*]]: tensor<2x8x2x16xbf16>)
// SDPA-NOT:     linalg.
// SDPA:         %[[O:.*]] = coda.attention %[[Q]], %[[K]], %[[V]] scale 2.500000e-01 mask <causal = true> layout <bshd> attributes {coda.unfused_bytes = array<i64: {{[0-9]+}}, {{[0-9]+}}>} : tensor<2x8x4x16xbf16>, tensor<2x8x2x16xbf16>, tensor<2x8x2x16xbf16> -> tensor<2x8x4x16xbf16>
// SDPA-NOT:     linalg.
// SDPA:         %[[R:.*]] = tensor.collapse_shape %[[O]] {{\[\[}}0, 1], [2, 3]]
// SDPA-NOT:     linalg.
// SDPA:         return %[[R]]

// Unbatched heads [S, H, d] of a [tokens, D] program: a unit batch, the 1/sqrt(d) on the
// scores, the triu mask from position vectors; the output is the [S, H, d] heads the program
// transposed back.
// SOFTMAX-LABEL: func.func @explicit_softmax_unbatched
// SOFTMAX-NOT:   linalg.
// SOFTMAX:       coda.attention %{{.*}}, %{{.*}}, %{{.*}} scale 2.500000e-01 mask <causal = true> layout <bshd> {{.*}} : tensor<1x16x4x16xf32>, tensor<1x16x4x16xf32>, tensor<1x16x4x16xf32> -> tensor<1x16x4x16xf32>
// SOFTMAX-NOT:   linalg.

// Keys up to two positions ahead visible: a window bounded on the right only.
// SHIFTED-LABEL: func.func @shifted_mask
// SHIFTED:       coda.attention {{.*}} mask <right = 2> layout <bshd>

// An additive mask hiding keys after the query and more than 3 before it: a sliding window.
// WINDOW-LABEL: func.func @sliding_window
// WINDOW:       coda.attention {{.*}} mask <causal = true, left = 3> layout <bshd>

// Every key but the one two positions ahead: no #coda.mask says it, so a run-once function
// computes the mask from the positions and it becomes a runtime mask.
// GAP-LABEL: func.func @gap
// GAP:       %[[M:.*]] = call @coda_attention_positions_8x8() : () -> tensor<8x8xi1>
// GAP-NEXT:  %[[P:.*]]:2 = call @coda_attention_mask_1x1x8x8(%[[M]])
// GAP-NEXT:  coda.attention %arg0, %arg1, %arg2 blocks(%[[P]]#0, %[[P]]#1 : tensor<1x1x1x1xi8>, tensor<1x1x8x1xi32>) scale 2.500000e-01 layout <bshd>
// GAP-NOT:   linalg.batch_matmul
// GAP-LABEL: func.func private @coda_attention_positions_8x8() -> tensor<8x8xi1> attributes {coda.weight_prep}
// GAP:       linalg.generic
// GAP:       linalg.index 0
// GAP:       linalg.index 1

// SDPA on [tokens, H·d] heads viewed as [1, H, S, d] (`.view(S, H, d).transpose(0, 1)[None]`,
// bench/block_programs.py's Llama block), the KV heads repeated from [1, Hkv, 1, S, d]: read
// in place as token-major heads, the output collapsed to the [S, H, d] the program transposes
// back to.
// UNIT-LABEL: func.func @main
// UNIT-SAME:    (%[[Q:.*]]: tensor<16x64xbf16>, %[[K:.*]]: tensor<16x32xbf16>, %[[V:.*]]: tensor<16x32xbf16>)
// UNIT-NOT:     linalg.
// UNIT:         tensor.expand_shape %[[Q]]
// UNIT-NOT:     linalg.
// UNIT:         coda.attention %{{.*}}, %{{.*}}, %{{.*}} scale 2.500000e-01 mask <causal = true> layout <bshd> {{.*}} : tensor<1x16x4x16xbf16>, tensor<1x16x2x16xbf16>, tensor<1x16x2x16xbf16> -> tensor<1x16x4x16xbf16>
// UNIT-NOT:     linalg.
// UNIT:         return

//--- sdpa.mlir
func.func @sdpa_gqa_causal(%q: tensor<2x8x4x16xbf16>, %k: tensor<2x8x2x16xbf16>, %v: tensor<2x8x2x16xbf16>) -> tensor<16x64xbf16> {
  %c8 = arith.constant 8 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 5.000000e-01 : f32
  %cst_0 = arith.constant 0xFFF0000000000000 : f64
  %true = arith.constant true
  %cst_1 = arith.constant 0xFF800000 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c2_i64 = arith.constant 2 : i64
  %11 = tensor.empty() : tensor<2x4x8x16xbf16>
  %12 = tensor.empty() : tensor<8x8x16xbf16>
  %transposed = linalg.transpose ins(%q : tensor<2x8x4x16xbf16>) outs(%11 : tensor<2x4x8x16xbf16>) permutation = [0, 2, 1, 3] 
  %collapsed_7 = tensor.collapse_shape %transposed [[0, 1], [2], [3]] : tensor<2x4x8x16xbf16> into tensor<8x8x16xbf16>
  %13 = tensor.empty() : tensor<2x2x2x8x16xbf16>
  %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x8x2x16xbf16>) outs(%13 : tensor<2x2x2x8x16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x2x2x8x16xbf16>
  %collapsed_10 = tensor.collapse_shape %14 [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x16xbf16> into tensor<2x4x8x16xbf16>
  %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x8x2x16xbf16>) outs(%13 : tensor<2x2x2x8x16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x2x2x8x16xbf16>
  %collapsed_11 = tensor.collapse_shape %15 [[0, 1, 2], [3], [4]] : tensor<2x2x2x8x16xbf16> into tensor<8x8x16xbf16>
  %16 = tensor.empty() : tensor<2x4x8x16xf32>
  %17 = tensor.empty() : tensor<8x8x16xf32>
  %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_10 : tensor<2x4x8x16xbf16>) outs(%16 : tensor<2x4x8x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %53 = arith.extf %in : bf16 to f32
    linalg.yield %53 : f32
  } -> tensor<2x4x8x16xf32>
  %19:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_11, %collapsed_7 : tensor<8x8x16xbf16>, tensor<8x8x16xbf16>) outs(%17, %17 : tensor<8x8x16xf32>, tensor<8x8x16xf32>) {
  ^bb0(%in: bf16, %in_21: bf16, %out: f32, %out_22: f32):
    %53 = arith.extf %in : bf16 to f32
    %54 = arith.extf %in_21 : bf16 to f32
    %55 = arith.mulf %54, %cst : f32
    linalg.yield %53, %55 : f32, f32
  } -> (tensor<8x8x16xf32>, tensor<8x8x16xf32>)
  %20 = tensor.empty() : tensor<8xi64>
  %21 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%20 : tensor<8xi64>) {
  ^bb0(%out: i64):
    %53 = linalg.index 0 : index
    %54 = arith.index_cast %53 : index to i64
    linalg.yield %54 : i64
  } -> tensor<8xi64>
  %22 = tensor.empty() : tensor<8x8xf32>
  %23 = tensor.empty() : tensor<2x4x16x8xf32>
  %transposed_12 = linalg.transpose ins(%18 : tensor<2x4x8x16xf32>) outs(%23 : tensor<2x4x16x8xf32>) permutation = [0, 1, 3, 2] 
  %collapsed_13 = tensor.collapse_shape %transposed_12 [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %24 = tensor.empty() : tensor<8x16x8xf32>
  %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_13 : tensor<8x16x8xf32>) outs(%24 : tensor<8x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.mulf %in, %cst : f32
    linalg.yield %53 : f32
  } -> tensor<8x16x8xf32>
  %26 = tensor.empty() : tensor<8x8x8xf32>
  %27 = linalg.fill ins(%cst_2 : f32) outs(%26 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %28 = linalg.batch_matmul ins(%19#1, %25 : tensor<8x8x16xf32>, tensor<8x16x8xf32>) outs(%27 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %29 = tensor.empty() : tensor<2x4x8x8xf32>
  %30 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28, %21, %21 : tensor<8x8x8xf32>, tensor<8xi64>, tensor<8xi64>) outs(%26 : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in_21: i64, %in_22: i64, %out: f32):
    %53 = arith.subi %in_21, %in_22 : i64
    %54 = arith.cmpi sle, %53, %c0_i64 : i64
    %55 = arith.select %54, %cst_2, %cst_1 : f32
    %56 = arith.addf %in, %55 : f32
    linalg.yield %56 : f32
  } -> tensor<8x8x8xf32>
  %31 = linalg.fill ins(%cst_1 : f32) outs(%22 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%30 : tensor<8x8x8xf32>) outs(%31 : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.maximumf %in, %out : f32
    linalg.yield %53 : f32
  } -> tensor<8x8xf32>
  %33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30, %32 : tensor<8x8x8xf32>, tensor<8x8xf32>) outs(%26 : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %53 = arith.subf %in, %in_21 : f32
    %54 = math.exp %53 : f32
    linalg.yield %54 : f32
  } -> tensor<8x8x8xf32>
  %expanded_14 = tensor.expand_shape %33 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xf32> into tensor<2x4x8x8xf32>
  %34 = tensor.empty() : tensor<2x4x8x1xf32>
  %35 = linalg.fill ins(%cst_2 : f32) outs(%34 : tensor<2x4x8x1xf32>) -> tensor<2x4x8x1xf32>
  %36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_14 : tensor<2x4x8x8xf32>) outs(%35 : tensor<2x4x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.addf %in, %out : f32
    linalg.yield %53 : f32
  } -> tensor<2x4x8x1xf32>
  %37 = tensor.empty() : tensor<8x8x8xi1>
  %38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30 : tensor<8x8x8xf32>) outs(%37 : tensor<8x8x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %53 = arith.extf %in : f32 to f64
    %54 = arith.cmpf oeq, %53, %cst_0 : f64
    linalg.yield %54 : i1
  } -> tensor<8x8x8xi1>
  %expanded_15 = tensor.expand_shape %38 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xi1> into tensor<2x4x8x8xi1>
  %39 = tensor.empty() : tensor<2x4x8x1xi1>
  %40 = linalg.fill ins(%true : i1) outs(%39 : tensor<2x4x8x1xi1>) -> tensor<2x4x8x1xi1>
  %41 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_15 : tensor<2x4x8x8xi1>) outs(%40 : tensor<2x4x8x1xi1>) {
  ^bb0(%in: i1, %out: i1):
    %53 = arith.andi %in, %out : i1
    linalg.yield %53 : i1
  } -> tensor<2x4x8x1xi1>
  %42 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %expanded_14, %36 : tensor<2x4x8x1xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>) outs(%29 : tensor<2x4x8x8xf32>) {
  ^bb0(%in: i1, %in_21: f32, %in_22: f32, %out: f32):
    %53 = arith.divf %in_21, %in_22 : f32
    %54 = arith.select %in, %cst_2, %53 : f32
    linalg.yield %54 : f32
  } -> tensor<2x4x8x8xf32>
  %collapsed_16 = tensor.collapse_shape %42 [[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
  %43 = linalg.fill ins(%cst_2 : f32) outs(%17 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %44 = linalg.batch_matmul ins(%collapsed_16, %19#0 : tensor<8x8x8xf32>, tensor<8x8x16xf32>) outs(%43 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%44 : tensor<8x8x16xf32>) outs(%12 : tensor<8x8x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %53 = arith.truncf %in : f32 to bf16
    linalg.yield %53 : bf16
  } -> tensor<8x8x16xbf16>
  %expanded_17 = tensor.expand_shape %45 [[0, 1], [2], [3]] output_shape [2, 4, 8, 16] : tensor<8x8x16xbf16> into tensor<2x4x8x16xbf16>
  %46 = tensor.empty() : tensor<2x8x4x16xbf16>
  %transposed_18 = linalg.transpose ins(%expanded_17 : tensor<2x4x8x16xbf16>) outs(%46 : tensor<2x8x4x16xbf16>) permutation = [0, 2, 1, 3] 
  %collapsed_19 = tensor.collapse_shape %transposed_18 [[0, 1], [2, 3]] : tensor<2x8x4x16xbf16> into tensor<16x64xbf16>
  return %collapsed_19 : tensor<16x64xbf16>
}

//--- softmax.mlir
func.func @explicit_softmax_unbatched(%q: tensor<16x64xf32>, %k: tensor<16x64xf32>, %v: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %c1_i64 = arith.constant 1 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %cst_1 = arith.constant 4.000000e+00 : f32
  %expanded = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 4, 16] : tensor<16x64xf32> into tensor<16x4x16xf32>
  %5 = tensor.empty() : tensor<4x16x16xf32>
  %transposed = linalg.transpose ins(%expanded : tensor<16x4x16xf32>) outs(%5 : tensor<4x16x16xf32>) permutation = [1, 0, 2] 
  %expanded_5 = tensor.expand_shape %k [[0], [1, 2]] output_shape [16, 4, 16] : tensor<16x64xf32> into tensor<16x4x16xf32>
  %expanded_6 = tensor.expand_shape %v [[0], [1, 2]] output_shape [16, 4, 16] : tensor<16x64xf32> into tensor<16x4x16xf32>
  %transposed_7 = linalg.transpose ins(%expanded_6 : tensor<16x4x16xf32>) outs(%5 : tensor<4x16x16xf32>) permutation = [1, 0, 2] 
  %6 = tensor.empty() : tensor<16xi64>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%6 : tensor<16xi64>) {
  ^bb0(%out: i64):
    %25 = linalg.index 0 : index
    %26 = arith.index_cast %25 : index to i64
    linalg.yield %26 : i64
  } -> tensor<16xi64>
  %expanded_8 = tensor.expand_shape %7 [[0, 1]] output_shape [1, 16] : tensor<16xi64> into tensor<1x16xi64>
  %expanded_9 = tensor.expand_shape %7 [[0, 1]] output_shape [16, 1] : tensor<16xi64> into tensor<16x1xi64>
  %transposed_10 = linalg.transpose ins(%expanded_5 : tensor<16x4x16xf32>) outs(%5 : tensor<4x16x16xf32>) permutation = [1, 2, 0] 
  %8 = linalg.fill ins(%cst : f32) outs(%5 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %9 = linalg.batch_matmul ins(%transposed, %transposed_10 : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%8 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, d2)>, affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %expanded_8, %expanded_9 : tensor<4x16x16xf32>, tensor<1x16xi64>, tensor<16x1xi64>) outs(%5 : tensor<4x16x16xf32>) {
  ^bb0(%in: f32, %in_14: i64, %in_15: i64, %out: f32):
    %25 = arith.subi %in_14, %in_15 : i64
    %26 = arith.cmpi sge, %25, %c1_i64 : i64
    %27 = arith.select %26, %cst_0, %cst : f32
    %28 = arith.divf %in, %cst_1 : f32
    %29 = arith.addf %28, %27 : f32
    linalg.yield %29 : f32
  } -> tensor<4x16x16xf32>
  %11 = tensor.empty() : tensor<4x16xf32>
  %12 = linalg.fill ins(%cst_0 : f32) outs(%11 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%10 : tensor<4x16x16xf32>) outs(%12 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %25 = arith.maximumf %in, %out : f32
    linalg.yield %25 : f32
  } -> tensor<4x16xf32>
  %expanded_11 = tensor.expand_shape %13 [[0], [1, 2]] output_shape [4, 16, 1] : tensor<4x16xf32> into tensor<4x16x1xf32>
  %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %expanded_11 : tensor<4x16x16xf32>, tensor<4x16x1xf32>) outs(%5 : tensor<4x16x16xf32>) {
  ^bb0(%in: f32, %in_14: f32, %out: f32):
    %25 = arith.subf %in, %in_14 : f32
    %26 = math.exp %25 : f32
    linalg.yield %26 : f32
  } -> tensor<4x16x16xf32>
  %15 = tensor.empty() : tensor<4x16x1xf32>
  %16 = linalg.fill ins(%cst : f32) outs(%15 : tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%14 : tensor<4x16x16xf32>) outs(%16 : tensor<4x16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %25 = arith.addf %in, %out : f32
    linalg.yield %25 : f32
  } -> tensor<4x16x1xf32>
  %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14, %17 : tensor<4x16x16xf32>, tensor<4x16x1xf32>) outs(%5 : tensor<4x16x16xf32>) {
  ^bb0(%in: f32, %in_14: f32, %out: f32):
    %25 = arith.divf %in, %in_14 : f32
    linalg.yield %25 : f32
  } -> tensor<4x16x16xf32>
  %19 = linalg.batch_matmul ins(%18, %transposed_7 : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%8 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %20 = tensor.empty() : tensor<16x4x16xf32>
  %transposed_12 = linalg.transpose ins(%19 : tensor<4x16x16xf32>) outs(%20 : tensor<16x4x16xf32>) permutation = [1, 0, 2] 
  %collapsed_13 = tensor.collapse_shape %transposed_12 [[0], [1, 2]] : tensor<16x4x16xf32> into tensor<16x64xf32>
  return %collapsed_13 : tensor<16x64xf32>
}

//--- shifted.mlir
func.func @shifted_mask(%q: tensor<2x8x4x16xbf16>, %k: tensor<2x8x2x16xbf16>, %v: tensor<2x8x2x16xbf16>) -> tensor<16x64xbf16> {
  %c8 = arith.constant 8 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 5.000000e-01 : f32
  %cst_0 = arith.constant 0xFFF0000000000000 : f64
  %true = arith.constant true
  %cst_1 = arith.constant 0xFF800000 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c2_i64 = arith.constant 2 : i64
  %11 = tensor.empty() : tensor<2x4x8x16xbf16>
  %12 = tensor.empty() : tensor<8x8x16xbf16>
  %transposed = linalg.transpose ins(%q : tensor<2x8x4x16xbf16>) outs(%11 : tensor<2x4x8x16xbf16>) permutation = [0, 2, 1, 3] 
  %collapsed_7 = tensor.collapse_shape %transposed [[0, 1], [2], [3]] : tensor<2x4x8x16xbf16> into tensor<8x8x16xbf16>
  %13 = tensor.empty() : tensor<2x2x2x8x16xbf16>
  %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x8x2x16xbf16>) outs(%13 : tensor<2x2x2x8x16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x2x2x8x16xbf16>
  %collapsed_10 = tensor.collapse_shape %14 [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x16xbf16> into tensor<2x4x8x16xbf16>
  %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x8x2x16xbf16>) outs(%13 : tensor<2x2x2x8x16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x2x2x8x16xbf16>
  %collapsed_11 = tensor.collapse_shape %15 [[0, 1, 2], [3], [4]] : tensor<2x2x2x8x16xbf16> into tensor<8x8x16xbf16>
  %16 = tensor.empty() : tensor<2x4x8x16xf32>
  %17 = tensor.empty() : tensor<8x8x16xf32>
  %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_10 : tensor<2x4x8x16xbf16>) outs(%16 : tensor<2x4x8x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %53 = arith.extf %in : bf16 to f32
    linalg.yield %53 : f32
  } -> tensor<2x4x8x16xf32>
  %19:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_11, %collapsed_7 : tensor<8x8x16xbf16>, tensor<8x8x16xbf16>) outs(%17, %17 : tensor<8x8x16xf32>, tensor<8x8x16xf32>) {
  ^bb0(%in: bf16, %in_21: bf16, %out: f32, %out_22: f32):
    %53 = arith.extf %in : bf16 to f32
    %54 = arith.extf %in_21 : bf16 to f32
    %55 = arith.mulf %54, %cst : f32
    linalg.yield %53, %55 : f32, f32
  } -> (tensor<8x8x16xf32>, tensor<8x8x16xf32>)
  %20 = tensor.empty() : tensor<8xi64>
  %21 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%20 : tensor<8xi64>) {
  ^bb0(%out: i64):
    %53 = linalg.index 0 : index
    %54 = arith.index_cast %53 : index to i64
    linalg.yield %54 : i64
  } -> tensor<8xi64>
  %22 = tensor.empty() : tensor<8x8xf32>
  %23 = tensor.empty() : tensor<2x4x16x8xf32>
  %transposed_12 = linalg.transpose ins(%18 : tensor<2x4x8x16xf32>) outs(%23 : tensor<2x4x16x8xf32>) permutation = [0, 1, 3, 2] 
  %collapsed_13 = tensor.collapse_shape %transposed_12 [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %24 = tensor.empty() : tensor<8x16x8xf32>
  %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_13 : tensor<8x16x8xf32>) outs(%24 : tensor<8x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.mulf %in, %cst : f32
    linalg.yield %53 : f32
  } -> tensor<8x16x8xf32>
  %26 = tensor.empty() : tensor<8x8x8xf32>
  %27 = linalg.fill ins(%cst_2 : f32) outs(%26 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %28 = linalg.batch_matmul ins(%19#1, %25 : tensor<8x8x16xf32>, tensor<8x16x8xf32>) outs(%27 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %29 = tensor.empty() : tensor<2x4x8x8xf32>
  %30 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28, %21, %21 : tensor<8x8x8xf32>, tensor<8xi64>, tensor<8xi64>) outs(%26 : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in_21: i64, %in_22: i64, %out: f32):
    %53 = arith.subi %in_21, %in_22 : i64
    %54 = arith.cmpi sle, %53, %c2_i64 : i64
    %55 = arith.select %54, %cst_2, %cst_1 : f32
    %56 = arith.addf %in, %55 : f32
    linalg.yield %56 : f32
  } -> tensor<8x8x8xf32>
  %31 = linalg.fill ins(%cst_1 : f32) outs(%22 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%30 : tensor<8x8x8xf32>) outs(%31 : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.maximumf %in, %out : f32
    linalg.yield %53 : f32
  } -> tensor<8x8xf32>
  %33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30, %32 : tensor<8x8x8xf32>, tensor<8x8xf32>) outs(%26 : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %53 = arith.subf %in, %in_21 : f32
    %54 = math.exp %53 : f32
    linalg.yield %54 : f32
  } -> tensor<8x8x8xf32>
  %expanded_14 = tensor.expand_shape %33 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xf32> into tensor<2x4x8x8xf32>
  %34 = tensor.empty() : tensor<2x4x8x1xf32>
  %35 = linalg.fill ins(%cst_2 : f32) outs(%34 : tensor<2x4x8x1xf32>) -> tensor<2x4x8x1xf32>
  %36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_14 : tensor<2x4x8x8xf32>) outs(%35 : tensor<2x4x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.addf %in, %out : f32
    linalg.yield %53 : f32
  } -> tensor<2x4x8x1xf32>
  %37 = tensor.empty() : tensor<8x8x8xi1>
  %38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30 : tensor<8x8x8xf32>) outs(%37 : tensor<8x8x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %53 = arith.extf %in : f32 to f64
    %54 = arith.cmpf oeq, %53, %cst_0 : f64
    linalg.yield %54 : i1
  } -> tensor<8x8x8xi1>
  %expanded_15 = tensor.expand_shape %38 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xi1> into tensor<2x4x8x8xi1>
  %39 = tensor.empty() : tensor<2x4x8x1xi1>
  %40 = linalg.fill ins(%true : i1) outs(%39 : tensor<2x4x8x1xi1>) -> tensor<2x4x8x1xi1>
  %41 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_15 : tensor<2x4x8x8xi1>) outs(%40 : tensor<2x4x8x1xi1>) {
  ^bb0(%in: i1, %out: i1):
    %53 = arith.andi %in, %out : i1
    linalg.yield %53 : i1
  } -> tensor<2x4x8x1xi1>
  %42 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %expanded_14, %36 : tensor<2x4x8x1xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>) outs(%29 : tensor<2x4x8x8xf32>) {
  ^bb0(%in: i1, %in_21: f32, %in_22: f32, %out: f32):
    %53 = arith.divf %in_21, %in_22 : f32
    %54 = arith.select %in, %cst_2, %53 : f32
    linalg.yield %54 : f32
  } -> tensor<2x4x8x8xf32>
  %collapsed_16 = tensor.collapse_shape %42 [[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
  %43 = linalg.fill ins(%cst_2 : f32) outs(%17 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %44 = linalg.batch_matmul ins(%collapsed_16, %19#0 : tensor<8x8x8xf32>, tensor<8x8x16xf32>) outs(%43 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%44 : tensor<8x8x16xf32>) outs(%12 : tensor<8x8x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %53 = arith.truncf %in : f32 to bf16
    linalg.yield %53 : bf16
  } -> tensor<8x8x16xbf16>
  %expanded_17 = tensor.expand_shape %45 [[0, 1], [2], [3]] output_shape [2, 4, 8, 16] : tensor<8x8x16xbf16> into tensor<2x4x8x16xbf16>
  %46 = tensor.empty() : tensor<2x8x4x16xbf16>
  %transposed_18 = linalg.transpose ins(%expanded_17 : tensor<2x4x8x16xbf16>) outs(%46 : tensor<2x8x4x16xbf16>) permutation = [0, 2, 1, 3] 
  %collapsed_19 = tensor.collapse_shape %transposed_18 [[0, 1], [2, 3]] : tensor<2x8x4x16xbf16> into tensor<16x64xbf16>
  return %collapsed_19 : tensor<16x64xbf16>
}

//--- window.mlir
func.func @sliding_window(%q: tensor<2x8x4x16xbf16>, %k: tensor<2x8x2x16xbf16>, %v: tensor<2x8x2x16xbf16>) -> tensor<16x64xbf16> {
  %c8 = arith.constant 8 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 5.000000e-01 : f32
  %cst_0 = arith.constant 0xFFF0000000000000 : f64
  %true = arith.constant true
  %cst_1 = arith.constant 0xFF800000 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c2_i64 = arith.constant 2 : i64
  %11 = tensor.empty() : tensor<2x4x8x16xbf16>
  %12 = tensor.empty() : tensor<8x8x16xbf16>
  %transposed = linalg.transpose ins(%q : tensor<2x8x4x16xbf16>) outs(%11 : tensor<2x4x8x16xbf16>) permutation = [0, 2, 1, 3] 
  %collapsed_7 = tensor.collapse_shape %transposed [[0, 1], [2], [3]] : tensor<2x4x8x16xbf16> into tensor<8x8x16xbf16>
  %13 = tensor.empty() : tensor<2x2x2x8x16xbf16>
  %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x8x2x16xbf16>) outs(%13 : tensor<2x2x2x8x16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x2x2x8x16xbf16>
  %collapsed_10 = tensor.collapse_shape %14 [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x16xbf16> into tensor<2x4x8x16xbf16>
  %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x8x2x16xbf16>) outs(%13 : tensor<2x2x2x8x16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x2x2x8x16xbf16>
  %collapsed_11 = tensor.collapse_shape %15 [[0, 1, 2], [3], [4]] : tensor<2x2x2x8x16xbf16> into tensor<8x8x16xbf16>
  %16 = tensor.empty() : tensor<2x4x8x16xf32>
  %17 = tensor.empty() : tensor<8x8x16xf32>
  %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_10 : tensor<2x4x8x16xbf16>) outs(%16 : tensor<2x4x8x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %53 = arith.extf %in : bf16 to f32
    linalg.yield %53 : f32
  } -> tensor<2x4x8x16xf32>
  %19:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_11, %collapsed_7 : tensor<8x8x16xbf16>, tensor<8x8x16xbf16>) outs(%17, %17 : tensor<8x8x16xf32>, tensor<8x8x16xf32>) {
  ^bb0(%in: bf16, %in_21: bf16, %out: f32, %out_22: f32):
    %53 = arith.extf %in : bf16 to f32
    %54 = arith.extf %in_21 : bf16 to f32
    %55 = arith.mulf %54, %cst : f32
    linalg.yield %53, %55 : f32, f32
  } -> (tensor<8x8x16xf32>, tensor<8x8x16xf32>)
  %20 = tensor.empty() : tensor<8xi64>
  %21 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%20 : tensor<8xi64>) {
  ^bb0(%out: i64):
    %53 = linalg.index 0 : index
    %54 = arith.index_cast %53 : index to i64
    linalg.yield %54 : i64
  } -> tensor<8xi64>
  %22 = tensor.empty() : tensor<8x8xf32>
  %23 = tensor.empty() : tensor<2x4x16x8xf32>
  %transposed_12 = linalg.transpose ins(%18 : tensor<2x4x8x16xf32>) outs(%23 : tensor<2x4x16x8xf32>) permutation = [0, 1, 3, 2] 
  %collapsed_13 = tensor.collapse_shape %transposed_12 [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %24 = tensor.empty() : tensor<8x16x8xf32>
  %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_13 : tensor<8x16x8xf32>) outs(%24 : tensor<8x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.mulf %in, %cst : f32
    linalg.yield %53 : f32
  } -> tensor<8x16x8xf32>
  %26 = tensor.empty() : tensor<8x8x8xf32>
  %27 = linalg.fill ins(%cst_2 : f32) outs(%26 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %28 = linalg.batch_matmul ins(%19#1, %25 : tensor<8x8x16xf32>, tensor<8x16x8xf32>) outs(%27 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %29 = tensor.empty() : tensor<2x4x8x8xf32>
  %30 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28, %21, %21 : tensor<8x8x8xf32>, tensor<8xi64>, tensor<8xi64>) outs(%26 : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in_21: i64, %in_22: i64, %out: f32):
    %53 = arith.subi %in_21, %in_22 : i64
    %cm3 = arith.constant -3 : i64
    %near = arith.cmpi sge, %53, %cm3 : i64
    %past = arith.cmpi sle, %53, %c0_i64 : i64
    %54 = arith.andi %past, %near : i1
    %55 = arith.select %54, %cst_2, %cst_1 : f32
    %56 = arith.addf %in, %55 : f32
    linalg.yield %56 : f32
  } -> tensor<8x8x8xf32>
  %31 = linalg.fill ins(%cst_1 : f32) outs(%22 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%30 : tensor<8x8x8xf32>) outs(%31 : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.maximumf %in, %out : f32
    linalg.yield %53 : f32
  } -> tensor<8x8xf32>
  %33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30, %32 : tensor<8x8x8xf32>, tensor<8x8xf32>) outs(%26 : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %53 = arith.subf %in, %in_21 : f32
    %54 = math.exp %53 : f32
    linalg.yield %54 : f32
  } -> tensor<8x8x8xf32>
  %expanded_14 = tensor.expand_shape %33 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xf32> into tensor<2x4x8x8xf32>
  %34 = tensor.empty() : tensor<2x4x8x1xf32>
  %35 = linalg.fill ins(%cst_2 : f32) outs(%34 : tensor<2x4x8x1xf32>) -> tensor<2x4x8x1xf32>
  %36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_14 : tensor<2x4x8x8xf32>) outs(%35 : tensor<2x4x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.addf %in, %out : f32
    linalg.yield %53 : f32
  } -> tensor<2x4x8x1xf32>
  %37 = tensor.empty() : tensor<8x8x8xi1>
  %38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30 : tensor<8x8x8xf32>) outs(%37 : tensor<8x8x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %53 = arith.extf %in : f32 to f64
    %54 = arith.cmpf oeq, %53, %cst_0 : f64
    linalg.yield %54 : i1
  } -> tensor<8x8x8xi1>
  %expanded_15 = tensor.expand_shape %38 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xi1> into tensor<2x4x8x8xi1>
  %39 = tensor.empty() : tensor<2x4x8x1xi1>
  %40 = linalg.fill ins(%true : i1) outs(%39 : tensor<2x4x8x1xi1>) -> tensor<2x4x8x1xi1>
  %41 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_15 : tensor<2x4x8x8xi1>) outs(%40 : tensor<2x4x8x1xi1>) {
  ^bb0(%in: i1, %out: i1):
    %53 = arith.andi %in, %out : i1
    linalg.yield %53 : i1
  } -> tensor<2x4x8x1xi1>
  %42 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %expanded_14, %36 : tensor<2x4x8x1xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>) outs(%29 : tensor<2x4x8x8xf32>) {
  ^bb0(%in: i1, %in_21: f32, %in_22: f32, %out: f32):
    %53 = arith.divf %in_21, %in_22 : f32
    %54 = arith.select %in, %cst_2, %53 : f32
    linalg.yield %54 : f32
  } -> tensor<2x4x8x8xf32>
  %collapsed_16 = tensor.collapse_shape %42 [[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
  %43 = linalg.fill ins(%cst_2 : f32) outs(%17 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %44 = linalg.batch_matmul ins(%collapsed_16, %19#0 : tensor<8x8x8xf32>, tensor<8x8x16xf32>) outs(%43 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%44 : tensor<8x8x16xf32>) outs(%12 : tensor<8x8x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %53 = arith.truncf %in : f32 to bf16
    linalg.yield %53 : bf16
  } -> tensor<8x8x16xbf16>
  %expanded_17 = tensor.expand_shape %45 [[0, 1], [2], [3]] output_shape [2, 4, 8, 16] : tensor<8x8x16xbf16> into tensor<2x4x8x16xbf16>
  %46 = tensor.empty() : tensor<2x8x4x16xbf16>
  %transposed_18 = linalg.transpose ins(%expanded_17 : tensor<2x4x8x16xbf16>) outs(%46 : tensor<2x8x4x16xbf16>) permutation = [0, 2, 1, 3] 
  %collapsed_19 = tensor.collapse_shape %transposed_18 [[0, 1], [2, 3]] : tensor<2x8x4x16xbf16> into tensor<16x64xbf16>
  return %collapsed_19 : tensor<16x64xbf16>
}

//--- gap.mlir
func.func @gap(%q: tensor<2x8x4x16xbf16>, %k: tensor<2x8x2x16xbf16>, %v: tensor<2x8x2x16xbf16>) -> tensor<16x64xbf16> {
  %c8 = arith.constant 8 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 5.000000e-01 : f32
  %cst_0 = arith.constant 0xFFF0000000000000 : f64
  %true = arith.constant true
  %cst_1 = arith.constant 0xFF800000 : f32
  %cst_2 = arith.constant 0.000000e+00 : f32
  %c0_i64 = arith.constant 0 : i64
  %c2_i64 = arith.constant 2 : i64
  %11 = tensor.empty() : tensor<2x4x8x16xbf16>
  %12 = tensor.empty() : tensor<8x8x16xbf16>
  %transposed = linalg.transpose ins(%q : tensor<2x8x4x16xbf16>) outs(%11 : tensor<2x4x8x16xbf16>) permutation = [0, 2, 1, 3] 
  %collapsed_7 = tensor.collapse_shape %transposed [[0, 1], [2], [3]] : tensor<2x4x8x16xbf16> into tensor<8x8x16xbf16>
  %13 = tensor.empty() : tensor<2x2x2x8x16xbf16>
  %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<2x8x2x16xbf16>) outs(%13 : tensor<2x2x2x8x16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x2x2x8x16xbf16>
  %collapsed_10 = tensor.collapse_shape %14 [[0], [1, 2], [3], [4]] : tensor<2x2x2x8x16xbf16> into tensor<2x4x8x16xbf16>
  %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x8x2x16xbf16>) outs(%13 : tensor<2x2x2x8x16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x2x2x8x16xbf16>
  %collapsed_11 = tensor.collapse_shape %15 [[0, 1, 2], [3], [4]] : tensor<2x2x2x8x16xbf16> into tensor<8x8x16xbf16>
  %16 = tensor.empty() : tensor<2x4x8x16xf32>
  %17 = tensor.empty() : tensor<8x8x16xf32>
  %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_10 : tensor<2x4x8x16xbf16>) outs(%16 : tensor<2x4x8x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %53 = arith.extf %in : bf16 to f32
    linalg.yield %53 : f32
  } -> tensor<2x4x8x16xf32>
  %19:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_11, %collapsed_7 : tensor<8x8x16xbf16>, tensor<8x8x16xbf16>) outs(%17, %17 : tensor<8x8x16xf32>, tensor<8x8x16xf32>) {
  ^bb0(%in: bf16, %in_21: bf16, %out: f32, %out_22: f32):
    %53 = arith.extf %in : bf16 to f32
    %54 = arith.extf %in_21 : bf16 to f32
    %55 = arith.mulf %54, %cst : f32
    linalg.yield %53, %55 : f32, f32
  } -> (tensor<8x8x16xf32>, tensor<8x8x16xf32>)
  %20 = tensor.empty() : tensor<8xi64>
  %21 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%20 : tensor<8xi64>) {
  ^bb0(%out: i64):
    %53 = linalg.index 0 : index
    %54 = arith.index_cast %53 : index to i64
    linalg.yield %54 : i64
  } -> tensor<8xi64>
  %22 = tensor.empty() : tensor<8x8xf32>
  %23 = tensor.empty() : tensor<2x4x16x8xf32>
  %transposed_12 = linalg.transpose ins(%18 : tensor<2x4x8x16xf32>) outs(%23 : tensor<2x4x16x8xf32>) permutation = [0, 1, 3, 2] 
  %collapsed_13 = tensor.collapse_shape %transposed_12 [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %24 = tensor.empty() : tensor<8x16x8xf32>
  %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_13 : tensor<8x16x8xf32>) outs(%24 : tensor<8x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.mulf %in, %cst : f32
    linalg.yield %53 : f32
  } -> tensor<8x16x8xf32>
  %26 = tensor.empty() : tensor<8x8x8xf32>
  %27 = linalg.fill ins(%cst_2 : f32) outs(%26 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %28 = linalg.batch_matmul ins(%19#1, %25 : tensor<8x8x16xf32>, tensor<8x16x8xf32>) outs(%27 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %29 = tensor.empty() : tensor<2x4x8x8xf32>
  %30 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28, %21, %21 : tensor<8x8x8xf32>, tensor<8xi64>, tensor<8xi64>) outs(%26 : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in_21: i64, %in_22: i64, %out: f32):
    %53 = arith.subi %in_21, %in_22 : i64
    %54 = arith.cmpi ne, %53, %c2_i64 : i64
    %55 = arith.select %54, %cst_2, %cst_1 : f32
    %56 = arith.addf %in, %55 : f32
    linalg.yield %56 : f32
  } -> tensor<8x8x8xf32>
  %31 = linalg.fill ins(%cst_1 : f32) outs(%22 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%30 : tensor<8x8x8xf32>) outs(%31 : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.maximumf %in, %out : f32
    linalg.yield %53 : f32
  } -> tensor<8x8xf32>
  %33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30, %32 : tensor<8x8x8xf32>, tensor<8x8xf32>) outs(%26 : tensor<8x8x8xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %53 = arith.subf %in, %in_21 : f32
    %54 = math.exp %53 : f32
    linalg.yield %54 : f32
  } -> tensor<8x8x8xf32>
  %expanded_14 = tensor.expand_shape %33 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xf32> into tensor<2x4x8x8xf32>
  %34 = tensor.empty() : tensor<2x4x8x1xf32>
  %35 = linalg.fill ins(%cst_2 : f32) outs(%34 : tensor<2x4x8x1xf32>) -> tensor<2x4x8x1xf32>
  %36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_14 : tensor<2x4x8x8xf32>) outs(%35 : tensor<2x4x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %53 = arith.addf %in, %out : f32
    linalg.yield %53 : f32
  } -> tensor<2x4x8x1xf32>
  %37 = tensor.empty() : tensor<8x8x8xi1>
  %38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30 : tensor<8x8x8xf32>) outs(%37 : tensor<8x8x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %53 = arith.extf %in : f32 to f64
    %54 = arith.cmpf oeq, %53, %cst_0 : f64
    linalg.yield %54 : i1
  } -> tensor<8x8x8xi1>
  %expanded_15 = tensor.expand_shape %38 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xi1> into tensor<2x4x8x8xi1>
  %39 = tensor.empty() : tensor<2x4x8x1xi1>
  %40 = linalg.fill ins(%true : i1) outs(%39 : tensor<2x4x8x1xi1>) -> tensor<2x4x8x1xi1>
  %41 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_15 : tensor<2x4x8x8xi1>) outs(%40 : tensor<2x4x8x1xi1>) {
  ^bb0(%in: i1, %out: i1):
    %53 = arith.andi %in, %out : i1
    linalg.yield %53 : i1
  } -> tensor<2x4x8x1xi1>
  %42 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %expanded_14, %36 : tensor<2x4x8x1xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>) outs(%29 : tensor<2x4x8x8xf32>) {
  ^bb0(%in: i1, %in_21: f32, %in_22: f32, %out: f32):
    %53 = arith.divf %in_21, %in_22 : f32
    %54 = arith.select %in, %cst_2, %53 : f32
    linalg.yield %54 : f32
  } -> tensor<2x4x8x8xf32>
  %collapsed_16 = tensor.collapse_shape %42 [[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
  %43 = linalg.fill ins(%cst_2 : f32) outs(%17 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %44 = linalg.batch_matmul ins(%collapsed_16, %19#0 : tensor<8x8x8xf32>, tensor<8x8x16xf32>) outs(%43 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
  %45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%44 : tensor<8x8x16xf32>) outs(%12 : tensor<8x8x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %53 = arith.truncf %in : f32 to bf16
    linalg.yield %53 : bf16
  } -> tensor<8x8x16xbf16>
  %expanded_17 = tensor.expand_shape %45 [[0, 1], [2], [3]] output_shape [2, 4, 8, 16] : tensor<8x8x16xbf16> into tensor<2x4x8x16xbf16>
  %46 = tensor.empty() : tensor<2x8x4x16xbf16>
  %transposed_18 = linalg.transpose ins(%expanded_17 : tensor<2x4x8x16xbf16>) outs(%46 : tensor<2x8x4x16xbf16>) permutation = [0, 2, 1, 3] 
  %collapsed_19 = tensor.collapse_shape %transposed_18 [[0, 1], [2, 3]] : tensor<2x8x4x16xbf16> into tensor<16x64xbf16>
  return %collapsed_19 : tensor<16x64xbf16>
}

//--- unit_batch.mlir
#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0, d1) -> (0, d1)>
#map5 = affine_map<(d0, d1) -> (d0, 0)>
#map6 = affine_map<(d0, d1) -> (d0, d1)>
#map7 = affine_map<(d0, d1) -> ()>
#map8 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map9 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map10 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
module {
  func.func @main(%arg0: tensor<16x64xbf16>, %arg1: tensor<16x32xbf16>, %arg2: tensor<16x32xbf16>) -> tensor<16x64xbf16> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %true = arith.constant true
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<1x4x16x16xf32>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_3 = arith.constant dense<0xFF800000> : tensor<f32>
    %cst_4 = arith.constant dense<true> : tensor<16x16xi1>
    %cst_5 = arith.constant 0xFFF0000000000000 : f64
    %cst_6 = arith.constant 5.000000e-01 : f32
    %expanded = tensor.expand_shape %arg0 [[0], [1, 2]] output_shape [16, 4, 16] : tensor<16x64xbf16> into tensor<16x4x16xbf16>
    %0 = tensor.empty() : tensor<4x16x16xbf16>
    %transposed = linalg.transpose ins(%expanded : tensor<16x4x16xbf16>) outs(%0 : tensor<4x16x16xbf16>) permutation = [1, 0, 2] 
    %expanded_7 = tensor.expand_shape %transposed [[0, 1], [2], [3]] output_shape [1, 4, 16, 16] : tensor<4x16x16xbf16> into tensor<1x4x16x16xbf16>
    %expanded_8 = tensor.expand_shape %arg1 [[0], [1, 2]] output_shape [16, 2, 16] : tensor<16x32xbf16> into tensor<16x2x16xbf16>
    %1 = tensor.empty() : tensor<2x16x16xbf16>
    %transposed_9 = linalg.transpose ins(%expanded_8 : tensor<16x2x16xbf16>) outs(%1 : tensor<2x16x16xbf16>) permutation = [1, 0, 2] 
    %expanded_10 = tensor.expand_shape %transposed_9 [[0, 1], [2, 3], [4]] output_shape [1, 2, 1, 16, 16] : tensor<2x16x16xbf16> into tensor<1x2x1x16x16xbf16>
    %2 = tensor.empty() : tensor<1x2x2x16x16xbf16>
    %collapsed = tensor.collapse_shape %expanded_10 [[0], [1, 2], [3], [4]] : tensor<1x2x1x16x16xbf16> into tensor<1x2x16x16xbf16>
    %3 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x2x16x16xbf16>) outs(%2 : tensor<1x2x2x16x16xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<1x2x2x16x16xbf16>
    %collapsed_11 = tensor.collapse_shape %3 [[0], [1, 2], [3], [4]] : tensor<1x2x2x16x16xbf16> into tensor<1x4x16x16xbf16>
    %expanded_12 = tensor.expand_shape %arg2 [[0], [1, 2]] output_shape [16, 2, 16] : tensor<16x32xbf16> into tensor<16x2x16xbf16>
    %transposed_13 = linalg.transpose ins(%expanded_12 : tensor<16x2x16xbf16>) outs(%1 : tensor<2x16x16xbf16>) permutation = [1, 0, 2] 
    %expanded_14 = tensor.expand_shape %transposed_13 [[0, 1], [2, 3], [4]] output_shape [1, 2, 1, 16, 16] : tensor<2x16x16xbf16> into tensor<1x2x1x16x16xbf16>
    %collapsed_15 = tensor.collapse_shape %expanded_14 [[0], [1, 2], [3], [4]] : tensor<1x2x1x16x16xbf16> into tensor<1x2x16x16xbf16>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_15 : tensor<1x2x16x16xbf16>) outs(%2 : tensor<1x2x2x16x16xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<1x2x2x16x16xbf16>
    %collapsed_16 = tensor.collapse_shape %4 [[0], [1, 2], [3], [4]] : tensor<1x2x2x16x16xbf16> into tensor<1x4x16x16xbf16>
    %5 = tensor.empty() : tensor<1x4x16x16xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_7 : tensor<1x4x16x16xbf16>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %45 = arith.extf %in : bf16 to f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %7 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_11 : tensor<1x4x16x16xbf16>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %45 = arith.extf %in : bf16 to f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %8 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_16 : tensor<1x4x16x16xbf16>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %45 = arith.extf %in : bf16 to f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %9 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6 : tensor<1x4x16x16xf32>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %45 = arith.mulf %in, %cst_6 : f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %10 = tensor.empty() : tensor<16xi64>
    %11 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel"]} outs(%10 : tensor<16xi64>) {
    ^bb0(%out: i64):
      %45 = linalg.index 0 : index
      %46 = arith.index_cast %45 : index to i64
      linalg.yield %46 : i64
    } -> tensor<16xi64>
    %expanded_17 = tensor.expand_shape %11 [[0, 1]] output_shape [1, 16] : tensor<16xi64> into tensor<1x16xi64>
    %expanded_18 = tensor.expand_shape %11 [[0, 1]] output_shape [16, 1] : tensor<16xi64> into tensor<16x1xi64>
    %12 = tensor.empty() : tensor<16x16xi64>
    %13 = linalg.generic {indexing_maps = [#map4, #map5, #map6], iterator_types = ["parallel", "parallel"]} ins(%expanded_17, %expanded_18 : tensor<1x16xi64>, tensor<16x1xi64>) outs(%12 : tensor<16x16xi64>) {
    ^bb0(%in: i64, %in_30: i64, %out: i64):
      %45 = arith.subi %in, %in_30 : i64
      linalg.yield %45 : i64
    } -> tensor<16x16xi64>
    %14 = tensor.empty() : tensor<16x16xi1>
    %15 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<16x16xi64>) outs(%14 : tensor<16x16xi1>) {
    ^bb0(%in: i64, %out: i1):
      %45 = arith.cmpi sle, %in, %c0_i64 : i64
      linalg.yield %45 : i1
    } -> tensor<16x16xi1>
    %16 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel"]} ins(%15, %cst_4 : tensor<16x16xi1>, tensor<16x16xi1>) outs(%14 : tensor<16x16xi1>) {
    ^bb0(%in: i1, %in_30: i1, %out: i1):
      %45 = arith.andi %in, %in_30 : i1
      linalg.yield %45 : i1
    } -> tensor<16x16xi1>
    %17 = tensor.empty() : tensor<16x16xf32>
    %18 = linalg.generic {indexing_maps = [#map6, #map7, #map7, #map6], iterator_types = ["parallel", "parallel"]} ins(%16, %cst_2, %cst_3 : tensor<16x16xi1>, tensor<f32>, tensor<f32>) outs(%17 : tensor<16x16xf32>) {
    ^bb0(%in: i1, %in_30: f32, %in_31: f32, %out: f32):
      %45 = arith.select %in, %in_30, %in_31 : f32
      linalg.yield %45 : f32
    } -> tensor<16x16xf32>
    %transposed_19 = linalg.transpose ins(%7 : tensor<1x4x16x16xf32>) outs(%5 : tensor<1x4x16x16xf32>) permutation = [0, 1, 3, 2] 
    %19 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_19 : tensor<1x4x16x16xf32>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %45 = arith.mulf %in, %cst_6 : f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %collapsed_20 = tensor.collapse_shape %9 [[0, 1], [2], [3]] : tensor<1x4x16x16xf32> into tensor<4x16x16xf32>
    %collapsed_21 = tensor.collapse_shape %19 [[0, 1], [2], [3]] : tensor<1x4x16x16xf32> into tensor<4x16x16xf32>
    %20 = tensor.empty() : tensor<4x16x16xf32>
    %21 = linalg.fill ins(%cst : f32) outs(%20 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
    %22 = linalg.batch_matmul ins(%collapsed_20, %collapsed_21 : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%21 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
    %expanded_22 = tensor.expand_shape %22 [[0, 1], [2], [3]] output_shape [1, 4, 16, 16] : tensor<4x16x16xf32> into tensor<1x4x16x16xf32>
    %23 = linalg.generic {indexing_maps = [#map2, #map8, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_22, %18 : tensor<1x4x16x16xf32>, tensor<16x16xf32>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %45 = arith.addf %in, %in_30 : f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %24 = tensor.empty() : tensor<1x4x16xi64>
    %25 = linalg.fill ins(%c0_i64 : i64) outs(%24 : tensor<1x4x16xi64>) -> tensor<1x4x16xi64>
    %26 = tensor.empty() : tensor<1x4x16xf32>
    %27 = linalg.fill ins(%cst_0 : f32) outs(%26 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
    %28:2 = linalg.generic {indexing_maps = [#map2, #map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%23 : tensor<1x4x16x16xf32>) outs(%27, %25 : tensor<1x4x16xf32>, tensor<1x4x16xi64>) {
    ^bb0(%in: f32, %out: f32, %out_30: i64):
      %45 = linalg.index 3 : index
      %46 = arith.index_cast %45 : index to i64
      %47 = arith.maximumf %in, %out : f32
      %48 = arith.cmpf ogt, %in, %out : f32
      %49 = arith.select %48, %46, %out_30 : i64
      linalg.yield %47, %49 : f32, i64
    } -> (tensor<1x4x16xf32>, tensor<1x4x16xi64>)
    %expanded_23 = tensor.expand_shape %28#0 [[0], [1], [2, 3]] output_shape [1, 4, 16, 1] : tensor<1x4x16xf32> into tensor<1x4x16x1xf32>
    %29 = linalg.generic {indexing_maps = [#map2, #map10, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23, %expanded_23 : tensor<1x4x16x16xf32>, tensor<1x4x16x1xf32>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %45 = arith.subf %in, %in_30 : f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %30 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29 : tensor<1x4x16x16xf32>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %45 = math.exp %in : f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %31 = tensor.empty() : tensor<1x4x16x1xf32>
    %32 = linalg.fill ins(%cst : f32) outs(%31 : tensor<1x4x16x1xf32>) -> tensor<1x4x16x1xf32>
    %33 = linalg.generic {indexing_maps = [#map2, #map10], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%30 : tensor<1x4x16x16xf32>) outs(%32 : tensor<1x4x16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %45 = arith.addf %in, %out : f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x1xf32>
    %34 = linalg.generic {indexing_maps = [#map2, #map10, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%30, %33 : tensor<1x4x16x16xf32>, tensor<1x4x16x1xf32>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %45 = arith.divf %in, %in_30 : f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %35 = tensor.empty() : tensor<1x4x16x16xi1>
    %36 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23 : tensor<1x4x16x16xf32>) outs(%35 : tensor<1x4x16x16xi1>) {
    ^bb0(%in: f32, %out: i1):
      %45 = arith.extf %in : f32 to f64
      %46 = arith.cmpf oeq, %45, %cst_5 : f64
      linalg.yield %46 : i1
    } -> tensor<1x4x16x16xi1>
    %37 = tensor.empty() : tensor<1x4x16x1xi1>
    %38 = linalg.fill ins(%true : i1) outs(%37 : tensor<1x4x16x1xi1>) -> tensor<1x4x16x1xi1>
    %39 = linalg.generic {indexing_maps = [#map2, #map10], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%36 : tensor<1x4x16x16xi1>) outs(%38 : tensor<1x4x16x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %45 = arith.andi %in, %out : i1
      linalg.yield %45 : i1
    } -> tensor<1x4x16x1xi1>
    %40 = linalg.generic {indexing_maps = [#map10, #map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%39, %cst_1, %34 : tensor<1x4x16x1xi1>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) outs(%5 : tensor<1x4x16x16xf32>) {
    ^bb0(%in: i1, %in_30: f32, %in_31: f32, %out: f32):
      %45 = arith.select %in, %in_30, %in_31 : f32
      linalg.yield %45 : f32
    } -> tensor<1x4x16x16xf32>
    %collapsed_24 = tensor.collapse_shape %40 [[0, 1], [2], [3]] : tensor<1x4x16x16xf32> into tensor<4x16x16xf32>
    %collapsed_25 = tensor.collapse_shape %8 [[0, 1], [2], [3]] : tensor<1x4x16x16xf32> into tensor<4x16x16xf32>
    %41 = linalg.batch_matmul ins(%collapsed_24, %collapsed_25 : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%21 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
    %expanded_26 = tensor.expand_shape %41 [[0, 1], [2], [3]] output_shape [1, 4, 16, 16] : tensor<4x16x16xf32> into tensor<1x4x16x16xf32>
    %42 = tensor.empty() : tensor<1x4x16x16xbf16>
    %43 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_26 : tensor<1x4x16x16xf32>) outs(%42 : tensor<1x4x16x16xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %45 = arith.truncf %in : f32 to bf16
      linalg.yield %45 : bf16
    } -> tensor<1x4x16x16xbf16>
    %collapsed_27 = tensor.collapse_shape %43 [[0, 1], [2], [3]] : tensor<1x4x16x16xbf16> into tensor<4x16x16xbf16>
    %44 = tensor.empty() : tensor<16x4x16xbf16>
    %transposed_28 = linalg.transpose ins(%collapsed_27 : tensor<4x16x16xbf16>) outs(%44 : tensor<16x4x16xbf16>) permutation = [1, 0, 2] 
    %collapsed_29 = tensor.collapse_shape %transposed_28 [[0], [1, 2]] : tensor<16x4x16xbf16> into tensor<16x64xbf16>
    return %collapsed_29 : tensor<16x64xbf16>
  }
}
