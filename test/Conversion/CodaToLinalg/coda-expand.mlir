// RUN: coda-opt %s --coda-expand --split-input-file | FileCheck %s
// RUN: coda-opt %s --coda-expand --split-input-file | FileCheck %s --check-prefix=NOCODA
// NOCODA-NOT: coda.

// The contraction is an fp32 linalg.generic; the epilogue another, with row operands indexed
// by i, column operands by j, scalars by nothing.

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @roles
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:       %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[BT]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<32x16xbf16>) outs(%[[FILL]] : tensor<8x32xf32>)
// CHECK:         arith.extf %{{.*}} : bf16 to f32
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:       %[[OUT:.*]] = tensor.empty() : tensor<8x32xbf16>
// CHECK:       linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[ROW]], #[[COL]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[ACC]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x32xf32>, tensor<f32>, tensor<8xf32>, tensor<32xf32>, tensor<8x32xf16>) outs(%[[OUT]] : tensor<8x32xbf16>)
// CHECK:         linalg.index 1 : index
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         linalg.yield
func.func @roles(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16>, %s: tensor<f32>,
    %r: tensor<8xf32>, %c: tensor<32xf32>, %m: tensor<8x32xf16>) -> tensor<8x32xbf16> {
  %0 = coda.gemm %x, %w transpose_b : tensor<8x16xbf16>, tensor<32x16xbf16>
      with(%s as scalar : tensor<f32>, %r as row : tensor<8xf32>, %c as col : tensor<32xf32>,
           %m as matrix : tensor<8x32xf16>)
      -> (store tensor<8x32xbf16>)
      epilogue(%acc: f32, %sv: f32, %rv: f32, %cv: f32, %mv: f16, %i: index, %j: index) {
    %a = arith.mulf %acc, %sv : f32
    %b = arith.mulf %a, %rv : f32
    %d = arith.addf %b, %cv : f32
    %mf = arith.extf %mv : f16 to f32
    %e = arith.addf %d, %mf : f32
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %f = arith.addf %e, %jf : f32
    coda.yield %f : f32
  }
  return %0 : tensor<8x32xbf16>
}

// -----

// Contract: the accumulator is split into [M, N/2, 2] and read at (i, p, 0) and (i, p, 1).

// CHECK-DAG: #[[EVEN:.*]] = affine_map<(d0, d1) -> (d0, d1, 0)>
// CHECK-DAG: #[[ODD:.*]] = affine_map<(d0, d1) -> (d0, d1, 1)>
// CHECK-LABEL: func.func @contract
// CHECK:       %[[ACC:.*]] = linalg.generic
// CHECK:       %[[PAIRS:.*]] = tensor.expand_shape %[[ACC]] {{\[}}[0], [1, 2]] output_shape [4, 8, 2] : tensor<4x16xf32> into tensor<4x8x2xf32>
// CHECK:       linalg.generic {indexing_maps = [#[[EVEN]], #[[ODD]], {{.*}}]
// CHECK-SAME:      ins(%[[PAIRS]], %[[PAIRS]] : tensor<4x8x2xf32>, tensor<4x8x2xf32>) outs(%{{.*}} : tensor<4x8xf32>)
func.func @contract(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %0 = coda.gemm %x, %w pairwise(contract) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x8xf32>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %y = arith.mulf %g, %u : f32
    coda.yield %y : f32
  }
  return %0 : tensor<4x8xf32>
}

// -----

// Rotate into an accumulate result: a trailing loop t picks the even or odd yielded value, the
// init is split and collapsed back, and the sum is computed in fp32.

