// z = x·Wᵀ + b kept for the backward pass and y = relu(z) for the next layer: two stored
// results, and the column sums and column maxima of y (reductions over the rows).
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xf32>)
    -> (tensor<256x1024xbf16>, tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %y, %z, %sum, %max = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%b as col : tensor<1024xf32>)
      -> (store tensor<256x1024xbf16>, store tensor<256x1024xf32>,
          reduce<col, sum> tensor<1024xf32>, reduce<col, max> tensor<1024xf32>)
      epilogue(%acc: f32, %bias: f32, %i: index, %j: index) {
    %z = arith.addf %acc, %bias : f32
    %zero = arith.constant 0.0 : f32
    %y = arith.maximumf %z, %zero : f32
    coda.yield %y, %z, %y, %y : f32, f32, f32, f32
  }
  return %y, %z, %sum, %max : tensor<256x1024xbf16>, tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}
