#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> ()>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<16x0xf32>, %arg1: tensor<0xf32>, %arg2: tensor<96x0xf32>, %arg3: tensor<96x0xf32>, %arg4: tensor<0x96xf32>, %arg5: tensor<128x0xf32>, %arg6: tensor<f32>) -> (tensor<16x0xf32>, tensor<16x128xf32>) {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %c3_i64 = arith.constant 3 : i64
    %cst_0 = arith.constant 4.471500e-02 : f32
    %cst_1 = arith.constant 7.977240e-01 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %cst_4 = arith.constant 9.9999999999999995E-7 : f64
    %cst_5 = arith.constant 6.400000e+01 : f32
    %0 = tensor.empty() : tensor<16x0xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<16x0xf32>) outs(%0 : tensor<16x0xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %34 : f32
    } -> tensor<16x0xf32>
    %2 = tensor.empty() : tensor<16x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x1xf32>) -> tensor<16x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<16x0xf32>) outs(%3 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<16x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<16x1xf32>) outs(%2 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.divf %in, %cst_5 : f32
      linalg.yield %34 : f32
    } -> tensor<16x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<16x1xf32>) outs(%2 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.truncf %cst_4 : f64 to f32
      %35 = arith.addf %in, %34 : f32
      linalg.yield %35 : f32
    } -> tensor<16x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<16x1xf32>) outs(%2 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.rsqrt %in : f32
      linalg.yield %34 : f32
    } -> tensor<16x1xf32>
    %8 = call @coda_vector_prep(%arg1) : (tensor<0xf32>) -> tensor<0xf32>
    %9 = tensor.empty() : tensor<16x96xf32>
    %10 = linalg.fill ins(%cst : f32) outs(%9 : tensor<16x96xf32>) -> tensor<16x96xf32>
    %11 = call @coda_norm_weights_96x0_nk_scale1(%arg2, %8) : (tensor<96x0xf32>, tensor<0xf32>) -> tensor<96x0xf32>
    %12 = tensor.empty() : tensor<0x96xf32>
    %transposed = linalg.transpose ins(%11 : tensor<96x0xf32>) outs(%12 : tensor<0x96xf32>) permutation = [1, 0] 
    %13 = linalg.matmul ins(%arg0, %transposed : tensor<16x0xf32>, tensor<0x96xf32>) outs(%10 : tensor<16x96xf32>) -> tensor<16x96xf32>
    %14 = tensor.empty() : tensor<16x96xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%13, %7 : tensor<16x96xf32>, tensor<16x1xf32>) outs(%14 : tensor<16x96xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %34 = arith.mulf %in, %in_9 : f32
      linalg.yield %34 : f32
    } -> tensor<16x96xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<16x96xf32>) outs(%9 : tensor<16x96xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.fpowi %in, %c3_i64 : f32, i64
      %35 = arith.mulf %34, %cst_0 : f32
      %36 = arith.addf %in, %35 : f32
      %37 = arith.mulf %36, %cst_1 : f32
      %38 = math.tanh %37 : f32
      %39 = arith.addf %38, %cst_2 : f32
      %40 = arith.mulf %39, %cst_3 : f32
      %41 = arith.mulf %in, %40 : f32
      linalg.yield %41 : f32
    } -> tensor<16x96xf32>
    %17 = call @coda_norm_weights_96x0_nk_scale1(%arg3, %8) : (tensor<96x0xf32>, tensor<0xf32>) -> tensor<96x0xf32>
    %18 = tensor.empty() : tensor<0x96xf32>
    %transposed_6 = linalg.transpose ins(%17 : tensor<96x0xf32>) outs(%18 : tensor<0x96xf32>) permutation = [1, 0] 
    %19 = linalg.matmul ins(%arg0, %transposed_6 : tensor<16x0xf32>, tensor<0x96xf32>) outs(%10 : tensor<16x96xf32>) -> tensor<16x96xf32>
    %20 = tensor.empty() : tensor<16x96xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %7 : tensor<16x96xf32>, tensor<16x1xf32>) outs(%20 : tensor<16x96xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %34 = arith.mulf %in, %in_9 : f32
      linalg.yield %34 : f32
    } -> tensor<16x96xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%16, %9 : tensor<16x96xf32>, tensor<16x96xf32>) outs(%21 : tensor<16x96xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %34 = arith.mulf %in, %in_9 : f32
      linalg.yield %34 : f32
    } -> tensor<16x96xf32>
    %23 = tensor.empty() : tensor<96x0xf32>
    %transposed_7 = linalg.transpose ins(%arg4 : tensor<0x96xf32>) outs(%23 : tensor<96x0xf32>) permutation = [1, 0] 
    %24 = linalg.fill ins(%cst : f32) outs(%0 : tensor<16x0xf32>) -> tensor<16x0xf32>
    %25 = linalg.matmul ins(%22, %transposed_7 : tensor<16x96xf32>, tensor<96x0xf32>) outs(%24 : tensor<16x0xf32>) -> tensor<16x0xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %25 : tensor<16x0xf32>, tensor<16x0xf32>) outs(%0 : tensor<16x0xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %34 = arith.addf %in, %in_9 : f32
      linalg.yield %34 : f32
    } -> tensor<16x0xf32>
    %27 = tensor.empty() : tensor<0x128xf32>
    %transposed_8 = linalg.transpose ins(%arg5 : tensor<128x0xf32>) outs(%27 : tensor<0x128xf32>) permutation = [1, 0] 
    %28 = tensor.empty() : tensor<16x128xf32>
    %29 = linalg.fill ins(%cst : f32) outs(%28 : tensor<16x128xf32>) -> tensor<16x128xf32>
    %30 = linalg.matmul ins(%26, %transposed_8 : tensor<16x0xf32>, tensor<0x128xf32>) outs(%29 : tensor<16x128xf32>) -> tensor<16x128xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%30, %arg6 : tensor<16x128xf32>, tensor<f32>) outs(%28 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %34 = arith.divf %in, %in_9 : f32
      linalg.yield %34 : f32
    } -> tensor<16x128xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%31 : tensor<16x128xf32>) outs(%28 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.tanh %in : f32
      linalg.yield %34 : f32
    } -> tensor<16x128xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%32, %arg6 : tensor<16x128xf32>, tensor<f32>) outs(%28 : tensor<16x128xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %34 = arith.mulf %in, %in_9 : f32
      linalg.yield %34 : f32
    } -> tensor<16x128xf32>
    return %26, %33 : tensor<16x0xf32>, tensor<16x128xf32>
  }
  func.func private @coda_vector_prep(%arg0: tensor<0xf32>) -> tensor<0xf32> attributes {coda.weight_prep} {
    %cst = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<0xf32>
    %1 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg0 : tensor<0xf32>) outs(%0 : tensor<0xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = arith.addf %in, %cst : f32
      linalg.yield %2 : f32
    } -> tensor<0xf32>
    return %1 : tensor<0xf32>
  }
  func.func private @coda_norm_weights_96x0_nk_scale1(%arg0: tensor<96x0xf32>, %arg1: tensor<0xf32>) -> tensor<96x0xf32> attributes {coda.weight_prep} {
    %0 = tensor.empty() : tensor<96x0xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<96x0xf32>, tensor<0xf32>) outs(%0 : tensor<96x0xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %2 = arith.mulf %in, %in_0 : f32
      linalg.yield %2 : f32
    } -> tensor<96x0xf32>
    return %1 : tensor<96x0xf32>
  }
}


