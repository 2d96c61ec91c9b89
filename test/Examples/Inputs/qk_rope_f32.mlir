// bench/anchor_programs.py's qk_rope in f32 (M = 64), written by torch-mlir: tokens-first heads.
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
module {
  func.func @main(%arg0: tensor<64x512xf32>, %arg1: tensor<640x512xf32>, %arg2: tensor<64x128xf32>, %arg3: tensor<64x128xf32>) -> tensor<64x640xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<512x640xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<640x512xf32>) outs(%0 : tensor<512x640xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<64x640xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<64x640xf32>) -> tensor<64x640xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<64x512xf32>, tensor<512x640xf32>) outs(%2 : tensor<64x640xf32>) -> tensor<64x640xf32>
    %expanded = tensor.expand_shape %3 [[0], [1, 2]] output_shape [64, 5, 128] : tensor<64x640xf32> into tensor<64x5x128xf32>
    %expanded_0 = tensor.expand_shape %arg2 [[0], [1, 2]] output_shape [64, 1, 128] : tensor<64x128xf32> into tensor<64x1x128xf32>
    %4 = tensor.empty() : tensor<64x5x128xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %expanded_0 : tensor<64x5x128xf32>, tensor<64x1x128xf32>) outs(%4 : tensor<64x5x128xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %10 = arith.mulf %in, %in_3 : f32
      linalg.yield %10 : f32
    } -> tensor<64x5x128xf32>
    %extracted_slice = tensor.extract_slice %expanded[0, 0, 64] [64, 5, 64] [1, 1, 1] : tensor<64x5x128xf32> to tensor<64x5x64xf32>
    %6 = tensor.empty() : tensor<64x5x64xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice : tensor<64x5x64xf32>) outs(%6 : tensor<64x5x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.negf %in : f32
      linalg.yield %10 : f32
    } -> tensor<64x5x64xf32>
    %extracted_slice_1 = tensor.extract_slice %expanded[0, 0, 0] [64, 5, 64] [1, 1, 1] : tensor<64x5x128xf32> to tensor<64x5x64xf32>
    %concat = tensor.concat dim(2) %7, %extracted_slice_1 : (tensor<64x5x64xf32>, tensor<64x5x64xf32>) -> tensor<64x5x128xf32>
    %expanded_2 = tensor.expand_shape %arg3 [[0], [1, 2]] output_shape [64, 1, 128] : tensor<64x128xf32> into tensor<64x1x128xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %expanded_2 : tensor<64x5x128xf32>, tensor<64x1x128xf32>) outs(%4 : tensor<64x5x128xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %10 = arith.mulf %in, %in_3 : f32
      linalg.yield %10 : f32
    } -> tensor<64x5x128xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %8 : tensor<64x5x128xf32>, tensor<64x5x128xf32>) outs(%4 : tensor<64x5x128xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %10 = arith.addf %in, %in_3 : f32
      linalg.yield %10 : f32
    } -> tensor<64x5x128xf32>
    %collapsed = tensor.collapse_shape %9 [[0], [1, 2]] : tensor<64x5x128xf32> into tensor<64x640xf32>
    return %collapsed : tensor<64x640xf32>
  }
}
