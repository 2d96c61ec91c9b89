// q = rotate-half RoPE(x · W_qᵀ), as --coda-fuse-rope writes it: W's columns are permuted within
// each head of 128 so that the rotated pair (d, d + 64) sits at columns (2d, 2d + 1), and the
// tables alike (column 2d + o holds the entry of column d + 64 o). `halves 128` writes each
// pair's two values back to columns d and d + 64 of its head: q comes out in the original order.
// The tables are bf16, as a bf16 model's are (ping-pong kernels read them through TMA).
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
    %cos: tensor<256x128xbf16>, %sin: tensor<256x128xbf16>) -> tensor<256x1024xbf16> {
  %q = coda.gemm %x, %w transpose_b pairwise(rotate, halves 128) : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%cos as tiled : tensor<256x128xbf16>, %sin as tiled : tensor<256x128xbf16>)
      -> (store tensor<256x1024xbf16>)
      epilogue(%a: f32, %b: f32, %c0h: bf16, %c1h: bf16, %s0h: bf16, %s1h: bf16, %i: index, %p: index) {
    %c0 = arith.extf %c0h : bf16 to f32
    %c1 = arith.extf %c1h : bf16 to f32
    %s0 = arith.extf %s0h : bf16 to f32
    %s1 = arith.extf %s1h : bf16 to f32
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
