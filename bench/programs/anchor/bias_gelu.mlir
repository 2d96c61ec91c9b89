// bias_gelu at {'M': 8192, 'D': 4096, 'FFN': 14336, 'QKV': 6144, 'QK': 5120, 'V': 128256, 'HD': 128}, written by bench/anchor_programs.py (torch-mlir)
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<8192x4096xbf16>, %arg1: tensor<14336x4096xbf16>, %arg2: tensor<14336xbf16>) -> tensor<8192x14336xbf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %c3_i64 = arith.constant 3 : i64
    %cst_0 = arith.constant 4.467770e-02 : bf16
    %cst_1 = arith.constant 7.968750e-01 : bf16
    %cst_2 = arith.constant 1.000000e+00 : bf16
    %cst_3 = arith.constant 5.000000e-01 : bf16
    %0 = tensor.empty() : tensor<4096x14336xbf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<14336x4096xbf16>) outs(%0 : tensor<4096x14336xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8192x14336xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8192x14336xf32>) -> tensor<8192x14336xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8192x4096xbf16>, tensor<4096x14336xbf16>) outs(%2 : tensor<8192x14336xf32>) -> tensor<8192x14336xf32>
    %4 = tensor.empty() : tensor<8192x14336xbf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8192x14336xf32>) outs(%4 : tensor<8192x14336xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %8 = arith.truncf %in : f32 to bf16
      linalg.yield %8 : bf16
    } -> tensor<8192x14336xbf16>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %arg2 : tensor<8192x14336xbf16>, tensor<14336xbf16>) outs(%4 : tensor<8192x14336xbf16>) {
    ^bb0(%in: bf16, %in_4: bf16, %out: bf16):
      %8 = arith.addf %in, %in_4 : bf16
      linalg.yield %8 : bf16
    } -> tensor<8192x14336xbf16>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8192x14336xbf16>) outs(%4 : tensor<8192x14336xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %8 = math.fpowi %in, %c3_i64 : bf16, i64
      %9 = arith.mulf %8, %cst_0 : bf16
      %10 = arith.addf %in, %9 : bf16
      %11 = arith.mulf %10, %cst_1 : bf16
      %12 = math.tanh %11 : bf16
      %13 = arith.addf %12, %cst_2 : bf16
      %14 = arith.mulf %13, %cst_3 : bf16
      %15 = arith.mulf %in, %14 : bf16
      linalg.yield %15 : bf16
    } -> tensor<8192x14336xbf16>
    return %7 : tensor<8192x14336xbf16>
  }
}
