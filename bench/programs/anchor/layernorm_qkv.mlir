// layernorm_qkv at {'M': 8192, 'D': 4096, 'FFN': 14336, 'QKV': 6144, 'QK': 5120, 'V': 128256, 'HD': 128}, written by bench/anchor_programs.py (torch-mlir)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<8192x4096xbf16>, %arg1: tensor<4096xbf16>, %arg2: tensor<4096xbf16>, %arg3: tensor<6144x4096xbf16>) -> tensor<8192x6144xbf16> {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %cst_2 = arith.constant 4.096000e+03 : f64
    %cst_3 = arith.constant 4.096000e+03 : f32
    %0 = tensor.empty() : tensor<8192x4096xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8192x4096xbf16>) outs(%0 : tensor<8192x4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %31 = arith.extf %in : bf16 to f32
      linalg.yield %31 : f32
    } -> tensor<8192x4096xf32>
    %2 = tensor.empty() : tensor<8192x4096xf64>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8192x4096xf32>) outs(%2 : tensor<8192x4096xf64>) {
    ^bb0(%in: f32, %out: f64):
      %31 = arith.extf %in : f32 to f64
      linalg.yield %31 : f64
    } -> tensor<8192x4096xf64>
    %4 = tensor.empty() : tensor<8192x1xf64>
    %5 = linalg.fill ins(%cst : f64) outs(%4 : tensor<8192x1xf64>) -> tensor<8192x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%3 : tensor<8192x4096xf64>) outs(%5 : tensor<8192x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %31 = arith.addf %in, %out : f64
      linalg.yield %31 : f64
    } -> tensor<8192x1xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8192x1xf64>) outs(%4 : tensor<8192x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %31 = arith.divf %in, %cst_2 : f64
      linalg.yield %31 : f64
    } -> tensor<8192x1xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %7 : tensor<8192x4096xf64>, tensor<8192x1xf64>) outs(%2 : tensor<8192x4096xf64>) {
    ^bb0(%in: f64, %in_4: f64, %out: f64):
      %31 = arith.subf %in, %in_4 : f64
      linalg.yield %31 : f64
    } -> tensor<8192x4096xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %8 : tensor<8192x4096xf64>, tensor<8192x4096xf64>) outs(%2 : tensor<8192x4096xf64>) {
    ^bb0(%in: f64, %in_4: f64, %out: f64):
      %31 = arith.mulf %in, %in_4 : f64
      linalg.yield %31 : f64
    } -> tensor<8192x4096xf64>
    %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%9 : tensor<8192x4096xf64>) outs(%5 : tensor<8192x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %31 = arith.addf %in, %out : f64
      linalg.yield %31 : f64
    } -> tensor<8192x1xf64>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<8192x1xf64>) outs(%4 : tensor<8192x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %31 = arith.divf %in, %cst_2 : f64
      linalg.yield %31 : f64
    } -> tensor<8192x1xf64>
    %12 = tensor.empty() : tensor<8192x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<8192x1xf64>) outs(%12 : tensor<8192x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %31 = arith.truncf %in : f64 to f32
      linalg.yield %31 : f32
    } -> tensor<8192x1xf32>
    %14 = linalg.fill ins(%cst_0 : f32) outs(%12 : tensor<8192x1xf32>) -> tensor<8192x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8192x4096xf32>) outs(%14 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.addf %in, %out : f32
      linalg.yield %31 : f32
    } -> tensor<8192x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<8192x1xf32>) outs(%12 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.divf %in, %cst_3 : f32
      linalg.yield %31 : f32
    } -> tensor<8192x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<8192x1xf32>) outs(%12 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.truncf %cst_1 : f64 to f32
      %32 = arith.addf %in, %31 : f32
      linalg.yield %32 : f32
    } -> tensor<8192x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%17 : tensor<8192x1xf32>) outs(%12 : tensor<8192x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = math.rsqrt %in : f32
      linalg.yield %31 : f32
    } -> tensor<8192x1xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %16 : tensor<8192x4096xf32>, tensor<8192x1xf32>) outs(%0 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %31 = arith.subf %in, %in_4 : f32
      linalg.yield %31 : f32
    } -> tensor<8192x4096xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %18 : tensor<8192x4096xf32>, tensor<8192x1xf32>) outs(%0 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %31 = arith.mulf %in, %in_4 : f32
      linalg.yield %31 : f32
    } -> tensor<8192x4096xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %arg1 : tensor<8192x4096xf32>, tensor<4096xbf16>) outs(%0 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %in_4: bf16, %out: f32):
      %31 = arith.extf %in_4 : bf16 to f32
      %32 = arith.mulf %in, %31 : f32
      linalg.yield %32 : f32
    } -> tensor<8192x4096xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%21, %arg2 : tensor<8192x4096xf32>, tensor<4096xbf16>) outs(%0 : tensor<8192x4096xf32>) {
    ^bb0(%in: f32, %in_4: bf16, %out: f32):
      %31 = arith.extf %in_4 : bf16 to f32
      %32 = arith.addf %in, %31 : f32
      linalg.yield %32 : f32
    } -> tensor<8192x4096xf32>
    %23 = tensor.empty() : tensor<8192x4096xbf16>
    %24 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<8192x4096xf32>) outs(%23 : tensor<8192x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %31 = arith.truncf %in : f32 to bf16
      linalg.yield %31 : bf16
    } -> tensor<8192x4096xbf16>
    %25 = tensor.empty() : tensor<4096x6144xbf16>
    %transposed = linalg.transpose ins(%arg3 : tensor<6144x4096xbf16>) outs(%25 : tensor<4096x6144xbf16>) permutation = [1, 0] 
    %26 = tensor.empty() : tensor<8192x6144xf32>
    %27 = linalg.fill ins(%cst_0 : f32) outs(%26 : tensor<8192x6144xf32>) -> tensor<8192x6144xf32>
    %28 = linalg.matmul ins(%24, %transposed : tensor<8192x4096xbf16>, tensor<4096x6144xbf16>) outs(%27 : tensor<8192x6144xf32>) -> tensor<8192x6144xf32>
    %29 = tensor.empty() : tensor<8192x6144xbf16>
    %30 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%28 : tensor<8192x6144xf32>) outs(%29 : tensor<8192x6144xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %31 = arith.truncf %in : f32 to bf16
      linalg.yield %31 : bf16
    } -> tensor<8192x6144xbf16>
    return %30 : tensor<8192x6144xbf16>
  }
}
