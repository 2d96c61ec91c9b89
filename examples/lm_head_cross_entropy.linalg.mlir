// Reference for lm_head_cross_entropy.mlir, in the linalg-on-tensors style torch-mlir writes
// for F.cross_entropy(x @ W, labels): logits, log-softmax (max, exp, sum, log), then the
// negative log-likelihood of each label and its mean.
#map_id = affine_map<(d0, d1) -> (d0, d1)>
#map_row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<16x64xf32>, %w: tensor<64x128xf32>, %labels: tensor<16xi64>)
    -> (tensor<16xf32>, tensor<f32>) {
  %cst0 = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<16x128xf32>
  %z = linalg.fill ins(%cst0 : f32) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
  %logits = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x128xf32>)
      outs(%z : tensor<16x128xf32>) -> tensor<16x128xf32>
  %e16 = tensor.empty() : tensor<16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e16 : tensor<16xf32>) -> tensor<16xf32>
  %max = linalg.generic {indexing_maps = [#map_id, #map_row], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<16x128xf32>) outs(%m0 : tensor<16xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %s0 = linalg.fill ins(%cst0 : f32) outs(%e16 : tensor<16xf32>) -> tensor<16xf32>
  %sumexp = linalg.generic {indexing_maps = [#map_id, #map_row, #map_row], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %max : tensor<16x128xf32>, tensor<16xf32>) outs(%s0 : tensor<16xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32):
    %d = arith.subf %a, %m : f32
    %ex = math.exp %d : f32
    %r = arith.addf %s, %ex : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  // nll_i = log(sumexp_i) + max_i - logits[i, label_i]
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                           affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                          iterator_types = ["parallel"]}
      ins(%sumexp, %max, %labels : tensor<16xf32>, tensor<16xf32>, tensor<16xi64>) outs(%e16 : tensor<16xf32>) {
  ^bb0(%s: f32, %m: f32, %l: i64, %o: f32):
    %i = linalg.index 0 : index
    %li = arith.index_cast %l : i64 to index
    %t = tensor.extract %logits[%i, %li] : tensor<16x128xf32>
    %lg = math.log %s : f32
    %lse = arith.addf %lg, %m : f32
    %r = arith.subf %lse, %t : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%cst0 : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%loss : tensor<16xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %mean = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%sum : tensor<f32>) outs(%e0 : tensor<f32>) {
  ^bb0(%s: f32, %o: f32):
    %n = arith.constant 1.600000e+01 : f32
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %loss, %mean : tensor<16xf32>, tensor<f32>
}
