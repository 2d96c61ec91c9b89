// One function per feature of the attention kernel, for nvcc (../attention.test): GQA with
// token-major heads and a causal mask and LSE, a sliding window with sinks, dilation, chunks,
// Longformer's global tokens, a soft-capping score region, f16 with head-major heads,
// per-sequence lengths, a runtime mask, the row-wise kernel (two query rows), and decoding
// over a KV cache (appends, then the decode kernel: GQA bf16 with LSE, and a speculative step
// of f16 token-major heads in a paged cache under a causal window with i64 lengths). Sizes are small: nvcc's
// time goes by kernel, not by shape.

func.func @causal_gqa(%q: tensor<2x64x8x128xbf16>, %k: tensor<2x64x2x128xbf16>,
    %v: tensor<2x64x2x128xbf16>) -> (tensor<2x64x8x128xbf16>, tensor<2x8x64xf32>) {
  %o, %lse = coda.attention %q, %k, %v scale 0.088 mask <causal = true> layout <bshd>
      : tensor<2x64x8x128xbf16>, tensor<2x64x2x128xbf16>, tensor<2x64x2x128xbf16>
      -> tensor<2x64x8x128xbf16>, tensor<2x8x64xf32>
  return %o, %lse : tensor<2x64x8x128xbf16>, tensor<2x8x64xf32>
}

func.func @window_sinks(%q: tensor<1x4x96x64xbf16>) -> tensor<1x4x96x64xbf16> {
  %o = coda.attention %q, %q, %q scale 0.125 mask <causal = true, left = 31, sinks = 4>
      : tensor<1x4x96x64xbf16>, tensor<1x4x96x64xbf16>, tensor<1x4x96x64xbf16>
      -> tensor<1x4x96x64xbf16>
  return %o : tensor<1x4x96x64xbf16>
}

func.func @dilated_chunked(%q: tensor<1x4x96x64xbf16>) -> tensor<1x4x96x64xbf16> {
  %o = coda.attention %q, %q, %q scale 0.125 mask <causal = true, dilation = 2, chunk = 32>
      : tensor<1x4x96x64xbf16>, tensor<1x4x96x64xbf16>, tensor<1x4x96x64xbf16>
      -> tensor<1x4x96x64xbf16>
  return %o : tensor<1x4x96x64xbf16>
}

func.func @longformer(%q: tensor<1x4x96x32xbf16>) -> tensor<1x4x96x32xbf16> {
  %o = coda.attention %q, %q, %q scale 0.17 mask <left = 8, right = 8, global = 2>
      : tensor<1x4x96x32xbf16>, tensor<1x4x96x32xbf16>, tensor<1x4x96x32xbf16>
      -> tensor<1x4x96x32xbf16>
  return %o : tensor<1x4x96x32xbf16>
}

func.func @softcap_f16(%q: tensor<1x2x33x128xf16>, %k: tensor<1x2x65x128xf16>)
    -> tensor<1x2x33x128xf16> {
  %o = coda.attention %q, %k, %k scale 0.088 mask <causal = true>
      : tensor<1x2x33x128xf16>, tensor<1x2x65x128xf16>, tensor<1x2x65x128xf16>
      -> tensor<1x2x33x128xf16>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %cap = arith.constant 50.0 : f32
        %x = arith.divf %s, %cap : f32
        %t = math.tanh %x : f32
        %y = arith.mulf %t, %cap : f32
        coda.yield %y : f32
      }
  return %o : tensor<1x2x33x128xf16>
}

func.func @lengths(%q: tensor<2x4x96x64xbf16>, %n: tensor<2xi32>) -> tensor<2x4x96x64xbf16> {
  %o = coda.attention %q, %q, %q lens(%n : tensor<2xi32>) scale 0.125 mask <causal = true>
      : tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>, tensor<2x4x96x64xbf16>
      -> tensor<2x4x96x64xbf16>
  return %o : tensor<2x4x96x64xbf16>
}

func.func @runtime_mask(%q: tensor<2x4x200x128xbf16>, %blocks: tensor<1x4x2x2xi8>,
    %bits: tensor<1x4x200x7xi32>) -> tensor<2x4x200x128xbf16> {
  %o = coda.attention %q, %q, %q blocks(%blocks, %bits : tensor<1x4x2x2xi8>, tensor<1x4x200x7xi32>)
      scale 0.088 mask <causal = true>
      : tensor<2x4x200x128xbf16>, tensor<2x4x200x128xbf16>, tensor<2x4x200x128xbf16>
      -> tensor<2x4x200x128xbf16>
  return %o : tensor<2x4x200x128xbf16>
}

func.func @row_wise(%q: tensor<1x2x4x64xbf16>, %k: tensor<1x100x2x64xbf16>)
    -> (tensor<1x2x4x64xbf16>, tensor<1x4x2xf32>) {
  %o, %lse = coda.attention %q, %k, %k scale 0.125 mask <causal = true> layout <bshd>
      : tensor<1x2x4x64xbf16>, tensor<1x100x2x64xbf16>, tensor<1x100x2x64xbf16>
      -> tensor<1x2x4x64xbf16>, tensor<1x4x2xf32>
  return %o, %lse : tensor<1x2x4x64xbf16>, tensor<1x4x2xf32>
}

func.func @decode_step(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x1x128xbf16>, %v: tensor<2x2x1x128xbf16>,
    %kc: tensor<2x2x512x128xbf16>, %vc: tensor<2x2x512x128xbf16>, %pos: tensor<2xi32>, %len: tensor<2xi32>)
    -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>, tensor<2x2x512x128xbf16>, tensor<2x2x512x128xbf16>) {
  %k1 = coda.append %k into %kc at %pos : tensor<2x2x1x128xbf16> into tensor<2x2x512x128xbf16> at tensor<2xi32>
  %v1 = coda.append %v into %vc at %pos : tensor<2x2x1x128xbf16> into tensor<2x2x512x128xbf16> at tensor<2xi32>
  %o, %lse = coda.attention %q, %k1, %v1 cache(%len : tensor<2xi32>) scale 0.088
      : tensor<2x8x1x128xbf16>, tensor<2x2x512x128xbf16>, tensor<2x2x512x128xbf16>
      -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %lse, %k1, %v1 : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>, tensor<2x2x512x128xbf16>, tensor<2x2x512x128xbf16>
}

func.func @speculative(%q: tensor<2x4x8x64xf16>, %k: tensor<2x4x1x64xf16>, %kp: tensor<40x64x1x64xf16>,
    %table: tensor<2x16xi32>, %pos: tensor<2xi64>, %len: tensor<2xi64>)
    -> (tensor<2x4x8x64xf16>, tensor<40x64x1x64xf16>) {
  %k1 = coda.append %k into %kp at %pos pages(%table : tensor<2x16xi32>) layout <bshd>
      : tensor<2x4x1x64xf16> into tensor<40x64x1x64xf16> at tensor<2xi64>
  %o = coda.attention %q, %k1, %k1 cache(%len : tensor<2xi64>) pages(%table : tensor<2x16xi32>)
      scale 0.125 mask <causal = true, left = 255> layout <bshd>
      : tensor<2x4x8x64xf16>, tensor<40x64x1x64xf16>, tensor<40x64x1x64xf16> -> tensor<2x4x8x64xf16>
  return %o, %k1 : tensor<2x4x8x64xf16>, tensor<40x64x1x64xf16>
}
