// the Llama-3 block forward at {'M': 64, 'D': 512, 'NQ': 4, 'NKV': 2, 'HD': 128, 'FFN': 1024}, written by bench/block_programs.py
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#map6 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#map7 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map8 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map9 = affine_map<(d0, d1) -> (0, d1)>
#map10 = affine_map<(d0, d1) -> ()>
#map11 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
module {
  func.func @main(%arg0: tensor<64x512xbf16>, %arg1: tensor<512xbf16>, %arg2: tensor<1024x512xbf16>, %arg3: tensor<64x128xbf16>, %arg4: tensor<64x128xbf16>, %arg5: tensor<512x512xbf16>, %arg6: tensor<512xbf16>, %arg7: tensor<2048x512xbf16>, %arg8: tensor<512x1024xbf16>) -> tensor<64x512xbf16> {
    %c2_i64 = arith.constant 2 : i64
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %true = arith.constant true
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<1x4x64x64xf32>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_4 = arith.constant dense<0xFF800000> : tensor<f32>
    %cst_5 = arith.constant dense<true> : tensor<64x64xi1>
    %cst_6 = arith.constant 0xFFF0000000000000 : f64
    %cst_7 = arith.constant 0.29730177875068026 : f64
    %cst_8 = arith.constant 1.000000e-05 : f64
    %cst_9 = arith.constant 5.120000e+02 : f32
    %0 = tensor.empty() : tensor<64x512xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x512xbf16>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %111 = arith.extf %in : bf16 to f32
      linalg.yield %111 : f32
    } -> tensor<64x512xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<64x512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %111 : f32
    } -> tensor<64x512xf32>
    %3 = tensor.empty() : tensor<64x1xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<64x512xf32>) outs(%4 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.addf %in, %out : f32
      linalg.yield %111 : f32
    } -> tensor<64x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.divf %in, %cst_9 : f32
      linalg.yield %111 : f32
    } -> tensor<64x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.truncf %cst_8 : f64 to f32
      %112 = arith.addf %in, %111 : f32
      linalg.yield %112 : f32
    } -> tensor<64x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = math.rsqrt %in : f32
      linalg.yield %111 : f32
    } -> tensor<64x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %8 : tensor<64x512xf32>, tensor<64x1xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_48: f32, %out: f32):
      %111 = arith.mulf %in, %in_48 : f32
      linalg.yield %111 : f32
    } -> tensor<64x512xf32>
    %10 = tensor.empty() : tensor<512xf32>
    %11 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg1 : tensor<512xbf16>) outs(%10 : tensor<512xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %111 = arith.extf %in : bf16 to f32
      linalg.yield %111 : f32
    } -> tensor<512xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %11 : tensor<64x512xf32>, tensor<512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_48: f32, %out: f32):
      %111 = arith.mulf %in, %in_48 : f32
      linalg.yield %111 : f32
    } -> tensor<64x512xf32>
    %13 = tensor.empty() : tensor<64x512xbf16>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<64x512xf32>) outs(%13 : tensor<64x512xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %111 = arith.truncf %in : f32 to bf16
      linalg.yield %111 : bf16
    } -> tensor<64x512xbf16>
    %15 = tensor.empty() : tensor<512x1024xbf16>
    %transposed = linalg.transpose ins(%arg2 : tensor<1024x512xbf16>) outs(%15 : tensor<512x1024xbf16>) permutation = [1, 0] 
    %16 = tensor.empty() : tensor<64x1024xf32>
    %17 = linalg.fill ins(%cst : f32) outs(%16 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %18 = linalg.matmul ins(%14, %transposed : tensor<64x512xbf16>, tensor<512x1024xbf16>) outs(%17 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %19 = tensor.empty() : tensor<64x1024xbf16>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<64x1024xf32>) outs(%19 : tensor<64x1024xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %111 = arith.truncf %in : f32 to bf16
      linalg.yield %111 : bf16
    } -> tensor<64x1024xbf16>
    %extracted_slice = tensor.extract_slice %20[0, 0] [64, 512] [1, 1] : tensor<64x1024xbf16> to tensor<64x512xbf16>
    %extracted_slice_10 = tensor.extract_slice %20[0, 512] [64, 256] [1, 1] : tensor<64x1024xbf16> to tensor<64x256xbf16>
    %extracted_slice_11 = tensor.extract_slice %20[0, 768] [64, 256] [1, 1] : tensor<64x1024xbf16> to tensor<64x256xbf16>
    %expanded = tensor.expand_shape %extracted_slice [[0], [1, 2]] output_shape [64, 4, 128] : tensor<64x512xbf16> into tensor<64x4x128xbf16>
    %expanded_12 = tensor.expand_shape %arg3 [[0], [1, 2]] output_shape [64, 1, 128] : tensor<64x128xbf16> into tensor<64x1x128xbf16>
    %21 = tensor.empty() : tensor<64x4x128xbf16>
    %22 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %expanded_12 : tensor<64x4x128xbf16>, tensor<64x1x128xbf16>) outs(%21 : tensor<64x4x128xbf16>) {
    ^bb0(%in: bf16, %in_48: bf16, %out: bf16):
      %111 = arith.mulf %in, %in_48 : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x4x128xbf16>
    %extracted_slice_13 = tensor.extract_slice %expanded[0, 0, 64] [64, 4, 64] [1, 1, 1] : tensor<64x4x128xbf16> to tensor<64x4x64xbf16>
    %23 = tensor.empty() : tensor<64x4x64xbf16>
    %24 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_13 : tensor<64x4x64xbf16>) outs(%23 : tensor<64x4x64xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %111 = arith.negf %in : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x4x64xbf16>
    %extracted_slice_14 = tensor.extract_slice %expanded[0, 0, 0] [64, 4, 64] [1, 1, 1] : tensor<64x4x128xbf16> to tensor<64x4x64xbf16>
    %concat = tensor.concat dim(2) %24, %extracted_slice_14 : (tensor<64x4x64xbf16>, tensor<64x4x64xbf16>) -> tensor<64x4x128xbf16>
    %expanded_15 = tensor.expand_shape %arg4 [[0], [1, 2]] output_shape [64, 1, 128] : tensor<64x128xbf16> into tensor<64x1x128xbf16>
    %25 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %expanded_15 : tensor<64x4x128xbf16>, tensor<64x1x128xbf16>) outs(%21 : tensor<64x4x128xbf16>) {
    ^bb0(%in: bf16, %in_48: bf16, %out: bf16):
      %111 = arith.mulf %in, %in_48 : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x4x128xbf16>
    %26 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%22, %25 : tensor<64x4x128xbf16>, tensor<64x4x128xbf16>) outs(%21 : tensor<64x4x128xbf16>) {
    ^bb0(%in: bf16, %in_48: bf16, %out: bf16):
      %111 = arith.addf %in, %in_48 : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x4x128xbf16>
    %expanded_16 = tensor.expand_shape %extracted_slice_10 [[0], [1, 2]] output_shape [64, 2, 128] : tensor<64x256xbf16> into tensor<64x2x128xbf16>
    %27 = tensor.empty() : tensor<64x2x128xbf16>
    %28 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_16, %expanded_12 : tensor<64x2x128xbf16>, tensor<64x1x128xbf16>) outs(%27 : tensor<64x2x128xbf16>) {
    ^bb0(%in: bf16, %in_48: bf16, %out: bf16):
      %111 = arith.mulf %in, %in_48 : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x2x128xbf16>
    %extracted_slice_17 = tensor.extract_slice %expanded_16[0, 0, 64] [64, 2, 64] [1, 1, 1] : tensor<64x2x128xbf16> to tensor<64x2x64xbf16>
    %29 = tensor.empty() : tensor<64x2x64xbf16>
    %30 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_17 : tensor<64x2x64xbf16>) outs(%29 : tensor<64x2x64xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %111 = arith.negf %in : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x2x64xbf16>
    %extracted_slice_18 = tensor.extract_slice %expanded_16[0, 0, 0] [64, 2, 64] [1, 1, 1] : tensor<64x2x128xbf16> to tensor<64x2x64xbf16>
    %concat_19 = tensor.concat dim(2) %30, %extracted_slice_18 : (tensor<64x2x64xbf16>, tensor<64x2x64xbf16>) -> tensor<64x2x128xbf16>
    %31 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat_19, %expanded_15 : tensor<64x2x128xbf16>, tensor<64x1x128xbf16>) outs(%27 : tensor<64x2x128xbf16>) {
    ^bb0(%in: bf16, %in_48: bf16, %out: bf16):
      %111 = arith.mulf %in, %in_48 : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x2x128xbf16>
    %32 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel"]} ins(%28, %31 : tensor<64x2x128xbf16>, tensor<64x2x128xbf16>) outs(%27 : tensor<64x2x128xbf16>) {
    ^bb0(%in: bf16, %in_48: bf16, %out: bf16):
      %111 = arith.addf %in, %in_48 : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x2x128xbf16>
    %33 = tensor.empty() : tensor<4x64x128xbf16>
    %transposed_20 = linalg.transpose ins(%26 : tensor<64x4x128xbf16>) outs(%33 : tensor<4x64x128xbf16>) permutation = [1, 0, 2] 
    %expanded_21 = tensor.expand_shape %transposed_20 [[0, 1], [2], [3]] output_shape [1, 4, 64, 128] : tensor<4x64x128xbf16> into tensor<1x4x64x128xbf16>
    %34 = tensor.empty() : tensor<2x64x128xbf16>
    %transposed_22 = linalg.transpose ins(%32 : tensor<64x2x128xbf16>) outs(%34 : tensor<2x64x128xbf16>) permutation = [1, 0, 2] 
    %expanded_23 = tensor.expand_shape %transposed_22 [[0, 1], [2, 3], [4]] output_shape [1, 2, 1, 64, 128] : tensor<2x64x128xbf16> into tensor<1x2x1x64x128xbf16>
    %35 = tensor.empty() : tensor<1x2x2x64x128xbf16>
    %collapsed = tensor.collapse_shape %expanded_23 [[0], [1, 2], [3], [4]] : tensor<1x2x1x64x128xbf16> into tensor<1x2x64x128xbf16>
    %36 = linalg.generic {indexing_maps = [#map6, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x2x64x128xbf16>) outs(%35 : tensor<1x2x2x64x128xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<1x2x2x64x128xbf16>
    %collapsed_24 = tensor.collapse_shape %36 [[0], [1, 2], [3], [4]] : tensor<1x2x2x64x128xbf16> into tensor<1x4x64x128xbf16>
    %expanded_25 = tensor.expand_shape %extracted_slice_11 [[0], [1, 2]] output_shape [64, 2, 128] : tensor<64x256xbf16> into tensor<64x2x128xbf16>
    %transposed_26 = linalg.transpose ins(%expanded_25 : tensor<64x2x128xbf16>) outs(%34 : tensor<2x64x128xbf16>) permutation = [1, 0, 2] 
    %expanded_27 = tensor.expand_shape %transposed_26 [[0, 1], [2, 3], [4]] output_shape [1, 2, 1, 64, 128] : tensor<2x64x128xbf16> into tensor<1x2x1x64x128xbf16>
    %collapsed_28 = tensor.collapse_shape %expanded_27 [[0], [1, 2], [3], [4]] : tensor<1x2x1x64x128xbf16> into tensor<1x2x64x128xbf16>
    %37 = linalg.generic {indexing_maps = [#map6, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_28 : tensor<1x2x64x128xbf16>) outs(%35 : tensor<1x2x2x64x128xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<1x2x2x64x128xbf16>
    %collapsed_29 = tensor.collapse_shape %37 [[0], [1, 2], [3], [4]] : tensor<1x2x2x64x128xbf16> into tensor<1x4x64x128xbf16>
    %38 = tensor.empty() : tensor<1x4x64x128xf32>
    %39 = linalg.generic {indexing_maps = [#map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_21 : tensor<1x4x64x128xbf16>) outs(%38 : tensor<1x4x64x128xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %111 = arith.extf %in : bf16 to f32
      linalg.yield %111 : f32
    } -> tensor<1x4x64x128xf32>
    %40 = linalg.generic {indexing_maps = [#map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_24 : tensor<1x4x64x128xbf16>) outs(%38 : tensor<1x4x64x128xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %111 = arith.extf %in : bf16 to f32
      linalg.yield %111 : f32
    } -> tensor<1x4x64x128xf32>
    %41 = linalg.generic {indexing_maps = [#map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_29 : tensor<1x4x64x128xbf16>) outs(%38 : tensor<1x4x64x128xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %111 = arith.extf %in : bf16 to f32
      linalg.yield %111 : f32
    } -> tensor<1x4x64x128xf32>
    %42 = linalg.generic {indexing_maps = [#map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%39 : tensor<1x4x64x128xf32>) outs(%38 : tensor<1x4x64x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.truncf %cst_7 : f64 to f32
      %112 = arith.mulf %in, %111 : f32
      linalg.yield %112 : f32
    } -> tensor<1x4x64x128xf32>
    %43 = tensor.empty() : tensor<64xi64>
    %44 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel"]} outs(%43 : tensor<64xi64>) {
    ^bb0(%out: i64):
      %111 = linalg.index 0 : index
      %112 = arith.index_cast %111 : index to i64
      linalg.yield %112 : i64
    } -> tensor<64xi64>
    %expanded_30 = tensor.expand_shape %44 [[0, 1]] output_shape [1, 64] : tensor<64xi64> into tensor<1x64xi64>
    %expanded_31 = tensor.expand_shape %44 [[0, 1]] output_shape [64, 1] : tensor<64xi64> into tensor<64x1xi64>
    %45 = tensor.empty() : tensor<64x64xi64>
    %46 = linalg.generic {indexing_maps = [#map9, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_30, %expanded_31 : tensor<1x64xi64>, tensor<64x1xi64>) outs(%45 : tensor<64x64xi64>) {
    ^bb0(%in: i64, %in_48: i64, %out: i64):
      %111 = arith.subi %in, %in_48 : i64
      linalg.yield %111 : i64
    } -> tensor<64x64xi64>
    %47 = tensor.empty() : tensor<64x64xi1>
    %48 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%46 : tensor<64x64xi64>) outs(%47 : tensor<64x64xi1>) {
    ^bb0(%in: i64, %out: i1):
      %111 = arith.cmpi sle, %in, %c0_i64 : i64
      linalg.yield %111 : i1
    } -> tensor<64x64xi1>
    %49 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%48, %cst_5 : tensor<64x64xi1>, tensor<64x64xi1>) outs(%47 : tensor<64x64xi1>) {
    ^bb0(%in: i1, %in_48: i1, %out: i1):
      %111 = arith.andi %in, %in_48 : i1
      linalg.yield %111 : i1
    } -> tensor<64x64xi1>
    %50 = tensor.empty() : tensor<64x64xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map10, #map10, #map], iterator_types = ["parallel", "parallel"]} ins(%49, %cst_3, %cst_4 : tensor<64x64xi1>, tensor<f32>, tensor<f32>) outs(%50 : tensor<64x64xf32>) {
    ^bb0(%in: i1, %in_48: f32, %in_49: f32, %out: f32):
      %111 = arith.select %in, %in_48, %in_49 : f32
      linalg.yield %111 : f32
    } -> tensor<64x64xf32>
    %52 = tensor.empty() : tensor<1x4x128x64xf32>
    %transposed_32 = linalg.transpose ins(%40 : tensor<1x4x64x128xf32>) outs(%52 : tensor<1x4x128x64xf32>) permutation = [0, 1, 3, 2] 
    %53 = linalg.generic {indexing_maps = [#map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_32 : tensor<1x4x128x64xf32>) outs(%52 : tensor<1x4x128x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.truncf %cst_7 : f64 to f32
      %112 = arith.mulf %in, %111 : f32
      linalg.yield %112 : f32
    } -> tensor<1x4x128x64xf32>
    %collapsed_33 = tensor.collapse_shape %42 [[0, 1], [2], [3]] : tensor<1x4x64x128xf32> into tensor<4x64x128xf32>
    %collapsed_34 = tensor.collapse_shape %53 [[0, 1], [2], [3]] : tensor<1x4x128x64xf32> into tensor<4x128x64xf32>
    %54 = tensor.empty() : tensor<4x64x64xf32>
    %55 = linalg.fill ins(%cst : f32) outs(%54 : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %56 = linalg.batch_matmul ins(%collapsed_33, %collapsed_34 : tensor<4x64x128xf32>, tensor<4x128x64xf32>) outs(%55 : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %expanded_35 = tensor.expand_shape %56 [[0, 1], [2], [3]] output_shape [1, 4, 64, 64] : tensor<4x64x64xf32> into tensor<1x4x64x64xf32>
    %57 = tensor.empty() : tensor<1x4x64x64xf32>
    %58 = linalg.generic {indexing_maps = [#map8, #map11, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_35, %51 : tensor<1x4x64x64xf32>, tensor<64x64xf32>) outs(%57 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: f32, %in_48: f32, %out: f32):
      %111 = arith.addf %in, %in_48 : f32
      linalg.yield %111 : f32
    } -> tensor<1x4x64x64xf32>
    %59 = tensor.empty() : tensor<1x4x64xi64>
    %60 = linalg.fill ins(%c0_i64 : i64) outs(%59 : tensor<1x4x64xi64>) -> tensor<1x4x64xi64>
    %61 = tensor.empty() : tensor<1x4x64xf32>
    %62 = linalg.fill ins(%cst_0 : f32) outs(%61 : tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
    %63:2 = linalg.generic {indexing_maps = [#map8, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%58 : tensor<1x4x64x64xf32>) outs(%62, %60 : tensor<1x4x64xf32>, tensor<1x4x64xi64>) {
    ^bb0(%in: f32, %out: f32, %out_48: i64):
      %111 = linalg.index 3 : index
      %112 = arith.index_cast %111 : index to i64
      %113 = arith.maximumf %in, %out : f32
      %114 = arith.cmpf ogt, %in, %out : f32
      %115 = arith.select %114, %112, %out_48 : i64
      linalg.yield %113, %115 : f32, i64
    } -> (tensor<1x4x64xf32>, tensor<1x4x64xi64>)
    %expanded_36 = tensor.expand_shape %63#0 [[0], [1], [2, 3]] output_shape [1, 4, 64, 1] : tensor<1x4x64xf32> into tensor<1x4x64x1xf32>
    %64 = linalg.generic {indexing_maps = [#map8, #map13, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%58, %expanded_36 : tensor<1x4x64x64xf32>, tensor<1x4x64x1xf32>) outs(%57 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: f32, %in_48: f32, %out: f32):
      %111 = arith.subf %in, %in_48 : f32
      linalg.yield %111 : f32
    } -> tensor<1x4x64x64xf32>
    %65 = linalg.generic {indexing_maps = [#map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%64 : tensor<1x4x64x64xf32>) outs(%57 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = math.exp %in : f32
      linalg.yield %111 : f32
    } -> tensor<1x4x64x64xf32>
    %66 = tensor.empty() : tensor<1x4x64x1xf32>
    %67 = linalg.fill ins(%cst : f32) outs(%66 : tensor<1x4x64x1xf32>) -> tensor<1x4x64x1xf32>
    %68 = linalg.generic {indexing_maps = [#map8, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%65 : tensor<1x4x64x64xf32>) outs(%67 : tensor<1x4x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.addf %in, %out : f32
      linalg.yield %111 : f32
    } -> tensor<1x4x64x1xf32>
    %69 = linalg.generic {indexing_maps = [#map8, #map13, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%65, %68 : tensor<1x4x64x64xf32>, tensor<1x4x64x1xf32>) outs(%57 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: f32, %in_48: f32, %out: f32):
      %111 = arith.divf %in, %in_48 : f32
      linalg.yield %111 : f32
    } -> tensor<1x4x64x64xf32>
    %70 = tensor.empty() : tensor<1x4x64x64xi1>
    %71 = linalg.generic {indexing_maps = [#map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%58 : tensor<1x4x64x64xf32>) outs(%70 : tensor<1x4x64x64xi1>) {
    ^bb0(%in: f32, %out: i1):
      %111 = arith.extf %in : f32 to f64
      %112 = arith.cmpf oeq, %111, %cst_6 : f64
      linalg.yield %112 : i1
    } -> tensor<1x4x64x64xi1>
    %72 = tensor.empty() : tensor<1x4x64x1xi1>
    %73 = linalg.fill ins(%true : i1) outs(%72 : tensor<1x4x64x1xi1>) -> tensor<1x4x64x1xi1>
    %74 = linalg.generic {indexing_maps = [#map8, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%71 : tensor<1x4x64x64xi1>) outs(%73 : tensor<1x4x64x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %111 = arith.andi %in, %out : i1
      linalg.yield %111 : i1
    } -> tensor<1x4x64x1xi1>
    %75 = linalg.generic {indexing_maps = [#map13, #map8, #map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%74, %cst_2, %69 : tensor<1x4x64x1xi1>, tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>) outs(%57 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: i1, %in_48: f32, %in_49: f32, %out: f32):
      %111 = arith.select %in, %in_48, %in_49 : f32
      linalg.yield %111 : f32
    } -> tensor<1x4x64x64xf32>
    %collapsed_37 = tensor.collapse_shape %75 [[0, 1], [2], [3]] : tensor<1x4x64x64xf32> into tensor<4x64x64xf32>
    %collapsed_38 = tensor.collapse_shape %41 [[0, 1], [2], [3]] : tensor<1x4x64x128xf32> into tensor<4x64x128xf32>
    %76 = tensor.empty() : tensor<4x64x128xf32>
    %77 = linalg.fill ins(%cst : f32) outs(%76 : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
    %78 = linalg.batch_matmul ins(%collapsed_37, %collapsed_38 : tensor<4x64x64xf32>, tensor<4x64x128xf32>) outs(%77 : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
    %expanded_39 = tensor.expand_shape %78 [[0, 1], [2], [3]] output_shape [1, 4, 64, 128] : tensor<4x64x128xf32> into tensor<1x4x64x128xf32>
    %79 = tensor.empty() : tensor<1x4x64x128xbf16>
    %80 = linalg.generic {indexing_maps = [#map8, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_39 : tensor<1x4x64x128xf32>) outs(%79 : tensor<1x4x64x128xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %111 = arith.truncf %in : f32 to bf16
      linalg.yield %111 : bf16
    } -> tensor<1x4x64x128xbf16>
    %collapsed_40 = tensor.collapse_shape %80 [[0, 1], [2], [3]] : tensor<1x4x64x128xbf16> into tensor<4x64x128xbf16>
    %transposed_41 = linalg.transpose ins(%collapsed_40 : tensor<4x64x128xbf16>) outs(%21 : tensor<64x4x128xbf16>) permutation = [1, 0, 2] 
    %collapsed_42 = tensor.collapse_shape %transposed_41 [[0], [1, 2]] : tensor<64x4x128xbf16> into tensor<64x512xbf16>
    %81 = tensor.empty() : tensor<512x512xbf16>
    %transposed_43 = linalg.transpose ins(%arg5 : tensor<512x512xbf16>) outs(%81 : tensor<512x512xbf16>) permutation = [1, 0] 
    %82 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %83 = linalg.matmul ins(%collapsed_42, %transposed_43 : tensor<64x512xbf16>, tensor<512x512xbf16>) outs(%82 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %84 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%83 : tensor<64x512xf32>) outs(%13 : tensor<64x512xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %111 = arith.truncf %in : f32 to bf16
      linalg.yield %111 : bf16
    } -> tensor<64x512xbf16>
    %85 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %84 : tensor<64x512xbf16>, tensor<64x512xbf16>) outs(%13 : tensor<64x512xbf16>) {
    ^bb0(%in: bf16, %in_48: bf16, %out: bf16):
      %111 = arith.addf %in, %in_48 : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x512xbf16>
    %86 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%85 : tensor<64x512xbf16>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %111 = arith.extf %in : bf16 to f32
      linalg.yield %111 : f32
    } -> tensor<64x512xf32>
    %87 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%86 : tensor<64x512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %111 : f32
    } -> tensor<64x512xf32>
    %88 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%87 : tensor<64x512xf32>) outs(%4 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.addf %in, %out : f32
      linalg.yield %111 : f32
    } -> tensor<64x1xf32>
    %89 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%88 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.divf %in, %cst_9 : f32
      linalg.yield %111 : f32
    } -> tensor<64x1xf32>
    %90 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%89 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.truncf %cst_8 : f64 to f32
      %112 = arith.addf %in, %111 : f32
      linalg.yield %112 : f32
    } -> tensor<64x1xf32>
    %91 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%90 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = math.rsqrt %in : f32
      linalg.yield %111 : f32
    } -> tensor<64x1xf32>
    %92 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%86, %91 : tensor<64x512xf32>, tensor<64x1xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_48: f32, %out: f32):
      %111 = arith.mulf %in, %in_48 : f32
      linalg.yield %111 : f32
    } -> tensor<64x512xf32>
    %93 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg6 : tensor<512xbf16>) outs(%10 : tensor<512xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %111 = arith.extf %in : bf16 to f32
      linalg.yield %111 : f32
    } -> tensor<512xf32>
    %94 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%92, %93 : tensor<64x512xf32>, tensor<512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_48: f32, %out: f32):
      %111 = arith.mulf %in, %in_48 : f32
      linalg.yield %111 : f32
    } -> tensor<64x512xf32>
    %95 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%94 : tensor<64x512xf32>) outs(%13 : tensor<64x512xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %111 = arith.truncf %in : f32 to bf16
      linalg.yield %111 : bf16
    } -> tensor<64x512xbf16>
    %96 = tensor.empty() : tensor<512x2048xbf16>
    %transposed_44 = linalg.transpose ins(%arg7 : tensor<2048x512xbf16>) outs(%96 : tensor<512x2048xbf16>) permutation = [1, 0] 
    %97 = tensor.empty() : tensor<64x2048xf32>
    %98 = linalg.fill ins(%cst : f32) outs(%97 : tensor<64x2048xf32>) -> tensor<64x2048xf32>
    %99 = linalg.matmul ins(%95, %transposed_44 : tensor<64x512xbf16>, tensor<512x2048xbf16>) outs(%98 : tensor<64x2048xf32>) -> tensor<64x2048xf32>
    %100 = tensor.empty() : tensor<64x2048xbf16>
    %101 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%99 : tensor<64x2048xf32>) outs(%100 : tensor<64x2048xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %111 = arith.truncf %in : f32 to bf16
      linalg.yield %111 : bf16
    } -> tensor<64x2048xbf16>
    %extracted_slice_45 = tensor.extract_slice %101[0, 0] [64, 1024] [1, 1] : tensor<64x2048xbf16> to tensor<64x1024xbf16>
    %extracted_slice_46 = tensor.extract_slice %101[0, 1024] [64, 1024] [1, 1] : tensor<64x2048xbf16> to tensor<64x1024xbf16>
    %102 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_45 : tensor<64x1024xbf16>) outs(%16 : tensor<64x1024xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %111 = arith.extf %in : bf16 to f32
      linalg.yield %111 : f32
    } -> tensor<64x1024xf32>
    %103 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%102 : tensor<64x1024xf32>) outs(%16 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %111 = arith.negf %in : f32
      %112 = math.exp %111 : f32
      %113 = arith.addf %112, %cst_1 : f32
      %114 = arith.divf %cst_1, %113 : f32
      linalg.yield %114 : f32
    } -> tensor<64x1024xf32>
    %104 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%102, %103 : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%16 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_48: f32, %out: f32):
      %111 = arith.mulf %in, %in_48 : f32
      linalg.yield %111 : f32
    } -> tensor<64x1024xf32>
    %105 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%104 : tensor<64x1024xf32>) outs(%19 : tensor<64x1024xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %111 = arith.truncf %in : f32 to bf16
      linalg.yield %111 : bf16
    } -> tensor<64x1024xbf16>
    %106 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%105, %extracted_slice_46 : tensor<64x1024xbf16>, tensor<64x1024xbf16>) outs(%19 : tensor<64x1024xbf16>) {
    ^bb0(%in: bf16, %in_48: bf16, %out: bf16):
      %111 = arith.mulf %in, %in_48 : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x1024xbf16>
    %107 = tensor.empty() : tensor<1024x512xbf16>
    %transposed_47 = linalg.transpose ins(%arg8 : tensor<512x1024xbf16>) outs(%107 : tensor<1024x512xbf16>) permutation = [1, 0] 
    %108 = linalg.matmul ins(%106, %transposed_47 : tensor<64x1024xbf16>, tensor<1024x512xbf16>) outs(%82 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %109 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%108 : tensor<64x512xf32>) outs(%13 : tensor<64x512xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %111 = arith.truncf %in : f32 to bf16
      linalg.yield %111 : bf16
    } -> tensor<64x512xbf16>
    %110 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%85, %109 : tensor<64x512xbf16>, tensor<64x512xbf16>) outs(%13 : tensor<64x512xbf16>) {
    ^bb0(%in: bf16, %in_48: bf16, %out: bf16):
      %111 = arith.addf %in, %in_48 : bf16
      linalg.yield %111 : bf16
    } -> tensor<64x512xbf16>
    return %110 : tensor<64x512xbf16>
  }
}