// CHECK-DAG: #[[E3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[O3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @rotate_accumulate
// CHECK-SAME:  %[[INIT:[a-z0-9]+]]: tensor<4x16xbf16>
// CHECK:       %[[SPLIT:.*]] = tensor.expand_shape %[[INIT]] {{\[}}[0], [1, 2]] output_shape [4, 8, 2]
// CHECK:       %[[R:.*]] = linalg.generic {indexing_maps = [#[[E3]], #[[O3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      outs(%[[SPLIT]] : tensor<4x8x2xbf16>)
// CHECK:         %[[T:.*]] = linalg.index 2 : index
// CHECK:         %[[EVEN:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// CHECK:         %[[V:.*]] = arith.select %[[EVEN]]
// CHECK:         %[[OLD:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:         %[[SUM:.*]] = arith.addf %[[OLD]], %[[V]] : f32
// CHECK:         arith.truncf %[[SUM]] : f32 to bf16
// CHECK:       tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<4x8x2xbf16> into tensor<4x16xbf16>
func.func @rotate_accumulate(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>,
    %o: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %0 = coda.gemm %x, %w pairwise(rotate) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (accumulate(%o) tensor<4x16xbf16>)
      epilogue(%a: f32, %b: f32, %i: index, %p: index) {
    %n = arith.negf %b : f32
    coda.yield %n, %a : f32, f32
  }
  return %0 : tensor<4x16xbf16>
}

// -----

// Rotate into halves: the pairs' columns [4, 8, 2] as heads of 8 columns [4, 2, 4, 2], the
// last two dimensions swapped, so that pair d of a head lands at columns d and d + 4.

// CHECK-LABEL: func.func @rotate_halves
// CHECK:       %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8x2xf32>)
// CHECK:       %[[C:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<4x8x2xf32> into tensor<4x16xf32>
// CHECK:       %[[H:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2, 3]] output_shape [4, 2, 4, 2]
// CHECK:       %[[T:.*]] = linalg.transpose ins(%[[H]] : tensor<4x2x4x2xf32>) outs(%{{.*}} : tensor<4x2x2x4xf32>) permutation = [0, 1, 3, 2]
// CHECK:       %[[OUT:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1, 2, 3]] : tensor<4x2x2x4xf32> into tensor<4x16xf32>
// CHECK:       return %[[OUT]]
func.func @rotate_halves(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = coda.gemm %x, %w pairwise(rotate, halves 8) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x16xf32>)
      epilogue(%a: f32, %b: f32, %i: index, %p: index) {
    %n = arith.negf %b : f32
    coda.yield %n, %a : f32, f32
  }
  return %0 : tensor<4x16xf32>
}

// -----

// Expand: one accumulator value per invocation, two output columns.

// CHECK-LABEL: func.func @expand
// CHECK:       %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      outs(%{{.*}} : tensor<4x16x2xf32>)
// CHECK:       tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<4x16x2xf32> into tensor<4x32xf32>
func.func @expand(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x32xf32> {
  %0 = coda.gemm %x, %w pairwise(expand) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x32xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    %n = arith.negf %a : f32
    coda.yield %a, %n : f32, f32
  }
  return %0 : tensor<4x32xf32>
}

// -----

// Reductions: the value is materialized in fp32 and reduced by its own linalg.generic.

// CHECK-DAG: #[[ROWMAP:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COLMAP:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reductions
// CHECK:       %[[V:.*]]:4 = linalg.generic
// CHECK-SAME:      outs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// sum over each row
// CHECK:       linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[V]]#0 : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         arith.addf
// sum of squares over each row
// CHECK:       linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[V]]#1 : tensor<4x8xf32>)
// CHECK:         arith.mulf
// CHECK:         arith.addf
// max over each column, from -inf
// CHECK:       %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:       linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK:       linalg.generic {indexing_maps = [#{{.*}}, #[[COLMAP]]], iterator_types = ["reduction", "parallel"]} ins(%[[V]]#2 : tensor<4x8xf32>)
// CHECK:         arith.maximumf
// log-sum-exp over each row: max, sum of shifted exponentials, log
// CHECK:       %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[V]]#3 : tensor<4x8xf32>)
// CHECK:         arith.maximumf
// CHECK:       %[[SUM:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[ROWMAP]], #[[ROWMAP]]], iterator_types = ["parallel", "reduction"]} ins(%[[V]]#3, %[[MAX]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK:         arith.subf
// CHECK:         math.exp
// CHECK:       linalg.generic {{.*}} ins(%[[MAX]], %[[SUM]] : tensor<4xf32>, tensor<4xf32>)
// CHECK:         math.log
func.func @reductions(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) {
  %0:4 = coda.gemm %x, %w : tensor<4x8xf32>, tensor<8x8xf32>
      -> (reduce<row, sum> tensor<4xf32>, reduce<row, sumsq> tensor<4xf32>,
          reduce<col, max> tensor<8xf32>, reduce<row, lse> tensor<4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc, %acc, %acc, %acc : f32, f32, f32, f32
  }
  return %0#0, %0#1, %0#2, %0#3 : tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>
}

