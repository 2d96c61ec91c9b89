// out = res + silu_gate · W_downᵀ: the down projection accumulated into the residual stream
// (accumulate mode), the second program the CUDA backend emits.
func.func @main(%h: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %res: tensor<256x1024xbf16>)
    -> tensor<256x1024xbf16> {
  %out = coda.gemm %h, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      -> (accumulate(%res) tensor<256x1024xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %out : tensor<256x1024xbf16>
}
