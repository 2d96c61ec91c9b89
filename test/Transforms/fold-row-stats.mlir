// RUN: coda-opt %s --coda-fold-row-stats -split-input-file | FileCheck %s
// The rewritten functions compute what the originals do:
// RUN: coda-opt %s --coda-fold-row-stats -o %t.mlir
// RUN: coda-run %t.mlir --against %s --entry rmsnorm_sumsq --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --against %s --entry layernorm_sum_and_sumsq --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --against %s --entry statistic_also_returned --rtol 1e-2 --atol 1e-2 | FileCheck %s --check-prefix=SAME
// SAME-NOT: MISMATCH
// SAME: ok

// RMSNorm's Σx² of the kernel's own A (torch-mlir's keepdim reduction with fpowi, reshaped to
// [M]) becomes a row_sumsq operand of A; the reduction and its zero fill go.
// CHECK-LABEL: func.func @rmsnorm_sumsq
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     linalg.fill
// CHECK:         coda.gemm %[[X:[a-z0-9]+]], %{{.*}} transpose_b
// CHECK-NEXT:      with(%[[X]] as row_sumsq : tensor<16x32xbf16>)
// CHECK:           epilogue(%{{.*}}: f32, %[[SS:.*]]: f32, %{{.*}}: index, %{{.*}}: index)
// CHECK:           math.rsqrt
func.func @rmsnorm_sumsq(%x: tensor<16x32xbf16>, %w: tensor<24x32xbf16>) -> tensor<16x24xbf16> {
  %c2 = arith.constant 2 : i64
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x1xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16x1xf32>) -> tensor<16x1xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xbf16>) outs(%fill : tensor<16x1xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    %p = math.fpowi %f, %c2 : f32, i64
    %s = arith.addf %p, %out : f32
    linalg.yield %s : f32
  } -> tensor<16x1xf32>
  %row = tensor.collapse_shape %ss [[0, 1]] : tensor<16x1xf32> into tensor<16xf32>
  %y = coda.gemm %x, %w transpose_b : tensor<16x32xbf16>, tensor<24x32xbf16>
      with(%row as row : tensor<16xf32>)
      -> (store tensor<16x24xbf16>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    %d = arith.constant 32.0 : f32
    %m = arith.divf %v, %d : f32
    %r = math.rsqrt %m : f32
    %o = arith.mulf %acc, %r : f32
    coda.yield %o : f32
  }
  return %y : tensor<16x24xbf16>
}

// -----

// LayerNorm's Σx and Σx² from one reduction with two results (x·x, accumulator first).
// CHECK-LABEL: func.func @layernorm_sum_and_sumsq
// CHECK-NOT:     linalg.generic
// CHECK:         coda.gemm %[[X:[a-z0-9]+]], %{{.*}} transpose_b
// CHECK-NEXT:      with(%{{.*}} as col : tensor<24xf32>, %[[X]] as row_sum : tensor<16x32xf16>, %[[X]] as row_sumsq : tensor<16x32xf16>)
func.func @layernorm_sum_and_sumsq(%x: tensor<16x32xf16>, %w: tensor<24x32xf16>, %c: tensor<24xf32>)
    -> tensor<16x24xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %st:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                           affine_map<(d0, d1) -> (d0)>],
                          iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xf16>) outs(%fill, %fill : tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%in: f16, %s: f32, %ss: f32):
    %f = arith.extf %in : f16 to f32
    %a = arith.addf %s, %f : f32
    %q = arith.mulf %f, %f : f32
    %b = arith.addf %ss, %q : f32
    linalg.yield %a, %b : f32, f32
  } -> (tensor<16xf32>, tensor<16xf32>)
  %y = coda.gemm %x, %w transpose_b : tensor<16x32xf16>, tensor<24x32xf16>
      with(%c as col : tensor<24xf32>, %st#0 as row : tensor<16xf32>, %st#1 as row : tensor<16xf32>)
      -> (store tensor<16x24xf16>)
      epilogue(%acc: f32, %cv: f32, %s: f32, %ss: f32, %i: index, %j: index) {
    %t = arith.mulf %s, %cv : f32
    %u = arith.subf %acc, %t : f32
    %o = arith.mulf %u, %ss : f32
    coda.yield %o : f32
  }
  return %y : tensor<16x24xf16>
}

