// --target names the GPU the analytic model ranks configurations for (GpuTargets.def): the H200
// by default, the H100 SXM by name; an unknown name is an error that lists the known ones, and
// nothing is written.
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/bias_gelu.mlir | FileCheck %s
// RUN: coda-translate --coda-to-cuda --target=h200 %coda_src/examples/cuda/bias_gelu.mlir | FileCheck %s
// RUN: coda-translate --coda-to-cuda --target=h100-sxm %coda_src/examples/cuda/bias_gelu.mlir | FileCheck %s
// RUN: rm -f %t.cu && not coda-translate --coda-to-cuda --target=a100 %coda_src/examples/cuda/bias_gelu.mlir -o %t.cu 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not test -e %t.cu

// CHECK: // configuration: {{.*}} (analytic model)
// CHECK: extern "C" int main_k0(
// UNKNOWN: error: --target: unknown GPU 'a100'; known: h200 (NVIDIA H200 (141 GB HBM3e)) h100-sxm (NVIDIA H100 SXM (80 GB HBM3))

// The A/B alternatives of the default paths are named by one option; an unknown name is an
// error that lists the known ones.
// RUN: not coda-translate --coda-to-cuda --cuda-without=tma-halves,bogus %coda_src/examples/cuda/bias_gelu.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=WITHOUT
// WITHOUT: error: --cuda-without: unknown path 'bogus'; expected tma-halves, tma-contract, tma-tables, overlap-rows, whole-waves or direct-launch
