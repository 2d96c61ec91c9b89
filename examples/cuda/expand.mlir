// pairwise(expand): every accumulator element writes two output columns, here the
// pre-activation z = s·acc (a scalar scale) and gelu_erf(z) interleaved: [M, 2N].
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<512x1024xbf16>, %s: tensor<f32>)
    -> tensor<256x2048xbf16> {
  %y = coda.gemm %x, %w pairwise(expand) : tensor<256x512xbf16>, tensor<512x1024xbf16>
      with(%s as scalar : tensor<f32>)
      -> (store tensor<256x2048xbf16>)
      epilogue(%acc: f32, %scale: f32, %i: index, %j: index) {
    %z = arith.mulf %acc, %scale : f32
    %c = arith.constant 0.70710678 : f32
    %zc = arith.mulf %z, %c : f32
    %e = math.erf %zc : f32
    %one = arith.constant 1.0 : f32
    %e1 = arith.addf %e, %one : f32
    %half = arith.constant 0.5 : f32
    %h = arith.mulf %e1, %half : f32
    %g = arith.mulf %z, %h : f32
    coda.yield %z, %g : f32, f32
  }
  return %y : tensor<256x2048xbf16>
}
