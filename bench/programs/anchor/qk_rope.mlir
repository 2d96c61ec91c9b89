// qk_rope at {'M': 8192, 'D': 4096, 'FFN': 14336, 'QKV': 6144, 'QK': 5120, 'V': 128256, 'HD': 128}, written by bench/anchor_programs.py (torch-mlir)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
module {
  func.func @main(%arg0: tensor<8192x4096xbf16>, %arg1: tensor<5120x4096xbf16>, %arg2: tensor<8192x128xbf16>, %arg3: tensor<8192x128xbf16>) -> tensor<8192x5120xbf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4096x5120xbf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<5120x4096xbf16>) outs(%0 : tensor<4096x5120xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8192x5120xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8192x5120xf32>) -> tensor<8192x5120xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8192x4096xbf16>, tensor<4096x5120xbf16>) outs(%2 : tensor<8192x5120xf32>) -> tensor<8192x5120xf32>
    %4 = tensor.empty() : tensor<8192x5120xbf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8192x5120xf32>) outs(%4 : tensor<8192x5120xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %12 = arith.truncf %in : f32 to bf16
      linalg.yield %12 : bf16
    } -> tensor<8192x5120xbf16>
    %expanded = tensor.expand_shape %5 [[0], [1, 2]] output_shape [8192, 40, 128] : tensor<8192x5120xbf16> into tensor<8192x40x128xbf16>
    %expanded_0 = tensor.expand_shape %arg2 [[0], [1, 2]] output_shape [8192, 1, 128] : tensor<8192x128xbf16> into tensor<8192x1x128xbf16>
    %6 = tensor.empty() : tensor<8192x40x128xbf16>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %expanded_0 : tensor<8192x40x128xbf16>, tensor<8192x1x128xbf16>) outs(%6 : tensor<8192x40x128xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %12 = arith.mulf %in, %in_3 : bf16
      linalg.yield %12 : bf16
    } -> tensor<8192x40x128xbf16>
    %extracted_slice = tensor.extract_slice %expanded[0, 0, 64] [8192, 40, 64] [1, 1, 1] : tensor<8192x40x128xbf16> to tensor<8192x40x64xbf16>
    %8 = tensor.empty() : tensor<8192x40x64xbf16>
    %9 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice : tensor<8192x40x64xbf16>) outs(%8 : tensor<8192x40x64xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %12 = arith.negf %in : bf16
      linalg.yield %12 : bf16
    } -> tensor<8192x40x64xbf16>
    %extracted_slice_1 = tensor.extract_slice %expanded[0, 0, 0] [8192, 40, 64] [1, 1, 1] : tensor<8192x40x128xbf16> to tensor<8192x40x64xbf16>
    %concat = tensor.concat dim(2) %9, %extracted_slice_1 : (tensor<8192x40x64xbf16>, tensor<8192x40x64xbf16>) -> tensor<8192x40x128xbf16>
    %expanded_2 = tensor.expand_shape %arg3 [[0], [1, 2]] output_shape [8192, 1, 128] : tensor<8192x128xbf16> into tensor<8192x1x128xbf16>
    %10 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %expanded_2 : tensor<8192x40x128xbf16>, tensor<8192x1x128xbf16>) outs(%6 : tensor<8192x40x128xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %12 = arith.mulf %in, %in_3 : bf16
      linalg.yield %12 : bf16
    } -> tensor<8192x40x128xbf16>
    %11 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %10 : tensor<8192x40x128xbf16>, tensor<8192x40x128xbf16>) outs(%6 : tensor<8192x40x128xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %12 = arith.addf %in, %in_3 : bf16
      linalg.yield %12 : bf16
    } -> tensor<8192x40x128xbf16>
    %collapsed = tensor.collapse_shape %11 [[0], [1, 2]] : tensor<8192x40x128xbf16> into tensor<8192x5120xbf16>
    return %collapsed : tensor<8192x5120xbf16>
  }
}
