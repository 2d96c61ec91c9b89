// direct-launch (the default): each CUTLASS kernel is launched by coda's host path
// (coda/Runtime/Launch.cuh) instead of GemmUniversalAdapter's initialize and run. Its header
// comes before CUTLASS's (it redirects CUTLASS's driver calls for TMA descriptors); the launcher
// checks can_implement, then coda::rt::launchGemm builds the parameters and launches, with
// programmatic dependent launch where the kernel runs beside the reduction that hands it its
// rows. --cuda-without=direct-launch keeps the adapter and does not include the header.
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/bias_gelu.mlir | FileCheck %s
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/small/rmsnorm_qkv.mlir -o %t.mlir
// RUN: coda-translate --coda-to-cuda %t.mlir | FileCheck %s --check-prefix=PDL
// RUN: coda-translate --coda-to-cuda --cuda-without=direct-launch %coda_src/examples/cuda/bias_gelu.mlir | FileCheck %s --check-prefix=ADAPTER

// CHECK:       #include <cmath>
// CHECK-NEXT:  #include "coda/Runtime/Launch.cuh"
// CHECK-NEXT:  #include "cutlass/cutlass.h"
// CHECK-LABEL: extern "C" int main_k0(
// CHECK-NOT:     G gemm;
// CHECK:         if (G::can_implement(padded) != cutlass::Status::kSuccess) return CODA_UNSUPPORTED;
// CHECK-NEXT:    if (coda::rt::launchGemm<G>(args, workspace, stream) != cudaSuccess) return CODA_LAUNCH_FAILED;
// CHECK-NOT:     gemm.run(

// PDL-LABEL:   static int main_k0_launch(
// PDL:           if (G::can_implement(padded) != cutlass::Status::kSuccess) return CODA_UNSUPPORTED;
// PDL-NEXT:      if (coda::rt::launchGemm<G>(args, workspace, stream, /*pdl=*/rowsDone != nullptr) != cudaSuccess) return CODA_LAUNCH_FAILED;

// ADAPTER-NOT:   Launch.cuh
// ADAPTER-LABEL: extern "C" int main_k0(
// ADAPTER:         if (G::can_implement(padded) != cutlass::Status::kSuccess) return CODA_UNSUPPORTED;
// ADAPTER-NEXT:    G gemm;
// ADAPTER-NEXT:    if (gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess) return CODA_LAUNCH_FAILED;
// ADAPTER-NEXT:    if (gemm.run(stream) != cutlass::Status::kSuccess) return CODA_LAUNCH_FAILED;
// ADAPTER-NOT:   launchGemm
