// lm_head_ce at {'M': 8192, 'D': 4096, 'FFN': 14336, 'QKV': 6144, 'QK': 5120, 'V': 128256, 'HD': 128}, written by bench/anchor_programs.py (torch-mlir)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<() -> ()>
module {
  func.func @main(%arg0: tensor<8192x4096xbf16>, %arg1: tensor<128256x4096xbf16>, %arg2: tensor<8192xi64>) -> tensor<f32> {
    %c-100_i64 = arith.constant -100 : i64
    %c128256 = arith.constant 128256 : index
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<4096x128256xbf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<128256x4096xbf16>) outs(%0 : tensor<4096x128256xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8192x128256xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8192x128256xf32>) -> tensor<8192x128256xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8192x4096xbf16>, tensor<4096x128256xbf16>) outs(%2 : tensor<8192x128256xf32>) -> tensor<8192x128256xf32>
    %4 = tensor.empty() : tensor<8192x128256xbf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8192x128256xf32>) outs(%4 : tensor<8192x128256xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %33 = arith.truncf %in : f32 to bf16
      linalg.yield %33 : bf16
    } -> tensor<8192x128256xbf16>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8192x128256xbf16>) outs(%1 : tensor<8192x128256xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %33 = arith.extf %in : bf16 to f32
      linalg.yield %33 : f32
    } -> tensor<8192x128256xf32>
    %7 = tensor.empty() : tensor<8192xi64>
    %8 = linalg.fill ins(%c0_i64 : i64) outs(%7 : tensor<8192xi64>) -> tensor<8192xi64>
    %9 = tensor.empty() : tensor<8192xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<8192xf32>) -> tensor<8192xf32>
    %11:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%6 : tensor<8192x128256xf32>) outs(%10, %8 : tensor<8192xf32>, tensor<8192xi64>) {
    ^bb0(%in: f32, %out: f32, %out_4: i64):
      %33 = linalg.index 1 : index
      %34 = arith.index_cast %33 : index to i64
      %35 = arith.maximumf %in, %out : f32
      %36 = arith.cmpf ogt, %in, %out : f32
      %37 = arith.select %36, %34, %out_4 : i64
      linalg.yield %35, %37 : f32, i64
    } -> (tensor<8192xf32>, tensor<8192xi64>)
    %expanded = tensor.expand_shape %11#0 [[0, 1]] output_shape [8192, 1] : tensor<8192xf32> into tensor<8192x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %expanded : tensor<8192x128256xf32>, tensor<8192x1xf32>) outs(%1 : tensor<8192x128256xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %33 = arith.subf %in, %in_4 : f32
      linalg.yield %33 : f32
    } -> tensor<8192x128256xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<8192x128256xf32>) outs(%1 : tensor<8192x128256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = math.exp %in : f32
      linalg.yield %33 : f32
    } -> tensor<8192x128256xf32>
    %14 = tensor.empty() : tensor<8192x1xf32>
    %15 = linalg.fill ins(%cst : f32) outs(%14 : tensor<8192x1xf32>) -> tensor<8192x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%13 : tensor<8192x128256xf32>) outs(%15 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.addf %in, %out : f32
      linalg.yield %33 : f32
    } -> tensor<8192x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%16 : tensor<8192x1xf32>) outs(%14 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = math.log %in : f32
      linalg.yield %33 : f32
    } -> tensor<8192x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %17 : tensor<8192x128256xf32>, tensor<8192x1xf32>) outs(%1 : tensor<8192x128256xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %33 = arith.subf %in, %in_4 : f32
      linalg.yield %33 : f32
    } -> tensor<8192x128256xf32>
    %19 = tensor.empty() : tensor<8192xi1>
    %20 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg2 : tensor<8192xi64>) outs(%19 : tensor<8192xi1>) {
    ^bb0(%in: i64, %out: i1):
      %33 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %33 : i1
    } -> tensor<8192xi1>
    %21 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%20, %arg2, %cst_2 : tensor<8192xi1>, tensor<8192xi64>, tensor<i64>) outs(%7 : tensor<8192xi64>) {
    ^bb0(%in: i1, %in_4: i64, %in_5: i64, %out: i64):
      %33 = arith.select %in, %in_4, %in_5 : i64
      linalg.yield %33 : i64
    } -> tensor<8192xi64>
    %expanded_3 = tensor.expand_shape %21 [[0, 1]] output_shape [8192, 1] : tensor<8192xi64> into tensor<8192x1xi64>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_3 : tensor<8192x1xi64>) outs(%15 : tensor<8192x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %33 = linalg.index 0 : index
      %34 = arith.index_cast %in : i64 to index
      %35 = arith.cmpi slt, %34, %c128256 : index
      cf.assert %35, "index must be smaller than dim size"
      %36 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %36, "index must be larger or equal to 0"
      %extracted = tensor.extract %18[%33, %34] : tensor<8192x128256xf32>
      linalg.yield %extracted : f32
    } -> tensor<8192x1xf32>
    %collapsed = tensor.collapse_shape %22 [[0, 1]] : tensor<8192x1xf32> into tensor<8192xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%collapsed : tensor<8192xf32>) outs(%9 : tensor<8192xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.negf %in : f32
      linalg.yield %33 : f32
    } -> tensor<8192xf32>
    %24 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%20, %23, %cst_1 : tensor<8192xi1>, tensor<8192xf32>, tensor<f32>) outs(%9 : tensor<8192xf32>) {
    ^bb0(%in: i1, %in_4: f32, %in_5: f32, %out: f32):
      %33 = arith.select %in, %in_4, %in_5 : f32
      linalg.yield %33 : f32
    } -> tensor<8192xf32>
    %25 = tensor.empty() : tensor<i64>
    %26 = linalg.fill ins(%c0_i64 : i64) outs(%25 : tensor<i64>) -> tensor<i64>
    %27 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%20 : tensor<8192xi1>) outs(%26 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %33 = arith.extui %in : i1 to i64
      %34 = arith.addi %33, %out : i64
      linalg.yield %34 : i64
    } -> tensor<i64>
    %28 = tensor.empty() : tensor<f32>
    %29 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%27 : tensor<i64>) outs(%28 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %33 = arith.sitofp %in : i64 to f32
      linalg.yield %33 : f32
    } -> tensor<f32>
    %30 = linalg.fill ins(%cst : f32) outs(%28 : tensor<f32>) -> tensor<f32>
    %31 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%24 : tensor<8192xf32>) outs(%30 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.addf %in, %out : f32
      linalg.yield %33 : f32
    } -> tensor<f32>
    %32 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%31, %29 : tensor<f32>, tensor<f32>) outs(%28 : tensor<f32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %33 = arith.divf %in, %in_4 : f32
      linalg.yield %33 : f32
    } -> tensor<f32>
    return %32 : tensor<f32>
  }
}
