// Residual + RMSNorm with both outputs: h = res + x · W_oᵀ with the row sums of h², then
// y = h · rsqrt(Σh²/N + ε) · γ. The normalization needs whole rows of h, so it is a
// linalg.generic that coda-translate runs after the kernel. Three functions at three sizes:
// @main (whole tiles), @ragged (partial tiles at both edges), @tall (many rounds of tiles).
#rows = affine_map<(i, j) -> (i, 0)>
#cols = affine_map<(i, j) -> (j)>
#id = affine_map<(i, j) -> (i, j)>

func.func @main(%x: tensor<512x512xbf16>, %w: tensor<1024x512xbf16>, %res: tensor<512x1024xbf16>,
    %gamma: tensor<1024xbf16>) -> (tensor<512x1024xbf16>, tensor<512x1024xbf16>) {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<512x512xbf16>, tensor<1024x512xbf16>
      with(%res as matrix : tensor<512x1024xbf16>)
      -> (store tensor<512x1024xbf16>, reduce<row, sumsq> tensor<512xf32>)
      epilogue(%acc: f32, %r: bf16, %i: index, %j: index) {
    %rf = arith.extf %r : bf16 to f32
    %s = arith.addf %acc, %rf : f32
    coda.yield %s, %s : f32, f32
  }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [512, 1] : tensor<512xf32> into tensor<512x1xf32>
  %e = tensor.empty() : tensor<512x1024xbf16>
  %y = linalg.generic {indexing_maps = [#id, #rows, #cols, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h, %ss2, %gamma : tensor<512x1024xbf16>, tensor<512x1xf32>, tensor<1024xbf16>)
      outs(%e : tensor<512x1024xbf16>) {
  ^bb0(%hv: bf16, %sv: f32, %g: bf16, %o: bf16):
    %inv_n = arith.constant 9.765625e-04 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.mulf %sv, %inv_n : f32
    %var = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %var : f32
    %hf = arith.extf %hv : bf16 to f32
    %gf = arith.extf %g : bf16 to f32
    %n = arith.mulf %hf, %rs : f32
    %yv = arith.mulf %n, %gf : f32
    %yb = arith.truncf %yv : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<512x1024xbf16>
  return %h, %y : tensor<512x1024xbf16>, tensor<512x1024xbf16>
}

func.func @ragged(%x: tensor<1000x136xbf16>, %w: tensor<1000x136xbf16>, %res: tensor<1000x1000xbf16>,
    %gamma: tensor<1000xbf16>) -> (tensor<1000x1000xbf16>, tensor<1000x1000xbf16>) {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<1000x136xbf16>, tensor<1000x136xbf16>
      with(%res as matrix : tensor<1000x1000xbf16>)
      -> (store tensor<1000x1000xbf16>, reduce<row, sumsq> tensor<1000xf32>)
      epilogue(%acc: f32, %r: bf16, %i: index, %j: index) {
    %rf = arith.extf %r : bf16 to f32
    %s = arith.addf %acc, %rf : f32
    coda.yield %s, %s : f32, f32
  }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [1000, 1] : tensor<1000xf32> into tensor<1000x1xf32>
  %e = tensor.empty() : tensor<1000x1000xbf16>
  %y = linalg.generic {indexing_maps = [#id, #rows, #cols, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h, %ss2, %gamma : tensor<1000x1000xbf16>, tensor<1000x1xf32>, tensor<1000xbf16>)
      outs(%e : tensor<1000x1000xbf16>) {
  ^bb0(%hv: bf16, %sv: f32, %g: bf16, %o: bf16):
    %inv_n = arith.constant 1.0e-03 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.mulf %sv, %inv_n : f32
    %var = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %var : f32
    %hf = arith.extf %hv : bf16 to f32
    %gf = arith.extf %g : bf16 to f32
    %n = arith.mulf %hf, %rs : f32
    %yv = arith.mulf %n, %gf : f32
    %yb = arith.truncf %yv : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<1000x1000xbf16>
  return %h, %y : tensor<1000x1000xbf16>, tensor<1000x1000xbf16>
}

func.func @tall(%x: tensor<8191x256xbf16>, %w: tensor<4096x256xbf16>, %res: tensor<8191x4096xbf16>,
    %gamma: tensor<4096xbf16>) -> (tensor<8191x4096xbf16>, tensor<8191x4096xbf16>) {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<8191x256xbf16>, tensor<4096x256xbf16>
      with(%res as matrix : tensor<8191x4096xbf16>)
      -> (store tensor<8191x4096xbf16>, reduce<row, sumsq> tensor<8191xf32>)
      epilogue(%acc: f32, %r: bf16, %i: index, %j: index) {
    %rf = arith.extf %r : bf16 to f32
    %s = arith.addf %acc, %rf : f32
    coda.yield %s, %s : f32, f32
  }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [8191, 1] : tensor<8191xf32> into tensor<8191x1xf32>
  %e = tensor.empty() : tensor<8191x4096xbf16>
  %y = linalg.generic {indexing_maps = [#id, #rows, #cols, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h, %ss2, %gamma : tensor<8191x4096xbf16>, tensor<8191x1xf32>, tensor<4096xbf16>)
      outs(%e : tensor<8191x4096xbf16>) {
  ^bb0(%hv: bf16, %sv: f32, %g: bf16, %o: bf16):
    %inv_n = arith.constant 2.44140625e-04 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.mulf %sv, %inv_n : f32
    %var = arith.addf %mean, %eps : f32
    %rs = math.rsqrt %var : f32
    %hf = arith.extf %hv : bf16 to f32
    %gf = arith.extf %g : bf16 to f32
    %n = arith.mulf %hf, %rs : f32
    %yv = arith.mulf %n, %gf : f32
    %yb = arith.truncf %yv : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<8191x4096xbf16>
  return %h, %y : tensor<8191x4096xbf16>, tensor<8191x4096xbf16>
}
