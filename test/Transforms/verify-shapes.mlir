// RUN: coda-opt %s --split-input-file --coda-verify-shapes --verify-diagnostics | FileCheck %s
// RUN: coda-opt %s --split-input-file --coda-fuse --verify-diagnostics -o /dev/null

// A zero-row output for a 16-row product: upstream's verifier accepts it.
func.func @zero_rows(%a: tensor<16x8xf32>, %b: tensor<8x4xf32>, %c: tensor<0x4xf32>) -> tensor<0x4xf32> {
  // expected-error @below {{'linalg.matmul' op operand #2 has size 0 in dimension #0, which indexes loop d0 of size 16 (dimension #0 of operand #0)}}
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x4xf32>) outs(%c : tensor<0x4xf32>) -> tensor<0x4xf32>
  return %r : tensor<0x4xf32>
}

// -----

func.func @zero_width(%x: tensor<4x8xf32>, %y: tensor<4x0xf32>) -> tensor<4x0xf32> {
  // expected-error @below {{'linalg.generic' op operand #1 has size 0 in dimension #1, which indexes loop d1 of size 8 (dimension #1 of operand #0)}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x0xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x0xf32>
  return %r : tensor<4x0xf32>
}

// -----

// Consistent shapes, zero-sized ones included, pass unchanged.
// CHECK-LABEL: func.func @consistent
// CHECK: linalg.matmul
func.func @consistent(%a: tensor<0x8xf32>, %b: tensor<8x4xf32>, %c: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<0x8xf32>, tensor<8x4xf32>) outs(%c : tensor<0x4xf32>) -> tensor<0x4xf32>
  return %r : tensor<0x4xf32>
}

// -----

// A slice whose stride takes it past the end of its source: upstream's bound check computes
// the last index in 64 bits, where 4 + 11 · 2^62 wraps around, and the slice would read
// outside the buffer.
func.func @slice_stride(%t: tensor<2x16xbf16>) -> tensor<2x12xbf16> {
  // expected-error @below {{'tensor.extract_slice' op reaches outside its tensor in dimension #1: offset 4, 12 elements with stride 4611686018427387904 in a dimension of size 16}}
  %s = tensor.extract_slice %t[0, 4] [2, 12] [1, 4611686018427387904] : tensor<2x16xbf16> to tensor<2x12xbf16>
  return %s : tensor<2x12xbf16>
}

// -----

func.func @insert_stride(%s: tensor<2x12xf32>, %t: tensor<2x16xf32>) -> tensor<2x16xf32> {
  // expected-error @below {{'tensor.insert_slice' op reaches outside its tensor in dimension #1: offset 4, 12 elements with stride 4611686018427387904 in a dimension of size 16}}
  %r = tensor.insert_slice %s into %t[0, 4] [2, 12] [1, 4611686018427387904] : tensor<2x12xf32> into tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}
