// the Llama-3 block forward at {'M': 64, 'D': 512, 'NQ': 4, 'NKV': 2, 'HD': 128, 'FFN': 1024}, written by bench/block_programs.py
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#map5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#map6 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map7 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map8 = affine_map<(d0) -> (d0)>
#map9 = affine_map<(d0, d1) -> (0, d1)>
#map10 = affine_map<(d0, d1) -> ()>
#map11 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
module {
  func.func @main(%arg0: tensor<64x512xf32>, %arg1: tensor<512xf32>, %arg2: tensor<1024x512xf32>, %arg3: tensor<64x128xf32>, %arg4: tensor<64x128xf32>, %arg5: tensor<512x512xf32>, %arg6: tensor<512xf32>, %arg7: tensor<2048x512xf32>, %arg8: tensor<512x1024xf32>) -> tensor<64x512xf32> {
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
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %89 : f32
    } -> tensor<64x512xf32>
    %2 = tensor.empty() : tensor<64x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<64x512xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.addf %in, %out : f32
      linalg.yield %89 : f32
    } -> tensor<64x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.divf %in, %cst_9 : f32
      linalg.yield %89 : f32
    } -> tensor<64x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.truncf %cst_8 : f64 to f32
      %90 = arith.addf %in, %89 : f32
      linalg.yield %90 : f32
    } -> tensor<64x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = math.rsqrt %in : f32
      linalg.yield %89 : f32
    } -> tensor<64x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<64x512xf32>, tensor<64x1xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x512xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg1 : tensor<64x512xf32>, tensor<512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x512xf32>
    %10 = tensor.empty() : tensor<512x1024xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<1024x512xf32>) outs(%10 : tensor<512x1024xf32>) permutation = [1, 0] 
    %11 = tensor.empty() : tensor<64x1024xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %13 = linalg.matmul ins(%9, %transposed : tensor<64x512xf32>, tensor<512x1024xf32>) outs(%12 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %extracted_slice = tensor.extract_slice %13[0, 0] [64, 512] [1, 1] : tensor<64x1024xf32> to tensor<64x512xf32>
    %extracted_slice_10 = tensor.extract_slice %13[0, 512] [64, 256] [1, 1] : tensor<64x1024xf32> to tensor<64x256xf32>
    %extracted_slice_11 = tensor.extract_slice %13[0, 768] [64, 256] [1, 1] : tensor<64x1024xf32> to tensor<64x256xf32>
    %expanded = tensor.expand_shape %extracted_slice [[0], [1, 2]] output_shape [64, 4, 128] : tensor<64x512xf32> into tensor<64x4x128xf32>
    %expanded_12 = tensor.expand_shape %arg3 [[0], [1, 2]] output_shape [64, 1, 128] : tensor<64x128xf32> into tensor<64x1x128xf32>
    %14 = tensor.empty() : tensor<64x4x128xf32>
    %15 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %expanded_12 : tensor<64x4x128xf32>, tensor<64x1x128xf32>) outs(%14 : tensor<64x4x128xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x4x128xf32>
    %extracted_slice_13 = tensor.extract_slice %expanded[0, 0, 64] [64, 4, 64] [1, 1, 1] : tensor<64x4x128xf32> to tensor<64x4x64xf32>
    %16 = tensor.empty() : tensor<64x4x64xf32>
    %17 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_13 : tensor<64x4x64xf32>) outs(%16 : tensor<64x4x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.negf %in : f32
      linalg.yield %89 : f32
    } -> tensor<64x4x64xf32>
    %extracted_slice_14 = tensor.extract_slice %expanded[0, 0, 0] [64, 4, 64] [1, 1, 1] : tensor<64x4x128xf32> to tensor<64x4x64xf32>
    %concat = tensor.concat dim(2) %17, %extracted_slice_14 : (tensor<64x4x64xf32>, tensor<64x4x64xf32>) -> tensor<64x4x128xf32>
    %expanded_15 = tensor.expand_shape %arg4 [[0], [1, 2]] output_shape [64, 1, 128] : tensor<64x128xf32> into tensor<64x1x128xf32>
    %18 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %expanded_15 : tensor<64x4x128xf32>, tensor<64x1x128xf32>) outs(%14 : tensor<64x4x128xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x4x128xf32>
    %19 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15, %18 : tensor<64x4x128xf32>, tensor<64x4x128xf32>) outs(%14 : tensor<64x4x128xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.addf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x4x128xf32>
    %expanded_16 = tensor.expand_shape %extracted_slice_10 [[0], [1, 2]] output_shape [64, 2, 128] : tensor<64x256xf32> into tensor<64x2x128xf32>
    %20 = tensor.empty() : tensor<64x2x128xf32>
    %21 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_16, %expanded_12 : tensor<64x2x128xf32>, tensor<64x1x128xf32>) outs(%20 : tensor<64x2x128xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x2x128xf32>
    %extracted_slice_17 = tensor.extract_slice %expanded_16[0, 0, 64] [64, 2, 64] [1, 1, 1] : tensor<64x2x128xf32> to tensor<64x2x64xf32>
    %22 = tensor.empty() : tensor<64x2x64xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice_17 : tensor<64x2x64xf32>) outs(%22 : tensor<64x2x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.negf %in : f32
      linalg.yield %89 : f32
    } -> tensor<64x2x64xf32>
    %extracted_slice_18 = tensor.extract_slice %expanded_16[0, 0, 0] [64, 2, 64] [1, 1, 1] : tensor<64x2x128xf32> to tensor<64x2x64xf32>
    %concat_19 = tensor.concat dim(2) %23, %extracted_slice_18 : (tensor<64x2x64xf32>, tensor<64x2x64xf32>) -> tensor<64x2x128xf32>
    %24 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat_19, %expanded_15 : tensor<64x2x128xf32>, tensor<64x1x128xf32>) outs(%20 : tensor<64x2x128xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x2x128xf32>
    %25 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%21, %24 : tensor<64x2x128xf32>, tensor<64x2x128xf32>) outs(%20 : tensor<64x2x128xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.addf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x2x128xf32>
    %26 = tensor.empty() : tensor<4x64x128xf32>
    %transposed_20 = linalg.transpose ins(%19 : tensor<64x4x128xf32>) outs(%26 : tensor<4x64x128xf32>) permutation = [1, 0, 2] 
    %expanded_21 = tensor.expand_shape %transposed_20 [[0, 1], [2], [3]] output_shape [1, 4, 64, 128] : tensor<4x64x128xf32> into tensor<1x4x64x128xf32>
    %27 = tensor.empty() : tensor<2x64x128xf32>
    %transposed_22 = linalg.transpose ins(%25 : tensor<64x2x128xf32>) outs(%27 : tensor<2x64x128xf32>) permutation = [1, 0, 2] 
    %expanded_23 = tensor.expand_shape %transposed_22 [[0, 1], [2, 3], [4]] output_shape [1, 2, 1, 64, 128] : tensor<2x64x128xf32> into tensor<1x2x1x64x128xf32>
    %28 = tensor.empty() : tensor<1x2x2x64x128xf32>
    %collapsed = tensor.collapse_shape %expanded_23 [[0], [1, 2], [3], [4]] : tensor<1x2x1x64x128xf32> into tensor<1x2x64x128xf32>
    %29 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x2x64x128xf32>) outs(%28 : tensor<1x2x2x64x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x2x64x128xf32>
    %collapsed_24 = tensor.collapse_shape %29 [[0], [1, 2], [3], [4]] : tensor<1x2x2x64x128xf32> into tensor<1x4x64x128xf32>
    %expanded_25 = tensor.expand_shape %extracted_slice_11 [[0], [1, 2]] output_shape [64, 2, 128] : tensor<64x256xf32> into tensor<64x2x128xf32>
    %transposed_26 = linalg.transpose ins(%expanded_25 : tensor<64x2x128xf32>) outs(%27 : tensor<2x64x128xf32>) permutation = [1, 0, 2] 
    %expanded_27 = tensor.expand_shape %transposed_26 [[0, 1], [2, 3], [4]] output_shape [1, 2, 1, 64, 128] : tensor<2x64x128xf32> into tensor<1x2x1x64x128xf32>
    %collapsed_28 = tensor.collapse_shape %expanded_27 [[0], [1, 2], [3], [4]] : tensor<1x2x1x64x128xf32> into tensor<1x2x64x128xf32>
    %30 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_28 : tensor<1x2x64x128xf32>) outs(%28 : tensor<1x2x2x64x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x2x64x128xf32>
    %31 = tensor.empty() : tensor<1x4x64x128xf32>
    %32 = linalg.generic {indexing_maps = [#map7, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_21 : tensor<1x4x64x128xf32>) outs(%31 : tensor<1x4x64x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.truncf %cst_7 : f64 to f32
      %90 = arith.mulf %in, %89 : f32
      linalg.yield %90 : f32
    } -> tensor<1x4x64x128xf32>
    %33 = tensor.empty() : tensor<64xi64>
    %34 = linalg.generic {indexing_maps = [#map8], iterator_types = ["parallel"]} outs(%33 : tensor<64xi64>) {
    ^bb0(%out: i64):
      %89 = linalg.index 0 : index
      %90 = arith.index_cast %89 : index to i64
      linalg.yield %90 : i64
    } -> tensor<64xi64>
    %expanded_29 = tensor.expand_shape %34 [[0, 1]] output_shape [1, 64] : tensor<64xi64> into tensor<1x64xi64>
    %expanded_30 = tensor.expand_shape %34 [[0, 1]] output_shape [64, 1] : tensor<64xi64> into tensor<64x1xi64>
    %35 = tensor.empty() : tensor<64x64xi64>
    %36 = linalg.generic {indexing_maps = [#map9, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_29, %expanded_30 : tensor<1x64xi64>, tensor<64x1xi64>) outs(%35 : tensor<64x64xi64>) {
    ^bb0(%in: i64, %in_45: i64, %out: i64):
      %89 = arith.subi %in, %in_45 : i64
      linalg.yield %89 : i64
    } -> tensor<64x64xi64>
    %37 = tensor.empty() : tensor<64x64xi1>
    %38 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%36 : tensor<64x64xi64>) outs(%37 : tensor<64x64xi1>) {
    ^bb0(%in: i64, %out: i1):
      %89 = arith.cmpi sle, %in, %c0_i64 : i64
      linalg.yield %89 : i1
    } -> tensor<64x64xi1>
    %39 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%38, %cst_5 : tensor<64x64xi1>, tensor<64x64xi1>) outs(%37 : tensor<64x64xi1>) {
    ^bb0(%in: i1, %in_45: i1, %out: i1):
      %89 = arith.andi %in, %in_45 : i1
      linalg.yield %89 : i1
    } -> tensor<64x64xi1>
    %40 = tensor.empty() : tensor<64x64xf32>
    %41 = linalg.generic {indexing_maps = [#map, #map10, #map10, #map], iterator_types = ["parallel", "parallel"]} ins(%39, %cst_3, %cst_4 : tensor<64x64xi1>, tensor<f32>, tensor<f32>) outs(%40 : tensor<64x64xf32>) {
    ^bb0(%in: i1, %in_45: f32, %in_46: f32, %out: f32):
      %89 = arith.select %in, %in_45, %in_46 : f32
      linalg.yield %89 : f32
    } -> tensor<64x64xf32>
    %42 = tensor.empty() : tensor<1x4x128x64xf32>
    %transposed_31 = linalg.transpose ins(%collapsed_24 : tensor<1x4x64x128xf32>) outs(%42 : tensor<1x4x128x64xf32>) permutation = [0, 1, 3, 2] 
    %43 = linalg.generic {indexing_maps = [#map7, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_31 : tensor<1x4x128x64xf32>) outs(%42 : tensor<1x4x128x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.truncf %cst_7 : f64 to f32
      %90 = arith.mulf %in, %89 : f32
      linalg.yield %90 : f32
    } -> tensor<1x4x128x64xf32>
    %collapsed_32 = tensor.collapse_shape %32 [[0, 1], [2], [3]] : tensor<1x4x64x128xf32> into tensor<4x64x128xf32>
    %collapsed_33 = tensor.collapse_shape %43 [[0, 1], [2], [3]] : tensor<1x4x128x64xf32> into tensor<4x128x64xf32>
    %44 = tensor.empty() : tensor<4x64x64xf32>
    %45 = linalg.fill ins(%cst : f32) outs(%44 : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %46 = linalg.batch_matmul ins(%collapsed_32, %collapsed_33 : tensor<4x64x128xf32>, tensor<4x128x64xf32>) outs(%45 : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
    %expanded_34 = tensor.expand_shape %46 [[0, 1], [2], [3]] output_shape [1, 4, 64, 64] : tensor<4x64x64xf32> into tensor<1x4x64x64xf32>
    %47 = tensor.empty() : tensor<1x4x64x64xf32>
    %48 = linalg.generic {indexing_maps = [#map7, #map11, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_34, %41 : tensor<1x4x64x64xf32>, tensor<64x64xf32>) outs(%47 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.addf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<1x4x64x64xf32>
    %49 = tensor.empty() : tensor<1x4x64xi64>
    %50 = linalg.fill ins(%c0_i64 : i64) outs(%49 : tensor<1x4x64xi64>) -> tensor<1x4x64xi64>
    %51 = tensor.empty() : tensor<1x4x64xf32>
    %52 = linalg.fill ins(%cst_0 : f32) outs(%51 : tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
    %53:2 = linalg.generic {indexing_maps = [#map7, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%48 : tensor<1x4x64x64xf32>) outs(%52, %50 : tensor<1x4x64xf32>, tensor<1x4x64xi64>) {
    ^bb0(%in: f32, %out: f32, %out_45: i64):
      %89 = linalg.index 3 : index
      %90 = arith.index_cast %89 : index to i64
      %91 = arith.maximumf %in, %out : f32
      %92 = arith.cmpf ogt, %in, %out : f32
      %93 = arith.select %92, %90, %out_45 : i64
      linalg.yield %91, %93 : f32, i64
    } -> (tensor<1x4x64xf32>, tensor<1x4x64xi64>)
    %expanded_35 = tensor.expand_shape %53#0 [[0], [1], [2, 3]] output_shape [1, 4, 64, 1] : tensor<1x4x64xf32> into tensor<1x4x64x1xf32>
    %54 = linalg.generic {indexing_maps = [#map7, #map13, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%48, %expanded_35 : tensor<1x4x64x64xf32>, tensor<1x4x64x1xf32>) outs(%47 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.subf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<1x4x64x64xf32>
    %55 = linalg.generic {indexing_maps = [#map7, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%54 : tensor<1x4x64x64xf32>) outs(%47 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = math.exp %in : f32
      linalg.yield %89 : f32
    } -> tensor<1x4x64x64xf32>
    %56 = tensor.empty() : tensor<1x4x64x1xf32>
    %57 = linalg.fill ins(%cst : f32) outs(%56 : tensor<1x4x64x1xf32>) -> tensor<1x4x64x1xf32>
    %58 = linalg.generic {indexing_maps = [#map7, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%55 : tensor<1x4x64x64xf32>) outs(%57 : tensor<1x4x64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.addf %in, %out : f32
      linalg.yield %89 : f32
    } -> tensor<1x4x64x1xf32>
    %59 = linalg.generic {indexing_maps = [#map7, #map13, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%55, %58 : tensor<1x4x64x64xf32>, tensor<1x4x64x1xf32>) outs(%47 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.divf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<1x4x64x64xf32>
    %60 = tensor.empty() : tensor<1x4x64x64xi1>
    %61 = linalg.generic {indexing_maps = [#map7, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%48 : tensor<1x4x64x64xf32>) outs(%60 : tensor<1x4x64x64xi1>) {
    ^bb0(%in: f32, %out: i1):
      %89 = arith.extf %in : f32 to f64
      %90 = arith.cmpf oeq, %89, %cst_6 : f64
      linalg.yield %90 : i1
    } -> tensor<1x4x64x64xi1>
    %62 = tensor.empty() : tensor<1x4x64x1xi1>
    %63 = linalg.fill ins(%true : i1) outs(%62 : tensor<1x4x64x1xi1>) -> tensor<1x4x64x1xi1>
    %64 = linalg.generic {indexing_maps = [#map7, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%61 : tensor<1x4x64x64xi1>) outs(%63 : tensor<1x4x64x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %89 = arith.andi %in, %out : i1
      linalg.yield %89 : i1
    } -> tensor<1x4x64x1xi1>
    %65 = linalg.generic {indexing_maps = [#map13, #map7, #map7, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%64, %cst_2, %59 : tensor<1x4x64x1xi1>, tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>) outs(%47 : tensor<1x4x64x64xf32>) {
    ^bb0(%in: i1, %in_45: f32, %in_46: f32, %out: f32):
      %89 = arith.select %in, %in_45, %in_46 : f32
      linalg.yield %89 : f32
    } -> tensor<1x4x64x64xf32>
    %collapsed_36 = tensor.collapse_shape %65 [[0, 1], [2], [3]] : tensor<1x4x64x64xf32> into tensor<4x64x64xf32>
    %collapsed_37 = tensor.collapse_shape %30 [[0, 1, 2], [3], [4]] : tensor<1x2x2x64x128xf32> into tensor<4x64x128xf32>
    %66 = linalg.fill ins(%cst : f32) outs(%26 : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
    %67 = linalg.batch_matmul ins(%collapsed_36, %collapsed_37 : tensor<4x64x64xf32>, tensor<4x64x128xf32>) outs(%66 : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
    %transposed_38 = linalg.transpose ins(%67 : tensor<4x64x128xf32>) outs(%14 : tensor<64x4x128xf32>) permutation = [1, 0, 2] 
    %collapsed_39 = tensor.collapse_shape %transposed_38 [[0], [1, 2]] : tensor<64x4x128xf32> into tensor<64x512xf32>
    %68 = tensor.empty() : tensor<512x512xf32>
    %transposed_40 = linalg.transpose ins(%arg5 : tensor<512x512xf32>) outs(%68 : tensor<512x512xf32>) permutation = [1, 0] 
    %69 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %70 = linalg.matmul ins(%collapsed_39, %transposed_40 : tensor<64x512xf32>, tensor<512x512xf32>) outs(%69 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %71 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %70 : tensor<64x512xf32>, tensor<64x512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.addf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x512xf32>
    %72 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%71 : tensor<64x512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %89 : f32
    } -> tensor<64x512xf32>
    %73 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%72 : tensor<64x512xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.addf %in, %out : f32
      linalg.yield %89 : f32
    } -> tensor<64x1xf32>
    %74 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%73 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.divf %in, %cst_9 : f32
      linalg.yield %89 : f32
    } -> tensor<64x1xf32>
    %75 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%74 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.truncf %cst_8 : f64 to f32
      %90 = arith.addf %in, %89 : f32
      linalg.yield %90 : f32
    } -> tensor<64x1xf32>
    %76 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%75 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = math.rsqrt %in : f32
      linalg.yield %89 : f32
    } -> tensor<64x1xf32>
    %77 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%71, %76 : tensor<64x512xf32>, tensor<64x1xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x512xf32>
    %78 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%77, %arg6 : tensor<64x512xf32>, tensor<512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x512xf32>
    %79 = tensor.empty() : tensor<512x2048xf32>
    %transposed_41 = linalg.transpose ins(%arg7 : tensor<2048x512xf32>) outs(%79 : tensor<512x2048xf32>) permutation = [1, 0] 
    %80 = tensor.empty() : tensor<64x2048xf32>
    %81 = linalg.fill ins(%cst : f32) outs(%80 : tensor<64x2048xf32>) -> tensor<64x2048xf32>
    %82 = linalg.matmul ins(%78, %transposed_41 : tensor<64x512xf32>, tensor<512x2048xf32>) outs(%81 : tensor<64x2048xf32>) -> tensor<64x2048xf32>
    %extracted_slice_42 = tensor.extract_slice %82[0, 0] [64, 1024] [1, 1] : tensor<64x2048xf32> to tensor<64x1024xf32>
    %extracted_slice_43 = tensor.extract_slice %82[0, 1024] [64, 1024] [1, 1] : tensor<64x2048xf32> to tensor<64x1024xf32>
    %83 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_42 : tensor<64x1024xf32>) outs(%11 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %89 = arith.negf %in : f32
      %90 = math.exp %89 : f32
      %91 = arith.addf %90, %cst_1 : f32
      %92 = arith.divf %cst_1, %91 : f32
      linalg.yield %92 : f32
    } -> tensor<64x1024xf32>
    %84 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_42, %83 : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%11 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x1024xf32>
    %85 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%84, %extracted_slice_43 : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%11 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.mulf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x1024xf32>
    %86 = tensor.empty() : tensor<1024x512xf32>
    %transposed_44 = linalg.transpose ins(%arg8 : tensor<512x1024xf32>) outs(%86 : tensor<1024x512xf32>) permutation = [1, 0] 
    %87 = linalg.matmul ins(%85, %transposed_44 : tensor<64x1024xf32>, tensor<1024x512xf32>) outs(%69 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %88 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%71, %87 : tensor<64x512xf32>, tensor<64x512xf32>) outs(%0 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_45: f32, %out: f32):
      %89 = arith.addf %in, %in_45 : f32
      linalg.yield %89 : f32
    } -> tensor<64x512xf32>
    return %88 : tensor<64x512xf32>
  }
}
