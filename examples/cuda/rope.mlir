// q = RoPE(x · W_qᵀ) on interleaved pairs: pairwise(rotate) reads the columns 2p, 2p+1 and
// writes both; cos and sin are [M, 128] tables (per position and head dimension) read at column
// j mod 128: tiled operands.
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
    %cos: tensor<256x128xf32>, %sin: tensor<256x128xf32>) -> tensor<256x1024xbf16> {
  %q = coda.gemm %x, %w transpose_b pairwise(rotate) : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%cos as tiled : tensor<256x128xf32>, %sin as tiled : tensor<256x128xf32>)
      -> (store tensor<256x1024xbf16>)
      epilogue(%a: f32, %b: f32, %c0: f32, %c1: f32, %s0: f32, %s1: f32, %i: index, %p: index) {
    %ac = arith.mulf %a, %c0 : f32
    %bs = arith.mulf %b, %s0 : f32
    %even = arith.subf %ac, %bs : f32
    %bc = arith.mulf %b, %c1 : f32
    %as = arith.mulf %a, %s1 : f32
    %odd = arith.addf %bc, %as : f32
    coda.yield %even, %odd : f32, f32
  }
  return %q : tensor<256x1024xbf16>
}
