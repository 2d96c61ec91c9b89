// RMSNorm reparametrization on torch-mlir output (the PyTorch expression is above each
// program): (r ⊙ h ⊙ γ)·W = r ⊙ (h·(diag(γ)·W)). Inference folds γ into the weights through a
// run-once function; training (fold-weights=false) keeps γ on the activations. Structure with
// FileCheck, meaning with coda-run for both modes.
// RUN: split-file %s %t
// RUN: coda-opt --coda-reparametrize-norm %t/rmsnorm_linear.mlir -o %t/rmsnorm_linear.inference.mlir
// RUN: coda-opt --coda-reparametrize-norm=fold-weights=false %t/rmsnorm_linear.mlir -o %t/rmsnorm_linear.training.mlir
// RUN: coda-run %t/rmsnorm_linear.inference.mlir --against %t/rmsnorm_linear.mlir --atol 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/rmsnorm_linear.training.mlir --against %t/rmsnorm_linear.mlir --atol 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-reparametrize-norm %t/rmsnorm_one_plus_weight.mlir -o %t/rmsnorm_one_plus_weight.inference.mlir
// RUN: coda-opt --coda-reparametrize-norm=fold-weights=false %t/rmsnorm_one_plus_weight.mlir -o %t/rmsnorm_one_plus_weight.training.mlir
// RUN: coda-run %t/rmsnorm_one_plus_weight.inference.mlir --against %t/rmsnorm_one_plus_weight.mlir --atol 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/rmsnorm_one_plus_weight.training.mlir --against %t/rmsnorm_one_plus_weight.mlir --atol 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-reparametrize-norm %t/residual_rmsnorm_linear.mlir -o %t/residual_rmsnorm_linear.inference.mlir
// RUN: coda-opt --coda-reparametrize-norm=fold-weights=false %t/residual_rmsnorm_linear.mlir -o %t/residual_rmsnorm_linear.training.mlir
// RUN: coda-run %t/residual_rmsnorm_linear.inference.mlir --against %t/residual_rmsnorm_linear.mlir --atol 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/residual_rmsnorm_linear.training.mlir --against %t/residual_rmsnorm_linear.mlir --atol 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: FileCheck %s --check-prefix=INFER < %t/rmsnorm_linear.inference.mlir
// RUN: FileCheck %s --check-prefix=TRAIN < %t/rmsnorm_linear.training.mlir
// RUN: FileCheck %s --check-prefix=ONEPLUS < %t/rmsnorm_one_plus_weight.inference.mlir
// RUN: FileCheck %s --check-prefix=RESID < %t/residual_rmsnorm_linear.inference.mlir
// SAME-NOT: MISMATCH
// SAME: result #0: {{.*}}: ok
// SAME-NOT: MISMATCH

// bf16 (bench/programs/small/rmsnorm_qkv.mlir): the norm runs in fp32 between a widening of x
// and a rounding of x̂ to bf16; the product reads x itself, γ goes into bf16 weights.
// RUN: coda-opt --coda-reparametrize-norm %coda_src/bench/programs/small/rmsnorm_qkv.mlir | FileCheck %s --check-prefix=BF16
// BF16:      %[[G:.*]] = call @coda_vector_prep(%arg1) : (tensor<512xbf16>) -> tensor<512xf32>
// BF16:      call @coda_norm_weights_768x512_nk_scale1(%arg2, %[[G]]) : (tensor<768x512xbf16>, tensor<512xf32>) -> tensor<768x512xbf16>
// BF16:      linalg.matmul ins(%arg0, %{{.*}} : tensor<256x512xbf16>, tensor<512x768xbf16>)

