// Split-K: where a product's tiles are fewer than the SMs (decode-sized M), the analytic model
// divides each tile's K loop among CTAs of a cooperative kernel, on CUTLASS's stream-K
// scheduler in split-K mode; the splits size the workspace wherever it is computed, and the
// grid is one CTA per unit, not whole waves. At M 8192 nothing splits.
// RUN: coda-translate --coda-to-cuda %S/Inputs/split_k.mlir | FileCheck %s
// RUN: coda-translate --coda-to-cuda --target=h100-sxm %S/Inputs/split_k.mlir | FileCheck %s
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/anchor/down_residual.mlir | coda-translate --coda-to-cuda | FileCheck %s --check-prefix=LARGE
// RUN: coda-opt --coda-plan-kernel-configs %S/Inputs/split_k.mlir | FileCheck %s --check-prefix=PLAN
// A tuning database entry may set the split count.
// RUN: coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db-splits.json %S/Inputs/split_k.mlir | FileCheck %s --check-prefix=DB

// CHECK:       // configuration: 128x128x64 cluster {{[12]x[12]}} cooperative raster heuristic split 4 (analytic model)
// CHECK:       coda-candidate: {{.*}}"splits": 4} model
// CHECK:       coda-candidate: {{.*}}"splits": 2} model
// CHECK-LABEL: struct down_k0_kernel {
// CHECK:         using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
// CHECK:         CollectiveMainloop, CollectiveEpilogue, cutlass::gemm::StreamKScheduler>;
// CHECK-LABEL: extern "C" int down_k0(
// CHECK:         args.scheduler.splits = 4;
// CHECK-NEXT:    args.scheduler.decomposition_mode = cutlass::gemm::kernel::detail::DecompositionMode::SplitK;
// CHECK-NEXT:    size_t gemmBytes = coda_round_up(G::get_workspace_size(args));
// CHECK:         args.hw_info.sm_count = coda::rt::smCount();
// CHECK-NOT:     wholeWaves
// CHECK-LABEL: extern "C" size_t down_k0_workspace_size(
// CHECK:         args.scheduler.splits = 4;
// CHECK-NEXT:    args.scheduler.decomposition_mode = cutlass::gemm::kernel::detail::DecompositionMode::SplitK;

// LARGE:       // configuration: 128x256x64 cluster 2x1 cooperative raster heuristic epilogue 128x64 (analytic model)
// LARGE-NOT:   args.scheduler.splits
// LARGE-NOT:   StreamKScheduler

// PLAN: coda.kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, {{.*}}schedule = cooperative, splits = 4, stores = [tma, partials]>

// DB:          // configuration: 128x256x64 cluster 1x1 cooperative raster heuristic split 2 (tuning database)
// DB:          args.scheduler.splits = 2;
