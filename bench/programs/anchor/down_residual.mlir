// down_residual at {'M': 8192, 'D': 4096, 'FFN': 14336, 'QKV': 6144, 'QK': 5120, 'V': 128256, 'HD': 128}, written by bench/anchor_programs.py (torch-mlir)
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8192x14336xbf16>, %arg1: tensor<4096x14336xbf16>, %arg2: tensor<8192x4096xbf16>) -> tensor<8192x4096xbf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<14336x4096xbf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<4096x14336xbf16>) outs(%0 : tensor<14336x4096xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8192x4096xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8192x4096xf32>) -> tensor<8192x4096xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8192x14336xbf16>, tensor<14336x4096xbf16>) outs(%2 : tensor<8192x4096xf32>) -> tensor<8192x4096xf32>
    %4 = tensor.empty() : tensor<8192x4096xbf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8192x4096xf32>) outs(%4 : tensor<8192x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %7 = arith.truncf %in : f32 to bf16
      linalg.yield %7 : bf16
    } -> tensor<8192x4096xbf16>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %5 : tensor<8192x4096xbf16>, tensor<8192x4096xbf16>) outs(%4 : tensor<8192x4096xbf16>) {
    ^bb0(%in: bf16, %in_0: bf16, %out: bf16):
      %7 = arith.addf %in, %in_0 : bf16
      linalg.yield %7 : bf16
    } -> tensor<8192x4096xbf16>
    return %6 : tensor<8192x4096xbf16>
  }
}
