// h = res + x · W_oᵀ with the row sums of h² for the RMSNorm of the next kernel: a matrix
// operand, two results (a stored tensor and a row reduction). The anchor "residual + RMSNorm".
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %res: tensor<256x1024xbf16>)
    -> (tensor<256x1024xbf16>, tensor<256xf32>) {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%res as matrix : tensor<256x1024xbf16>)
      -> (store tensor<256x1024xbf16>, reduce<row, sumsq> tensor<256xf32>)
      epilogue(%acc: f32, %r: bf16, %i: index, %j: index) {
    %rf = arith.extf %r : bf16 to f32
    %s = arith.addf %acc, %rf : f32
    coda.yield %s, %s : f32, f32
  }
  return %h, %ss : tensor<256x1024xbf16>, tensor<256xf32>
}
