// LM head + cross-entropy as one coda.gemm: the logits never reach memory.
//
//   lse_i    = log Σ_j exp(logit_ij)    reduce<row, lse>: online log-sum-exp
//   target_i = logit_{i, label_i}       reduce<row, sum> of the logit where j == label_i
//   loss     = mean_i (lse_i − target_i)
//
// Checked against lm_head_cross_entropy.linalg.mlir with coda-run --against (labels are
// random in [0, vocab): pass --int-max 128).

func.func @main(%x: tensor<16x64xf32>, %w: tensor<64x128xf32>, %labels: tensor<16xi64>)
    -> (tensor<16xf32>, tensor<f32>) {
  %lse, %target = coda.gemm %x, %w : tensor<16x64xf32>, tensor<64x128xf32>
      with(%labels as row : tensor<16xi64>)
      -> (reduce<row, lse> tensor<16xf32>, reduce<row, sum> tensor<16xf32>)
      epilogue(%logit: f32, %label: i64, %i: index, %j: index) {
    %col = arith.index_cast %j : index to i64
    %is_target = arith.cmpi eq, %col, %label : i64
    %zero = arith.constant 0.0 : f32
    %picked = arith.select %is_target, %logit, %zero : f32
    coda.yield %logit, %picked : f32, f32
  }

  // Per-token loss and its mean: O(M) work outside the kernel.
  %e = tensor.empty() : tensor<16xf32>
  %loss = linalg.sub ins(%lse, %target : tensor<16xf32>, tensor<16xf32>)
      outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %cst0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%cst0 : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%loss : tensor<16xf32>) outs(%z : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
  %mean = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                          iterator_types = []}
      ins(%sum : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%s: f32, %o: f32):
    %n = arith.constant 16.0 : f32
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %loss, %mean : tensor<16xf32>, tensor<f32>
}
