// Runtime dispatch on M (--m-dispatch / --coda-plan-kernel-configs="dispatch=..."): a kernel's
// launcher carries one configuration per range of M and picks by the M it is called with, so
// that one file serves decode- and prefill-sized calls. Each range's configuration is planned
// at its largest M (the open range at 8192), the kernel's own range at its own M; neighbours
// with one configuration share a kernel. The launcher and workspace size keep the kernel's
// name, so function launchers and the PyTorch binding call them as before.
// RUN: coda-translate --coda-to-cuda --m-dispatch=64,1024 %S/Inputs/split_k.mlir | FileCheck %s
// RUN: coda-opt --coda-plan-kernel-configs="dispatch=64,1024" %S/Inputs/split_k.mlir | FileCheck %s --check-prefix=PLAN
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/anchor/down_residual.mlir \
// RUN:   | coda-translate --coda-to-cuda --m-dispatch=64 | FileCheck %s --check-prefix=PREFILL
// RUN: not coda-opt --coda-plan-kernel-configs="dispatch=1024,64" %S/Inputs/split_k.mlir 2>&1 | FileCheck %s --check-prefix=ORDER
// Without dispatch, one configuration and no dispatching launcher.
// RUN: coda-translate --coda-to-cuda %S/Inputs/split_k.mlir | FileCheck %s --check-prefix=NONE

// CHECK:       // configuration: 128x128x64 cluster 1x2 cooperative raster heuristic split 4 (analytic model)
// CHECK:       extern "C" int down_k0_m1_64(
// CHECK:       extern "C" size_t down_k0_m1_64_workspace_size(
// CHECK:       // configuration: 128x128x64 cluster 2x1 pingpong raster heuristic epilogue 64x64 (for its range of M, planned at M 1024)
// CHECK:       extern "C" int down_k0_m65_up(
// CHECK-LABEL: extern "C" int down_k0(const void *a, const void *b, const void *operand0, void *result0, void *result1, int m, int n, int k, long long lda, long long ldb, long long ldd, void *workspace, cudaStream_t stream) {
// CHECK-NEXT:    if (m <= 64) return down_k0_m1_64(a, b, operand0, result0, result1, m, n, k, lda, ldb, ldd, workspace, stream);
// CHECK-NEXT:    return down_k0_m65_up(a, b, operand0, result0, result1, m, n, k, lda, ldb, ldd, workspace, stream);
// CHECK-NEXT:  }
// CHECK-LABEL: extern "C" size_t down_k0_workspace_size(int m, int n, int k) {
// CHECK-NEXT:    if (m <= 64) return down_k0_m1_64_workspace_size(m, n, k);
// CHECK-NEXT:    return down_k0_m65_up_workspace_size(m, n, k);
// CHECK-LABEL: extern "C" int down_run(
// CHECK:         down_k0(

// PLAN: coda.dispatch = [{kernel = #coda.kernel<{{.*}}splits = 4{{.*}}>, max_m = 64 : i64, planned_m = 1 : i64}, {kernel = #coda.kernel<{{.*}}schedule = pingpong{{.*}}>, max_m = 1024 : i64, planned_m = 1024 : i64}, {kernel = #coda.kernel<{{.*}}>, planned_m = 8192 : i64}]

// A prefill-sized kernel (M 8192) gains a split-K configuration for decode-sized calls.
// PREFILL:     // configuration: {{.*}} split {{[0-9]+}} (for its range of M, planned at M 64)
// PREFILL:     extern "C" int main_k0_m1_64(
// PREFILL:     // configuration: 128x256x64 cluster 2x1 cooperative raster heuristic epilogue 128x64 (analytic model)
// PREFILL:     extern "C" int main_k0_m65_up(
// PREFILL:     if (m <= 64) return main_k0_m1_64(

// ORDER: error: dispatch: bounds of M must be ascending, from 1 to 2^31 - 2 (a launcher's M is an int), got 64 after 1024

// NONE-NOT:    _m1_64
