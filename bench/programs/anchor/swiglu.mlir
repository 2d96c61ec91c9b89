// swiglu at {'M': 8192, 'D': 4096, 'FFN': 14336, 'QKV': 6144, 'QK': 5120, 'V': 128256, 'HD': 128}, written by bench/anchor_programs.py (torch-mlir)
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8192x4096xbf16>, %arg1: tensor<28672x4096xbf16>) -> tensor<8192x14336xbf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<4096x28672xbf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<28672x4096xbf16>) outs(%0 : tensor<4096x28672xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8192x28672xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8192x28672xf32>) -> tensor<8192x28672xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8192x4096xbf16>, tensor<4096x28672xbf16>) outs(%2 : tensor<8192x28672xf32>) -> tensor<8192x28672xf32>
    %4 = tensor.empty() : tensor<8192x28672xbf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8192x28672xf32>) outs(%4 : tensor<8192x28672xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %13 = arith.truncf %in : f32 to bf16
      linalg.yield %13 : bf16
    } -> tensor<8192x28672xbf16>
    %extracted_slice = tensor.extract_slice %5[0, 0] [8192, 14336] [1, 1] : tensor<8192x28672xbf16> to tensor<8192x14336xbf16>
    %extracted_slice_1 = tensor.extract_slice %5[0, 14336] [8192, 14336] [1, 1] : tensor<8192x28672xbf16> to tensor<8192x14336xbf16>
    %6 = tensor.empty() : tensor<8192x14336xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<8192x14336xbf16>) outs(%6 : tensor<8192x14336xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %13 = arith.extf %in : bf16 to f32
      linalg.yield %13 : f32
    } -> tensor<8192x14336xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<8192x14336xf32>) outs(%6 : tensor<8192x14336xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.negf %in : f32
      %14 = math.exp %13 : f32
      %15 = arith.addf %14, %cst_0 : f32
      %16 = arith.divf %cst_0, %15 : f32
      linalg.yield %16 : f32
    } -> tensor<8192x14336xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %8 : tensor<8192x14336xf32>, tensor<8192x14336xf32>) outs(%6 : tensor<8192x14336xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %13 = arith.mulf %in, %in_2 : f32
      linalg.yield %13 : f32
    } -> tensor<8192x14336xf32>
    %10 = tensor.empty() : tensor<8192x14336xbf16>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<8192x14336xf32>) outs(%10 : tensor<8192x14336xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %13 = arith.truncf %in : f32 to bf16
      linalg.yield %13 : bf16
    } -> tensor<8192x14336xbf16>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %extracted_slice_1 : tensor<8192x14336xbf16>, tensor<8192x14336xbf16>) outs(%10 : tensor<8192x14336xbf16>) {
    ^bb0(%in: bf16, %in_2: bf16, %out: bf16):
      %13 = arith.mulf %in, %in_2 : bf16
      linalg.yield %13 : bf16
    } -> tensor<8192x14336xbf16>
    return %12 : tensor<8192x14336xbf16>
  }
}