// transformers' bf16 norms round x̂ to bf16 and scale it by the weight after that (Llama:
// `w * x̂.to(bf16)`; Gemma: `(x̂ * (1 + w.float())).to(bf16)`). Inference reads x itself as
// above; training keeps the f32 `1 + w` on the bf16 activations, rounded to bf16 first (the
// multiplication of a bf16 value by an f32 one is no valid op). Both against the f32 program,
// within twice the bf16 program's own error.
// RUN: coda-opt --coda-reparametrize-norm %t/gemma_norm_linear_bf16.mlir -o %t/gemma_bf16.inference.mlir
// RUN: coda-opt --coda-reparametrize-norm=fold-weights=false %t/gemma_norm_linear_bf16.mlir -o %t/gemma_bf16.training.mlir
// RUN: coda-run %t/gemma_bf16.inference.mlir --against %t/gemma_norm_linear_f32.mlir --baseline %t/gemma_norm_linear_bf16.mlir --atol 1e-2 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t/gemma_bf16.training.mlir --against %t/gemma_norm_linear_f32.mlir --baseline %t/gemma_norm_linear_bf16.mlir --atol 1e-2 | FileCheck %s --check-prefix=SAME
// RUN: FileCheck %s --check-prefix=GEMMA-INFER < %t/gemma_bf16.inference.mlir
// RUN: FileCheck %s --check-prefix=GEMMA-TRAIN < %t/gemma_bf16.training.mlir
// GEMMA-INFER:     call @coda_norm_weights_32x16_nk_scale1
// GEMMA-INFER:     linalg.matmul ins(%arg0, %{{.*}} : tensor<8x16xbf16>, tensor<16x32xbf16>)
// GEMMA-TRAIN:     ^bb0(%{{.*}}: bf16, %[[G:.*]]: f32, %{{.*}}: bf16):
// GEMMA-TRAIN-NEXT:  %[[GB:.*]] = arith.truncf %[[G]] : f32 to bf16
// GEMMA-TRAIN-NEXT:  arith.mulf %{{.*}}, %[[GB]] : bf16
// GEMMA-TRAIN:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16x32xbf16>)

// The matmul reads x itself and the prepared weight; the row scale r multiplies its result.
// INFER-LABEL: func.func @rmsnorm_linear
// INFER:         math.rsqrt
// INFER:       %[[W:.*]] = call @coda_norm_weights_48x32_nk_scale1(%arg2, %arg1) : (tensor<48x32xf32>, tensor<32xf32>) -> tensor<48x32xf32>
// INFER:       %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<48x32xf32>)
// INFER:       %[[P:.*]] = linalg.matmul ins(%arg0, %[[WT]] : tensor<8x32xf32>, tensor<32x48xf32>)
// INFER:       %[[Y:.*]] = linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<8x48xf32>, tensor<8x1xf32>)
// INFER:         arith.mulf
// INFER:       return %[[Y]]
// INFER-LABEL: func.func private @coda_norm_weights_48x32_nk_scale1(%{{.*}}: tensor<48x32xf32>, %{{.*}}: tensor<32xf32>) -> tensor<48x32xf32> attributes {coda.weight_prep}
// INFER:         arith.mulf

// TRAIN-LABEL: func.func @rmsnorm_linear
// TRAIN-NOT:   call @coda_norm_weights
// TRAIN:       %[[XG:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<8x32xf32>, tensor<32xf32>)
// TRAIN:       linalg.matmul ins(%[[XG]], %{{.*}} : tensor<8x32xf32>, tensor<32x48xf32>)
// TRAIN-NOT:   coda.weight_prep

// The (1 + γ) vector is weight preparation too: computed by a run-once function, passed on.
// ONEPLUS-LABEL: func.func @rmsnorm_one_plus_weight
// ONEPLUS:       %[[G1:.*]] = call @coda_vector_prep(%arg1) : (tensor<32xf32>) -> tensor<32xf32>
// ONEPLUS:       call @coda_norm_weights_32x48_kn_scale1(%arg2, %[[G1]]) : (tensor<32x48xf32>, tensor<32xf32>) -> tensor<32x48xf32>
// ONEPLUS-LABEL: func.func private @coda_vector_prep(%{{.*}}: tensor<32xf32>) -> tensor<32xf32> attributes {coda.weight_prep}
// ONEPLUS:         arith.addf

// RESID-LABEL: func.func @residual_rmsnorm_linear
// RESID:       call @coda_norm_weights_48x32_nk_scale1(%arg4, %arg3)
// RESID:       linalg.matmul ins(%[[H:.*]], %{{.*}} : tensor<8x32xf32>, tensor<32x48xf32>)


