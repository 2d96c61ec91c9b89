// Three projections of one input (torch-mlir output of the PyTorch expression below) become
// one kernel over the concatenated weights; each epilogue runs on its column range and the
// original results are slices of the merged one.
// RUN: split-file %s %t
// RUN: coda-opt --coda-fuse-epilogue --coda-merge-siblings %t/qkv.mlir -o %t/merged.mlir
// RUN: FileCheck %s < %t/merged.mlir
// RUN: coda-run %t/merged.mlir --against %t/qkv.mlir | FileCheck %s --check-prefix=SAME
// SAME-COUNT-3: : ok

// CHECK-LABEL: func.func @qkv_projections
// CHECK:       %[[W:.*]] = call @coda_concat_weights_32x32_16x32_16x32_rows(%arg1, %arg2, %arg3)
// CHECK-SAME:    -> tensor<64x32xf32>
// CHECK:       %[[BIAS:.*]] = tensor.insert_slice %{{.*}}[48] [16] [1] : tensor<16xf32> into tensor<64xf32>
// CHECK:       %[[G:.*]] = coda.gemm %arg0, %[[W]] transpose_b : tensor<8x32xf32>, tensor<64x32xf32>
// CHECK-NEXT:    with(%[[BIAS]] as col : tensor<64xf32>)
// CHECK-NEXT:    -> (store tensor<8x64xf32>)
// CHECK:         math.exp
// CHECK:         arith.cmpi ult, %{{.*}}, %c48
// CHECK:         arith.cmpi ult, %{{.*}}, %c32
// CHECK:       %[[Q:.*]] = tensor.extract_slice %[[G]][0, 0] [8, 32] [1, 1]
// CHECK:       %[[K:.*]] = tensor.extract_slice %[[G]][0, 32] [8, 16] [1, 1]
// CHECK:       %[[V:.*]] = tensor.extract_slice %[[G]][0, 48] [8, 16] [1, 1]
// CHECK:       return %[[Q]], %[[K]], %[[V]]
// CHECK-LABEL: func.func private @coda_concat_weights_32x32_16x32_16x32_rows
// CHECK-SAME:    attributes {coda.weight_prep}

//--- qkv.mlir
// return F.silu(x @ wq.t()), x @ wk.t() + bk, x @ wv.t()
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @qkv_projections(%arg0: tensor<8x32xf32>, %arg1: tensor<32x32xf32>, %arg2: tensor<16x32xf32>, %arg3: tensor<16x32xf32>, %arg4: tensor<16xf32>) -> (tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x32xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<32x32xf32>) outs(%0 : tensor<32x32xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x32xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x32xf32>) outs(%2 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8x32xf32>) outs(%1 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.negf %in : f32
      %13 = math.exp %12 : f32
      %14 = arith.addf %13, %cst_0 : f32
      %15 = arith.divf %cst_0, %14 : f32
      linalg.yield %15 : f32
    } -> tensor<8x32xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %4 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%1 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %12 = arith.mulf %in, %in_3 : f32
      linalg.yield %12 : f32
    } -> tensor<8x32xf32>
    %6 = tensor.empty() : tensor<32x16xf32>
    %transposed_1 = linalg.transpose ins(%arg2 : tensor<16x32xf32>) outs(%6 : tensor<32x16xf32>) permutation = [1, 0] 
    %7 = tensor.empty() : tensor<8x16xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %9 = linalg.matmul ins(%arg0, %transposed_1 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%8 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg4 : tensor<8x16xf32>, tensor<16xf32>) outs(%7 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %12 = arith.addf %in, %in_3 : f32
      linalg.yield %12 : f32
    } -> tensor<8x16xf32>
    %transposed_2 = linalg.transpose ins(%arg3 : tensor<16x32xf32>) outs(%6 : tensor<32x16xf32>) permutation = [1, 0] 
    %11 = linalg.matmul ins(%arg0, %transposed_2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%8 : tensor<8x16xf32>) -> tensor<8x16xf32>
    return %5, %10, %11 : tensor<8x32xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  }
}
