// y[l] = gelu_tanh(x[l] · W[l]ᵀ + b) for a batch of 4 products, each with its own weight, and
// a bias shared by the batch: one batched launch (CUTLASS's L mode).
func.func @main(%x: tensor<4x256x512xbf16>, %w: tensor<4x1024x512xbf16>, %b: tensor<1024xbf16>)
    -> tensor<4x256x1024xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<4x256x512xbf16>, tensor<4x1024x512xbf16>
      with(%b as col : tensor<1024xbf16>)
      -> (store tensor<4x256x1024xbf16>)
      epilogue(%acc: f32, %bias: bf16, %i: index, %j: index) {
    %bf = arith.extf %bias : bf16 to f32
    %z = arith.addf %acc, %bf : f32
    %x3 = arith.mulf %z, %z : f32
    %x3b = arith.mulf %x3, %z : f32
    %c0 = arith.constant 0.044715 : f32
    %t0 = arith.mulf %x3b, %c0 : f32
    %t1 = arith.addf %z, %t0 : f32
    %c1 = arith.constant 0.7978845608 : f32
    %t2 = arith.mulf %t1, %c1 : f32
    %t3 = math.tanh %t2 : f32
    %one = arith.constant 1.0 : f32
    %t4 = arith.addf %t3, %one : f32
    %half = arith.constant 0.5 : f32
    %t5 = arith.mulf %t4, %half : f32
    %g = arith.mulf %z, %t5 : f32
    coda.yield %g : f32
  }
  return %y : tensor<4x256x1024xbf16>
}
