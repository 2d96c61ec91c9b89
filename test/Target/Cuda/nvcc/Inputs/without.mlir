// The other side of every --cuda-without switch for nvcc (../cuda-without.test, emitted with
// all six off): the kernels as written where the default's TMA node, row hand-off, whole waves
// or direct launch is switched off.

#id = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>
#all = affine_map<(i) -> (i)>
#none = affine_map<(i) -> ()>

// tma-halves (and tma-tables): RoPE's rotated pairs go through D into the workspace side by
// side, coda::rt::pairsToHalves moves them into their heads' halves; the fp32 tables are read by
// each thread.
func.func @rotate(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
    %cos: tensor<256x128xf32>, %sin: tensor<256x128xf32>) -> tensor<256x1024xbf16> {
  %q = coda.gemm %x, %w transpose_b pairwise(rotate, halves 128)
      : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%cos as tiled : tensor<256x128xf32>, %sin as tiled : tensor<256x128xf32>)
      -> (store tensor<256x1024xbf16>)
      epilogue(%a: f32, %b: f32, %c0: f32, %c1: f32, %s0: f32, %s1: f32, %i: index, %p: index) {
    %ac = arith.mulf %a, %c0 : f32
    %bs = arith.mulf %b, %s0 : f32
    %even = arith.subf %ac, %bs : f32
    %bc = arith.mulf %b, %c1 : f32
    %as = arith.mulf %a, %s1 : f32
    %odd = arith.addf %bc, %as : f32
    coda.yield %even, %odd : f32, f32
  }
  return %q : tensor<256x1024xbf16>
}

// tma-contract and overlap-rows: RMSNorm → SwiGLU's gated projection, the contracted result
// stored by each thread (coda::rt::GlobalStore), the row statistics' warp fold run before the
// kernel.
func.func @contract(%x: tensor<256x512xbf16>, %w: tensor<2048x512xbf16>)
    -> tensor<256x1024xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xbf16>) outs(%init : tensor<256xf32>) {
  ^bb0(%v: bf16, %acc: f32):
    %f = arith.extf %v : bf16 to f32
    %sq = arith.mulf %f, %f : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %y = coda.gemm %x, %w transpose_b pairwise(contract)
      : tensor<256x512xbf16>, tensor<2048x512xbf16>
      with(%ss as row : tensor<256xf32>)
      -> (store tensor<256x1024xbf16>)
      epilogue(%g0: f32, %u0: f32, %sumsq: f32, %i: index, %p: index) {
    %inv_d = arith.constant 0.001953125 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.mulf %sumsq, %inv_d : f32
    %var = arith.addf %mean, %eps : f32
    %r = math.rsqrt %var : f32
    %g = arith.mulf %g0, %r : f32
    %u = arith.mulf %u0, %r : f32
    %one = arith.constant 1.0 : f32
    %ng = arith.negf %g : f32
    %ex = math.exp %ng : f32
    %d = arith.addf %ex, %one : f32
    %silu = arith.divf %g, %d : f32
    %y = arith.mulf %silu, %u : f32
    coda.yield %y : f32
  }
  return %y : tensor<256x1024xbf16>
}

// No kernel: cross-entropy's mean over the rows, one point folding 16384 steps (a block of 256
// threads per point).
func.func @mean(%l: tensor<16384xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction"]}
      ins(%l : tensor<16384xf32>) outs(%init : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
