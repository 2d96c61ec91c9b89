// Fusion of torch-mlir output (written by torch_mlir.fx.export_and_import from the PyTorch
// expressions named by each function): structure with FileCheck, meaning with coda-run.
// Programs with nothing to fuse come out unchanged.
// RUN: split-file %s %t
// A product erased with a chain fused before it (its result fed only an operand the epilogue
// ignores) is not visited afterwards: Inputs/erased-product.mlir is a fuzzer's mutant of
// examples/torch/gemma_block.mlir (K = 0) as --coda-fuse hands it to this pass.
// RUN: coda-opt --coda-fuse-epilogue %S/Inputs/erased-product.mlir | FileCheck %s --check-prefix=ERASED
// ERASED-COUNT-3: coda.gemm
// RUN: coda-opt --coda-fuse-epilogue %t/bias_gelu_tanh_residual.mlir -o %t/bias_gelu_tanh_residual.fused.mlir
// RUN: FileCheck %s --check-prefix=BIAS_GELU < %t/bias_gelu_tanh_residual.fused.mlir
// RUN: coda-run %t/bias_gelu_tanh_residual.fused.mlir --against %t/bias_gelu_tanh_residual.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-epilogue %t/pre_and_post_activation.mlir -o %t/pre_and_post_activation.fused.mlir
// RUN: FileCheck %s --check-prefix=PRE_POST < %t/pre_and_post_activation.fused.mlir
// RUN: coda-run %t/pre_and_post_activation.fused.mlir --against %t/pre_and_post_activation.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-epilogue %t/gelu_erf_and_row_sumsq.mlir -o %t/gelu_erf_and_row_sumsq.fused.mlir
// RUN: FileCheck %s --check-prefix=SUMSQ < %t/gelu_erf_and_row_sumsq.fused.mlir
// RUN: coda-run %t/gelu_erf_and_row_sumsq.fused.mlir --against %t/gelu_erf_and_row_sumsq.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-epilogue %t/softcap.mlir -o %t/softcap.fused.mlir
// RUN: FileCheck %s --check-prefix=SOFTCAP < %t/softcap.fused.mlir
// RUN: coda-run %t/softcap.fused.mlir --against %t/softcap.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-epilogue %t/attention_scores_unchanged.mlir -o %t/attention_scores_unchanged.fused.mlir
// RUN: FileCheck %s --check-prefix=ATTN < %t/attention_scores_unchanged.fused.mlir
// RUN: coda-run %t/attention_scores_unchanged.fused.mlir --against %t/attention_scores_unchanged.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-epilogue %t/lone_matmul_unchanged.mlir -o %t/lone_matmul_unchanged.fused.mlir
// RUN: FileCheck %s --check-prefix=LONE < %t/lone_matmul_unchanged.fused.mlir
// RUN: coda-run %t/lone_matmul_unchanged.fused.mlir --against %t/lone_matmul_unchanged.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse-epilogue %t/bf16_linear_bias_gelu.mlir -o %t/bf16_linear_bias_gelu.fused.mlir
// RUN: FileCheck %s --check-prefix=BF16 < %t/bf16_linear_bias_gelu.fused.mlir
// RUN: coda-run %t/bf16_linear_bias_gelu.fused.mlir --against %t/bf16_linear_bias_gelu.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt %t/attention_scores_unchanged.mlir | diff - %t/attention_scores_unchanged.fused.mlir
// RUN: coda-opt %t/lone_matmul_unchanged.mlir | diff - %t/lone_matmul_unchanged.fused.mlir
// SAME-NOT: MISMATCH
// SAME: result #0: {{.*}}: ok
// SAME-NOT: MISMATCH

// BIAS_GELU-LABEL: func.func @bias_gelu_tanh_residual
// BIAS_GELU-NOT:   linalg.matmul
// BIAS_GELU:       coda.gemm %arg0, %arg1 transpose_b : tensor<8x32xf32>, tensor<64x32xf32>
// BIAS_GELU-NEXT:    with(%arg2 as col : tensor<64xf32>, %arg3 as matrix : tensor<8x64xf32>)
// BIAS_GELU-NEXT:    -> (store tensor<8x64xf32>)
// BIAS_GELU:         math.fpowi
// BIAS_GELU:         math.tanh
// BIAS_GELU-NOT:   linalg.
// BIAS_GELU:       return

