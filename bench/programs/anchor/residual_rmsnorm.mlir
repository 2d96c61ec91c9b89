// residual_rmsnorm at {'M': 8192, 'D': 4096, 'FFN': 14336, 'QKV': 6144, 'QK': 5120, 'V': 128256, 'HD': 128}, written by bench/anchor_programs.py (torch-mlir)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<8192x4096xbf16>, %arg1: tensor<4096x4096xbf16>, %arg2: tensor<8192x4096xbf16>, %arg3: tensor<4096xbf16>) -> (tensor<8192x4096xbf16>, tensor<8192x4096xbf16>) {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 4.096000e+03 : f32
    %0 = tensor.empty() : tensor<4096x4096xbf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<4096x4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8192x4096xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8192x4096xf32>) -> tensor<8192x4096xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8192x4096xbf16>, tensor<4096x4096xbf16>) outs(%2 : tensor<8192x4096xf32>) -> tensor<8192x4096xf32>
    %4 = tensor.empty() : tensor<8192x4096xbf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8192x4096xf32>) outs(%4 : tensor<8192x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %20 = arith.truncf %in : f32 to bf16
      linalg.yield %20 : bf16
    } -> tensor<8192x4096xbf16>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %5 : tensor<8192x4096xbf16>, tensor<8192x4096xbf16>) outs(%4 : tensor<8192x4096xbf16>) {
    ^bb0(%in: bf16, %in_2: bf16, %out: bf16):
      %20 = arith.addf %in, %in_2 : bf16
      linalg.yield %20 : bf16
    } -> tensor<8192x4096xbf16>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8192x4096xbf16>) outs(%1 : tensor<8192x4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %20 = arith.extf %in : bf16 to f32
      linalg.yield %20 : f32
    } -> tensor<8192x4096xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<8192x4096xf32>) outs(%1 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %20 : f32
    } -> tensor<8192x4096xf32>
    %9 = tensor.empty() : tensor<8192x1xf32>
    %10 = linalg.fill ins(%cst : f32) outs(%9 : tensor<8192x1xf32>) -> tensor<8192x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<8192x4096xf32>) outs(%10 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.addf %in, %out : f32
      linalg.yield %20 : f32
    } -> tensor<8192x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<8192x1xf32>) outs(%9 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.divf %in, %cst_1 : f32
      linalg.yield %20 : f32
    } -> tensor<8192x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<8192x1xf32>) outs(%9 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.truncf %cst_0 : f64 to f32
      %21 = arith.addf %in, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<8192x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<8192x1xf32>) outs(%9 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = math.rsqrt %in : f32
      linalg.yield %20 : f32
    } -> tensor<8192x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %14 : tensor<8192x4096xf32>, tensor<8192x1xf32>) outs(%1 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %20 = arith.mulf %in, %in_2 : f32
      linalg.yield %20 : f32
    } -> tensor<8192x4096xf32>
    %16 = tensor.empty() : tensor<4096xf32>
    %17 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg3 : tensor<4096xbf16>) outs(%16 : tensor<4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %20 = arith.extf %in : bf16 to f32
      linalg.yield %20 : f32
    } -> tensor<4096xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %17 : tensor<8192x4096xf32>, tensor<4096xf32>) outs(%1 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %20 = arith.mulf %in, %in_2 : f32
      linalg.yield %20 : f32
    } -> tensor<8192x4096xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<8192x4096xf32>) outs(%4 : tensor<8192x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %20 = arith.truncf %in : f32 to bf16
      linalg.yield %20 : bf16
    } -> tensor<8192x4096xbf16>
    return %6, %19 : tensor<8192x4096xbf16>, tensor<8192x4096xbf16>
  }
}
