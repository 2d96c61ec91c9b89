// the Llama-3 block post attention at {'M': 1, 'D': 4096, 'NQ': 32, 'NKV': 8, 'HD': 128, 'FFN': 14336}, written by bench/block_programs.py
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<1x4096xbf16>, %arg1: tensor<1x4096xbf16>, %arg2: tensor<4096x4096xbf16>, %arg3: tensor<4096xbf16>, %arg4: tensor<28672x4096xbf16>, %arg5: tensor<4096x14336xbf16>) -> tensor<1x4096xbf16> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %cst_2 = arith.constant 4.096000e+03 : f32
    %0 = tensor.empty() : tensor<4096x4096xbf16>
    %transposed = linalg.transpose ins(%arg2 : tensor<4096x4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<1x4096xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x4096xf32>) -> tensor<1x4096xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<1x4096xbf16>, tensor<4096x4096xbf16>) outs(%2 : tensor<1x4096xf32>) -> tensor<1x4096xf32>
    %4 = tensor.empty() : tensor<1x4096xbf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<1x4096xf32>) outs(%4 : tensor<1x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %37 = arith.truncf %in : f32 to bf16
      linalg.yield %37 : bf16
    } -> tensor<1x4096xbf16>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %5 : tensor<1x4096xbf16>, tensor<1x4096xbf16>) outs(%4 : tensor<1x4096xbf16>) {
    ^bb0(%in: bf16, %in_6: bf16, %out: bf16):
      %37 = arith.addf %in, %in_6 : bf16
      linalg.yield %37 : bf16
    } -> tensor<1x4096xbf16>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<1x4096xbf16>) outs(%1 : tensor<1x4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %37 = arith.extf %in : bf16 to f32
      linalg.yield %37 : f32
    } -> tensor<1x4096xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<1x4096xf32>) outs(%1 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %37 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %37 : f32
    } -> tensor<1x4096xf32>
    %9 = tensor.empty() : tensor<1x1xf32>
    %10 = linalg.fill ins(%cst : f32) outs(%9 : tensor<1x1xf32>) -> tensor<1x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<1x4096xf32>) outs(%10 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %37 = arith.addf %in, %out : f32
      linalg.yield %37 : f32
    } -> tensor<1x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<1x1xf32>) outs(%9 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %37 = arith.divf %in, %cst_2 : f32
      linalg.yield %37 : f32
    } -> tensor<1x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<1x1xf32>) outs(%9 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %37 = arith.truncf %cst_1 : f64 to f32
      %38 = arith.addf %in, %37 : f32
      linalg.yield %38 : f32
    } -> tensor<1x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<1x1xf32>) outs(%9 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %37 = math.rsqrt %in : f32
      linalg.yield %37 : f32
    } -> tensor<1x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %14 : tensor<1x4096xf32>, tensor<1x1xf32>) outs(%1 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %37 = arith.mulf %in, %in_6 : f32
      linalg.yield %37 : f32
    } -> tensor<1x4096xf32>
    %16 = tensor.empty() : tensor<4096xf32>
    %17 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg3 : tensor<4096xbf16>) outs(%16 : tensor<4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %37 = arith.extf %in : bf16 to f32
      linalg.yield %37 : f32
    } -> tensor<4096xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %17 : tensor<1x4096xf32>, tensor<4096xf32>) outs(%1 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %37 = arith.mulf %in, %in_6 : f32
      linalg.yield %37 : f32
    } -> tensor<1x4096xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<1x4096xf32>) outs(%4 : tensor<1x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %37 = arith.truncf %in : f32 to bf16
      linalg.yield %37 : bf16
    } -> tensor<1x4096xbf16>
    %20 = tensor.empty() : tensor<4096x28672xbf16>
    %transposed_3 = linalg.transpose ins(%arg4 : tensor<28672x4096xbf16>) outs(%20 : tensor<4096x28672xbf16>) permutation = [1, 0] 
    %21 = tensor.empty() : tensor<1x28672xf32>
    %22 = linalg.fill ins(%cst : f32) outs(%21 : tensor<1x28672xf32>) -> tensor<1x28672xf32>
    %23 = linalg.matmul ins(%19, %transposed_3 : tensor<1x4096xbf16>, tensor<4096x28672xbf16>) outs(%22 : tensor<1x28672xf32>) -> tensor<1x28672xf32>
    %24 = tensor.empty() : tensor<1x28672xbf16>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%23 : tensor<1x28672xf32>) outs(%24 : tensor<1x28672xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %37 = arith.truncf %in : f32 to bf16
      linalg.yield %37 : bf16
    } -> tensor<1x28672xbf16>
    %extracted_slice = tensor.extract_slice %25[0, 0] [1, 14336] [1, 1] : tensor<1x28672xbf16> to tensor<1x14336xbf16>
    %extracted_slice_4 = tensor.extract_slice %25[0, 14336] [1, 14336] [1, 1] : tensor<1x28672xbf16> to tensor<1x14336xbf16>
    %26 = tensor.empty() : tensor<1x14336xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<1x14336xbf16>) outs(%26 : tensor<1x14336xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %37 = arith.extf %in : bf16 to f32
      linalg.yield %37 : f32
    } -> tensor<1x14336xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%27 : tensor<1x14336xf32>) outs(%26 : tensor<1x14336xf32>) {
    ^bb0(%in: f32, %out: f32):
      %37 = arith.negf %in : f32
      %38 = math.exp %37 : f32
      %39 = arith.addf %38, %cst_0 : f32
      %40 = arith.divf %cst_0, %39 : f32
      linalg.yield %40 : f32
    } -> tensor<1x14336xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%27, %28 : tensor<1x14336xf32>, tensor<1x14336xf32>) outs(%26 : tensor<1x14336xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %37 = arith.mulf %in, %in_6 : f32
      linalg.yield %37 : f32
    } -> tensor<1x14336xf32>
    %30 = tensor.empty() : tensor<1x14336xbf16>
    %31 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%29 : tensor<1x14336xf32>) outs(%30 : tensor<1x14336xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %37 = arith.truncf %in : f32 to bf16
      linalg.yield %37 : bf16
    } -> tensor<1x14336xbf16>
    %32 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%31, %extracted_slice_4 : tensor<1x14336xbf16>, tensor<1x14336xbf16>) outs(%30 : tensor<1x14336xbf16>) {
    ^bb0(%in: bf16, %in_6: bf16, %out: bf16):
      %37 = arith.mulf %in, %in_6 : bf16
      linalg.yield %37 : bf16
    } -> tensor<1x14336xbf16>
    %33 = tensor.empty() : tensor<14336x4096xbf16>
    %transposed_5 = linalg.transpose ins(%arg5 : tensor<4096x14336xbf16>) outs(%33 : tensor<14336x4096xbf16>) permutation = [1, 0] 
    %34 = linalg.matmul ins(%32, %transposed_5 : tensor<1x14336xbf16>, tensor<14336x4096xbf16>) outs(%2 : tensor<1x4096xf32>) -> tensor<1x4096xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%34 : tensor<1x4096xf32>) outs(%4 : tensor<1x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %37 = arith.truncf %in : f32 to bf16
      linalg.yield %37 : bf16
    } -> tensor<1x4096xbf16>
    %36 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %35 : tensor<1x4096xbf16>, tensor<1x4096xbf16>) outs(%4 : tensor<1x4096xbf16>) {
    ^bb0(%in: bf16, %in_6: bf16, %out: bf16):
      %37 = arith.addf %in, %in_6 : bf16
      linalg.yield %37 : bf16
    } -> tensor<1x4096xbf16>
    return %36 : tensor<1x4096xbf16>
  }
}
