// A decode-sized product: one token through a down projection with a residual and the row sum
// of squares the next RMSNorm needs (the Llama block's o-projection at M 1). Its 32 tiles of
// 128 x 128 would leave most of the 132 SMs idle and compute 127 padding rows each.
func.func @down(%x: tensor<1x4096xbf16>, %w: tensor<4096x4096xbf16>,
    %res: tensor<1x4096xbf16>) -> (tensor<1x4096xbf16>, tensor<1xf32>) {
  %y, %ss = coda.gemm %x, %w transpose_b : tensor<1x4096xbf16>, tensor<4096x4096xbf16>
      with(%res as matrix : tensor<1x4096xbf16>)
      -> (store tensor<1x4096xbf16>, reduce<row, sumsq> tensor<1xf32>)
      epilogue(%acc: f32, %r: bf16, %i: index, %j: index) {
    %rf = arith.extf %r : bf16 to f32
    %h = arith.addf %acc, %rf : f32
    coda.yield %h, %h : f32, f32
  }
  return %y, %ss : tensor<1x4096xbf16>, tensor<1xf32>
}
