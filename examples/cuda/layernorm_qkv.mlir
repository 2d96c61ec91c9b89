// LayerNorm (without its affine part) folded into the QKV product: with μ = Σx/D and
// r = rsqrt(Σx²/D − μ² + ε) per row, LayerNorm(x)·Wᵀ = r·(x·Wᵀ − μ·w̄) where w̄[j] = Σ_k W[j, k].
// Σx and Σx² are one row reduction before the kernel, which reads them as row operands: the
// kernel reads x once, unnormalized. (`--coda-fuse` writes this from torch-mlir's LayerNorm →
// linear; D = 512 here.)
#id = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<768x512xbf16>, %wsum: tensor<768xf32>)
    -> tensor<256x768xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %stats:2 = linalg.generic {indexing_maps = [#id, #row, #row],
                             iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xbf16>) outs(%init, %init : tensor<256xf32>, tensor<256xf32>) {
  ^bb0(%v: bf16, %s: f32, %ss: f32):
    %f = arith.extf %v : bf16 to f32
    %s1 = arith.addf %f, %s : f32
    %sq = arith.mulf %f, %f : f32
    %ss1 = arith.addf %sq, %ss : f32
    linalg.yield %s1, %ss1 : f32, f32
  } -> (tensor<256xf32>, tensor<256xf32>)
  %y = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<768x512xbf16>
      with(%wsum as col : tensor<768xf32>, %stats#0 as row : tensor<256xf32>,
           %stats#1 as row : tensor<256xf32>)
      -> (store tensor<256x768xbf16>)
      epilogue(%acc: f32, %ws: f32, %s: f32, %ss: f32, %i: index, %j: index) {
    %d = arith.constant 512.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %s, %d : f32
    %msq = arith.divf %ss, %d : f32
    %mean2 = arith.mulf %mean, %mean : f32
    %var = arith.subf %msq, %mean2 : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    %shift = arith.mulf %mean, %ws : f32
    %centered = arith.subf %acc, %shift : f32
    %out = arith.mulf %centered, %r : f32
    coda.yield %out : f32
  }
  return %y : tensor<256x768xbf16>
}
