// LayerNorm (without its affine part) folded into the QKV product: with μ = Σx/D and
// r = rsqrt(Σx²/D − μ² + ε) per row, LayerNorm(x)·Wᵀ = r·(x·Wᵀ − μ·w̄) where w̄[j] = Σ_k W[j, k].
// Σx and Σx² are row statistics of A (`row_sum`, `row_sumsq`): the kernel sums them from the A
// tiles its mainloop streams through shared memory, so x is read once. (`--coda-fuse` writes
// this from torch-mlir's LayerNorm → linear; D = 512 here.)
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<768x512xbf16>, %wsum: tensor<768xf32>)
    -> tensor<256x768xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<768x512xbf16>
      with(%wsum as col : tensor<768xf32>, %x as row_sum : tensor<256x512xbf16>,
           %x as row_sumsq : tensor<256x512xbf16>)
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