// -----

// A statistic the rest of the function also reads is folded into the kernel and stays for
// its other reader.
// CHECK-LABEL: func.func @statistic_also_returned
// CHECK:         %[[SS:.*]] = linalg.generic
// CHECK:         coda.gemm %[[X:[a-z0-9]+]], %{{.*}} transpose_b
// CHECK-NEXT:      with(%[[X]] as row_sumsq : tensor<16x32xbf16>)
// CHECK:         return %{{.*}}, %[[SS]]
func.func @statistic_also_returned(%x: tensor<16x32xbf16>, %w: tensor<24x32xbf16>)
    -> (tensor<16x24xbf16>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xbf16>) outs(%fill : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    %q = arith.mulf %f, %f : f32
    %s = arith.addf %out, %q : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %y = coda.gemm %x, %w transpose_b : tensor<16x32xbf16>, tensor<24x32xbf16>
      with(%ss as row : tensor<16xf32>)
      -> (store tensor<16x24xbf16>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    %o = arith.mulf %acc, %v : f32
    coda.yield %o : f32
  }
  return %y, %ss : tensor<16x24xbf16>, tensor<16xf32>
}

// -----

// Left alone: statistics of another tensor than A, of A transposed, from a nonzero start, and
// of x³.
// CHECK-LABEL: func.func @not_statistics_of_a
// CHECK-COUNT-4: as row : tensor<16xf32>
// CHECK-NOT:     row_sum
func.func @not_statistics_of_a(%x: tensor<16x32xbf16>, %z: tensor<16x32xbf16>, %xt: tensor<32x16xbf16>,
                               %w: tensor<24x32xbf16>) -> (tensor<16x24xbf16>, tensor<16x24xbf16>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %of_z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                          iterator_types = ["parallel", "reduction"]}
      ins(%z : tensor<16x32xbf16>) outs(%fill : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    %s = arith.addf %out, %f : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %from_one = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                              iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xbf16>) outs(%ones : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    %s = arith.addf %out, %f : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %cubes = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                           iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xbf16>) outs(%fill : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    %q = arith.mulf %f, %f : f32
    %c = arith.mulf %q, %f : f32
    %s = arith.addf %out, %c : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %of_xt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                           iterator_types = ["parallel", "reduction"]}
      ins(%xt : tensor<32x16xbf16>) outs(%fill : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    %s = arith.addf %out, %f : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %y = coda.gemm %x, %w transpose_b : tensor<16x32xbf16>, tensor<24x32xbf16>
      with(%of_z as row : tensor<16xf32>, %from_one as row : tensor<16xf32>, %cubes as row : tensor<16xf32>)
      -> (store tensor<16x24xbf16>)
      epilogue(%acc: f32, %a: f32, %b: f32, %c: f32, %i: index, %j: index) {
    %p = arith.mulf %acc, %a : f32
    %q = arith.mulf %p, %b : f32
    %o = arith.mulf %q, %c : f32
    coda.yield %o : f32
  }
  %wt = tensor.empty() : tensor<32x24xbf16>
  %y2 = coda.gemm %xt, %wt transpose_a : tensor<32x16xbf16>, tensor<32x24xbf16>
      with(%of_xt as row : tensor<16xf32>)
      -> (store tensor<16x24xbf16>)
      epilogue(%acc: f32, %a: f32, %i: index, %j: index) {
    %o = arith.mulf %acc, %a : f32
    coda.yield %o : f32
  }
  return %y, %y2 : tensor<16x24xbf16>, tensor<16x24xbf16>
}
