// Reference for residual_rmsnorm.mlir, in the linalg-on-tensors style torch-mlir writes:
//   h = res + x·W_o;  y = (h · rsqrt(mean(h²) + ε) · γ) · W_qkv
#map_id = affine_map<(d0, d1) -> (d0, d1)>
#map_row = affine_map<(d0, d1) -> (d0)>
#map_col = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<16x64xf32>, %w_o: tensor<64x64xf32>, %res: tensor<16x64xf32>,
    %gamma: tensor<64xf32>, %w_qkv: tensor<64x96xf32>) -> (tensor<16x64xf32>, tensor<16x96xf32>) {
  %cst0 = arith.constant 0.000000e+00 : f32
  %e64 = tensor.empty() : tensor<16x64xf32>
  %z64 = linalg.fill ins(%cst0 : f32) outs(%e64 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %proj = linalg.matmul ins(%x, %w_o : tensor<16x64xf32>, tensor<64x64xf32>)
      outs(%z64 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = linalg.generic {indexing_maps = [#map_id, #map_id, #map_id], iterator_types = ["parallel", "parallel"]}
      ins(%res, %proj : tensor<16x64xf32>, tensor<16x64xf32>) outs(%e64 : tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  // mean of squares over the hidden dimension
  %e16 = tensor.empty() : tensor<16xf32>
  %z16 = linalg.fill ins(%cst0 : f32) outs(%e16 : tensor<16xf32>) -> tensor<16xf32>
  %sumsq = linalg.generic {indexing_maps = [#map_id, #map_row], iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<16x64xf32>) outs(%z16 : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %normed = linalg.generic {indexing_maps = [#map_id, #map_row, #map_col, #map_id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %sumsq, %gamma : tensor<16x64xf32>, tensor<16xf32>, tensor<64xf32>) outs(%e64 : tensor<16x64xf32>) {
  ^bb0(%a: f32, %ss: f32, %g: f32, %o: f32):
    %d = arith.constant 6.400000e+01 : f32
    %eps = arith.constant 1.000000e-05 : f32
    %mean = arith.divf %ss, %d : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %n = arith.mulf %a, %r : f32
    %y = arith.mulf %n, %g : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %e96 = tensor.empty() : tensor<16x96xf32>
  %z96 = linalg.fill ins(%cst0 : f32) outs(%e96 : tensor<16x96xf32>) -> tensor<16x96xf32>
  %qkv = linalg.matmul ins(%normed, %w_qkv : tensor<16x64xf32>, tensor<64x96xf32>)
      outs(%z96 : tensor<16x96xf32>) -> tensor<16x96xf32>
  return %h, %qkv : tensor<16x64xf32>, tensor<16x96xf32>
}
