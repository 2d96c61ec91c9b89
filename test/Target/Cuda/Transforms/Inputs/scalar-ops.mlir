// Scalars computed outside any kernel take no workspace (and the function gets no launcher).
func.func @scalar(%a: f32, %x: tensor<128x64xbf16>, %w: tensor<64x128xbf16>) -> (f32, tensor<128x128xbf16>) {
  %s = arith.addf %a, %a : f32
  %y = coda.gemm %x, %w : tensor<128x64xbf16>, tensor<64x128xbf16>
      -> (store tensor<128x128xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %s, %y : f32, tensor<128x128xbf16>
}