// -----

// Batched, both operands transposed: the batch loop leads every map.

// CHECK-DAG: #[[BA:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[BB:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[BC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[BROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @batched
// CHECK:       linalg.generic {indexing_maps = [#[[BA]], #[[BB]], #[[BC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK:       linalg.generic {indexing_maps = [#{{.*}}, #[[BROW]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      tensor<2x4x8xf32>, tensor<2x4xf32>
func.func @batched(%a: tensor<2x16x4xf16>, %b: tensor<2x8x16xf16>, %r: tensor<2x4xf32>)
    -> tensor<2x4x8xf32> {
  %0 = coda.gemm %a, %b transpose_a transpose_b : tensor<2x16x4xf16>, tensor<2x8x16xf16>
      with(%r as row : tensor<2x4xf32>)
      -> (store tensor<2x4x8xf32>)
      epilogue(%acc: f32, %rv: f32, %i: index, %j: index) {
    %y = arith.mulf %acc, %rv : f32
    coda.yield %y : f32
  }
  return %0 : tensor<2x4x8xf32>
}

// -----

// Operands of a batched product without a batch dimension are read by every batch: their maps
// leave the batch loop out.

// CHECK-DAG: #[[SCOL:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[SMAT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[SROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @batched_shared
// CHECK:       linalg.generic {indexing_maps = [#{{.*}}, #[[SCOL]], #[[SROW]], #[[SMAT]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      tensor<3x4x8xf32>, tensor<8xf32>, tensor<3x4xf32>, tensor<4x8xf32>
func.func @batched_shared(%a: tensor<3x4x16xf32>, %b: tensor<3x16x8xf32>, %bias: tensor<8xf32>,
                          %scale: tensor<3x4xf32>, %res: tensor<4x8xf32>) -> tensor<3x4x8xf32> {
  %0 = coda.gemm %a, %b : tensor<3x4x16xf32>, tensor<3x16x8xf32>
      with(%bias as col : tensor<8xf32>, %scale as row : tensor<3x4xf32>,
           %res as matrix : tensor<4x8xf32>)
      -> (store tensor<3x4x8xf32>)
      epilogue(%acc: f32, %b0: f32, %s0: f32, %r0: f32, %i: index, %j: index) {
    %x = arith.addf %acc, %b0 : f32
    %y = arith.mulf %x, %s0 : f32
    %z = arith.addf %y, %r0 : f32
    coda.yield %z : f32
  }
  return %0 : tensor<3x4x8xf32>
}

// -----

// Tiled operands are read at column j mod T; with pairs, pair p at pair p mod T/2.

// CHECK-DAG: #[[TILE0:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 mod 4, 0)>
// CHECK-DAG: #[[TILE1:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 mod 4, 1)>
// CHECK-LABEL: func.func @tiled
// CHECK:       %[[T:.*]] = tensor.expand_shape %arg2 {{\[}}[0], [1, 2]] output_shape [4, 4, 2] : tensor<4x8xf32> into tensor<4x4x2xf32>
// CHECK:       linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[TILE0]], #[[TILE1]], #{{.*}}]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %[[T]], %[[T]] :
func.func @tiled(%x: tensor<4x8xf32>, %w: tensor<8x32xf32>, %cos: tensor<4x8xf32>)
    -> tensor<4x32xf32> {
  %0 = coda.gemm %x, %w pairwise(rotate) : tensor<4x8xf32>, tensor<8x32xf32>
      with(%cos as tiled : tensor<4x8xf32>)
      -> (store tensor<4x32xf32>)
      epilogue(%a: f32, %b: f32, %c0: f32, %c1: f32, %i: index, %p: index) {
    %x0 = arith.mulf %a, %c0 : f32
    %x1 = arith.mulf %b, %c1 : f32
    coda.yield %x0, %x1 : f32, f32
  }
  return %0 : tensor<4x32xf32>
}

// -----

// Programs without coda ops are left exactly as they are (no folding, no clean-up).

// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %[[C:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[D:.*]] = arith.addf %[[C]], %[[C]] : f32
// CHECK-NEXT:    %[[UNUSED:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:    return %[[D]] : f32
func.func @untouched() -> f32 {
  %c = arith.constant 1.0 : f32
  %d = arith.addf %c, %c : f32
  %unused = arith.mulf %d, %d : f32
  return %d : f32
}

// -----

// coda.attention: scores over [B, Hq, Sq, Sk] read from the token-major (bshd) operands, query
// head h reading KV head h floordiv 2; the scale, the causal mask and the lengths as one select
// to -inf; a row that sees nothing gives 0 and lse = -inf; the output is written back in bshd.
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1 floordiv 2, d4)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d1 floordiv 2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @attention
// CHECK:       %[[S:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK:       %[[M:.*]] = linalg.generic {{.*}} ins(%[[S]], %{{.*}} : tensor<2x4x8x8xf32>, tensor<2xi64>)
// CHECK:         arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:         %[[LEN:.*]] = arith.index_cast
// CHECK:         %[[CAUSAL:.*]] = arith.cmpi sle, %[[J:.*]], %[[I:.*]] : index
// CHECK:         arith.cmpi slt, %[[I]], %[[LEN]]
// CHECK:         arith.cmpi slt, %[[J]], %[[LEN]]
// CHECK:         arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK:       %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[M]] : tensor<2x4x8x8xf32>)
// CHECK:         arith.maximumf
// CHECK:       %[[P:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[MAX]]
// CHECK:         math.exp
// CHECK:         arith.cmpf oeq
// CHECK:         arith.select
// CHECK:       %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<2x4x8x8xf32>)
// CHECK:       %[[PV:.*]] = linalg.generic {indexing_maps = [{{.*}}, #[[V]], {{.*}}]{{.*}} ins(%[[P]], %{{.*}} : tensor<2x4x8x8xf32>, tensor<2x8x2x16xbf16>)
// CHECK:       %[[O:.*]] = linalg.generic {indexing_maps = [{{.*}}, {{.*}}, #[[OUT]]]{{.*}} ins(%[[PV]], %[[SUM]] : {{.*}}) outs(%{{.*}} : tensor<2x8x4x16xbf16>)
// CHECK:         arith.divf
// CHECK:         arith.truncf
// CHECK:       %[[LSE:.*]] = linalg.generic {{.*}} ins(%[[MAX]], %[[SUM]]
// CHECK:         math.log
// CHECK:       return %[[O]], %[[LSE]]
func.func @attention(%q: tensor<2x8x4x16xbf16>, %k: tensor<2x8x2x16xbf16>,
    %v: tensor<2x8x2x16xbf16>, %n: tensor<2xi64>) -> (tensor<2x8x4x16xbf16>, tensor<2x4x8xf32>) {
  %o, %lse = coda.attention %q, %k, %v lens(%n : tensor<2xi64>) scale 0.25 mask <causal = true>
      layout <bshd>
      : tensor<2x8x4x16xbf16>, tensor<2x8x2x16xbf16>, tensor<2x8x2x16xbf16>
      -> tensor<2x8x4x16xbf16>, tensor<2x4x8xf32>
  return %o, %lse : tensor<2x8x4x16xbf16>, tensor<2x4x8xf32>
}

// -----