// PRE_POST-LABEL: func.func @pre_and_post_activation
// PRE_POST:       %[[R:.*]] = tensor.collapse_shape %arg2 {{\[}}[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
// PRE_POST:       %[[G:.*]]:2 = coda.gemm %arg0, %arg1 : tensor<8x32xf32>, tensor<32x64xf32>
// PRE_POST-NEXT:    with(%[[R]] as row : tensor<8xf32>)
// PRE_POST-NEXT:    -> (store tensor<8x64xf32>, store tensor<8x64xf32>)
// PRE_POST:       return %[[G]]#0, %[[G]]#1

// SUMSQ-LABEL: func.func @gelu_erf_and_row_sumsq
// SUMSQ:       %[[G:.*]]:2 = coda.gemm %arg0, %arg1 transpose_b
// SUMSQ-NEXT:    -> (store tensor<8x64xf32>, reduce<row, sum> tensor<8xf32>)
// SUMSQ:         math.erf
// SUMSQ:       %[[K:.*]] = tensor.expand_shape %[[G]]#1 {{\[}}[0, 1]] output_shape [8, 1]
// SUMSQ:       return %[[G]]#0, %[[K]]

// SOFTCAP-LABEL: func.func @softcap
// SOFTCAP:       coda.gemm %arg0, %arg1 transpose_b
// SOFTCAP-NEXT:    with(%arg2 as scalar : tensor<f32>)
// SOFTCAP:         arith.divf
// SOFTCAP:         math.tanh
// SOFTCAP:         arith.mulf

// ATTN-LABEL: func.func @attention_scores_unchanged
// ATTN-NOT:   coda.gemm
// ATTN:       linalg.batch_matmul

// LONE-LABEL: func.func @lone_matmul_unchanged
// LONE-NOT:   coda.gemm
// LONE:       linalg.matmul

// torch-mlir upcasts bf16 operands of addmm to f32 before the product; the gemm reads the bf16
// tensors themselves (the same product, accumulated in fp32). The bias, which the program widens
// to f32 in a pass of its own, is read in bf16 and widened in the epilogue.
// BF16-LABEL: func.func @bf16_linear_bias_gelu
// BF16:       coda.gemm %arg0, %arg1 transpose_b : tensor<8x32xbf16>, tensor<64x32xbf16>
// BF16-NEXT:    with(%arg2 as col : tensor<64xbf16>)
// BF16-NEXT:    -> (store tensor<8x64xbf16>)
// BF16-NEXT:    epilogue(%[[ACC:.*]]: f32, %[[B:.*]]: bf16, %{{.*}}: index, %{{.*}}: index)
// BF16-NEXT:      %[[BW:.*]] = arith.extf %[[B]] : bf16 to f32
// BF16-NEXT:      arith.addf %[[ACC]], %[[BW]] : f32
// BF16-NOT:   tensor<8x32xf32>

//--- bias_gelu_tanh_residual.mlir
// F.gelu(F.linear(x, w, b), approximate='tanh') + res
#map = affine_map<(d0, d1) -> (d1)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @bias_gelu_tanh_residual(%arg0: tensor<8x32xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<64xf32>, %arg3: tensor<8x64xf32>) -> tensor<8x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c3_i64 = arith.constant 3 : i64
    %cst_0 = arith.constant 4.471500e-02 : f32
    %cst_1 = arith.constant 7.977240e-01 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %0 = tensor.empty() : tensor<32x64xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<64x32xf32>) outs(%0 : tensor<32x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x64xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x64xf32>) outs(%2 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<8x64xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%3, %4 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %8 = arith.addf %in, %in_4 : f32
      linalg.yield %8 : f32
    } -> tensor<8x64xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = math.fpowi %in, %c3_i64 : f32, i64
      %9 = arith.mulf %8, %cst_0 : f32
      %10 = arith.addf %in, %9 : f32
      %11 = arith.mulf %10, %cst_1 : f32
      %12 = math.tanh %11 : f32
      %13 = arith.addf %12, %cst_2 : f32
      %14 = arith.mulf %13, %cst_3 : f32
      %15 = arith.mulf %in, %14 : f32
      linalg.yield %15 : f32
    } -> tensor<8x64xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%6, %arg3 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %8 = arith.addf %in, %in_4 : f32
      linalg.yield %8 : f32
    } -> tensor<8x64xf32>
    return %7 : tensor<8x64xf32>
  }
}