//--- rmsnorm_linear.mlir
// rmsnorm(x, g) @ w.t()   with rmsnorm(x, g) = x * rsqrt(mean(x**2, -1, keepdim) + 1e-5) * g
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @rmsnorm_linear(%arg0: tensor<8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<48x32xf32>) -> tensor<8x48xf32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 3.200000e+01 : f32
    %0 = tensor.empty() : tensor<8x32xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x32xf32>) outs(%0 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %14 : f32
    } -> tensor<8x32xf32>
    %2 = tensor.empty() : tensor<8x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8x32xf32>) outs(%3 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.addf %in, %out : f32
      linalg.yield %14 : f32
    } -> tensor<8x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x1xf32>) outs(%2 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.divf %in, %cst_1 : f32
      linalg.yield %14 : f32
    } -> tensor<8x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8x1xf32>) outs(%2 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.truncf %cst_0 : f64 to f32
      %15 = arith.addf %in, %14 : f32
      linalg.yield %15 : f32
    } -> tensor<8x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8x1xf32>) outs(%2 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = math.rsqrt %in : f32
      linalg.yield %14 : f32
    } -> tensor<8x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<8x32xf32>, tensor<8x1xf32>) outs(%0 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %14 = arith.mulf %in, %in_2 : f32
      linalg.yield %14 : f32
    } -> tensor<8x32xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg1 : tensor<8x32xf32>, tensor<32xf32>) outs(%0 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %14 = arith.mulf %in, %in_2 : f32
      linalg.yield %14 : f32
    } -> tensor<8x32xf32>
    %10 = tensor.empty() : tensor<32x48xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<48x32xf32>) outs(%10 : tensor<32x48xf32>) permutation = [1, 0] 
    %11 = tensor.empty() : tensor<8x48xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %13 = linalg.matmul ins(%9, %transposed : tensor<8x32xf32>, tensor<32x48xf32>) outs(%12 : tensor<8x48xf32>) -> tensor<8x48xf32>
    return %13 : tensor<8x48xf32>
  }
}

//--- rmsnorm_one_plus_weight.mlir
// (x * rsqrt(mean(x**2, -1, keepdim) + 1e-6) * (1 + g)) @ w
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @rmsnorm_one_plus_weight(%arg0: tensor<8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32x48xf32>) -> tensor<8x48xf32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999995E-7 : f64
    %cst_1 = arith.constant 3.200000e+01 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x32xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x32xf32>) outs(%0 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %15 : f32
    } -> tensor<8x32xf32>
    %2 = tensor.empty() : tensor<8x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8x32xf32>) outs(%3 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.addf %in, %out : f32
      linalg.yield %15 : f32
    } -> tensor<8x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x1xf32>) outs(%2 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.divf %in, %cst_1 : f32
      linalg.yield %15 : f32
    } -> tensor<8x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8x1xf32>) outs(%2 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.truncf %cst_0 : f64 to f32
      %16 = arith.addf %in, %15 : f32
      linalg.yield %16 : f32
    } -> tensor<8x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8x1xf32>) outs(%2 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = math.rsqrt %in : f32
      linalg.yield %15 : f32
    } -> tensor<8x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<8x32xf32>, tensor<8x1xf32>) outs(%0 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %15 = arith.mulf %in, %in_3 : f32
      linalg.yield %15 : f32
    } -> tensor<8x32xf32>
    %9 = tensor.empty() : tensor<32xf32>
    %10 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg1 : tensor<32xf32>) outs(%9 : tensor<32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.addf %in, %cst_2 : f32
      linalg.yield %15 : f32
    } -> tensor<32xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %10 : tensor<8x32xf32>, tensor<32xf32>) outs(%0 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %15 = arith.mulf %in, %in_3 : f32
      linalg.yield %15 : f32
    } -> tensor<8x32xf32>
    %12 = tensor.empty() : tensor<8x48xf32>
    %13 = linalg.fill ins(%cst : f32) outs(%12 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %14 = linalg.matmul ins(%11, %arg2 : tensor<8x32xf32>, tensor<32x48xf32>) outs(%13 : tensor<8x48xf32>) -> tensor<8x48xf32>
    return %14 : tensor<8x48xf32>
  }
}

//--- residual_rmsnorm_linear.mlir
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