// A runtime mask: its blocks read at the score's tile (broadcast over the batch), its bits at
// the word of key j, and the key visible where the tile is of class 1, or of class 2 with bit
// j mod 32 set.
// CHECK-DAG: #[[BLOCKS:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2 floordiv 128, d3 floordiv 128)>
// CHECK-DAG: #[[BITS:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3 floordiv 32)>
// CHECK-LABEL: func.func @attention_runtime_mask
// CHECK:       linalg.generic {indexing_maps = [#{{.*}}, #[[BLOCKS]], #[[BITS]], #{{.*}}]{{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x2x200x200xf32>, tensor<1x2x2x2xi8>, tensor<1x2x200x7xi32>)
// CHECK-NEXT:  ^bb0(%{{.*}}: f32, %[[CLS:.*]]: i8, %[[WORD:.*]]: i32, %{{.*}}: f32):
// CHECK:         %[[FULL:.*]] = arith.cmpi eq, %[[CLS]], %c1_i8 : i8
// CHECK:         %[[PART:.*]] = arith.cmpi eq, %[[CLS]], %c2_i8 : i8
// CHECK:         %[[SHIFT:.*]] = arith.remui
// CHECK:         arith.shrui %[[WORD]], %[[SHIFT]] : i32
// CHECK:         arith.select
func.func @attention_runtime_mask(%q: tensor<2x2x200x16xf32>, %blocks: tensor<1x2x2x2xi8>,
    %bits: tensor<1x2x200x7xi32>) -> tensor<2x2x200x16xf32> {
  %o = coda.attention %q, %q, %q blocks(%blocks, %bits : tensor<1x2x2x2xi8>, tensor<1x2x200x7xi32>)
      scale 0.25 : tensor<2x2x200x16xf32>, tensor<2x2x200x16xf32>, tensor<2x2x200x16xf32>
      -> tensor<2x2x200x16xf32>
  return %o : tensor<2x2x200x16xf32>
}

// -----

// A KV cache: the query sits at r = len[b] - Sq + i, keys at or past len[b] and rows before
// the sequence's start (r < 0) see nothing.
// CHECK-LABEL: func.func @attention_cache
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x3x40xf32>, tensor<2xi32>)
// CHECK-NEXT:  ^bb0(%{{.*}}: f32, %[[LEN:.*]]: i32, %{{.*}}: f32):
// CHECK:         %[[N:.*]] = arith.index_cast %[[LEN]] : i32 to index
// CHECK:         %[[START:.*]] = arith.subi %[[N]], %c3 : index
// CHECK:         %[[R:.*]] = arith.addi %{{.*}}, %[[START]] : index
// CHECK:         arith.cmpi sle, %{{.*}}, %[[R]] : index
// CHECK-DAG:     arith.cmpi slt, %{{.*}}, %[[N]] : index
// CHECK-DAG:     arith.cmpi sge, %[[R]], %c0 : index
// CHECK:         linalg.yield
func.func @attention_cache(%q: tensor<2x4x3x16xf32>, %k: tensor<2x2x40x16xf32>, %len: tensor<2xi32>)
    -> tensor<2x4x3x16xf32> {
  %o = coda.attention %q, %k, %k cache(%len : tensor<2xi32>) scale 0.25 mask <causal = true>
      : tensor<2x4x3x16xf32>, tensor<2x2x40x16xf32>, tensor<2x2x40x16xf32> -> tensor<2x4x3x16xf32>
  return %o : tensor<2x4x3x16xf32>
}

// -----

// An append: row j of sequence b takes new row j - pos[b] inside [0, Sn), the cache's row
// elsewhere.
// CHECK-LABEL: func.func @append
// CHECK-SAME:  (%[[NEW:.*]]: tensor<2x5x2x8xf32>, %[[CACHE:.*]]: tensor<2x32x2x8xf32>, %[[POS:.*]]: tensor<2xi64>)
// CHECK:       linalg.generic {{.*}} ins(%[[CACHE]], %[[POS]] : tensor<2x32x2x8xf32>, tensor<2xi64>)
// CHECK-NEXT:  ^bb0(%[[OLD:.*]]: f32, %[[P:.*]]: i64, %{{.*}}: f32):
// CHECK:         %[[J:.*]] = linalg.index 1 : index
// CHECK:         %[[T:.*]] = arith.subi %[[J]], %{{.*}} : index
// CHECK:         %[[IN:.*]] = arith.andi
// CHECK:         %[[ROW:.*]] = tensor.extract %[[NEW]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x5x2x8xf32>
// CHECK:         arith.select %[[IN]], %[[ROW]], %[[OLD]] : f32
func.func @append(%new: tensor<2x5x2x8xf32>, %cache: tensor<2x32x2x8xf32>, %pos: tensor<2xi64>)
    -> tensor<2x32x2x8xf32> {
  %c = coda.append %new into %cache at %pos layout <bshd>
      : tensor<2x5x2x8xf32> into tensor<2x32x2x8xf32> at tensor<2xi64>
  return %c : tensor<2x32x2x8xf32>
}
