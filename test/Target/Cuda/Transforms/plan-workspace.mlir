// The workspace of each function launcher: per launcher, an offset per result in the
// workspace (-1 where the result lives in the caller's buffer), 256-byte aligned, in launch
// order; the weight preparation, which reads only arguments, is marked and gets launchers of
// its own. The launcher that coda-translate prints reads these offsets.
// RUN: coda-opt --coda-schedule-launches --coda-plan-workspace %coda_src/examples/cuda/rmsnorm_block.mlir | FileCheck %s
// RUN: coda-opt --coda-plan-cuda %coda_src/examples/cuda/rmsnorm_block.mlir | coda-translate --coda-to-cuda --emit-torch-binding | FileCheck %s --check-prefix=CUDA
// Row hand-offs: the counts follow the intermediates of the launch that uses them.
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/small/rmsnorm_qkv.mlir | coda-opt --coda-plan-cuda | FileCheck %s --check-prefix=ROWS

// CHECK-LABEL: func.func private @prepare_qkv_weights(
// CHECK-SAME:    coda.workspace_bytes = {run = 0 : i64}
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    coda.workspace_bytes = {prepare = 0 : i64, run = 787456 : i64, run_prepared = 1024 : i64}
// The prepared weights: 768 x 512 bf16 at 0 when the whole function runs, the prepare
// launcher's output otherwise.
// CHECK:         call @prepare_qkv_weights({{.*}}) {coda.prepares, coda.workspace = {run = array<i64: 0>}}
// The first product's stored result is returned (the caller's buffer); its row sums follow
// the weights, or start the workspace of the prepared run.
// CHECK:         coda.gemm
// CHECK:           coda.workspace = {run = array<i64: -1, 786432>, run_prepared = array<i64: -1, 0>}

// CUDA-LABEL: extern "C" size_t main_run_workspace_size() {
// CUDA:         return 787456 + scratch;
// CUDA-LABEL: extern "C" int main_run(
// CUDA:         main_k1(static_cast<__nv_bfloat16 *>(result0), reinterpret_cast<__nv_bfloat16 *>(ws + 0), reinterpret_cast<float *>(ws + 786432)
// CUDA-LABEL: extern "C" size_t main_run_prepared_workspace_size() {
// CUDA:         return 1024 + scratch;

// ROWS-LABEL: func.func @main(
// ROWS-SAME:    coda.workspace_bytes = {prepare = {{[0-9]+}} : i64, run = {{[0-9]+}} : i64, run_prepared = {{[0-9]+}} : i64}
// ROWS:         linalg.generic
// ROWS-SAME:      coda.hands_rows
// ROWS-SAME:      coda.rows_done = {run = {{[0-9]+}} : i64, run_prepared = {{[0-9]+}} : i64}

// A scalar op at the top of a function has nothing to lay out (a fuzzer finding: it crashed).
// RUN: coda-opt --coda-plan-cuda %S/Inputs/scalar-ops.mlir | FileCheck %s --check-prefix=SCALAR
// RUN: coda-translate --coda-to-cuda %S/Inputs/scalar-ops.mlir 2>&1 | FileCheck %s --check-prefix=SCALAR-CUDA
// SCALAR: func.func @scalar({{.*}}coda.workspace_bytes = {run = 0 : i64}
// SCALAR-CUDA: warning: no launcher for @scalar: its signature has a non-tensor or dynamic type

// The counts of a row hand-off follow the kernel's tile M: the workspace is laid out after the
// kernel configurations, and refused before them.
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/small/rmsnorm_qkv.mlir | coda-opt --coda-plan-row-handoffs --coda-schedule-launches | not coda-opt --coda-plan-workspace 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: error: hands its rows to a kernel without a 'coda.kernel' configuration (--coda-plan-kernel-configs runs before --coda-plan-workspace)
