// the Llama-3 block post attention at {'M': 64, 'D': 512, 'NQ': 4, 'NKV': 2, 'HD': 128, 'FFN': 1024}, written by bench/block_programs.py
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<64x512xf32>, %arg1: tensor<64x512xf32>, %arg2: tensor<512x512xf32>, %arg3: tensor<512xf32>, %arg4: tensor<2048x512xf32>, %arg5: tensor<512x1024xf32>) -> tensor<64x512xf32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %cst_2 = arith.constant 5.120000e+02 : f32
    %0 = tensor.empty() : tensor<512x512xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<512x512xf32>) outs(%0 : tensor<512x512xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<64x512xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<64x512xf32>, tensor<512x512xf32>) outs(%2 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %3 : tensor<64x512xf32>, tensor<64x512xf32>) outs(%1 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %25 = arith.addf %in, %in_6 : f32
      linalg.yield %25 : f32
    } -> tensor<64x512xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<64x512xf32>) outs(%1 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %25 : f32
    } -> tensor<64x512xf32>
    %6 = tensor.empty() : tensor<64x1xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%5 : tensor<64x512xf32>) outs(%7 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<64x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<64x1xf32>) outs(%6 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.divf %in, %cst_2 : f32
      linalg.yield %25 : f32
    } -> tensor<64x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<64x1xf32>) outs(%6 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.truncf %cst_1 : f64 to f32
      %26 = arith.addf %in, %25 : f32
      linalg.yield %26 : f32
    } -> tensor<64x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<64x1xf32>) outs(%6 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.rsqrt %in : f32
      linalg.yield %25 : f32
    } -> tensor<64x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %11 : tensor<64x512xf32>, tensor<64x1xf32>) outs(%1 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %25 = arith.mulf %in, %in_6 : f32
      linalg.yield %25 : f32
    } -> tensor<64x512xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %arg3 : tensor<64x512xf32>, tensor<512xf32>) outs(%1 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %25 = arith.mulf %in, %in_6 : f32
      linalg.yield %25 : f32
    } -> tensor<64x512xf32>
    %14 = tensor.empty() : tensor<512x2048xf32>
    %transposed_3 = linalg.transpose ins(%arg4 : tensor<2048x512xf32>) outs(%14 : tensor<512x2048xf32>) permutation = [1, 0] 
    %15 = tensor.empty() : tensor<64x2048xf32>
    %16 = linalg.fill ins(%cst : f32) outs(%15 : tensor<64x2048xf32>) -> tensor<64x2048xf32>
    %17 = linalg.matmul ins(%13, %transposed_3 : tensor<64x512xf32>, tensor<512x2048xf32>) outs(%16 : tensor<64x2048xf32>) -> tensor<64x2048xf32>
    %extracted_slice = tensor.extract_slice %17[0, 0] [64, 1024] [1, 1] : tensor<64x2048xf32> to tensor<64x1024xf32>
    %extracted_slice_4 = tensor.extract_slice %17[0, 1024] [64, 1024] [1, 1] : tensor<64x2048xf32> to tensor<64x1024xf32>
    %18 = tensor.empty() : tensor<64x1024xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<64x1024xf32>) outs(%18 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.negf %in : f32
      %26 = math.exp %25 : f32
      %27 = arith.addf %26, %cst_0 : f32
      %28 = arith.divf %cst_0, %27 : f32
      linalg.yield %28 : f32
    } -> tensor<64x1024xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice, %19 : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%18 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %25 = arith.mulf %in, %in_6 : f32
      linalg.yield %25 : f32
    } -> tensor<64x1024xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %extracted_slice_4 : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%18 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %25 = arith.mulf %in, %in_6 : f32
      linalg.yield %25 : f32
    } -> tensor<64x1024xf32>
    %22 = tensor.empty() : tensor<1024x512xf32>
    %transposed_5 = linalg.transpose ins(%arg5 : tensor<512x1024xf32>) outs(%22 : tensor<1024x512xf32>) permutation = [1, 0] 
    %23 = linalg.matmul ins(%21, %transposed_5 : tensor<64x1024xf32>, tensor<1024x512xf32>) outs(%2 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %23 : tensor<64x512xf32>, tensor<64x512xf32>) outs(%1 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %25 = arith.addf %in, %in_6 : f32
      linalg.yield %25 : f32
    } -> tensor<64x512xf32>
    return %24 : tensor<64x512xf32>
  }
}
