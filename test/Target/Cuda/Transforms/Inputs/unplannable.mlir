func.func @f32_inputs(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>) -> tensor<128x128xf32> {
  %0 = coda.gemm %a, %b : tensor<128x64xf32>, tensor<64x128xf32>
      -> (store tensor<128x128xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %0 : tensor<128x128xf32>
}
