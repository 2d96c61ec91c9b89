// Programs the CUDA backend cannot emit yet: a diagnostic at the op, a non-zero exit, and no
// output file.
// RUN: coda-translate --coda-to-cuda %s -split-input-file -verify-diagnostics
// RUN: rm -f %t.cu && not coda-translate --coda-to-cuda %s -split-input-file -o %t.cu 2>/dev/null
// RUN: not test -e %t.cu

func.func @pairwise(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>) -> tensor<8x16xbf16> {
  // expected-error @+1 {{pairwise epilogues are not supported by the CUDA backend yet}}
  %0 = coda.gemm %x, %w pairwise(contract) : tensor<8x16xbf16>, tensor<16x32xbf16>
      -> (store tensor<8x16xbf16>)
      epilogue(%a: f32, %b: f32, %i: index, %j: index) {
    %y = arith.mulf %a, %b : f32
    coda.yield %y : f32
  }
  return %0 : tensor<8x16xbf16>
}

// -----

func.func @reduction(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>) -> tensor<8xf32> {
  // expected-error @+1 {{the CUDA backend supports one stored or accumulated result for now}}
  %0 = coda.gemm %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>
      -> (reduce<row, sum> tensor<8xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<8xf32>
}

// -----

func.func @f32_inputs(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{the CUDA backend needs bf16 or f16 inputs, got 'f32'}}
  %0 = coda.gemm %x, %w : tensor<8x16xf32>, tensor<16x32xf32>
      -> (store tensor<8x32xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<8x32xf32>
}

// -----

func.func @matrix(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %r: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{operand #0 has role 'matrix', which the CUDA backend does not support yet}}
  %0 = coda.gemm %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>
      with(%r as matrix : tensor<8x32xbf16>)
      -> (store tensor<8x32xbf16>)
      epilogue(%a: f32, %rv: bf16, %i: index, %j: index) {
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
