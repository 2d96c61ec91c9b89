// Kernels beside the aligned 16-bit GEMM, for nvcc/coverage.test: a batched product with a
// bias shared by the batch, a per-batch row scale and a per-batch residual read through the
// collective's C; fp32 products in both layouts (three TF32 products with
// --fp32-products=3xtf32).
func.func @batched(%x: tensor<4x256x512xbf16>, %w: tensor<4x1024x512xbf16>, %b: tensor<1024xbf16>,
                   %s: tensor<4x256xf32>, %r: tensor<4x256x1024xbf16>) -> tensor<4x256x1024xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<4x256x512xbf16>, tensor<4x1024x512xbf16>
      with(%b as col : tensor<1024xbf16>, %s as row : tensor<4x256xf32>,
           %r as matrix : tensor<4x256x1024xbf16>)
      -> (store tensor<4x256x1024xbf16>)
      epilogue(%acc: f32, %bias: bf16, %scale: f32, %res: bf16, %i: index, %j: index) {
    %bf = arith.extf %bias : bf16 to f32
    %rf = arith.extf %res : bf16 to f32
    %z = arith.addf %acc, %bf : f32
    %t = arith.mulf %z, %scale : f32
    %o = arith.addf %t, %rf : f32
    coda.yield %o : f32
  }
  return %y : tensor<4x256x1024xbf16>
}

func.func @linear(%x: tensor<256x512xf32>, %w: tensor<1024x512xf32>) -> tensor<256x1024xf32> {
  %0 = coda.gemm %x, %w transpose_b : tensor<256x512xf32>, tensor<1024x512xf32>
      -> (store tensor<256x1024xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<256x1024xf32>
}

func.func @nn(%x: tensor<256x512xf32>, %w: tensor<512x1024xf32>) -> tensor<256x1024xf32> {
  %0 = coda.gemm %x, %w : tensor<256x512xf32>, tensor<512x1024xf32>
      -> (store tensor<256x1024xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<256x1024xf32>
}
