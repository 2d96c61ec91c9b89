// A decode step over a KV cache (append, then attention with the mask aligned at each
// sequence's own length) against the same step written per sequence: the new rows inserted at
// static offsets and a plain bottom-right aligned attention over each sequence's keys. Three
// queries per sequence (a speculative step) under a causal mask, GQA 2:1, and one sequence
// whose window of 8 keys cuts into its old rows.
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/split.mlir --entry main --seed 3 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/split.mlir --entry main --seed 4 | FileCheck %s
// CHECK: result #0: {{.*}}: ok
// CHECK: result #1: {{.*}}: ok
// CHECK: result #2: {{.*}}: ok

//--- coda.mlir
func.func @main(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x3x8xf32>, %v: tensor<2x2x3x8xf32>,
    %kc: tensor<2x2x40x8xf32>, %vc: tensor<2x2x40x8xf32>)
    -> (tensor<2x4x3x8xf32>, tensor<2x2x40x8xf32>, tensor<2x2x40x8xf32>) {
  %pos = arith.constant dense<[5, 30]> : tensor<2xi32>
  %len = arith.constant dense<[8, 33]> : tensor<2xi64>
  %k1 = coda.append %k into %kc at %pos : tensor<2x2x3x8xf32> into tensor<2x2x40x8xf32> at tensor<2xi32>
  %v1 = coda.append %v into %vc at %pos : tensor<2x2x3x8xf32> into tensor<2x2x40x8xf32> at tensor<2xi32>
  %o = coda.attention %q, %k1, %v1 cache(%len : tensor<2xi64>) scale 0.35 mask <causal = true, left = 7>
      : tensor<2x4x3x8xf32>, tensor<2x2x40x8xf32>, tensor<2x2x40x8xf32> -> tensor<2x4x3x8xf32>
  return %o, %k1, %v1 : tensor<2x4x3x8xf32>, tensor<2x2x40x8xf32>, tensor<2x2x40x8xf32>
}

//--- split.mlir
func.func @main(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x3x8xf32>, %v: tensor<2x2x3x8xf32>,
    %kc: tensor<2x2x40x8xf32>, %vc: tensor<2x2x40x8xf32>)
    -> (tensor<2x4x3x8xf32>, tensor<2x2x40x8xf32>, tensor<2x2x40x8xf32>) {
  %k0 = tensor.extract_slice %k[0, 0, 0, 0] [1, 2, 3, 8] [1, 1, 1, 1] : tensor<2x2x3x8xf32> to tensor<1x2x3x8xf32>
  %k9 = tensor.extract_slice %k[1, 0, 0, 0] [1, 2, 3, 8] [1, 1, 1, 1] : tensor<2x2x3x8xf32> to tensor<1x2x3x8xf32>
  %v0 = tensor.extract_slice %v[0, 0, 0, 0] [1, 2, 3, 8] [1, 1, 1, 1] : tensor<2x2x3x8xf32> to tensor<1x2x3x8xf32>
  %v9 = tensor.extract_slice %v[1, 0, 0, 0] [1, 2, 3, 8] [1, 1, 1, 1] : tensor<2x2x3x8xf32> to tensor<1x2x3x8xf32>
  %ka = tensor.insert_slice %k0 into %kc[0, 0, 5, 0] [1, 2, 3, 8] [1, 1, 1, 1] : tensor<1x2x3x8xf32> into tensor<2x2x40x8xf32>
  %k1 = tensor.insert_slice %k9 into %ka[1, 0, 30, 0] [1, 2, 3, 8] [1, 1, 1, 1] : tensor<1x2x3x8xf32> into tensor<2x2x40x8xf32>
  %va = tensor.insert_slice %v0 into %vc[0, 0, 5, 0] [1, 2, 3, 8] [1, 1, 1, 1] : tensor<1x2x3x8xf32> into tensor<2x2x40x8xf32>
  %v1 = tensor.insert_slice %v9 into %va[1, 0, 30, 0] [1, 2, 3, 8] [1, 1, 1, 1] : tensor<1x2x3x8xf32> into tensor<2x2x40x8xf32>
  // Sequence 0 holds 8 keys, sequence 1 holds 33.
  %q0 = tensor.extract_slice %q[0, 0, 0, 0] [1, 4, 3, 8] [1, 1, 1, 1] : tensor<2x4x3x8xf32> to tensor<1x4x3x8xf32>
  %q9 = tensor.extract_slice %q[1, 0, 0, 0] [1, 4, 3, 8] [1, 1, 1, 1] : tensor<2x4x3x8xf32> to tensor<1x4x3x8xf32>
  %ks0 = tensor.extract_slice %k1[0, 0, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<2x2x40x8xf32> to tensor<1x2x8x8xf32>
  %vs0 = tensor.extract_slice %v1[0, 0, 0, 0] [1, 2, 8, 8] [1, 1, 1, 1] : tensor<2x2x40x8xf32> to tensor<1x2x8x8xf32>
  %ks9 = tensor.extract_slice %k1[1, 0, 0, 0] [1, 2, 33, 8] [1, 1, 1, 1] : tensor<2x2x40x8xf32> to tensor<1x2x33x8xf32>
  %vs9 = tensor.extract_slice %v1[1, 0, 0, 0] [1, 2, 33, 8] [1, 1, 1, 1] : tensor<2x2x40x8xf32> to tensor<1x2x33x8xf32>
  %o0 = coda.attention %q0, %ks0, %vs0 scale 0.35 mask <causal = true, left = 7>
      : tensor<1x4x3x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x4x3x8xf32>
  %o9 = coda.attention %q9, %ks9, %vs9 scale 0.35 mask <causal = true, left = 7>
      : tensor<1x4x3x8xf32>, tensor<1x2x33x8xf32>, tensor<1x2x33x8xf32> -> tensor<1x4x3x8xf32>
  %o = tensor.concat dim(0) %o0, %o9 : (tensor<1x4x3x8xf32>, tensor<1x4x3x8xf32>) -> tensor<2x4x3x8xf32>
  return %o, %k1, %v1 : tensor<2x4x3x8xf32>, tensor<2x2x40x8xf32>, tensor<2x2x40x8xf32>
}
