// --max-splits: the analytic model may split each tile's K loop (CUTLASS's stream-K scheduler in
// split-K mode, cooperative only). A decode-sized product (64 rows, K = 14336) takes 4 splits,
// set wherever the workspace is sized; without the option nothing splits; bad values and bad
// database entries are refused.

// RUN: coda-translate --coda-to-cuda --max-splits=4 %s | FileCheck %s
// RUN: coda-translate --coda-to-cuda %s | FileCheck %s --check-prefix=NONE
// RUN: rm -f %t.cu && not coda-translate --coda-to-cuda --max-splits=3 %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=BADFLAG
// RUN: not test -e %t.cu
// RUN: not coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db-bad-splits.json %s 2>&1 | FileCheck %s --check-prefix=BADDB

// CHECK:       // configuration: {{.*}} cooperative raster heuristic split 4 (analytic model)
// CHECK:       // coda-candidate: {{.*}}"splits": 4} model
// CHECK:       using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
// CHECK:       CollectiveMainloop, CollectiveEpilogue, cutlass::gemm::StreamKScheduler>;
// CHECK-LABEL: extern "C" int main_k0(
// CHECK:       sD}};
// CHECK-NEXT:  args.scheduler.splits = 4;
// CHECK-NEXT:  args.scheduler.decomposition_mode = cutlass::gemm::kernel::detail::DecompositionMode::SplitK;
// CHECK-NEXT:  size_t gemmBytes = coda_round_up(G::get_workspace_size(args));
// CHECK-LABEL: extern "C" size_t main_k0_workspace_size(int m, int n, int k) {
// CHECK:       args.scheduler.splits = 4;
// CHECK-NEXT:  args.scheduler.decomposition_mode = cutlass::gemm::kernel::detail::DecompositionMode::SplitK;
// CHECK-NEXT:  return coda_round_up(G::get_workspace_size(args));

// NONE-NOT:    split
// NONE-NOT:    StreamKScheduler

// BADFLAG: error: --max-splits must be 1, 2 or 4, got 3
// BADDB: error: tuning database '{{.*}}tuning-db-bad-splits.json': entry 'any': split-K needs the cooperative schedule

func.func @main(%x: tensor<64x14336xbf16>, %w: tensor<4096x14336xbf16>, %b: tensor<4096xf32>)
    -> tensor<64x4096xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<64x14336xbf16>, tensor<4096x14336xbf16>
      with(%b as col : tensor<4096xf32>)
      -> (store tensor<64x4096xbf16>)
      epilogue(%acc: f32, %bias: f32, %i: index, %j: index) {
    %s = arith.addf %acc, %bias : f32
    coda.yield %s : f32
  }
  return %y : tensor<64x4096xbf16>
}

// A decode-sized residual + Σh² (the o-projection of one token batch): split-K with a TMA-read
// residual and a row reduction's per-tile partials (compiled by nvcc/split_k.test).
// CHECK-LABEL: // residual_k0:
// CHECK:       split 4 (analytic model)
// CHECK:       cutlass::epilogue::fusion::Sm90ColReduction<
// CHECK:       CollectiveMainloop, CollectiveEpilogue, cutlass::gemm::StreamKScheduler>;
func.func @residual(%x: tensor<64x14336xbf16>, %w: tensor<4096x14336xbf16>,
    %res: tensor<64x4096xbf16>) -> (tensor<64x4096xbf16>, tensor<64xf32>) {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<64x14336xbf16>, tensor<4096x14336xbf16>
      with(%res as matrix : tensor<64x4096xbf16>)
      -> (store tensor<64x4096xbf16>, reduce<row, sumsq> tensor<64xf32>)
      epilogue(%acc: f32, %r: bf16, %i: index, %j: index) {
    %rf = arith.extf %r : bf16 to f32
    %s = arith.addf %acc, %rf : f32
    coda.yield %s, %s : f32, f32
  }
  return %h, %ss : tensor<64x4096xbf16>, tensor<64xf32>
}
