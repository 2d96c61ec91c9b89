// Gate and up projections stored as one concatenated weight (torch-mlir output of the PyTorch
// expression below): the product read through two column slices becomes two products over
// weight slices, which the rest of --coda-fuse pairs into one pairwise(contract) kernel.
// RUN: split-file %s %t
// RUN: coda-opt --coda-split-sliced-matmul %t/chunk.mlir -o %t/split.mlir
// RUN: FileCheck %s < %t/split.mlir
// RUN: coda-run %t/split.mlir --against %t/chunk.mlir | FileCheck %s --check-prefix=SAME
// RUN: coda-opt --coda-fuse %t/chunk.mlir -o %t/fused.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t/fused.mlir
// RUN: coda-run %t/fused.mlir --against %t/chunk.mlir | FileCheck %s --check-prefix=SAME
// SAME: result #0: {{.*}}: ok

// bf16 (bench/programs/small/swiglu.mlir): torch-mlir rounds the product to bf16 before slicing
// it; the rounding is applied to each slice's product, and the rest fuses as in f32.
// RUN: coda-opt --coda-split-sliced-matmul %coda_src/bench/programs/small/swiglu.mlir -o %t/split-bf16.mlir
// RUN: FileCheck %s --check-prefix=BF16 < %t/split-bf16.mlir
// RUN: coda-run %t/split-bf16.mlir --against %coda_src/bench/programs/small/swiglu.mlir | FileCheck %s --check-prefix=SAME
// BF16:        %[[G:.*]] = linalg.matmul ins(%arg0, %{{.*}} : tensor<256x512xbf16>, tensor<512x1024xbf16>) outs(%{{.*}} : tensor<256x1024xf32>)
// BF16-NEXT:   %[[E:.*]] = tensor.empty() : tensor<256x1024xbf16>
// BF16-NEXT:   %[[GB:.*]] = linalg.generic {{.*}} ins(%[[G]] : tensor<256x1024xf32>) outs(%[[E]] : tensor<256x1024xbf16>)
// BF16:          arith.truncf
// BF16:        linalg.matmul ins(%arg0, %{{.*}} : tensor<256x512xbf16>, tensor<512x1024xbf16>) outs(%{{.*}} : tensor<256x1024xf32>)
// BF16-NOT:    tensor<256x2048x

// CHECK-LABEL: func.func @swiglu_concatenated
// CHECK:       %[[WG:.*]] = tensor.extract_slice %arg1[0, 0] [48, 32] [1, 1] : tensor<96x32xf32> to tensor<48x32xf32>
// CHECK:       %[[WGT:.*]] = linalg.transpose ins(%[[WG]] : tensor<48x32xf32>)
// CHECK:       %[[G:.*]] = linalg.matmul ins(%arg0, %[[WGT]] : tensor<8x32xf32>, tensor<32x48xf32>)
// CHECK:       %[[WU:.*]] = tensor.extract_slice %arg1[48, 0] [48, 32] [1, 1] : tensor<96x32xf32> to tensor<48x32xf32>
// CHECK:       %[[WUT:.*]] = linalg.transpose ins(%[[WU]] : tensor<48x32xf32>)
// CHECK:       %[[U:.*]] = linalg.matmul ins(%arg0, %[[WUT]] : tensor<8x32xf32>, tensor<32x48xf32>)
// CHECK-NOT:   tensor<8x96xf32>

// FUSED-LABEL: func.func @swiglu_concatenated
// FUSED:       call @coda_interleave_48x32_rows
// FUSED:       coda.gemm %arg0, %{{.*}} transpose_b pairwise(contract) : tensor<8x32xf32>, tensor<96x32xf32>
// FUSED-NOT:   coda.gemm

//--- chunk.mlir
// g, u = (x @ w.t()).chunk(2, dim=-1); return F.silu(g) * u
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @swiglu_concatenated(%arg0: tensor<8x32xf32>, %arg1: tensor<96x32xf32>) -> tensor<8x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x96xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<96x32xf32>) outs(%0 : tensor<32x96xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x96xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x96xf32>) -> tensor<8x96xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x32xf32>, tensor<32x96xf32>) outs(%2 : tensor<8x96xf32>) -> tensor<8x96xf32>
    %extracted_slice = tensor.extract_slice %3[0, 0] [8, 48] [1, 1] : tensor<8x96xf32> to tensor<8x48xf32>
    %extracted_slice_1 = tensor.extract_slice %3[0, 48] [8, 48] [1, 1] : tensor<8x96xf32> to tensor<8x48xf32>
    %4 = tensor.empty() : tensor<8x48xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<8x48xf32>) outs(%4 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = arith.negf %in : f32
      %9 = math.exp %8 : f32
      %10 = arith.addf %9, %cst_0 : f32
      %11 = arith.divf %cst_0, %10 : f32
      linalg.yield %11 : f32
    } -> tensor<8x48xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice, %5 : tensor<8x48xf32>, tensor<8x48xf32>) outs(%4 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %8 = arith.mulf %in, %in_2 : f32
      linalg.yield %8 : f32
    } -> tensor<8x48xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %extracted_slice_1 : tensor<8x48xf32>, tensor<8x48xf32>) outs(%4 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %8 = arith.mulf %in, %in_2 : f32
      linalg.yield %8 : f32
    } -> tensor<8x48xf32>
    return %7 : tensor<8x48xf32>
  }
}
