// RUN: coda-opt %s --coda-fold-index-ranges --split-input-file | FileCheck %s
// RUN: coda-opt %s --coda-fold-index-ranges --canonicalize --split-input-file | FileCheck %s --check-prefix=CANON
// The same meaning on random inputs (the whole file as one module):
// RUN: coda-opt %s --coda-fold-index-ranges --canonicalize -o %t.mlir
// RUN: coda-run %t.mlir --entry rope_check --against %s | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --entry rows_and_columns --against %s | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --entry contract_pairs --against %s | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --entry batched --against %s | FileCheck %s --check-prefix=SAME
// SAME-NOT: MISMATCH
// SAME:     ok

// RoPE's bounds check as torch-mlir leaves it in the fused epilogue: the pair index p is in
// [0, 8) (rotate mode, N = 16), so 0 <= 2p < 16 holds for every element. The pass replaces the
// decided values by constants; the canonicalizer then yields the rotation directly.
// CHECK-LABEL: func.func @rope_check
// CHECK:         epilogue(
// CHECK-NEXT:      %[[TRUE:.*]] = arith.constant true
// CHECK-NOT:       arith.muli
// CHECK-NOT:       arith.cmpi
// CHECK-NOT:       arith.andi
// CHECK:           %[[X:.*]] = arith.select %[[TRUE]], %{{.*}}, %{{.*}} : f32
// CHECK:           %[[Y:.*]] = arith.select %[[TRUE]], %{{.*}}, %{{.*}} : f32
// CHECK:           coda.yield %[[X]], %[[Y]]
// CANON-LABEL: func.func @rope_check
// CANON:         epilogue(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index) {
// CANON-NOT:     arith.cmpi
// CANON-NOT:     arith.select
// CANON:         %[[X:.*]] = arith.subf
// CANON:         %[[Y:.*]] = arith.addf
// CANON:         coda.yield %[[X]], %[[Y]] : f32, f32
func.func @rope_check(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %cs: tensor<4x16xf32>)
    -> tensor<4x16xf32> {
  %0 = coda.gemm %x, %w pairwise(rotate) : tensor<4x8xf32>, tensor<8x16xf32>
      with(%cs as matrix : tensor<4x16xf32>)
      -> (store tensor<4x16xf32>)
      epilogue(%a: f32, %b: f32, %c: f32, %s: f32, %i: index, %p: index) {
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %p2 = arith.muli %p, %c2 : index
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %as = arith.mulf %a, %s : f32
    %bc = arith.mulf %b, %c : f32
    %x0 = arith.subf %ac, %bs : f32
    %x1 = arith.addf %bc, %as : f32
    %lt = arith.cmpi ult, %p2, %c16 : index
    %ge = arith.cmpi uge, %p2, %c0 : index
    %in = arith.andi %ge, %lt : i1
    %y0 = arith.select %in, %x0, %a : f32
    %y1 = arith.select %in, %x1, %b : f32
    coda.yield %y0, %y1 : f32, f32
  }
  return %0 : tensor<4x16xf32>
}

// -----

// Rows are in [0, M) and columns in [0, N): i < 4 always, i >= 4 never; j < 10 depends on the
// element and stays.
// CHECK-LABEL: func.func @rows_and_columns
// CHECK:         epilogue(
// CHECK-NEXT:      %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:      %[[FALSE:.*]] = arith.constant false
// CHECK-NOT:       arith.cmpi slt
// CHECK-NOT:       arith.cmpi sge
// CHECK:           %[[LEFT:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK:           arith.select %[[TRUE]]
// CHECK:           arith.select %[[FALSE]]
// CHECK:           arith.select %[[LEFT]]
func.func @rows_and_columns(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = coda.gemm %x, %w : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x16xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    %c4 = arith.constant 4 : index
    %c10 = arith.constant 10 : index
    %zero = arith.constant 0.0 : f32
    %below = arith.cmpi slt, %i, %c4 : index
    %past = arith.cmpi sge, %i, %c4 : index
    %left = arith.cmpi ult, %j, %c10 : index
    %a = arith.select %below, %acc, %zero : f32
    %b = arith.select %past, %zero, %a : f32
    %c = arith.select %left, %b, %zero : f32
    coda.yield %c : f32
  }
  return %0 : tensor<4x16xf32>
}

// -----

// In contract mode the index is the pair's, in [0, N/2): p < 8 is decided for N = 16, p < 7 is
// not.
// CHECK-LABEL: func.func @contract_pairs
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK:         arith.select %[[TRUE]]
func.func @contract_pairs(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %0 = coda.gemm %x, %w pairwise(contract) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x8xf32>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %in = arith.cmpi ult, %p, %c8 : index
    %first = arith.cmpi ult, %p, %c7 : index
    %m = arith.mulf %g, %u : f32
    %a = arith.select %in, %m, %g : f32
    %b = arith.select %first, %a, %u : f32
    coda.yield %b : f32
  }
  return %0 : tensor<4x8xf32>
}

// -----

// A batched product: the row index is the row within the batch, in [0, M) (M = 8, A read
// transposed as [K, M]).
// CHECK-LABEL: func.func @batched
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         arith.select %[[TRUE]]
func.func @batched(%a: tensor<2x16x8xf32>, %b: tensor<2x16x4xf32>) -> tensor<2x8x4xf32> {
  %0 = coda.gemm %a, %b transpose_a : tensor<2x16x8xf32>, tensor<2x16x4xf32>
      -> (store tensor<2x8x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %in = arith.cmpi ult, %i, %c8 : index
    %y = arith.select %in, %acc, %zero : f32
    coda.yield %y : f32
  }
  return %0 : tensor<2x8x4xf32>
}

// -----

// Outside epilogues nothing changes, decided or not.
// CHECK-LABEL: func.func @outside
// CHECK:         arith.cmpi ult
func.func @outside(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32>, i1) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lt = arith.cmpi ult, %c1, %c2 : index
  %0 = coda.gemm %x, %w : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x16xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %0, %lt : tensor<4x16xf32>, i1
}
