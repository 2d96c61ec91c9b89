// RUN: coda-opt --coda-fuse-cache-append --split-input-file %s | FileCheck %s

// transformers' static cache update as coda.exporting writes it: the row that iota == p picks
// takes the new row. Both of a step's selects become appends at p, and the comparison they
// shared goes with them.
// CHECK-LABEL: func.func @static_cache
// CHECK-SAME:  (%[[K:.*]]: tensor<2x2x1x8xbf16>, %[[V:.*]]: tensor<2x2x1x8xbf16>, %[[KC:.*]]: tensor<2x2x16x8xbf16>, %[[VC:.*]]: tensor<2x2x16x8xbf16>, %[[P:.*]]: tensor<1xi64>)
// CHECK-NEXT:  %[[K1:.*]] = coda.append %[[K]] into %[[KC]] at %[[P]] : tensor<2x2x1x8xbf16> into tensor<2x2x16x8xbf16> at tensor<1xi64>
// CHECK-NEXT:  %[[V1:.*]] = coda.append %[[V]] into %[[VC]] at %[[P]] : tensor<2x2x1x8xbf16> into tensor<2x2x16x8xbf16> at tensor<1xi64>
// CHECK-NEXT:  return %[[K1]], %[[V1]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#scalar = affine_map<(d0, d1, d2, d3) -> ()>
#rows = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, 0)>
#fresh = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#iota = affine_map<(d0) -> (d0)>
func.func @static_cache(%k: tensor<2x2x1x8xbf16>, %v: tensor<2x2x1x8xbf16>, %kc: tensor<2x2x16x8xbf16>,
    %vc: tensor<2x2x16x8xbf16>, %pos: tensor<1xi64>) -> (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>) {
  %e = tensor.empty() : tensor<16xi64>
  %iota = linalg.generic {indexing_maps = [#iota], iterator_types = ["parallel"]} outs(%e : tensor<16xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<16xi64>
  %rows = tensor.expand_shape %iota [[0, 1, 2, 3]] output_shape [1, 1, 16, 1] : tensor<16xi64> into tensor<1x1x16x1xi64>
  %p = tensor.collapse_shape %pos [] : tensor<1xi64> into tensor<i64>
  %eq_init = tensor.empty() : tensor<1x1x16x1xi1>
  %eq = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rows, %p : tensor<1x1x16x1xi64>, tensor<i64>) outs(%eq_init : tensor<1x1x16x1xi1>) {
  ^bb0(%r: i64, %q: i64, %out: i1):
    %c = arith.cmpi eq, %r, %q : i64
    linalg.yield %c : i1
  } -> tensor<1x1x16x1xi1>
  %init = tensor.empty() : tensor<2x2x16x8xbf16>
  %k1 = linalg.generic {indexing_maps = [#rows, #fresh, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%eq, %k, %kc : tensor<1x1x16x1xi1>, tensor<2x2x1x8xbf16>, tensor<2x2x16x8xbf16>) outs(%init : tensor<2x2x16x8xbf16>) {
  ^bb0(%c: i1, %n: bf16, %o: bf16, %out: bf16):
    %s = arith.select %c, %n, %o : bf16
    linalg.yield %s : bf16
  } -> tensor<2x2x16x8xbf16>
  %v1 = linalg.generic {indexing_maps = [#rows, #fresh, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%eq, %v, %vc : tensor<1x1x16x1xi1>, tensor<2x2x1x8xbf16>, tensor<2x2x16x8xbf16>) outs(%init : tensor<2x2x16x8xbf16>) {
  ^bb0(%c: i1, %n: bf16, %o: bf16, %out: bf16):
    %s = arith.select %c, %n, %o : bf16
    linalg.yield %s : bf16
  } -> tensor<2x2x16x8xbf16>
  return %k1, %v1 : tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>
}

// -----

// A token-major cache [B, C, H, d], the position compared first: an append in layout bshd.
// CHECK-LABEL: func.func @tokens
// CHECK:       coda.append %{{.*}} into %{{.*}} at %{{.*}} layout <bshd> : tensor<2x1x2x8xf32> into tensor<2x16x2x8xf32> at tensor<1xi32>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#scalar = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, 0)>
#rows = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
#fresh = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#iota = affine_map<(d0) -> (d0)>
func.func @tokens(%k: tensor<2x1x2x8xf32>, %kc: tensor<2x16x2x8xf32>, %pos: tensor<1xi32>) -> tensor<2x16x2x8xf32> {
  %e = tensor.empty() : tensor<16xi32>
  %iota = linalg.generic {indexing_maps = [#iota], iterator_types = ["parallel"]} outs(%e : tensor<16xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    linalg.yield %c : i32
  } -> tensor<16xi32>
  %rows = tensor.expand_shape %iota [[0, 1, 2, 3]] output_shape [1, 16, 1, 1] : tensor<16xi32> into tensor<1x16x1x1xi32>
  %p = tensor.expand_shape %pos [[0, 1, 2, 3]] output_shape [1, 1, 1, 1] : tensor<1xi32> into tensor<1x1x1x1xi32>
  %eq_init = tensor.empty() : tensor<1x16x1x1xi1>
  %eq = linalg.generic {indexing_maps = [#scalar, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p, %rows : tensor<1x1x1x1xi32>, tensor<1x16x1x1xi32>) outs(%eq_init : tensor<1x16x1x1xi1>) {
  ^bb0(%q: i32, %r: i32, %out: i1):
    %c = arith.cmpi eq, %q, %r : i32
    linalg.yield %c : i1
  } -> tensor<1x16x1x1xi1>
  %init = tensor.empty() : tensor<2x16x2x8xf32>
  %k1 = linalg.generic {indexing_maps = [#rows, #fresh, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%eq, %k, %kc : tensor<1x16x1x1xi1>, tensor<2x1x2x8xf32>, tensor<2x16x2x8xf32>) outs(%init : tensor<2x16x2x8xf32>) {
  ^bb0(%c: i1, %n: f32, %o: f32, %out: f32):
    %s = arith.select %c, %n, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x16x2x8xf32>
  return %k1 : tensor<2x16x2x8xf32>
}

// -----

// Not an append: the rows compared with a position per head (not one for the whole cache),
// and a select whose "new" operand is another cache (not one row).
// CHECK-LABEL: func.func @not_appends
// CHECK-NOT:   coda.append
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#perhead = affine_map<(d0, d1, d2, d3) -> (d1)>
#rows = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, 0)>
#iota = affine_map<(d0) -> (d0)>
#fresh = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#rowsq = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, 0)>
func.func @not_appends(%k: tensor<2x2x1x8xf32>, %kc: tensor<2x2x16x8xf32>, %other: tensor<2x2x16x8xf32>,
    %pos: tensor<2xi64>, %eq1: tensor<1x1x16x1xi1>) -> (tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) {
  %e = tensor.empty() : tensor<16xi64>
  %iota = linalg.generic {indexing_maps = [#iota], iterator_types = ["parallel"]} outs(%e : tensor<16xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<16xi64>
  %rows = tensor.expand_shape %iota [[0, 1, 2, 3]] output_shape [1, 1, 16, 1] : tensor<16xi64> into tensor<1x1x16x1xi64>
  %eq_init = tensor.empty() : tensor<1x2x16x1xi1>
  %eq = linalg.generic {indexing_maps = [#rowsq, #perhead, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rows, %pos : tensor<1x1x16x1xi64>, tensor<2xi64>) outs(%eq_init : tensor<1x2x16x1xi1>) {
  ^bb0(%r: i64, %q: i64, %out: i1):
    %c = arith.cmpi eq, %r, %q : i64
    linalg.yield %c : i1
  } -> tensor<1x2x16x1xi1>
  %init = tensor.empty() : tensor<2x2x16x8xf32>
  %k1 = linalg.generic {indexing_maps = [#rows, #fresh, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%eq, %k, %kc : tensor<1x2x16x1xi1>, tensor<2x2x1x8xf32>, tensor<2x2x16x8xf32>) outs(%init : tensor<2x2x16x8xf32>) {
  ^bb0(%c: i1, %n: f32, %o: f32, %out: f32):
    %s = arith.select %c, %n, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x2x16x8xf32>
  %k2 = linalg.generic {indexing_maps = [#rowsq, #id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%eq1, %other, %kc : tensor<1x1x16x1xi1>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>) outs(%init : tensor<2x2x16x8xf32>) {
  ^bb0(%c: i1, %n: f32, %o: f32, %out: f32):
    %s = arith.select %c, %n, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x2x16x8xf32>
  return %k1, %k2 : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>
}

// -----

// A cache of booleans is no KV cache coda.append takes: the selects stay.
// CHECK-LABEL: func.func @boolean_cache
// CHECK-NOT:   coda.append
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#scalar = affine_map<(d0, d1, d2, d3) -> ()>
#rows = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, 0)>
#fresh = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#iota = affine_map<(d0) -> (d0)>
func.func @boolean_cache(%k: tensor<2x2x1x8xi1>, %v: tensor<2x2x1x8xi1>, %kc: tensor<2x2x16x8xi1>,
    %vc: tensor<2x2x16x8xi1>, %pos: tensor<1xi64>) -> (tensor<2x2x16x8xi1>, tensor<2x2x16x8xi1>) {
  %e = tensor.empty() : tensor<16xi64>
  %iota = linalg.generic {indexing_maps = [#iota], iterator_types = ["parallel"]} outs(%e : tensor<16xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<16xi64>
  %rows = tensor.expand_shape %iota [[0, 1, 2, 3]] output_shape [1, 1, 16, 1] : tensor<16xi64> into tensor<1x1x16x1xi64>
  %p = tensor.collapse_shape %pos [] : tensor<1xi64> into tensor<i64>
  %eq_init = tensor.empty() : tensor<1x1x16x1xi1>
  %eq = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rows, %p : tensor<1x1x16x1xi64>, tensor<i64>) outs(%eq_init : tensor<1x1x16x1xi1>) {
  ^bb0(%r: i64, %q: i64, %out: i1):
    %c = arith.cmpi eq, %r, %q : i64
    linalg.yield %c : i1
  } -> tensor<1x1x16x1xi1>
  %init = tensor.empty() : tensor<2x2x16x8xi1>
  %k1 = linalg.generic {indexing_maps = [#rows, #fresh, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%eq, %k, %kc : tensor<1x1x16x1xi1>, tensor<2x2x1x8xi1>, tensor<2x2x16x8xi1>) outs(%init : tensor<2x2x16x8xi1>) {
  ^bb0(%c: i1, %n: i1, %o: i1, %out: i1):
    %s = arith.select %c, %n, %o : i1
    linalg.yield %s : i1
  } -> tensor<2x2x16x8xi1>
  %v1 = linalg.generic {indexing_maps = [#rows, #fresh, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%eq, %v, %vc : tensor<1x1x16x1xi1>, tensor<2x2x1x8xi1>, tensor<2x2x16x8xi1>) outs(%init : tensor<2x2x16x8xi1>) {
  ^bb0(%c: i1, %n: i1, %o: i1, %out: i1):
    %s = arith.select %c, %n, %o : i1
    linalg.yield %s : i1
  } -> tensor<2x2x16x8xi1>
  return %k1, %v1 : tensor<2x2x16x8xi1>, tensor<2x2x16x8xi1>
}
