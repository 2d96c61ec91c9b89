func.func @batched(%a: tensor<2x128x64xbf16>, %b: tensor<2x64x128xbf16>) -> tensor<2x128xf32> {
  %0 = coda.gemm %a, %b : tensor<2x128x64xbf16>, tensor<2x64x128xbf16>
      -> (reduce<row, max> tensor<2x128xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %0 : tensor<2x128xf32>
}
