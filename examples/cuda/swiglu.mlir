// y = silu(x·W_gateᵀ) ⊙ (x·W_upᵀ) with the gate and up weights interleaved row by row (W_gu
// row 2p is gate row p, row 2p+1 is up row p): pairwise(contract) writes N/2 columns. Also the
// row maximum of y (a reduction over contracted pairs).
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<2048x512xbf16>)
    -> (tensor<256x1024xbf16>, tensor<256xf32>) {
  %y, %mx = coda.gemm %x, %w transpose_b pairwise(contract)
      : tensor<256x512xbf16>, tensor<2048x512xbf16>
      -> (store tensor<256x1024xbf16>, reduce<row, max> tensor<256xf32>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %one = arith.constant 1.0 : f32
    %ng = arith.negf %g : f32
    %e = math.exp %ng : f32
    %d = arith.addf %e, %one : f32
    %silu = arith.divf %g, %d : f32
    %y = arith.mulf %silu, %u : f32
    coda.yield %y, %y : f32, f32
  }
  return %y, %mx : tensor<256x1024xbf16>, tensor<256xf32>
}
