// The epilogue's nodes for nvcc (../epilogue-nodes.test): three kernels, as few as the nodes
// allow (a kernel's C is either an accumulated init or a residual; a DAG of two nodes is a tree).
// Sizes are small: nvcc's time goes by kernel, not by shape.

#id = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>

// Every leaf and sink beside an accumulated result: the init read through the collective's C
// (Sm90SrcFetch), col, row (f32 and i64), scalar and matrix operands, a second stored result
// (direct store) and every reduction (row sum, sumsq, max, lse; col sum, max: tile partials and
// their combine kernels).
func.func @nodes(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %init: tensor<256x1024xbf16>,
    %bias: tensor<1024xf32>, %scale: tensor<256xf32>, %labels: tensor<256xi64>, %s: tensor<f32>,
    %m: tensor<256x1024xbf16>)
    -> (tensor<256x1024xbf16>, tensor<256x1024xf32>, tensor<256xf32>, tensor<256xf32>,
        tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %y, %z, %sum, %sumsq, %max, %lse, %csum, %cmax = coda.gemm %x, %w transpose_b
      : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%bias as col : tensor<1024xf32>, %scale as row : tensor<256xf32>,
           %labels as row : tensor<256xi64>, %s as scalar : tensor<f32>,
           %m as matrix : tensor<256x1024xbf16>)
      -> (accumulate(%init) tensor<256x1024xbf16>, store tensor<256x1024xf32>,
          reduce<row, sum> tensor<256xf32>, reduce<row, sumsq> tensor<256xf32>,
          reduce<row, max> tensor<256xf32>, reduce<row, lse> tensor<256xf32>,
          reduce<col, sum> tensor<1024xf32>, reduce<col, max> tensor<1024xf32>)
      epilogue(%acc: f32, %b: f32, %r: f32, %label: i64, %sc: f32, %mv: bf16, %i: index, %j: index) {
    %mf = arith.extf %mv : bf16 to f32
    %t = arith.addf %acc, %b : f32
    %u = arith.mulf %t, %r : f32
    %v = arith.mulf %u, %sc : f32
    %q = arith.addf %v, %mf : f32
    %ji = arith.index_cast %j : index to i64
    %hit = arith.cmpi eq, %ji, %label : i64
    %zero = arith.constant 0.0 : f32
    %picked = arith.select %hit, %acc, %zero : f32
    coda.yield %q, %t, %picked, %q, %q, %acc, %u, %u : f32, f32, f32, f32, f32, f32, f32, f32
  }
  return %y, %z, %sum, %sumsq, %max, %lse, %csum, %cmax
      : tensor<256x1024xbf16>, tensor<256x1024xf32>, tensor<256xf32>, tensor<256xf32>,
        tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024xf32>
}

// A residual riding the collective's C (the first matrix operand of D's type, nothing
// accumulated), row statistics from a warp fold computed beside the kernel (AwaitedRows), and
// a division: LayerNorm(x)·Wᵀ + residual, every result stored 16-bit.
func.func @residual(%x: tensor<256x512xbf16>, %w: tensor<768x512xbf16>,
    %res: tensor<256x768xbf16>) -> tensor<256x768xbf16> {
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
      with(%res as matrix : tensor<256x768xbf16>, %stats#0 as row : tensor<256xf32>,
           %stats#1 as row : tensor<256xf32>)
      -> (store tensor<256x768xbf16>)
      epilogue(%acc: f32, %rv: bf16, %s: f32, %ss: f32, %i: index, %j: index) {
    %d = arith.constant 512.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %s, %d : f32
    %msq = arith.divf %ss, %d : f32
    %mean2 = arith.mulf %mean, %mean : f32
    %var = arith.subf %msq, %mean2 : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    %n = arith.mulf %acc, %r : f32
    %rf = arith.extf %rv : bf16 to f32
    %out = arith.addf %n, %rf : f32
    coda.yield %out : f32
  }
  return %y : tensor<256x768xbf16>
}

// One compute node under the root (no operands, one stored result): an Sm90EVT tree.
func.func @tree(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>) -> tensor<256x1024xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      -> (store tensor<256x1024xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %acc, %zero : f32
    coda.yield %r : f32
  }
  return %y : tensor<256x1024xbf16>
}
