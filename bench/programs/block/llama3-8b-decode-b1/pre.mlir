// the Llama-3 block pre attention, appending to caches of 8192 rows at {'M': 1, 'D': 4096, 'NQ': 32, 'NKV': 8, 'HD': 128, 'FFN': 14336}, written by bench/block_programs.py
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map7 = affine_map<(d0, d1, d2, d3) -> ()>
#map8 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map9 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
module {
  func.func @main(%arg0: tensor<1x4096xbf16>, %arg1: tensor<4096xbf16>, %arg2: tensor<6144x4096xbf16>, %arg3: tensor<1x128xbf16>, %arg4: tensor<1x128xbf16>, %arg5: tensor<1x8192x8x128xbf16>, %arg6: tensor<1x8192x8x128xbf16>, %arg7: tensor<1xi64>) -> (tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>, tensor<1x4096xbf16>) {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 4.096000e+03 : f32
    %0 = tensor.empty() : tensor<1x4096xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1x4096xbf16>) outs(%0 : tensor<1x4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %40 = arith.extf %in : bf16 to f32
      linalg.yield %40 : f32
    } -> tensor<1x4096xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<1x4096xf32>) outs(%0 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %40 : f32
    } -> tensor<1x4096xf32>
    %3 = tensor.empty() : tensor<1x1xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1xf32>) -> tensor<1x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<1x4096xf32>) outs(%4 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = arith.addf %in, %out : f32
      linalg.yield %40 : f32
    } -> tensor<1x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<1x1xf32>) outs(%3 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = arith.divf %in, %cst_1 : f32
      linalg.yield %40 : f32
    } -> tensor<1x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<1x1xf32>) outs(%3 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = arith.truncf %cst_0 : f64 to f32
      %41 = arith.addf %in, %40 : f32
      linalg.yield %41 : f32
    } -> tensor<1x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<1x1xf32>) outs(%3 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %40 = math.rsqrt %in : f32
      linalg.yield %40 : f32
    } -> tensor<1x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %8 : tensor<1x4096xf32>, tensor<1x1xf32>) outs(%0 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %40 = arith.mulf %in, %in_16 : f32
      linalg.yield %40 : f32
    } -> tensor<1x4096xf32>
    %10 = tensor.empty() : tensor<4096xf32>
    %11 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg1 : tensor<4096xbf16>) outs(%10 : tensor<4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %40 = arith.extf %in : bf16 to f32
      linalg.yield %40 : f32
    } -> tensor<4096xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %11 : tensor<1x4096xf32>, tensor<4096xf32>) outs(%0 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %40 = arith.mulf %in, %in_16 : f32
      linalg.yield %40 : f32
    } -> tensor<1x4096xf32>
    %13 = tensor.empty() : tensor<1x4096xbf16>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<1x4096xf32>) outs(%13 : tensor<1x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %40 = arith.truncf %in : f32 to bf16
      linalg.yield %40 : bf16
    } -> tensor<1x4096xbf16>
    %15 = tensor.empty() : tensor<4096x6144xbf16>
    %transposed = linalg.transpose ins(%arg2 : tensor<6144x4096xbf16>) outs(%15 : tensor<4096x6144xbf16>) permutation = [1, 0] 
    %16 = tensor.empty() : tensor<1x6144xf32>
    %17 = linalg.fill ins(%cst : f32) outs(%16 : tensor<1x6144xf32>) -> tensor<1x6144xf32>
    %18 = linalg.matmul ins(%14, %transposed : tensor<1x4096xbf16>, tensor<4096x6144xbf16>) outs(%17 : tensor<1x6144xf32>) -> tensor<1x6144xf32>
    %19 = tensor.empty() : tensor<1x6144xbf16>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<1x6144xf32>) outs(%19 : tensor<1x6144xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %40 = arith.truncf %in : f32 to bf16
      linalg.yield %40 : bf16
    } -> tensor<1x6144xbf16>
    %extracted_slice = tensor.extract_slice %20[0, 0] [1, 4096] [1, 1] : tensor<1x6144xbf16> to tensor<1x4096xbf16>
    %extracted_slice_2 = tensor.extract_slice %20[0, 4096] [1, 1024] [1, 1] : tensor<1x6144xbf16> to tensor<1x1024xbf16>
    %extracted_slice_3 = tensor.extract_slice %20[0, 5120] [1, 1024] [1, 1] : tensor<1x6144xbf16> to tensor<1x1024xbf16>
    %expanded = tensor.expand_shape %extracted_slice [[0], [1, 2]] output_shape [1, 32, 128] : tensor<1x4096xbf16> into tensor<1x32x128xbf16>
    %expanded_4 = tensor.expand_shape %arg3 [[0], [1, 2]] output_shape [1, 1, 128] : tensor<1x128xbf16> into tensor<1x1x128xbf16>
    %21 = tensor.empty() : tensor<1x32x128xbf16>
    %22 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %expanded_4 : tensor<1x32x128xbf16>, tensor<1x1x128xbf16>) outs(%21 : tensor<1x32x128xbf16>) {
    ^bb0(%in: bf16, %in_16: bf16, %out: bf16):
      %40 = arith.mulf %in, %in_16 : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x32x128xbf16>
    %extracted_slice_5 = tensor.extract_slice %expanded[0, 0, 64] [1, 32, 64] [1, 1, 1] : tensor<1x32x128xbf16> to tensor<1x32x64xbf16>
    %23 = tensor.empty() : tensor<1x32x64xbf16>
    %24 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_5 : tensor<1x32x64xbf16>) outs(%23 : tensor<1x32x64xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %40 = arith.negf %in : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x32x64xbf16>
    %extracted_slice_6 = tensor.extract_slice %expanded[0, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<1x32x128xbf16> to tensor<1x32x64xbf16>
    %concat = tensor.concat dim(2) %24, %extracted_slice_6 : (tensor<1x32x64xbf16>, tensor<1x32x64xbf16>) -> tensor<1x32x128xbf16>
    %expanded_7 = tensor.expand_shape %arg4 [[0], [1, 2]] output_shape [1, 1, 128] : tensor<1x128xbf16> into tensor<1x1x128xbf16>
    %25 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %expanded_7 : tensor<1x32x128xbf16>, tensor<1x1x128xbf16>) outs(%21 : tensor<1x32x128xbf16>) {
    ^bb0(%in: bf16, %in_16: bf16, %out: bf16):
      %40 = arith.mulf %in, %in_16 : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x32x128xbf16>
    %26 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%22, %25 : tensor<1x32x128xbf16>, tensor<1x32x128xbf16>) outs(%21 : tensor<1x32x128xbf16>) {
    ^bb0(%in: bf16, %in_16: bf16, %out: bf16):
      %40 = arith.addf %in, %in_16 : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x32x128xbf16>
    %collapsed = tensor.collapse_shape %26 [[0], [1, 2]] : tensor<1x32x128xbf16> into tensor<1x4096xbf16>
    %expanded_8 = tensor.expand_shape %extracted_slice_2 [[0], [1, 2]] output_shape [1, 8, 128] : tensor<1x1024xbf16> into tensor<1x8x128xbf16>
    %27 = tensor.empty() : tensor<1x8x128xbf16>
    %28 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_8, %expanded_4 : tensor<1x8x128xbf16>, tensor<1x1x128xbf16>) outs(%27 : tensor<1x8x128xbf16>) {
    ^bb0(%in: bf16, %in_16: bf16, %out: bf16):
      %40 = arith.mulf %in, %in_16 : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x8x128xbf16>
    %extracted_slice_9 = tensor.extract_slice %expanded_8[0, 0, 64] [1, 8, 64] [1, 1, 1] : tensor<1x8x128xbf16> to tensor<1x8x64xbf16>
    %29 = tensor.empty() : tensor<1x8x64xbf16>
    %30 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_9 : tensor<1x8x64xbf16>) outs(%29 : tensor<1x8x64xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %40 = arith.negf %in : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x8x64xbf16>
    %extracted_slice_10 = tensor.extract_slice %expanded_8[0, 0, 0] [1, 8, 64] [1, 1, 1] : tensor<1x8x128xbf16> to tensor<1x8x64xbf16>
    %concat_11 = tensor.concat dim(2) %30, %extracted_slice_10 : (tensor<1x8x64xbf16>, tensor<1x8x64xbf16>) -> tensor<1x8x128xbf16>
    %31 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat_11, %expanded_7 : tensor<1x8x128xbf16>, tensor<1x1x128xbf16>) outs(%27 : tensor<1x8x128xbf16>) {
    ^bb0(%in: bf16, %in_16: bf16, %out: bf16):
      %40 = arith.mulf %in, %in_16 : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x8x128xbf16>
    %32 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28, %31 : tensor<1x8x128xbf16>, tensor<1x8x128xbf16>) outs(%27 : tensor<1x8x128xbf16>) {
    ^bb0(%in: bf16, %in_16: bf16, %out: bf16):
      %40 = arith.addf %in, %in_16 : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x8x128xbf16>
    %expanded_12 = tensor.expand_shape %32 [[0], [1, 2], [3]] output_shape [1, 1, 8, 128] : tensor<1x8x128xbf16> into tensor<1x1x8x128xbf16>
    %33 = tensor.empty() : tensor<8192xi64>
    %34 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel"]} outs(%33 : tensor<8192xi64>) {
    ^bb0(%out: i64):
      %40 = linalg.index 0 : index
      %41 = arith.index_cast %40 : index to i64
      linalg.yield %41 : i64
    } -> tensor<8192xi64>
    %expanded_13 = tensor.expand_shape %34 [[0, 1, 2, 3]] output_shape [1, 8192, 1, 1] : tensor<8192xi64> into tensor<1x8192x1x1xi64>
    %collapsed_14 = tensor.collapse_shape %arg7 [] : tensor<1xi64> into tensor<i64>
    %35 = tensor.empty() : tensor<1x8192x1x1xi1>
    %36 = linalg.generic {indexing_maps = [#map6, #map7, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_13, %collapsed_14 : tensor<1x8192x1x1xi64>, tensor<i64>) outs(%35 : tensor<1x8192x1x1xi1>) {
    ^bb0(%in: i64, %in_16: i64, %out: i1):
      %40 = arith.cmpi eq, %in, %in_16 : i64
      linalg.yield %40 : i1
    } -> tensor<1x8192x1x1xi1>
    %37 = tensor.empty() : tensor<1x8192x8x128xbf16>
    %38 = linalg.generic {indexing_maps = [#map8, #map9, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%36, %expanded_12, %arg5 : tensor<1x8192x1x1xi1>, tensor<1x1x8x128xbf16>, tensor<1x8192x8x128xbf16>) outs(%37 : tensor<1x8192x8x128xbf16>) {
    ^bb0(%in: i1, %in_16: bf16, %in_17: bf16, %out: bf16):
      %40 = arith.select %in, %in_16, %in_17 : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x8192x8x128xbf16>
    %expanded_15 = tensor.expand_shape %extracted_slice_3 [[0], [1, 2, 3]] output_shape [1, 1, 8, 128] : tensor<1x1024xbf16> into tensor<1x1x8x128xbf16>
    %39 = linalg.generic {indexing_maps = [#map8, #map9, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%36, %expanded_15, %arg6 : tensor<1x8192x1x1xi1>, tensor<1x1x8x128xbf16>, tensor<1x8192x8x128xbf16>) outs(%37 : tensor<1x8192x8x128xbf16>) {
    ^bb0(%in: i1, %in_16: bf16, %in_17: bf16, %out: bf16):
      %40 = arith.select %in, %in_16, %in_17 : bf16
      linalg.yield %40 : bf16
    } -> tensor<1x8192x8x128xbf16>
    return %38, %39, %collapsed : tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>, tensor<1x4096xbf16>
  }
}
