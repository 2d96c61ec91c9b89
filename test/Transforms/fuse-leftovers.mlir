// --coda-fuse-leftovers: in a function with kernels, the elementwise chain left outside them
// (here the normalization of a materialized output, torch-mlir's ops one by one) becomes one
// generic: one pass over memory instead of three. A producer with several users is not
// duplicated, unless it only widens (its copy costs a pass over memory, its recomputation a
// convert); sibling generics merge; a function without kernels stays as it is.
// RUN: coda-opt --coda-fuse-leftovers %s | FileCheck %s
// RUN: coda-opt --coda-fuse-leftovers %s -o %t.mlir
// RUN: coda-run %t.mlir --against %s --entry normalize_kernel_output --atol 1e-2 | FileCheck %s --check-prefix=SAME
// SAME: result #0: {{.*}}: ok

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @normalize_kernel_output
// CHECK:         coda.gemm
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<8x1xf32>, tensor<16xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK:           arith.truncf
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @normalize_kernel_output(%x: tensor<8x4xbf16>, %w: tensor<4x16xbf16>, %r: tensor<8x1xf32>,
    %g: tensor<16xf32>) -> tensor<8x16xbf16> {
  %h = coda.gemm %x, %w : tensor<8x4xbf16>, tensor<4x16xbf16> -> (store tensor<8x16xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %e = tensor.empty() : tensor<8x16xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %r : tensor<8x16xf32>, tensor<8x1xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %weighted = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%scaled, %g : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %eb = tensor.empty() : tensor<8x16xbf16>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%weighted : tensor<8x16xf32>) outs(%eb : tensor<8x16xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x16xbf16>
  return %out : tensor<8x16xbf16>
}

// A bf16 result and its f32 widening, both stored: the kernel keeps the bf16 one, the reader
// widens it in its own loop.
// RUN: coda-run %t.mlir --against %s --entry wide_copy --atol 1e-6 | FileCheck %s --check-prefix=SAME
// CHECK-LABEL: func.func @wide_copy
// CHECK:         %[[K:.*]]:2 = coda.gemm
// CHECK-NEXT:      -> (store tensor<8x16xbf16>, reduce<row, sum> tensor<8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[K]]#0, %{{.*}} : tensor<8x16xbf16>, tensor<8x1xf32>)
// CHECK:           arith.extf
// CHECK:           arith.mulf
func.func @wide_copy(%x: tensor<8x4xbf16>, %w: tensor<4x16xbf16>, %r: tensor<8x1xf32>)
    -> (tensor<8x16xbf16>, tensor<8xf32>, tensor<8x16xf32>) {
  %h, %hf, %ss = coda.gemm %x, %w : tensor<8x4xbf16>, tensor<4x16xbf16>
      -> (store tensor<8x16xbf16>, store tensor<8x16xf32>, reduce<row, sum> tensor<8xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    %t = arith.truncf %acc : f32 to bf16
    %e = arith.extf %t : bf16 to f32
    coda.yield %e, %e, %e : f32, f32, f32
  }
  %empty = tensor.empty() : tensor<8x16xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hf, %r : tensor<8x16xf32>, tensor<8x1xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %h, %ss, %scaled : tensor<8x16xbf16>, tensor<8xf32>, tensor<8x16xf32>
}

// LayerNorm's statistics: x widened to f32 once, read by the row sums of x and of x². Each sum
// widens x itself (the f32 copy of x is gone), and the two sums, reading the same x over the
// same rows, become one pass with two outputs.
// RUN: coda-run %t.mlir --against %s --entry widened_twice --atol 1e-4 | FileCheck %s --check-prefix=SAME
// CHECK-LABEL: func.func @widened_twice
// CHECK:         coda.gemm
// CHECK:         %[[INIT:.*]] = linalg.fill
// CHECK:         %[[SUMS:.*]]:2 = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%{{.*}} : tensor<8x4xbf16>) outs(%[[INIT]], %[[INIT]] : tensor<8x1xf32>, tensor<8x1xf32>)
// CHECK:           %[[X:.*]] = arith.extf
// CHECK:           arith.addf %[[X]]
// CHECK:           %[[X2:.*]] = arith.extf
// CHECK:           arith.mulf %[[X2]], %[[X2]]
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.generic
// CHECK:         return %{{.*}}, %[[SUMS]]#0, %[[SUMS]]#1
func.func @widened_twice(%x: tensor<8x4xbf16>, %w: tensor<4x16xbf16>)
    -> (tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>) {
  %h = coda.gemm %x, %w : tensor<8x4xbf16>, tensor<4x16xbf16> -> (store tensor<8x16xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %e = tensor.empty() : tensor<8x4xf32>
  %xf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x4xbf16>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %y = arith.extf %a : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<8x4xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<8x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%s0 : tensor<8x1xf32>) -> tensor<8x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xf : tensor<8x4xf32>) outs(%init : tensor<8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<8x1xf32>
  %sumsq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xf : tensor<8x4xf32>) outs(%init : tensor<8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %y = arith.addf %sq, %o : f32
    linalg.yield %y : f32
  } -> tensor<8x1xf32>
  return %h, %sum, %sumsq : tensor<8x16xf32>, tensor<8x1xf32>, tensor<8x1xf32>
}

// Two elementwise generics over the same loops that read no kernel's result (here the kernel's
// two matrix operands) become one: one launch. One that reads the kernel's result stays alone
// (the backend plans it around its kernel: a row pass, say), and so does the one after it.
// RUN: coda-run %t.mlir --against %s --entry independent_elementwise --atol 1e-5 | FileCheck %s --check-prefix=SAME
// CHECK-LABEL: func.func @independent_elementwise
// CHECK:         %[[T:.*]]:2 = linalg.generic
// CHECK-SAME:      ins(%arg2, %arg3 : tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK:           arith.negf
// CHECK:           math.exp
// CHECK:         %[[H:.*]] = coda.gemm
// CHECK-NEXT:      with(%[[T]]#0 as matrix : tensor<8x16xf32>, %[[T]]#1 as matrix : tensor<8x16xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[H]] : tensor<8x16xf32>)
// CHECK:         linalg.generic {{.*}} ins(%arg4 : tensor<8x16xf32>)
// CHECK:         return
func.func @independent_elementwise(%x: tensor<8x4xbf16>, %w: tensor<4x16xbf16>, %a: tensor<8x16xf32>,
    %b: tensor<8x16xf32>, %c: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %t1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<8x16xf32>
  %t2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = math.exp %v : f32
    linalg.yield %n : f32
  } -> tensor<8x16xf32>
  %h = coda.gemm %x, %w : tensor<8x4xbf16>, tensor<4x16xbf16>
      with(%t1 as matrix : tensor<8x16xf32>, %t2 as matrix : tensor<8x16xf32>)
      -> (store tensor<8x16xf32>)
      epilogue(%acc: f32, %p: f32, %q: f32, %i: index, %j: index) {
    %s = arith.addf %acc, %p : f32
    %t = arith.mulf %s, %q : f32
    coda.yield %t : f32
  }
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = math.exp %v : f32
    linalg.yield %n : f32
  } -> tensor<8x16xf32>
  return %y, %u : tensor<8x16xf32>, tensor<8x16xf32>
}

// CHECK-LABEL: func.func @no_kernels
// CHECK-COUNT-2: linalg.generic
func.func @no_kernels(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%n : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}
