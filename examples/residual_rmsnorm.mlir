// Llama-style o-projection + residual, then RMSNorm feeding the QKV projection, as two
// coda.gemm kernels.
//
//   h = res + x·W_o                       kernel 1 also emits ss = Σ_j h², a row reduction
//   y = rmsnorm(h)·γ · W_qkv              kernel 2: (r ⊙ h)·W = r ⊙ (h·W) with the per-row
//                                         r = rsqrt(ss/D + ε); γ is folded into the weights
//
// Checked against residual_rmsnorm.linalg.mlir with coda-run --against.

// Run-once weight preparation: W' = diag(γ)·W_qkv.
func.func private @prepare_qkv_weights(%gamma: tensor<64xf32>, %w: tensor<64x96xf32>)
    -> tensor<64x96xf32> attributes {coda.weight_prep} {
  %e = tensor.empty() : tensor<64x96xf32>
  %scaled = linalg.generic {
      indexing_maps = [affine_map<(k, n) -> (k)>, affine_map<(k, n) -> (k, n)>,
                       affine_map<(k, n) -> (k, n)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%gamma, %w : tensor<64xf32>, tensor<64x96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%g: f32, %wv: f32, %o: f32):
    %p = arith.mulf %g, %wv : f32
    linalg.yield %p : f32
  } -> tensor<64x96xf32>
  return %scaled : tensor<64x96xf32>
}

func.func @main(%x: tensor<16x64xf32>, %w_o: tensor<64x64xf32>, %res: tensor<16x64xf32>,
    %gamma: tensor<64xf32>, %w_qkv: tensor<64x96xf32>) -> (tensor<16x64xf32>, tensor<16x96xf32>) {
  %w_prepared = func.call @prepare_qkv_weights(%gamma, %w_qkv)
      : (tensor<64xf32>, tensor<64x96xf32>) -> tensor<64x96xf32>

  // Kernel 1: residual add (matrix operand); stores h and the row sums of h².
  %h, %ss = coda.gemm %x, %w_o : tensor<16x64xf32>, tensor<64x64xf32>
      with(%res as matrix : tensor<16x64xf32>)
      -> (store tensor<16x64xf32>, reduce<row, sumsq> tensor<16xf32>)
      epilogue(%acc: f32, %r: f32, %i: index, %j: index) {
    %sum = arith.addf %acc, %r : f32
    coda.yield %sum, %sum : f32, f32
  }

  // Kernel 2: the RMSNorm row scale applied to h·W'.
  %y = coda.gemm %h, %w_prepared : tensor<16x64xf32>, tensor<64x96xf32>
      with(%ss as row : tensor<16xf32>)
      -> (store tensor<16x96xf32>)
      epilogue(%acc: f32, %sumsq: f32, %i: index, %j: index) {
    %inv_d = arith.constant 0.015625 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.mulf %sumsq, %inv_d : f32
    %var = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %var : f32
    %out = arith.mulf %acc, %rs : f32
    coda.yield %out : f32
  }
  return %h, %y : tensor<16x64xf32>, tensor<16x96xf32>
}
