func.func @batched(%a: tensor<2x128x64xbf16>, %b: tensor<2x64x128xbf16>) -> tensor<2x128x128xbf16> {
  %0 = coda.gemm %a, %b : tensor<2x128x64xbf16>, tensor<2x64x128xbf16>
      -> (store tensor<2x128x128xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %0 : tensor<2x128x128xbf16>
}
