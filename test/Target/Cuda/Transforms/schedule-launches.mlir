// RMSNorm -> QKV: the sum of squares hands its rows to the QKV kernel, so the weight
// preparation, which does not read them, is launched first and the reduction right before the
// kernel. Names follow the order before scheduling; the meaning does not change.
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/small/rmsnorm_qkv.mlir -o %t.fused.mlir
// RUN: coda-opt --coda-plan-row-handoffs --coda-schedule-launches %t.fused.mlir -o %t.scheduled.mlir
// RUN: FileCheck %s < %t.scheduled.mlir
// RUN: coda-run %t.scheduled.mlir --against %t.fused.mlir | FileCheck %s --check-prefix=SAME
// Without hand-offs the order stays.
// RUN: coda-opt --coda-schedule-launches %t.fused.mlir | FileCheck %s --check-prefix=KEEP
// Scheduling again changes nothing.
// RUN: coda-opt --coda-schedule-launches %t.scheduled.mlir | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK:         linalg.fill {coda.kernels = ["main_g0"]}
// CHECK-NEXT:    call @coda_vector_prep
// CHECK-NEXT:    call @coda_norm_weights
// CHECK-NEXT:    linalg.generic
// CHECK-SAME:      attrs = {coda.hands_rows, coda.kernels = ["main_g1"]}
// CHECK:         tensor.collapse_shape
// CHECK-NEXT:    coda.gemm
// CHECK:           attributes {coda.awaits_rows, coda.kernels = ["main_k0"]
// CHECK-LABEL: func.func private @coda_vector_prep(
// CHECK:         linalg.generic {{.*}} attrs = {coda.kernels = ["coda_vector_prep_g0"]}
// SAME: result #0: {{.*}} max abs err 0.000e+00 {{.*}}: ok

// KEEP-LABEL: func.func @main(
// KEEP:         linalg.fill {coda.kernels = ["main_g0"]}
// KEEP-NEXT:    linalg.generic
// KEEP-SAME:      attrs = {coda.kernels = ["main_g1"]}
// KEEP:         call @coda_vector_prep
