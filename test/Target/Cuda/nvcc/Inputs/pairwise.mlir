// The pairwise epilogues for nvcc (../pairwise.test), one kernel each: contract's and rotate's
// results stored through TMA in shapes of their own (ContractStore, HalvesStore), rotate's
// tables loaded through TMA (TableLoad), expand's two columns per accumulator column.

// SwiGLU: each column pair (gate, up) contracted to one column, stored through
// coda::rt::ContractStore ([M, N/2], no D), with a row reduction (identity in the odd slot).
func.func @contract(%x: tensor<256x512xbf16>, %w: tensor<2048x512xbf16>)
    -> (tensor<256x1024xbf16>, tensor<256xf32>) {
  %y, %mx = coda.gemm %x, %w transpose_b pairwise(contract)
      : tensor<256x512xbf16>, tensor<2048x512xbf16>
      -> (store tensor<256x1024xbf16>, reduce<row, max> tensor<256xf32>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %one = arith.constant 1.0 : f32
    %ng = arith.negf %g : f32
    %e = math.exp %ng : f32
    %d = arith.addf %e, %one : f32
    %silu = arith.divf %g, %d : f32
    %y = arith.mulf %silu, %u : f32
    coda.yield %y, %y : f32, f32
  }
  return %y, %mx : tensor<256x1024xbf16>, tensor<256xf32>
}

// Rotate-half RoPE written into the heads' halves by coda::rt::HalvesStore, its bf16 tables
// read through TMA (coda::rt::TableLoad) in a ping-pong tile.
func.func @rotate(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
    %cos: tensor<256x128xbf16>, %sin: tensor<256x128xbf16>) -> tensor<256x1024xbf16> {
  %q = coda.gemm %x, %w transpose_b pairwise(rotate, halves 128)
      : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%cos as tiled : tensor<256x128xbf16>, %sin as tiled : tensor<256x128xbf16>)
      -> (store tensor<256x1024xbf16>)
      epilogue(%a: f32, %b: f32, %c0h: bf16, %c1h: bf16, %s0h: bf16, %s1h: bf16, %i: index, %p: index) {
    %c0 = arith.extf %c0h : bf16 to f32
    %c1 = arith.extf %c1h : bf16 to f32
    %s0 = arith.extf %s0h : bf16 to f32
    %s1 = arith.extf %s1h : bf16 to f32
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

// Two output columns per accumulator column (GELU's input and output side by side), B not
// transposed, a scalar operand: two value streams stored by each thread, no D.
func.func @expand(%x: tensor<256x512xbf16>, %w: tensor<512x1024xbf16>, %s: tensor<f32>)
    -> tensor<256x2048xbf16> {
  %y = coda.gemm %x, %w pairwise(expand) : tensor<256x512xbf16>, tensor<512x1024xbf16>
      with(%s as scalar : tensor<f32>)
      -> (store tensor<256x2048xbf16>)
      epilogue(%acc: f32, %scale: f32, %i: index, %j: index) {
    %z = arith.mulf %acc, %scale : f32
    %c = arith.constant 0.70710678 : f32
    %zc = arith.mulf %z, %c : f32
    %e = math.erf %zc : f32
    %one = arith.constant 1.0 : f32
    %e1 = arith.addf %e, %one : f32
    %half = arith.constant 0.5 : f32
    %h = arith.mulf %e1, %half : f32
    %g = arith.mulf %z, %h : f32
    coda.yield %z, %g : f32, f32
  }
  return %y : tensor<256x2048xbf16>
}
