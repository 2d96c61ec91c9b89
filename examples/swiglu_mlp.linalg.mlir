// Reference for swiglu_mlp.mlir, in the linalg-on-tensors style torch-mlir writes:
//   out = res + (silu(x·W_gate) ⊙ (x·W_up))·W_down,   silu(g) = g · sigmoid(g)
#map_id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<16x64xf32>, %w_gate: tensor<64x48xf32>, %w_up: tensor<64x48xf32>,
    %w_down: tensor<48x64xf32>, %res: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %cst0 = arith.constant 0.000000e+00 : f32
  %e48 = tensor.empty() : tensor<16x48xf32>
  %z48 = linalg.fill ins(%cst0 : f32) outs(%e48 : tensor<16x48xf32>) -> tensor<16x48xf32>
  %gate = linalg.matmul ins(%x, %w_gate : tensor<16x64xf32>, tensor<64x48xf32>)
      outs(%z48 : tensor<16x48xf32>) -> tensor<16x48xf32>
  %up = linalg.matmul ins(%x, %w_up : tensor<16x64xf32>, tensor<64x48xf32>)
      outs(%z48 : tensor<16x48xf32>) -> tensor<16x48xf32>
  %sig = linalg.generic {indexing_maps = [#map_id, #map_id], iterator_types = ["parallel", "parallel"]}
      ins(%gate : tensor<16x48xf32>) outs(%e48 : tensor<16x48xf32>) {
  ^bb0(%g: f32, %o: f32):
    %one = arith.constant 1.000000e+00 : f32
    %n = arith.negf %g : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %one, %d : f32
    linalg.yield %s : f32
  } -> tensor<16x48xf32>
  %silu = linalg.generic {indexing_maps = [#map_id, #map_id, #map_id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %sig : tensor<16x48xf32>, tensor<16x48xf32>) outs(%e48 : tensor<16x48xf32>) {
  ^bb0(%g: f32, %s: f32, %o: f32):
    %m = arith.mulf %g, %s : f32
    linalg.yield %m : f32
  } -> tensor<16x48xf32>
  %y = linalg.generic {indexing_maps = [#map_id, #map_id, #map_id], iterator_types = ["parallel", "parallel"]}
      ins(%silu, %up : tensor<16x48xf32>, tensor<16x48xf32>) outs(%e48 : tensor<16x48xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<16x48xf32>
  %e64 = tensor.empty() : tensor<16x64xf32>
  %z64 = linalg.fill ins(%cst0 : f32) outs(%e64 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %down = linalg.matmul ins(%y, %w_down : tensor<16x48xf32>, tensor<48x64xf32>)
      outs(%z64 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %out = linalg.generic {indexing_maps = [#map_id, #map_id, #map_id], iterator_types = ["parallel", "parallel"]}
      ins(%res, %down : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e64 : tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %out : tensor<16x64xf32>
}
