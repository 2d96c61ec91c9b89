// --chain-launches: coda's own kernels are launched behind the kernel before them with
// programmatic dependent launch (coda/Runtime/Chain.cuh), each waiting first thing for that
// kernel (griddepcontrol.wait); the GEMMs keep their launch. Not chained: the reduction that
// hands its rows to the GEMM beside it, the kernel after such a GEMM (which does not wait for
// its neighbour) and the kernel after a call of another launcher; the combine after a GEMM is
// chained unless the GEMM runs beside such a reduction. Without the option nothing changes.

// Residual + RMSNorm: the Σh² combine behind the GEMM, the normalization behind the combine.
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/small/residual_rmsnorm.mlir -o %t.rr.mlir
// RUN: coda-translate --coda-to-cuda --chain-launches %t.rr.mlir | FileCheck %s --check-prefix=RR
// RR-LABEL:   extern "C" int main_k0(
// RR:           coda::rt::launchCombine<coda::rt::Combiner::Sum, float>({{.*}}, stream, /*chained=*/true) != cudaSuccess)
// RR-LABEL:   __global__ void main_g0(
// RR-NEXT:      coda::rt::awaitPriorGrid();
// RR-NEXT:      long long point =
// RR-LABEL:   extern "C" int main_run(
// RR:           if (int s = main_k0(
// RR-NEXT:      if (coda::rt::launchProgrammatic(main_g0, dim3(64), dim3(256), stream, static_cast<__nv_bfloat16 *>(result0), {{.*}}) != cudaSuccess)
// RR-NEXT:        return CODA_LAUNCH_FAILED;

// RUN: coda-translate --coda-to-cuda %t.rr.mlir | FileCheck %s --check-prefix=OFF
// OFF-NOT:     awaitPriorGrid
// OFF-NOT:     launchProgrammatic
// OFF-NOT:     chained
// OFF-LABEL:   extern "C" int main_run(
// OFF:           main_g0<<<64, 256, 0, stream>>>(

// QK + RoPE: the tables' kernel right after the weight preparation's call keeps its launch;
// with the weights prepared it is chained.
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/small/qk_rope.mlir -o %t.qk.mlir
// RUN: coda-translate --coda-to-cuda --chain-launches %t.qk.mlir | FileCheck %s --check-prefix=QK
// QK-LABEL:   extern "C" int main_run(
// QK:           // weight preparation @
// QK:           main_g0<<<16, 256, 0, stream>>>(
// QK-LABEL:   extern "C" int main_run_prepared(
// QK:           if (coda::rt::launchProgrammatic(main_g0, dim3(16), dim3(256), stream,

// RUN: coda-translate --coda-to-cuda --chain-launches %s | FileCheck %s
// CHECK-LABEL: static int beside_k0_launch(
// CHECK:         coda::rt::launchCombine<coda::rt::Combiner::Sum, float>({{.*}}, stream, /*chained=*/rowsDone == nullptr) != cudaSuccess)
// CHECK-LABEL: __global__ void __launch_bounds__(1024) beside_g1_published(
// CHECK-NEXT:    coda::rt::publishRows(
// CHECK-LABEL: __global__ void beside_g2(
// CHECK-NEXT:    coda::rt::awaitPriorGrid();
// CHECK-LABEL: extern "C" int beside_run(
// CHECK:           beside_g1_published<<<
// CHECK:         } else {
// CHECK-NEXT:      beside_g1<<<
// CHECK:         if (int s = beside_k0_launch(
// CHECK-NEXT:    beside_g2<<<96, 256, 0, stream>>>(

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
func.func @beside(%x: tensor<256x512xbf16>, %w: tensor<768x512xbf16>)
    -> (tensor<256x768xbf16>, tensor<256xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<256x1xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<256x1xf32>) -> tensor<256x1xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xbf16>) outs(%1 : tensor<256x1xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    %sq = arith.mulf %e, %e : f32
    %s = arith.addf %sq, %out : f32
    linalg.yield %s : f32
  } -> tensor<256x1xf32>
  %ss = tensor.collapse_shape %2 [[0, 1]] : tensor<256x1xf32> into tensor<256xf32>
  %y, %sum = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<768x512xbf16>
      with(%ss as row : tensor<256xf32>)
      -> (store tensor<256x768xbf16>, reduce<row, sum> tensor<256xf32>)
      epilogue(%acc: f32, %r: f32, %i: index, %j: index) {
    %scale = math.rsqrt %r : f32
    %v = arith.mulf %acc, %scale : f32
    coda.yield %v, %v : f32, f32
  }
  %3 = tensor.empty() : tensor<256x768xbf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<256x768xbf16>) outs(%3 : tensor<256x768xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %n = arith.negf %in : bf16
    linalg.yield %n : bf16
  } -> tensor<256x768xbf16>
  return %4, %sum : tensor<256x768xbf16>, tensor<256xf32>
}
