// Programs the CUDA backend cannot emit: a diagnostic at the op, a non-zero exit, and no output
// file.
// RUN: coda-translate --coda-to-cuda %s -split-input-file -verify-diagnostics
// RUN: rm -f %t.cu && not coda-translate --coda-to-cuda %s -split-input-file -o %t.cu 2>/dev/null
// RUN: not test -e %t.cu

// A batched product runs as one batched launch; its reductions do not yet.
func.func @batched_reduce(%x: tensor<2x8x16xbf16>, %w: tensor<2x16x32xbf16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{batched products with reduction results are not supported by the CUDA backend yet}}
  %0 = coda.gemm %x, %w : tensor<2x8x16xbf16>, tensor<2x16x32xbf16>
      -> (reduce<row, sum> tensor<2x8xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<2x8xf32>
}

// -----

func.func @batched_pairwise(%x: tensor<2x8x16xbf16>, %w: tensor<2x16x32xbf16>) -> tensor<2x8x16xbf16> {
  // expected-error @+1 {{batched products with a pairwise epilogue are not supported by the CUDA backend yet}}
  %0 = coda.gemm %x, %w pairwise(contract) : tensor<2x8x16xbf16>, tensor<2x16x32xbf16>
      -> (store tensor<2x8x16xbf16>)
      epilogue(%g: f32, %u: f32, %i: index, %j: index) {
    %p = arith.mulf %g, %u : f32
    coda.yield %p : f32
  }
  return %0 : tensor<2x8x16xbf16>
}

// -----

func.func @expand_reduce(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>) -> tensor<8xf32> {
  // expected-error @+1 {{result #0: reductions of pairwise(expand) epilogues are not supported by the CUDA backend}}
  %0 = coda.gemm %x, %w pairwise(expand) : tensor<8x16xbf16>, tensor<16x32xbf16>
      -> (reduce<row, sum> tensor<8xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a, %a : f32, f32
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @contract_accumulate(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %r: tensor<8x16xbf16>) -> tensor<8x16xbf16> {
  // expected-error @+1 {{result #0: the CUDA backend accumulates only into the first stored result, and not in contract or expand mode}}
  %0 = coda.gemm %x, %w pairwise(contract) : tensor<8x16xbf16>, tensor<16x32xbf16>
      -> (accumulate(%r) tensor<8x16xbf16>)
      epilogue(%a: f32, %b: f32, %i: index, %j: index) {
    %y = arith.mulf %a, %b : f32
    coda.yield %y : f32
  }
  return %0 : tensor<8x16xbf16>
}

// -----

func.func @second_accumulate(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %r: tensor<8x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x32xbf16>) {
  // expected-error @+1 {{result #1: the CUDA backend accumulates only into the first stored result}}
  %0, %1 = coda.gemm %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>
      -> (store tensor<8x32xbf16>, accumulate(%r) tensor<8x32xbf16>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a, %a : f32, f32
  }
  return %0, %1 : tensor<8x32xbf16>, tensor<8x32xbf16>
}

// -----

func.func @f64_operand(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %s: tensor<32xf64>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{operand #0 has element type 'f64', which the CUDA backend cannot read}}
  %0 = coda.gemm %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>
      with(%s as col : tensor<32xf64>)
      -> (store tensor<8x32xbf16>)
      epilogue(%a: f32, %sv: f64, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<8x32xbf16>
}

// -----

func.func @unsupported_op(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>) -> tensor<8x32xbf16> {
  %0 = coda.gemm %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>
      -> (store tensor<8x32xbf16>)
      epilogue(%a: f32, %i: index, %j: index) {
    // expected-error @+1 {{'math.atan' op is not supported by the CUDA backend yet}}
    %y = math.atan %a : f32
    coda.yield %y : f32
  }
  return %0 : tensor<8x32xbf16>
}

// -----

func.func @halves_two_stores(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x32xf32>) {
  // expected-error @+1 {{result #1: the CUDA backend stores one result of a pairwise(rotate, halves) kernel}}
  %0:2 = coda.gemm %x, %w pairwise(rotate, halves 16) : tensor<8x16xbf16>, tensor<16x32xbf16>
      -> (store tensor<8x32xbf16>, store tensor<8x32xf32>)
      epilogue(%a: f32, %b: f32, %i: index, %p: index) {
    coda.yield %a, %b, %b, %a : f32, f32, f32, f32
  }
  return %0#0, %0#1 : tensor<8x32xbf16>, tensor<8x32xf32>
}

// -----

// An empty tensor: nothing to launch (its launch arithmetic would divide by zero).
// expected-error @+1 {{--coda-to-cuda: 'tensor<0x64xf32>' has no elements (dimension #0 is 0); the CUDA backend needs every dimension to be at least 1}}
func.func @zero_rows(%x: tensor<0x64xf32>) -> tensor<0xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<0xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<0xf32>) -> tensor<0xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<0x64xf32>) outs(%f : tensor<0xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<0xf32>
  return %r : tensor<0xf32>
}

// -----

func.func @zero_width_piece(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{--coda-to-cuda: 'tensor<4x0xf32>' has no elements (dimension #1 is 0)}}
  %e = tensor.extract_slice %y[0, 0] [4, 0] [1, 1] : tensor<4x8xf32> to tensor<4x0xf32>
  %r = tensor.concat dim(1) %x, %e : (tensor<4x8xf32>, tensor<4x0xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// M = 2^32 + 16 rows: CUTLASS's problem shape holds int extents.
// expected-error @+1 {{--coda-to-cuda: 'tensor<4294967312x64xbf16>' has 4294967312 in dimension #0; the CUDA kernels index dimensions up to 2^31 - 1}}
func.func @rows_beyond_int(%x: tensor<4294967312x64xbf16>, %w: tensor<64x128xbf16>) -> tensor<4294967312x128xbf16> {
  %0 = coda.gemm %x, %w : tensor<4294967312x64xbf16>, tensor<64x128xbf16>
      -> (store tensor<4294967312x128xbf16>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<4294967312x128xbf16>
}