//--- pre_and_post_activation.mlir
// a = x @ w; return a, F.silu(a) * s   (s: [8, 1])
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @pre_and_post_activation(%arg0: tensor<8x32xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<8x1xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x64xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<8x64xf32>) outs(%0 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = arith.negf %in : f32
      %7 = math.exp %6 : f32
      %8 = arith.addf %7, %cst_0 : f32
      %9 = arith.divf %cst_0, %8 : f32
      linalg.yield %9 : f32
    } -> tensor<8x64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %3 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%0 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %6 = arith.mulf %in, %in_1 : f32
      linalg.yield %6 : f32
    } -> tensor<8x64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg2 : tensor<8x64xf32>, tensor<8x1xf32>) outs(%0 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %6 = arith.mulf %in, %in_1 : f32
      linalg.yield %6 : f32
    } -> tensor<8x64xf32>
    return %2, %5 : tensor<8x64xf32>, tensor<8x64xf32>
  }
}

//--- gelu_erf_and_row_sumsq.mlir
// a = x @ w.t(); return F.gelu(a), (a * a).sum(-1, keepdim=True)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @gelu_erf_and_row_sumsq(%arg0: tensor<8x32xf32>, %arg1: tensor<64x32xf32>) -> (tensor<8x64xf32>, tensor<8x1xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 5.000000e-01 : f32
    %cst_2 = arith.constant 1.41421354 : f32
    %0 = tensor.empty() : tensor<32x64xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<64x32xf32>) outs(%0 : tensor<32x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x64xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x64xf32>) outs(%2 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.divf %in, %cst_2 : f32
      %10 = math.erf %9 : f32
      %11 = arith.addf %10, %cst_0 : f32
      %12 = arith.mulf %11, %cst_1 : f32
      %13 = arith.mulf %in, %12 : f32
      linalg.yield %13 : f32
    } -> tensor<8x64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %3 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %9 = arith.mulf %in, %in_3 : f32
      linalg.yield %9 : f32
    } -> tensor<8x64xf32>
    %6 = tensor.empty() : tensor<8x1xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%5 : tensor<8x64xf32>) outs(%7 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.addf %in, %out : f32
      linalg.yield %9 : f32
    } -> tensor<8x1xf32>
    return %4, %8 : tensor<8x64xf32>, tensor<8x1xf32>
  }
}

//--- softcap.mlir
// torch.tanh((x @ w.t()) / cap) * cap
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
module {
  func.func @softcap(%arg0: tensor<8x32xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<f32>) -> tensor<8x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x64xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<64x32xf32>) outs(%0 : tensor<32x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x64xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x64xf32>) outs(%2 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<8x64xf32>, tensor<f32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.divf %in, %in_0 : f32
      linalg.yield %7 : f32
    } -> tensor<8x64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = math.tanh %in : f32
      linalg.yield %7 : f32
    } -> tensor<8x64xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %arg2 : tensor<8x64xf32>, tensor<f32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.mulf %in, %in_0 : f32
      linalg.yield %7 : f32
    } -> tensor<8x64xf32>
    return %6 : tensor<8x64xf32>
  }
}

