// the Llama-3 block pre attention at {'M': 64, 'D': 512, 'NQ': 4, 'NKV': 2, 'HD': 128, 'FFN': 1024}, written by bench/block_programs.py
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
module {
  func.func @main(%arg0: tensor<64x512xf32>, %arg1: tensor<512xf32>, %arg2: tensor<1024x512xf32>, %arg3: tensor<64x128xf32>, %arg4: tensor<64x128xf32>) -> (tensor<64x512xf32>, tensor<64x256xf32>, tensor<64x256xf32>) {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 5.120000e+02 : f32
    %0 = tensor.empty() : tensor<64x512xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %26 : f32
    } -> tensor<64x512xf32>
    %2 = tensor.empty() : tensor<64x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<64x512xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.addf %in, %out : f32
      linalg.yield %26 : f32
    } -> tensor<64x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.divf %in, %cst_1 : f32
      linalg.yield %26 : f32
    } -> tensor<64x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.truncf %cst_0 : f64 to f32
      %27 = arith.addf %in, %26 : f32
      linalg.yield %27 : f32
    } -> tensor<64x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.rsqrt %in : f32
      linalg.yield %26 : f32
    } -> tensor<64x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<64x512xf32>, tensor<64x1xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %26 = arith.mulf %in, %in_13 : f32
      linalg.yield %26 : f32
    } -> tensor<64x512xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg1 : tensor<64x512xf32>, tensor<512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %26 = arith.mulf %in, %in_13 : f32
      linalg.yield %26 : f32
    } -> tensor<64x512xf32>
    %10 = tensor.empty() : tensor<512x1024xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<1024x512xf32>) outs(%10 : tensor<512x1024xf32>) permutation = [1, 0] 
    %11 = tensor.empty() : tensor<64x1024xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %13 = linalg.matmul ins(%9, %transposed : tensor<64x512xf32>, tensor<512x1024xf32>) outs(%12 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %extracted_slice = tensor.extract_slice %13[0, 0] [64, 512] [1, 1] : tensor<64x1024xf32> to tensor<64x512xf32>
    %extracted_slice_2 = tensor.extract_slice %13[0, 512] [64, 256] [1, 1] : tensor<64x1024xf32> to tensor<64x256xf32>
    %extracted_slice_3 = tensor.extract_slice %13[0, 768] [64, 256] [1, 1] : tensor<64x1024xf32> to tensor<64x256xf32>
    %expanded = tensor.expand_shape %extracted_slice [[0], [1, 2]] output_shape [64, 4, 128] : tensor<64x512xf32> into tensor<64x4x128xf32>
    %expanded_4 = tensor.expand_shape %arg3 [[0], [1, 2]] output_shape [64, 1, 128] : tensor<64x128xf32> into tensor<64x1x128xf32>
    %14 = tensor.empty() : tensor<64x4x128xf32>
    %15 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %expanded_4 : tensor<64x4x128xf32>, tensor<64x1x128xf32>) outs(%14 : tensor<64x4x128xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %26 = arith.mulf %in, %in_13 : f32
      linalg.yield %26 : f32
    } -> tensor<64x4x128xf32>
    %extracted_slice_5 = tensor.extract_slice %expanded[0, 0, 64] [64, 4, 64] [1, 1, 1] : tensor<64x4x128xf32> to tensor<64x4x64xf32>
    %16 = tensor.empty() : tensor<64x4x64xf32>
    %17 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_5 : tensor<64x4x64xf32>) outs(%16 : tensor<64x4x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.negf %in : f32
      linalg.yield %26 : f32
    } -> tensor<64x4x64xf32>
    %extracted_slice_6 = tensor.extract_slice %expanded[0, 0, 0] [64, 4, 64] [1, 1, 1] : tensor<64x4x128xf32> to tensor<64x4x64xf32>
    %concat = tensor.concat dim(2) %17, %extracted_slice_6 : (tensor<64x4x64xf32>, tensor<64x4x64xf32>) -> tensor<64x4x128xf32>
    %expanded_7 = tensor.expand_shape %arg4 [[0], [1, 2]] output_shape [64, 1, 128] : tensor<64x128xf32> into tensor<64x1x128xf32>
    %18 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %expanded_7 : tensor<64x4x128xf32>, tensor<64x1x128xf32>) outs(%14 : tensor<64x4x128xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %26 = arith.mulf %in, %in_13 : f32
      linalg.yield %26 : f32
    } -> tensor<64x4x128xf32>
    %19 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15, %18 : tensor<64x4x128xf32>, tensor<64x4x128xf32>) outs(%14 : tensor<64x4x128xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %26 = arith.addf %in, %in_13 : f32
      linalg.yield %26 : f32
    } -> tensor<64x4x128xf32>
    %collapsed = tensor.collapse_shape %19 [[0], [1, 2]] : tensor<64x4x128xf32> into tensor<64x512xf32>
    %expanded_8 = tensor.expand_shape %extracted_slice_2 [[0], [1, 2]] output_shape [64, 2, 128] : tensor<64x256xf32> into tensor<64x2x128xf32>
    %20 = tensor.empty() : tensor<64x2x128xf32>
    %21 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_8, %expanded_4 : tensor<64x2x128xf32>, tensor<64x1x128xf32>) outs(%20 : tensor<64x2x128xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %26 = arith.mulf %in, %in_13 : f32
      linalg.yield %26 : f32
    } -> tensor<64x2x128xf32>
    %extracted_slice_9 = tensor.extract_slice %expanded_8[0, 0, 64] [64, 2, 64] [1, 1, 1] : tensor<64x2x128xf32> to tensor<64x2x64xf32>
    %22 = tensor.empty() : tensor<64x2x64xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_9 : tensor<64x2x64xf32>) outs(%22 : tensor<64x2x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.negf %in : f32
      linalg.yield %26 : f32
    } -> tensor<64x2x64xf32>
    %extracted_slice_10 = tensor.extract_slice %expanded_8[0, 0, 0] [64, 2, 64] [1, 1, 1] : tensor<64x2x128xf32> to tensor<64x2x64xf32>
    %concat_11 = tensor.concat dim(2) %23, %extracted_slice_10 : (tensor<64x2x64xf32>, tensor<64x2x64xf32>) -> tensor<64x2x128xf32>
    %24 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat_11, %expanded_7 : tensor<64x2x128xf32>, tensor<64x1x128xf32>) outs(%20 : tensor<64x2x128xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %26 = arith.mulf %in, %in_13 : f32
      linalg.yield %26 : f32
    } -> tensor<64x2x128xf32>
    %25 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%21, %24 : tensor<64x2x128xf32>, tensor<64x2x128xf32>) outs(%20 : tensor<64x2x128xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %26 = arith.addf %in, %in_13 : f32
      linalg.yield %26 : f32
    } -> tensor<64x2x128xf32>
    %collapsed_12 = tensor.collapse_shape %25 [[0], [1, 2]] : tensor<64x2x128xf32> into tensor<64x256xf32>
    return %collapsed, %collapsed_12, %extracted_slice_3 : tensor<64x512xf32>, tensor<64x256xf32>, tensor<64x256xf32>
  }
}
