// Row statistics of A (row_sum, row_sumsq) are summed by the mainloop from A's shared-memory
// tiles: the kernel wraps CUTLASS's mainloop in coda::rt::RowStatsMainloop, the epilogue reads
// them through coda::rt::RowStat nodes, the launcher and the PyTorch function take no operand
// for them, and the stages leave room for their buffer.
// RUN: coda-translate --coda-to-cuda --emit-torch-binding %coda_src/examples/cuda/layernorm_qkv.mlir | FileCheck %s --check-prefix=COOP
// Ping-pong: one buffer per consumer warp group, 128 threads per tile.
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/layernorm_qkv.mlir \
// RUN:   | sed -n 's|^// coda-tuning-key: \(.*\)|{"kernels": {"\1": {"tile": [64, 256, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "heuristic"}}}|p' > %t.pp.json
// RUN: coda-translate --coda-to-cuda --tuning-db=%t.pp.json %coda_src/examples/cuda/layernorm_qkv.mlir | FileCheck %s --check-prefix=PP
// A split of the mainloop would sum part of each row: the model offers none, and a database
// entry with one is not used.
// RUN: coda-translate --coda-to-cuda --max-splits=4 %coda_src/examples/cuda/layernorm_qkv.mlir | FileCheck %s --check-prefix=NOSPLIT
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/layernorm_qkv.mlir \
// RUN:   | sed -n 's|^// coda-tuning-key: \(.*\)|{"kernels": {"\1": {"tile": [128, 256, 64], "cluster": [1, 1], "schedule": "cooperative", "raster": "heuristic", "splits": 2}}}|p' > %t.split.json
// RUN: coda-translate --coda-to-cuda --tuning-db=%t.split.json %coda_src/examples/cuda/layernorm_qkv.mlir | FileCheck %s --check-prefix=DBSPLIT

// COOP:      #include "coda/Runtime/RowStats.cuh"
// COOP:      // main_k0: A · Bᵀ; results: #0 store (TMA store); the mainloop sums A's rows (Σx, Σx²).
// COOP:      // configuration: {{.*}} cooperative
// COOP:        using RowStats = coda::rt::Stats<kTileM, 256, false, true, true>;
// COOP:          cutlass::epilogue::fusion::Sm90RowBroadcast<0, TileShape, float, float>,  // 0
// COOP-NEXT:     coda::rt::RowStat<RowStats, coda::rt::Stat::Sum>,  // 1
// COOP-NEXT:     coda::rt::RowStat<RowStats, coda::rt::Stat::SumSq>,  // 2
// COOP:            sizeof(typename CollectiveEpilogue::SharedStorage)) + RowStats::kBytes>,
// COOP:        using Mainloop = coda::rt::RowStatsMainloop<CollectiveMainloop, RowStats>;
// COOP-NEXT:   using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>,
// COOP-NEXT:       Mainloop, CollectiveEpilogue>;
// COOP:      extern "C" int main_k0(const void *a, const void *b, const void *operand0, void *result0, int m,
// COOP:        args.epilogue.thread = {{[{][{]}}static_cast<const float *>(operand0)}, {}, {}, {}, {}};
// COOP:      extern "C" int main_run(
// COOP:        if (int s = main_k0(static_cast<const __nv_bfloat16 *>(arg0), static_cast<const __nv_bfloat16 *>(arg1), static_cast<const float *>(arg2), static_cast<__nv_bfloat16 *>(result0),
// COOP:      static torch::Tensor coda_torch_main_k0(torch::Tensor a, torch::Tensor b, torch::Tensor operand0) {
// COOP-NOT:    operand1
// COOP:        int status = main_k0(a.data_ptr(), b.data_ptr(), operand0.data_ptr(), result0.data_ptr(),

// PP:        // configuration: 64x256x64 cluster 2x1 pingpong raster heuristic (tuning database)
// PP:          using RowStats = coda::rt::Stats<kTileM, 128, true, true, true>;

// NOSPLIT-NOT: "splits"
// NOSPLIT:     // configuration: {{.*}} (analytic model)
// NOSPLIT-NOT: "splits"

// DBSPLIT:     // configuration: {{.*}} (analytic model)
