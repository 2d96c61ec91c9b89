// RUN: coda-opt %s -split-input-file -verify-diagnostics

func.func @rank(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x5x4xf32>) {
  // expected-error @+1 {{expects A and B of rank 2, or rank 3 with a leading batch dimension; got ranks 4 and 4}}
  %0 = coda.gemm %a, %b : tensor<2x3x4x5xf32>, tensor<2x3x5x4xf32>
      -> (store tensor<4x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @rank_mismatch(%a: tensor<4x8xf32>, %b: tensor<2x8x4xf32>) {
  // expected-error @+1 {{expects A and B of rank 2, or rank 3 with a leading batch dimension; got ranks 2 and 3}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<2x8x4xf32>
      -> (store tensor<4x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{requires static shapes; operand 'tensor<?x8xf32>' has a dynamic dimension}}
  %0 = coda.gemm %a, %b : tensor<?x8xf32>, tensor<8x4xf32>
      -> (store tensor<4x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @input_type(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>) {
  // expected-error @+1 {{unsupported element type 'i8' for A; expected bf16, f16 or f32}}
  %0 = coda.gemm %a, %b : tensor<4x8xi8>, tensor<8x4xi8>
      -> (store tensor<4x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @mixed_types(%a: tensor<4x8xbf16>, %b: tensor<8x4xf16>) {
  // expected-error @+1 {{A and B element types differ: 'bf16' vs 'f16'}}
  %0 = coda.gemm %a, %b : tensor<4x8xbf16>, tensor<8x4xf16>
      -> (store tensor<4x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @k_mismatch(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{contraction dimension mismatch: A has K = 8, B has K = 4}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
      -> (store tensor<4x8xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{batch size mismatch: A has 2, B has 3}}
  %0 = coda.gemm %a, %b : tensor<2x4x8xf32>, tensor<3x8x4xf32>
      -> (store tensor<2x4x4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @odd_pairs(%a: tensor<4x8xf32>, %b: tensor<8x7xf32>) {
  // expected-error @+1 {{pairwise(rotate) needs an even number of columns, got N = 7}}
  %0 = coda.gemm %a, %b pairwise(rotate) : tensor<4x8xf32>, tensor<8x7xf32>
      -> (store tensor<4x7xf32>)
      epilogue(%x: f32, %y: f32, %i: index, %j: index) {
    coda.yield %x, %y : f32, f32
  }
  return
}

// -----

func.func @role_count(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{has 1 epilogue operands but 0 roles}}
  %0 = "coda.gemm"(%a, %b, %r) <{modes = [#coda.result<store>], operandSegmentSizes = array<i32: 1, 1, 1, 0>, roles = []}> ({
  ^bb0(%acc: f32, %i: index, %j: index):
    "coda.yield"(%acc) : (f32) -> ()
  }) : (tensor<4x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @scalar_shape(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{operand #0 has role 'scalar' and needs shape [], got [1]}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x4xf32>
      with(%s as scalar : tensor<1xf32>)
      -> (store tensor<4x4xf32>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @row_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %r: tensor<6xf32>) {
  // expected-error @+1 {{operand #0 has role 'row' and needs shape [4], got [6]}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      with(%r as row : tensor<6xf32>)
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @col_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 has role 'col' and needs shape [6], got [4]}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      with(%c as col : tensor<4xf32>)
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @matrix_shape(%a: tensor<2x4x8xf32>, %b: tensor<2x8x6xf32>, %m: tensor<3x4x6xf32>) {
  // expected-error @+1 {{operand #0 has role 'matrix' and needs shape [2, 4, 6] (or [4, 6], shared by the batch), got [3, 4, 6]}}
  %0 = coda.gemm %a, %b : tensor<2x4x8xf32>, tensor<2x8x6xf32>
      with(%m as matrix : tensor<3x4x6xf32>)
      -> (store tensor<2x4x6xf32>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @tiled_period(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 has role 'tiled' and needs shape [4] followed by a period, got [4]}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      with(%t as tiled : tensor<4xf32>)
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @tiled_odd_period(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %t: tensor<4x3xf32>) {
  // expected-error @+1 {{operand #0 is tiled with an odd period 3; pairwise columns need an even period}}
  %0 = coda.gemm %a, %b pairwise(rotate) : tensor<4x8xf32>, tensor<8x6xf32>
      with(%t as tiled : tensor<4x3xf32>)
      -> (store tensor<4x6xf32>)
      epilogue(%x: f32, %y: f32, %t0: f32, %t1: f32, %i: index, %j: index) {
    coda.yield %x, %y : f32, f32
  }
  return
}

// -----

func.func @operand_type(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %r: tensor<4xindex>) {
  // expected-error @+1 {{operand #0 has unsupported element type 'index'; expected a float or an integer}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      with(%r as row : tensor<4xindex>)
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %v: index, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @unknown_role(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %r: tensor<4xf32>) {
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      // expected-error @+1 {{unknown operand role 'diag'; expected 'scalar', 'row', 'col', 'matrix' or 'tiled'}}
      with(%r as diag : tensor<4xf32>)
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @unknown_pairwise(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{unknown pairwise mode 'swap'; expected 'contract', 'rotate' or 'expand'}}
  %0 = coda.gemm %a, %b pairwise(swap) : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @unknown_mode(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      // expected-error @+1 {{unknown result mode 'scatter'; expected 'store', 'accumulate' or 'reduce'}}
      -> (scatter tensor<4x6xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @unknown_combiner(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      // expected-error @+1 {{unknown reduction combiner 'mean'; expected 'sum', 'sumsq', 'max' or 'lse'}}
      -> (reduce<row, mean> tensor<4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @unknown_reduce_dim(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      // expected-error @+1 {{unknown reduction dimension 'all'; expected 'row' or 'col'}}
      -> (reduce<all, sum> tensor<4xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @no_results(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{expects at least one result}}
  coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      -> ()
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield
  }
  return
}

// -----

func.func @mode_count(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{has 1 results but 2 result modes}}
  %0 = "coda.gemm"(%a, %b) <{modes = [#coda.result<store>, #coda.result<store>], operandSegmentSizes = array<i32: 1, 1, 0, 0>, roles = []}> ({
  ^bb0(%acc: f32, %i: index, %j: index):
    "coda.yield"(%acc) : (f32) -> ()
  }) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @init_count(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %o: tensor<4x4xf32>) {
  // expected-error @+1 {{has 0 accumulate results but 1 init operands}}
  %0 = "coda.gemm"(%a, %b, %o) <{modes = [#coda.result<store>], operandSegmentSizes = array<i32: 1, 1, 0, 1>, roles = []}> ({
  ^bb0(%acc: f32, %i: index, %j: index):
    "coda.yield"(%acc) : (f32) -> ()
  }) : (tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @reduce_type(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{result #0 is a reduction and must be f32, got 'bf16'}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      -> (reduce<row, sum> tensor<4xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @store_type(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{result #0 has unsupported element type 'i32'; expected bf16, f16 or f32}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<4x6xi32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @store_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{result #0 (#coda.result<store>) needs shape [4, 3], got [4, 6]}}
  %0 = coda.gemm %a, %b pairwise(contract) : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<4x6xf32>)
      epilogue(%x: f32, %y: f32, %i: index, %j: index) {
    coda.yield %x : f32
  }
  return
}

// -----

func.func @reduce_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{result #0 (#coda.result<reduce<col, max>>) needs shape [12], got [6]}}
  %0 = coda.gemm %a, %b pairwise(expand) : tensor<4x8xf32>, tensor<8x6xf32>
      -> (reduce<col, max> tensor<6xf32>)
      epilogue(%x: f32, %i: index, %j: index) {
    coda.yield %x, %x : f32, f32
  }
  return
}

// -----

func.func @init_type(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %o: tensor<4x6xbf16>) {
  // expected-error @+1 {{result #0 accumulates into an init of type 'tensor<4x6xbf16>' but has type 'tensor<4x6xf32>'}}
  %0 = "coda.gemm"(%a, %b, %o) <{modes = [#coda.result<accumulate>], operandSegmentSizes = array<i32: 1, 1, 0, 1>, roles = []}> ({
  ^bb0(%acc: f32, %i: index, %j: index):
    "coda.yield"(%acc) : (f32) -> ()
  }) : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<4x6xbf16>) -> tensor<4x6xf32>
  return
}

// -----

func.func @arg_count(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{epilogue expects 3 arguments (1 accumulator, 0 for the operands, row and column index), got 2}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %i: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @arg_type(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %r: tensor<4xbf16>) {
  // expected-error @+1 {{epilogue argument #1 must have type 'bf16', got 'f32'}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      with(%r as row : tensor<4xbf16>)
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %v: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func private @opaque() -> f32

func.func @side_effect(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    // expected-error @+1 {{'func.call' op is not allowed in a coda.gemm epilogue: it may only hold side-effect-free scalar ops}}
    %v = func.call @opaque() : () -> f32
    coda.yield %v : f32
  }
  return
}

// -----

func.func @vector_value(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    // expected-error @+1 {{'arith.constant' op produces 'vector<2xf32>'; a coda.gemm epilogue computes on scalars}}
    %v = arith.constant dense<1.0> : vector<2xf32>
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @terminator(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    // expected-error @+1 {{'llvm.unreachable' op cannot end a coda.gemm epilogue; expected coda.yield}}
    llvm.unreachable
  }
  return
}

// -----

func.func @yield_count(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = coda.gemm %a, %b pairwise(rotate) : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<4x6xf32>)
      epilogue(%x: f32, %y: f32, %i: index, %j: index) {
    // expected-error @+1 {{'coda.yield' op yields 1 values but the gemm expects 2 (1 results x 2 output columns per invocation)}}
    coda.yield %x : f32
  }
  return
}

// -----

func.func @yield_type(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %r: tensor<4xbf16>) {
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      with(%r as row : tensor<4xbf16>)
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %v: bf16, %i: index, %j: index) {
    // expected-error @+1 {{'coda.yield' op value #0 must be f32, got 'bf16'}}
    coda.yield %v : bf16
  }
  return
}

// -----

func.func @captured_value(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %s: f32) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<4x6xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    // expected-error @+1 {{using value defined outside the region}}
    %v = arith.mulf %acc, %s : f32
    coda.yield %v : f32
  }
  return
}

// -----

func.func @yield_outside(%x: f32) {
  // expected-error @+1 {{'coda.yield' op expects parent op to be one of 'coda.gemm, coda.attention'}}
  coda.yield %x : f32
}

// -----

// expected-error @+1 {{'coda.weight_prep' must be a unit attribute}}
func.func @prep_value(%x: tensor<4xf32>) -> tensor<4xf32> attributes {coda.weight_prep = 1 : i32} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'coda.weight_prep' needs a function with a body}}
func.func private @prep_external(%x: tensor<4xf32>) -> tensor<4xf32> attributes {coda.weight_prep}

// -----

// expected-error @+1 {{'coda.weight_prep' marks a function, not 'builtin.module'}}
module attributes {coda.weight_prep} {
}

// -----

// expected-error @+1 {{unknown coda attribute 'coda.fast'}}
func.func @unknown_attr() attributes {coda.fast} {
  return
}

// -----

func.func @halves_without_rotate(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{halves 8 needs pairwise(rotate)}}
  %0 = coda.gemm %a, %b pairwise(contract, halves 8) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x8xf32>)
      epilogue(%x: f32, %y: f32, %i: index, %j: index) {
    coda.yield %x : f32
  }
  return
}

// -----

func.func @halves_not_dividing(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{halves 6 must be an even number of columns dividing N = 16}}
  %0 = coda.gemm %a, %b pairwise(rotate, halves 6) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x16xf32>)
      epilogue(%x: f32, %y: f32, %i: index, %j: index) {
    coda.yield %x, %y : f32, f32
  }
  return
}

// -----

func.func @halves_odd(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{halves 1 must be an even number of columns dividing N = 16}}
  %0 = coda.gemm %a, %b pairwise(rotate, halves 1) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x16xf32>)
      epilogue(%x: f32, %y: f32, %i: index, %j: index) {
    coda.yield %x, %y : f32, f32
  }
  return
}

// -----

func.func @halves_column_reduction(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{result #0 (#coda.result<reduce<col, sum>>) reads output columns, which halves 8 moves; expected store or reduce<row, ...>}}
  %0 = coda.gemm %a, %b pairwise(rotate, halves 8) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (reduce<col, sum> tensor<16xf32>)
      epilogue(%x: f32, %y: f32, %i: index, %j: index) {
    coda.yield %x, %y : f32, f32
  }
  return
}

// -----

func.func @halves_missing_period(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{expected integer value}}
  %0 = coda.gemm %a, %b pairwise(rotate, halves) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x16xf32>)
      epilogue(%x: f32, %y: f32, %i: index, %j: index) {
    coda.yield %x, %y : f32, f32
  }
  return
}

// -----

// A dynamic size prints as '?'.
func.func @dynamic_result(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{result #0 (#coda.result<store>) needs shape [4, 6], got [?, 6]}}
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<8x6xf32>
      -> (store tensor<?x6xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

// The CUDA plan's configuration names a sink per result.
func.func @kernel_stores(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{'coda.kernel' lists 2 stores for 1 results}}
  %0 = coda.gemm %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      -> (store tensor<128x128xbf16>) attributes {coda.kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = cooperative, stores = [tma, direct]>}
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @kernel_swizzle(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) {
  %0 = coda.gemm %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      // expected-error @+1 {{swizzle 3 must be 1, 2, 4 or 8}}
      -> (store tensor<128x128xbf16>) attributes {coda.kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = cooperative, swizzle = 3, stores = [tma]>}
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @kernel_splits(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) {
  %0 = coda.gemm %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      // expected-error @+1 {{splits 3 must be 1, 2, 4, 8 or 16}}
      -> (store tensor<128x128xbf16>) attributes {coda.kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = cooperative, splits = 3, stores = [tma]>}
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @kernel_splits_pingpong(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) {
  %0 = coda.gemm %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      // expected-error @+1 {{split-K (splits 2) needs the cooperative schedule}}
      -> (store tensor<128x128xbf16>) attributes {coda.kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = pingpong, splits = 2, stores = [tma]>}
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @dispatch_order(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{'coda.dispatch' is a non-empty array of {max_m, planned_m, kernel} on a coda.gemm, max_m ascending and absent on the last}}
  %0 = coda.gemm %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      -> (store tensor<128x128xbf16>) attributes {coda.dispatch = [{kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = cooperative, stores = [tma]>, max_m = 64 : i64, planned_m = 64 : i64}, {kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = pingpong, stores = [tma]>, max_m = 32 : i64, planned_m = 32 : i64}, {kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = pingpong, stores = [tma]>, planned_m = 8192 : i64}]}
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @dispatch_i64(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{'coda.dispatch' is a non-empty array of {max_m, planned_m, kernel} on a coda.gemm, max_m ascending and absent on the last}}
  %0 = coda.gemm %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      -> (store tensor<128x128xbf16>) attributes {coda.dispatch = [{kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = cooperative, stores = [tma]>, max_m = 64 : i128, planned_m = 64 : i64}, {kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = pingpong, stores = [tma]>, planned_m = 8192 : i64}]}
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @dispatch_stores(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{'coda.dispatch' entry #0 lists 2 stores for 1 results}}
  %0 = coda.gemm %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      -> (store tensor<128x128xbf16>) attributes {coda.dispatch = [{kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = cooperative, stores = [tma, direct]>, planned_m = 8192 : i64}]}
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @kernel_tables(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>, %s: tensor<128xf32>) {
  // expected-error @+1 {{'coda.kernel' reads operand #0 through TMA, which is not a tiled operand}}
  %0 = coda.gemm %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      with(%s as row : tensor<128xf32>)
      -> (store tensor<128x128xbf16>) attributes {coda.kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 64, schedule = pingpong, stores = [tma], tmaTables = [0]>}
      epilogue(%acc: f32, %r: f32, %i: index, %j: index) {
    %m = arith.mulf %acc, %r : f32
    coda.yield %m : f32
  }
  return
}

// -----

func.func @hands_rows_on_gemm(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) {
  // expected-error @+1 {{'coda.hands_rows' is a unit attribute on a linalg.generic}}
  %0 = coda.gemm %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      -> (store tensor<128x128xbf16>) attributes {coda.hands_rows}
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return
}

// -----

func.func @attention_rank(%q: tensor<8x16x64xf32>, %k: tensor<8x16x64xf32>) {
  // expected-error @+1 {{expects Q, K and V of rank 4 ([B, H, S, d] for layout bhsd); got ranks 3, 3 and 3}}
  %o = coda.attention %q, %k, %k scale 1.0 : tensor<8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<8x16x64xf32>
  return
}

// -----

func.func @attention_types(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x16x64xf32>) {
  // expected-error @+1 {{expects Q, K and V of one element type among bf16, f16 and f32; got 'bf16', 'f32' and 'f32'}}
  %o = coda.attention %q, %k, %k scale 1.0 : tensor<1x2x16x64xbf16>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32> -> tensor<1x2x16x64xbf16>
  return
}

// -----

func.func @attention_gqa(%q: tensor<1x6x16x64xf32>, %k: tensor<1x4x16x64xf32>) {
  // expected-error @+1 {{expects the query heads (6) to be a multiple of the key/value heads (4)}}
  %o = coda.attention %q, %k, %k scale 1.0 : tensor<1x6x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x6x16x64xf32>
  return
}

// -----

func.func @attention_head_size(%q: tensor<1x2x16x64xf32>, %k: tensor<1x2x16x32xf32>) {
  // expected-error @+1 {{expects Q and K with the same head size d; got 64 and 32}}
  %o = coda.attention %q, %k, %k scale 1.0 : tensor<1x2x16x64xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32> -> tensor<1x2x16x32xf32>
  return
}

// -----

func.func @attention_result(%q: tensor<1x16x2x64xf32>) {
  // expected-error @+1 {{result must be 'tensor<1x16x2x64xf32>' (Q's layout with V's head size); got 'tensor<1x2x16x64xf32>'}}
  %o = coda.attention %q, %q, %q scale 1.0 layout <bshd> : tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32>, tensor<1x16x2x64xf32> -> tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_lse(%q: tensor<1x2x16x64xf32>) {
  // expected-error @+1 {{lse result must be 'tensor<1x2x16xf32>' ([B, Hq, Sq]); got 'tensor<1x2x16xbf16>'}}
  %o, %l = coda.attention %q, %q, %q scale 1.0 : tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32> -> tensor<1x2x16x64xf32>, tensor<1x2x16xbf16>
  return
}

// -----

func.func @attention_lens(%q: tensor<2x2x8x64xf32>, %k: tensor<2x2x16x64xf32>, %n: tensor<2xi32>) {
  // expected-error @+1 {{lens describe self-attention over padded sequences: Sq (8) must equal Sk (16)}}
  %o = coda.attention %q, %k, %k lens(%n : tensor<2xi32>) scale 1.0 : tensor<2x2x8x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x2x8x64xf32>
  return
}

// -----

func.func @attention_lens_type(%q: tensor<2x2x8x64xf32>, %n: tensor<3xi32>) {
  // expected-error @+1 {{lens must be tensor<2xi32> or tensor<2xi64>; got 'tensor<3xi32>'}}
  %o = coda.attention %q, %q, %q lens(%n : tensor<3xi32>) scale 1.0 : tensor<2x2x8x64xf32>, tensor<2x2x8x64xf32>, tensor<2x2x8x64xf32> -> tensor<2x2x8x64xf32>
  return
}

// -----

func.func @attention_blocks_shape(%q: tensor<2x4x200x64xf32>, %m: tensor<1x4x2x1xi8>, %w: tensor<1x4x200x7xi32>) {
  // expected-error @+1 {{blocks must be tensor<MbxMhx2x2xi8> (Mb 1 or 2, Mh 1 or 4: a class per tile of 128x128); got 'tensor<1x4x2x1xi8>'}}
  %o = coda.attention %q, %q, %q blocks(%m, %w : tensor<1x4x2x1xi8>, tensor<1x4x200x7xi32>) scale 1.0 : tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32> -> tensor<2x4x200x64xf32>
  return
}

// -----

func.func @attention_bits_shape(%q: tensor<2x4x200x64xf32>, %m: tensor<2x1x2x2xi8>, %w: tensor<2x1x200x6xi32>) {
  // expected-error @+1 {{bits must be 'tensor<2x1x200x7xi32>' (a bit per key, the batch and heads of blocks); got 'tensor<2x1x200x6xi32>'}}
  %o = coda.attention %q, %q, %q blocks(%m, %w : tensor<2x1x2x2xi8>, tensor<2x1x200x6xi32>) scale 1.0 : tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32> -> tensor<2x4x200x64xf32>
  return
}

// -----

func.func @attention_blocks_alone(%q: tensor<1x1x8x64xf32>, %m: tensor<1x1x1x1xi8>) {
  // expected-error @+1 {{a runtime mask needs both blocks and bits}}
  %o = "coda.attention"(%q, %q, %q, %m) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 1, 0>, scale = 1.0 : f32}> ({}) : (tensor<1x1x8x64xf32>, tensor<1x1x8x64xf32>, tensor<1x1x8x64xf32>, tensor<1x1x1x1xi8>) -> tensor<1x1x8x64xf32>
  return
}

// -----

func.func @attention_mask(%q: tensor<1x2x8x64xf32>) {
  // expected-error @+1 {{dilation 0 must be at least 1}}
  %o = coda.attention %q, %q, %q scale 1.0 mask <dilation = 0> : tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32> -> tensor<1x2x8x64xf32>
  return
}

// -----

func.func @attention_window(%q: tensor<1x2x8x64xf32>) {
  // expected-error @+1 {{window bounds left = -2, right = -1 must be keys (>= 0), or -1 for no bound}}
  %o = coda.attention %q, %q, %q scale 1.0 mask <left = -2> : tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32> -> tensor<1x2x8x64xf32>
  return
}

// -----

func.func @attention_score_args(%q: tensor<1x2x8x64xf32>) {
  // expected-error @+1 {{score region takes (f32 score, index b, index h, index i, index j); got 1 arguments}}
  %o = coda.attention %q, %q, %q scale 1.0 : tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32> -> tensor<1x2x8x64xf32> score {
  ^bb0(%s: f32):
    coda.yield %s : f32
  }
  return
}

// -----

func.func @attention_score_yield(%q: tensor<1x2x8x64xf32>) {
  // expected-error @+1 {{score region must end with a coda.yield of one f32}}
  %o = coda.attention %q, %q, %q scale 1.0 : tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32> -> tensor<1x2x8x64xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %t = arith.truncf %s : f32 to bf16
    coda.yield %t : bf16
  }
  return
}

// -----

func.func @attention_lens_and_cache(%q: tensor<2x2x8x64xf32>, %n: tensor<2xi32>) {
  // expected-error @+1 {{takes either lens (padded self-attention) or cache (a KV cache's lengths), not both}}
  %o = coda.attention %q, %q, %q lens(%n : tensor<2xi32>) cache(%n : tensor<2xi32>) scale 1.0 : tensor<2x2x8x64xf32>, tensor<2x2x8x64xf32>, tensor<2x2x8x64xf32> -> tensor<2x2x8x64xf32>
  return
}

// -----

func.func @attention_cache_type(%q: tensor<2x2x1x64xf32>, %k: tensor<2x2x16x64xf32>, %n: tensor<2xf32>) {
  // expected-error @+1 {{cache lengths must be tensor<2xi32> or tensor<2xi64>; got 'tensor<2xf32>'}}
  %o = coda.attention %q, %k, %k cache(%n : tensor<2xf32>) scale 1.0 : tensor<2x2x1x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32> -> tensor<2x2x1x64xf32>
  return
}

// -----

func.func @append_rank(%new: tensor<2x1x64xbf16>, %cache: tensor<2x2x16x64xbf16>, %pos: tensor<2xi32>) {
  // expected-error @+1 {{expects new rows and a cache of rank 4 ([B, H, S, d] for layout bhsd); got ranks 3 and 4}}
  %c = coda.append %new into %cache at %pos : tensor<2x1x64xbf16> into tensor<2x2x16x64xbf16> at tensor<2xi32>
  return
}

// -----

func.func @append_heads(%new: tensor<2x4x1x64xbf16>, %cache: tensor<2x2x16x64xbf16>, %pos: tensor<2xi32>) {
  // expected-error @+1 {{expects new rows [2, 4, 1, 64] to match the cache [2, 2, 16, 64] in every dimension but the sequence ([B, H, S, d])}}
  %c = coda.append %new into %cache at %pos : tensor<2x4x1x64xbf16> into tensor<2x2x16x64xbf16> at tensor<2xi32>
  return
}

// -----

func.func @append_element(%new: tensor<2x2x1x64xf16>, %cache: tensor<2x2x16x64xbf16>, %pos: tensor<2xi32>) {
  // expected-error @+1 {{expects new rows of the cache's element type 'bf16'; got 'f16'}}
  %c = coda.append %new into %cache at %pos : tensor<2x2x1x64xf16> into tensor<2x2x16x64xbf16> at tensor<2xi32>
  return
}

// -----

func.func @append_positions(%new: tensor<2x1x2x64xbf16>, %cache: tensor<2x16x2x64xbf16>, %pos: tensor<3xi32>) {
  // expected-error @+1 {{positions must be tensor<2xi32> or tensor<2xi64> (one per sequence), or of one element (shared); got 'tensor<3xi32>'}}
  %c = coda.append %new into %cache at %pos layout <bshd> : tensor<2x1x2x64xbf16> into tensor<2x16x2x64xbf16> at tensor<3xi32>
  return
}

// -----

func.func @pages_without_cache(%q: tensor<2x2x1x64xf32>, %k: tensor<8x2x16x64xf32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{pages describe a paged KV cache: they need cache(...) lengths}}
  %o = coda.attention %q, %k, %k pages(%t : tensor<2x4xi32>) scale 1.0 : tensor<2x2x1x64xf32>, tensor<8x2x16x64xf32>, tensor<8x2x16x64xf32> -> tensor<2x2x1x64xf32>
  return
}

// -----

func.func @pages_table(%q: tensor<2x2x1x64xf32>, %k: tensor<8x2x16x64xf32>, %n: tensor<2xi32>, %t: tensor<2x4xi64>) {
  // expected-error @+1 {{pages must be tensor<2xPxi32> (a page table row per sequence); got 'tensor<2x4xi64>'}}
  %o = coda.attention %q, %k, %k cache(%n : tensor<2xi32>) pages(%t : tensor<2x4xi64>) scale 1.0 : tensor<2x2x1x64xf32>, tensor<8x2x16x64xf32>, tensor<8x2x16x64xf32> -> tensor<2x2x1x64xf32>
  return
}

// -----

func.func @append_paged_heads(%new: tensor<2x1x4x64xbf16>, %pool: tensor<8x16x2x64xbf16>, %pos: tensor<2xi32>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{expects new rows [2, 1, 4, 64] to match the cache [8, 16, 2, 64] in every dimension but the sequence and the pages ([B, S, H, d])}}
  %c = coda.append %new into %pool at %pos pages(%t : tensor<2x4xi32>) layout <bshd> : tensor<2x1x4x64xbf16> into tensor<8x16x2x64xbf16> at tensor<2xi32>
  return
}

// -----

func.func @append_element_type(%new: tensor<2x1x2x8xi1>, %cache: tensor<2x16x2x8xi1>, %pos: tensor<2xi32>) {
  // expected-error @+1 {{expects a cache of bf16, f16 or f32; got 'i1'}}
  %c = coda.append %new into %cache at %pos layout <bshd> : tensor<2x1x2x8xi1> into tensor<2x16x2x8xi1> at tensor<2xi32>
  return
}
