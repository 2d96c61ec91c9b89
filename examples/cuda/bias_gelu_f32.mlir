// bias_gelu.mlir in fp32 throughout, as a model kept in fp32 writes it: y = gelu_tanh(x · Wᵀ + b)
// with fp32 inputs, bias and result. The product runs on TF32 wgmma (fp32 data, 10-bit
// mantissas in the multiplications, fp32 accumulation), as PyTorch's matmul does with
// torch.backends.cuda.matmul.allow_tf32.
func.func @main(%x: tensor<256x512xf32>, %w: tensor<1024x512xf32>, %b: tensor<1024xf32>)
    -> tensor<256x1024xf32> {
  %y = coda.gemm %x, %w transpose_b : tensor<256x512xf32>, tensor<1024x512xf32>
      with(%b as col : tensor<1024xf32>)
      -> (store tensor<256x1024xf32>)
      epilogue(%acc: f32, %bias: f32, %i: index, %j: index) {
    %z = arith.addf %acc, %bias : f32
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
  return %y : tensor<256x1024xf32>
}
