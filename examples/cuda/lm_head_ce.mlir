// Cross-entropy of the LM head without the logits: per row the log-sum-exp of x·Wᵀ (online,
// per-tile partials) and the target logit picked by the column index. loss = lse − target.
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<4096x512xbf16>, %labels: tensor<256xi64>)
    -> (tensor<256xf32>, tensor<256xf32>) {
  %lse, %target = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<4096x512xbf16>
      with(%labels as row : tensor<256xi64>)
      -> (reduce<row, lse> tensor<256xf32>, reduce<row, sum> tensor<256xf32>)
      epilogue(%acc: f32, %label: i64, %i: index, %j: index) {
    %ji = arith.index_cast %j : index to i64
    %hit = arith.cmpi eq, %ji, %label : i64
    %zero = arith.constant 0.0 : f32
    %t = arith.select %hit, %acc, %zero : f32
    coda.yield %acc, %t : f32, f32
  }
  return %lse, %target : tensor<256xf32>, tensor<256xf32>
}
