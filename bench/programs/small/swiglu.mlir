// swiglu at {'M': 256, 'D': 512, 'FFN': 1024, 'QKV': 768, 'QK': 640, 'V': 4096, 'HD': 128}, written by bench/anchor_programs.py (torch-mlir)
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<256x512xbf16>, %arg1: tensor<2048x512xbf16>) -> tensor<256x1024xbf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<512x2048xbf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<2048x512xbf16>) outs(%0 : tensor<512x2048xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<256x2048xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<256x2048xf32>) -> tensor<256x2048xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<256x512xbf16>, tensor<512x2048xbf16>) outs(%2 : tensor<256x2048xf32>) -> tensor<256x2048xf32>
    %4 = tensor.empty() : tensor<256x2048xbf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<256x2048xf32>) outs(%4 : tensor<256x2048xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %13 = arith.truncf %in : f32 to bf16
      linalg.yield %13 : bf16
    } -> tensor<256x2048xbf16>
    %extracted_slice = tensor.extract_slice %5[0, 0] [256, 1024] [1, 1] : tensor<256x2048xbf16> to tensor<256x1024xbf16>
    %extracted_slice_1 = tensor.extract_slice %5[0, 1024] [256, 1024] [1, 1] : tensor<256x2048xbf16> to tensor<256x1024xbf16>
    %6 = tensor.empty() : tensor<256x1024xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<256x1024xbf16>) outs(%6 : tensor<256x1024xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %13 = arith.extf %in : bf16 to f32
      linalg.yield %13 : f32
    } -> tensor<256x1024xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<256x1024xf32>) outs(%6 : tensor<256x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.negf %in : f32
      %14 = math.exp %13 : f32
      %15 = arith.addf %14, %cst_0 : f32
      %16 = arith.divf %cst_0, %15 : f32
      linalg.yield %16 : f32
    } -> tensor<256x1024xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %8 : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%6 : tensor<256x1024xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %13 = arith.mulf %in, %in_2 : f32
      linalg.yield %13 : f32
    } -> tensor<256x1024xf32>
    %10 = tensor.empty() : tensor<256x1024xbf16>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<256x1024xf32>) outs(%10 : tensor<256x1024xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %13 = arith.truncf %in : f32 to bf16
      linalg.yield %13 : bf16
    } -> tensor<256x1024xbf16>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %extracted_slice_1 : tensor<256x1024xbf16>, tensor<256x1024xbf16>) outs(%10 : tensor<256x1024xbf16>) {
    ^bb0(%in: bf16, %in_2: bf16, %out: bf16):
      %13 = arith.mulf %in, %in_2 : bf16
      linalg.yield %13 : bf16
    } -> tensor<256x1024xbf16>
    return %12 : tensor<256x1024xbf16>
  }
}
