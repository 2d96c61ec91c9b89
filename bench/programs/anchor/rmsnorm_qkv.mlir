// rmsnorm_qkv at {'M': 8192, 'D': 4096, 'FFN': 14336, 'QKV': 6144, 'QK': 5120, 'V': 128256, 'HD': 128}, written by bench/anchor_programs.py (torch-mlir)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<8192x4096xbf16>, %arg1: tensor<4096xbf16>, %arg2: tensor<6144x4096xbf16>) -> tensor<8192x6144xbf16> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 4.096000e+03 : f32
    %0 = tensor.empty() : tensor<8192x4096xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8192x4096xbf16>) outs(%0 : tensor<8192x4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %21 = arith.extf %in : bf16 to f32
      linalg.yield %21 : f32
    } -> tensor<8192x4096xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8192x4096xf32>) outs(%0 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %21 : f32
    } -> tensor<8192x4096xf32>
    %3 = tensor.empty() : tensor<8192x1xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<8192x1xf32>) -> tensor<8192x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<8192x4096xf32>) outs(%4 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.addf %in, %out : f32
      linalg.yield %21 : f32
    } -> tensor<8192x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8192x1xf32>) outs(%3 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.divf %in, %cst_1 : f32
      linalg.yield %21 : f32
    } -> tensor<8192x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8192x1xf32>) outs(%3 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.truncf %cst_0 : f64 to f32
      %22 = arith.addf %in, %21 : f32
      linalg.yield %22 : f32
    } -> tensor<8192x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<8192x1xf32>) outs(%3 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = math.rsqrt %in : f32
      linalg.yield %21 : f32
    } -> tensor<8192x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %8 : tensor<8192x4096xf32>, tensor<8192x1xf32>) outs(%0 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %21 = arith.mulf %in, %in_2 : f32
      linalg.yield %21 : f32
    } -> tensor<8192x4096xf32>
    %10 = tensor.empty() : tensor<4096xf32>
    %11 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg1 : tensor<4096xbf16>) outs(%10 : tensor<4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %21 = arith.extf %in : bf16 to f32
      linalg.yield %21 : f32
    } -> tensor<4096xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %11 : tensor<8192x4096xf32>, tensor<4096xf32>) outs(%0 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %21 = arith.mulf %in, %in_2 : f32
      linalg.yield %21 : f32
    } -> tensor<8192x4096xf32>
    %13 = tensor.empty() : tensor<8192x4096xbf16>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<8192x4096xf32>) outs(%13 : tensor<8192x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %21 = arith.truncf %in : f32 to bf16
      linalg.yield %21 : bf16
    } -> tensor<8192x4096xbf16>
    %15 = tensor.empty() : tensor<4096x6144xbf16>
    %transposed = linalg.transpose ins(%arg2 : tensor<6144x4096xbf16>) outs(%15 : tensor<4096x6144xbf16>) permutation = [1, 0] 
    %16 = tensor.empty() : tensor<8192x6144xf32>
    %17 = linalg.fill ins(%cst : f32) outs(%16 : tensor<8192x6144xf32>) -> tensor<8192x6144xf32>
    %18 = linalg.matmul ins(%14, %transposed : tensor<8192x4096xbf16>, tensor<4096x6144xbf16>) outs(%17 : tensor<8192x6144xf32>) -> tensor<8192x6144xf32>
    %19 = tensor.empty() : tensor<8192x6144xbf16>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<8192x6144xf32>) outs(%19 : tensor<8192x6144xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %21 = arith.truncf %in : f32 to bf16
      linalg.yield %21 : bf16
    } -> tensor<8192x6144xbf16>
    return %20 : tensor<8192x6144xbf16>
  }
}
