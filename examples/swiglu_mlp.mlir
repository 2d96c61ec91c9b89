// Llama-style MLP: SwiGLU then the down projection with the residual, as two coda.gemm
// kernels.
//
//   y   = silu(x·W_gate) ⊙ (x·W_up)     kernel 1: gate and up columns interleaved into one
//                                       weight [D, 2F], so each (gate, up) pair is adjacent;
//                                       pairwise(contract) writes F columns from 2F
//   out = res + y·W_down                kernel 2: accumulate into the residual stream
//
// Checked against swiglu_mlp.linalg.mlir with coda-run --against.

// Run-once weight preparation: W_gu[:, 2j] = W_gate[:, j], W_gu[:, 2j+1] = W_up[:, j].
func.func private @interleave_gate_up(%w_gate: tensor<64x48xf32>, %w_up: tensor<64x48xf32>)
    -> tensor<64x96xf32> attributes {coda.weight_prep} {
  %e = tensor.empty() : tensor<64x48x2xf32>
  %pairs = linalg.generic {
      indexing_maps = [affine_map<(k, j, t) -> (k, j)>, affine_map<(k, j, t) -> (k, j)>,
                       affine_map<(k, j, t) -> (k, j, t)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w_gate, %w_up : tensor<64x48xf32>, tensor<64x48xf32>) outs(%e : tensor<64x48x2xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %t = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %is_gate = arith.cmpi eq, %t, %c0 : index
    %v = arith.select %is_gate, %g, %u : f32
    linalg.yield %v : f32
  } -> tensor<64x48x2xf32>
  %w_gu = tensor.collapse_shape %pairs [[0], [1, 2]] : tensor<64x48x2xf32> into tensor<64x96xf32>
  return %w_gu : tensor<64x96xf32>
}

func.func @main(%x: tensor<16x64xf32>, %w_gate: tensor<64x48xf32>, %w_up: tensor<64x48xf32>,
    %w_down: tensor<48x64xf32>, %res: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %w_gu = func.call @interleave_gate_up(%w_gate, %w_up)
      : (tensor<64x48xf32>, tensor<64x48xf32>) -> tensor<64x96xf32>

  // Kernel 1: SwiGLU on each (gate, up) column pair.
  %y = coda.gemm %x, %w_gu pairwise(contract) : tensor<16x64xf32>, tensor<64x96xf32>
      -> (store tensor<16x48xf32>)
      epilogue(%gate: f32, %up: f32, %i: index, %p: index) {
    %one = arith.constant 1.0 : f32
    %neg = arith.negf %gate : f32
    %exp = math.exp %neg : f32
    %den = arith.addf %one, %exp : f32
    %silu = arith.divf %gate, %den : f32
    %out = arith.mulf %silu, %up : f32
    coda.yield %out : f32
  }

  // Kernel 2: down projection accumulated into the residual stream.
  %out = coda.gemm %y, %w_down : tensor<16x48xf32>, tensor<48x64xf32>
      -> (accumulate(%res) tensor<16x64xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %out : tensor<16x64xf32>
}