//--- gemma_norm_linear_bf16.mlir
// F.linear((x̂ * (1 + w.float())).to(bf16), wq), x̂ = x.float() * rsqrt(mean(x²) + 1e-6); bf16
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @gemma_norm_linear(%arg0: tensor<8x16xbf16>, %arg1: tensor<16xbf16>, %arg2: tensor<32x16xbf16>) -> tensor<8x32xbf16> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999995E-7 : f64
    %cst_1 = arith.constant 1.600000e+01 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xbf16>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %22 = arith.extf %in : bf16 to f32
      linalg.yield %22 : f32
    } -> tensor<8x16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %22 : f32
    } -> tensor<8x16xf32>
    %3 = tensor.empty() : tensor<8x1xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<8x16xf32>) outs(%4 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.addf %in, %out : f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8x1xf32>) outs(%3 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.divf %in, %cst_1 : f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8x1xf32>) outs(%3 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.truncf %cst_0 : f64 to f32
      %23 = arith.addf %in, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<8x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<8x1xf32>) outs(%3 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.rsqrt %in : f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %8 : tensor<8x16xf32>, tensor<8x1xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %22 = arith.mulf %in, %in_3 : f32
      linalg.yield %22 : f32
    } -> tensor<8x16xf32>
    %10 = tensor.empty() : tensor<16xf32>
    %11 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg1 : tensor<16xbf16>) outs(%10 : tensor<16xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %22 = arith.extf %in : bf16 to f32
      linalg.yield %22 : f32
    } -> tensor<16xf32>
    %12 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%11 : tensor<16xf32>) outs(%10 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.addf %in, %cst_2 : f32
      linalg.yield %22 : f32
    } -> tensor<16xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %12 : tensor<8x16xf32>, tensor<16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %22 = arith.mulf %in, %in_3 : f32
      linalg.yield %22 : f32
    } -> tensor<8x16xf32>
    %14 = tensor.empty() : tensor<8x16xbf16>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<8x16xf32>) outs(%14 : tensor<8x16xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %22 = arith.truncf %in : f32 to bf16
      linalg.yield %22 : bf16
    } -> tensor<8x16xbf16>
    %16 = tensor.empty() : tensor<16x32xbf16>
    %transposed = linalg.transpose ins(%arg2 : tensor<32x16xbf16>) outs(%16 : tensor<16x32xbf16>) permutation = [1, 0] 
    %17 = tensor.empty() : tensor<8x32xf32>
    %18 = linalg.fill ins(%cst : f32) outs(%17 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %19 = linalg.matmul ins(%15, %transposed : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%18 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %20 = tensor.empty() : tensor<8x32xbf16>
    %21 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<8x32xf32>) outs(%20 : tensor<8x32xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %22 = arith.truncf %in : f32 to bf16
      linalg.yield %22 : bf16
    } -> tensor<8x32xbf16>
    return %21 : tensor<8x32xbf16>
  }
}

//--- gemma_norm_linear_f32.mlir
// The same in f32
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @gemma_norm_linear(%arg0: tensor<8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<32x16xf32>) -> tensor<8x32xf32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999995E-7 : f64
    %cst_1 = arith.constant 1.600000e+01 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %16 : f32
    } -> tensor<8x16xf32>
    %2 = tensor.empty() : tensor<8x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8x16xf32>) outs(%3 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.addf %in, %out : f32
      linalg.yield %16 : f32
    } -> tensor<8x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x1xf32>) outs(%2 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.divf %in, %cst_1 : f32
      linalg.yield %16 : f32
    } -> tensor<8x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8x1xf32>) outs(%2 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.truncf %cst_0 : f64 to f32
      %17 = arith.addf %in, %16 : f32
      linalg.yield %17 : f32
    } -> tensor<8x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8x1xf32>) outs(%2 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = math.rsqrt %in : f32
      linalg.yield %16 : f32
    } -> tensor<8x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<8x16xf32>, tensor<8x1xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %16 = arith.mulf %in, %in_3 : f32
      linalg.yield %16 : f32
    } -> tensor<8x16xf32>
    %9 = tensor.empty() : tensor<16xf32>
    %10 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg1 : tensor<16xf32>) outs(%9 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.addf %in, %cst_2 : f32
      linalg.yield %16 : f32
    } -> tensor<16xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %10 : tensor<8x16xf32>, tensor<16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %16 = arith.mulf %in, %in_3 : f32
      linalg.yield %16 : f32
    } -> tensor<8x16xf32>
    %12 = tensor.empty() : tensor<16x32xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<32x16xf32>) outs(%12 : tensor<16x32xf32>) permutation = [1, 0] 
    %13 = tensor.empty() : tensor<8x32xf32>
    %14 = linalg.fill ins(%cst : f32) outs(%13 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %15 = linalg.matmul ins(%11, %transposed : tensor<8x16xf32>, tensor<16x32xf32>) outs(%14 : tensor<8x32xf32>) -> tensor<8x32xf32>
    return %15 : tensor<8x32xf32>
  }
}
