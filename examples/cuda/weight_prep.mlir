// The kinds of run-once weight preparation the front end outlines (coda.weight_prep: row
// interleaving, a per-head permutation by gather, scaling with row sums), here on bf16 weights:
// each becomes a function launcher of its own, its generic loops CUDA kernels.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows3 = affine_map<(d0, d1, d2) -> (d0, d2)>

// SwiGLU: gate and up weight rows interleaved, so that each column pair of x·Wᵀ is (gate, up).
func.func private @interleave_rows(%gate: tensor<96x64xbf16>, %up: tensor<96x64xbf16>)
    -> tensor<192x64xbf16> attributes {coda.weight_prep} {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<96x2x64xbf16>
  %pairs = linalg.generic {indexing_maps = [#rows3, #rows3, #id3],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%gate, %up : tensor<96x64xbf16>, tensor<96x64xbf16>) outs(%e : tensor<96x2x64xbf16>) {
  ^bb0(%g: bf16, %u: bf16, %out: bf16):
    %which = linalg.index 1 : index
    %first = arith.cmpi eq, %which, %c0 : index
    %v = arith.select %first, %g, %u : bf16
    linalg.yield %v : bf16
  } -> tensor<96x2x64xbf16>
  %w = tensor.collapse_shape %pairs [[0, 1], [2]] : tensor<96x2x64xbf16> into tensor<192x64xbf16>
  return %w : tensor<192x64xbf16>
}

// RoPE: within each head of 16 rows, rotate-half order → interleaved pairs (row 2i ← i,
// row 2i+1 ← i + 8), by a gather.
func.func private @rope_permute(%w: tensor<64x64xbf16>) -> tensor<64x64xbf16>
    attributes {coda.weight_prep} {
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %e = tensor.empty() : tensor<64x64xbf16>
  %p = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<64x64xbf16>) {
  ^bb0(%out: bf16):
    %r = linalg.index 0 : index
    %c = linalg.index 1 : index
    %head = arith.divui %r, %c16 : index
    %in = arith.remui %r, %c16 : index
    %half = arith.divui %in, %c2 : index
    %odd = arith.remui %in, %c2 : index
    %off = arith.muli %odd, %c8 : index
    %src_in = arith.addi %half, %off : index
    %base = arith.muli %head, %c16 : index
    %src = arith.addi %base, %src_in : index
    %v = tensor.extract %w[%src, %c] : tensor<64x64xbf16>
    linalg.yield %v : bf16
  } -> tensor<64x64xbf16>
  return %p : tensor<64x64xbf16>
}

// LayerNorm: W' = W·diag(γ) (rows of W are output columns), its row sums c = W'·1 for the mean
// correction, and W·β for the bias.
func.func private @layernorm_weights(%w: tensor<192x64xbf16>, %gamma: tensor<64xf32>,
    %beta: tensor<64xf32>) -> (tensor<192x64xbf16>, tensor<192xf32>, tensor<192xf32>)
    attributes {coda.weight_prep} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<192x64xbf16>
  %scaled = linalg.generic {indexing_maps = [#id2, #col, #id2],
      iterator_types = ["parallel", "parallel"]}
      ins(%w, %gamma : tensor<192x64xbf16>, tensor<64xf32>) outs(%e : tensor<192x64xbf16>) {
  ^bb0(%wv: bf16, %g: f32, %out: bf16):
    %wf = arith.extf %wv : bf16 to f32
    %p = arith.mulf %wf, %g : f32
    %pb = arith.truncf %p : f32 to bf16
    linalg.yield %pb : bf16
  } -> tensor<192x64xbf16>
  %e1 = tensor.empty() : tensor<192xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e1 : tensor<192xf32>) -> tensor<192xf32>
  %c = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%scaled : tensor<192x64xbf16>) outs(%zeros : tensor<192xf32>) {
  ^bb0(%v: bf16, %acc: f32):
    %vf = arith.extf %v : bf16 to f32
    %s = arith.addf %acc, %vf : f32
    linalg.yield %s : f32
  } -> tensor<192xf32>
  %bias = linalg.generic {indexing_maps = [#id2, #col, #row],
      iterator_types = ["parallel", "reduction"]}
      ins(%w, %beta : tensor<192x64xbf16>, tensor<64xf32>) outs(%zeros : tensor<192xf32>) {
  ^bb0(%wv: bf16, %b: f32, %acc: f32):
    %wf = arith.extf %wv : bf16 to f32
    %p = arith.mulf %wf, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<192xf32>
  return %scaled, %c, %bias : tensor<192x64xbf16>, tensor<192xf32>, tensor<192xf32>
}