//--- attention_scores_unchanged.mlir
// torch.softmax(q @ k.transpose(-1, -2), dim=-1)
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
module {
  func.func @attention_scores_unchanged(%arg0: tensor<2x8x16xf32>, %arg1: tensor<2x8x16xf32>) -> tensor<2x8x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %0 = tensor.empty() : tensor<2x16x8xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<2x8x16xf32>) outs(%0 : tensor<2x16x8xf32>) permutation = [0, 2, 1] 
    %1 = tensor.empty() : tensor<2x8x8xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %3 = linalg.batch_matmul ins(%arg0, %transposed : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%2 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %4 = tensor.empty() : tensor<2x8xi64>
    %5 = linalg.fill ins(%c0_i64 : i64) outs(%4 : tensor<2x8xi64>) -> tensor<2x8xi64>
    %6 = tensor.empty() : tensor<2x8xf32>
    %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %8:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%3 : tensor<2x8x8xf32>) outs(%7, %5 : tensor<2x8xf32>, tensor<2x8xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %15 = linalg.index 2 : index
      %16 = arith.index_cast %15 : index to i64
      %17 = arith.maximumf %in, %out : f32
      %18 = arith.cmpf ogt, %in, %out : f32
      %19 = arith.select %18, %16, %out_1 : i64
      linalg.yield %17, %19 : f32, i64
    } -> (tensor<2x8xf32>, tensor<2x8xi64>)
    %expanded = tensor.expand_shape %8#0 [[0], [1, 2]] output_shape [2, 8, 1] : tensor<2x8xf32> into tensor<2x8x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %expanded : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%1 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %15 = arith.subf %in, %in_1 : f32
      linalg.yield %15 : f32
    } -> tensor<2x8x8xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<2x8x8xf32>) outs(%1 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = math.exp %in : f32
      linalg.yield %15 : f32
    } -> tensor<2x8x8xf32>
    %11 = tensor.empty() : tensor<2x8x1xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%10 : tensor<2x8x8xf32>) outs(%12 : tensor<2x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.addf %in, %out : f32
      linalg.yield %15 : f32
    } -> tensor<2x8x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %13 : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%1 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %15 = arith.divf %in, %in_1 : f32
      linalg.yield %15 : f32
    } -> tensor<2x8x8xf32>
    return %14 : tensor<2x8x8xf32>
  }
}

//--- lone_matmul_unchanged.mlir
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

//--- bf16_linear_bias_gelu.mlir
// F.gelu(F.linear(x, w, bias)) in bf16
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @bf16_linear_bias_gelu(%arg0: tensor<8x32xbf16>, %arg1: tensor<64x32xbf16>, %arg2: tensor<64xbf16>) -> tensor<8x64xbf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : bf16
    %cst_1 = arith.constant 2.000000e+00 : bf16
    %cst_2 = arith.constant 5.000000e-01 : bf16
    %0 = tensor.empty() : tensor<32x64xbf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<64x32xbf16>) outs(%0 : tensor<32x64xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<64xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg2 : tensor<64xbf16>) outs(%1 : tensor<64xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %15 = arith.extf %in : bf16 to f32
      linalg.yield %15 : f32
    } -> tensor<64xf32>
    %3 = tensor.empty() : tensor<8x32xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x32xbf16>) outs(%3 : tensor<8x32xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %15 = arith.extf %in : bf16 to f32
      linalg.yield %15 : f32
    } -> tensor<8x32xf32>
    %5 = tensor.empty() : tensor<32x64xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%transposed : tensor<32x64xbf16>) outs(%5 : tensor<32x64xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %15 = arith.extf %in : bf16 to f32
      linalg.yield %15 : f32
    } -> tensor<32x64xf32>
    %7 = tensor.empty() : tensor<8x64xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %9 = linalg.matmul ins(%4, %6 : tensor<8x32xf32>, tensor<32x64xf32>) outs(%8 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %10 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<64xf32>) outs(%7 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<8x64xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%9, %10 : tensor<8x64xf32>, tensor<8x64xf32>) outs(%7 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %15 = arith.addf %in, %in_3 : f32
      linalg.yield %15 : f32
    } -> tensor<8x64xf32>
    %12 = tensor.empty() : tensor<8x64xbf16>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<8x64xf32>) outs(%12 : tensor<8x64xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %15 = arith.truncf %in : f32 to bf16
      linalg.yield %15 : bf16
    } -> tensor<8x64xbf16>
    %14 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<8x64xbf16>) outs(%12 : tensor<8x64xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %15 = math.sqrt %cst_1 : bf16
      %16 = arith.divf %in, %15 : bf16
      %17 = math.erf %16 : bf16
      %18 = arith.addf %17, %cst_0 : bf16
      %19 = arith.mulf %18, %cst_2 : bf16
      %20 = arith.mulf %in, %19 : bf16
      linalg.yield %20 : bf16
    } -> tensor<8x64xbf16>
    return %14 : tensor<8x64xbf16>
  }
}
