// A paged KV cache (pools of 8-row pages, a page table per sequence) against the same step
// on contiguous caches: each sequence's pages gathered in table order with static slices, the
// contiguous append and attention, and the pages written back to the pool. Three new rows per
// sequence (rows 14..16 cross a page boundary, rows 20..22 do not), and the causal
// speculative step reads keys on all three of each sequence's pages.
// RUN: split-file %s %t
// RUN: coda-run %t/paged.mlir --against %t/contiguous.mlir --entry main --seed 1 | FileCheck %s
// RUN: coda-run %t/paged.mlir --against %t/contiguous.mlir --entry main --seed 2 | FileCheck %s
// CHECK: result #0: {{.*}}: ok
// CHECK: result #1: {{.*}}: ok
// CHECK: result #2: {{.*}}: ok

//--- paged.mlir
func.func @main(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x2x8xf32>, %v: tensor<2x3x2x8xf32>,
    %kp: tensor<6x8x2x8xf32>, %vp: tensor<6x8x2x8xf32>)
    -> (tensor<2x3x4x8xf32>, tensor<6x8x2x8xf32>, tensor<6x8x2x8xf32>) {
  %pos = arith.constant dense<[14, 20]> : tensor<2xi32>
  %len = arith.constant dense<[17, 23]> : tensor<2xi32>
  %table = arith.constant dense<[[4, 0, 2], [1, 5, 3]]> : tensor<2x3xi32>
  %k1 = coda.append %k into %kp at %pos pages(%table : tensor<2x3xi32>) layout <bshd>
      : tensor<2x3x2x8xf32> into tensor<6x8x2x8xf32> at tensor<2xi32>
  %v1 = coda.append %v into %vp at %pos pages(%table : tensor<2x3xi32>) layout <bshd>
      : tensor<2x3x2x8xf32> into tensor<6x8x2x8xf32> at tensor<2xi32>
  %o = coda.attention %q, %k1, %v1 cache(%len : tensor<2xi32>) pages(%table : tensor<2x3xi32>)
      scale 0.35 mask <causal = true> layout <bshd>
      : tensor<2x3x4x8xf32>, tensor<6x8x2x8xf32>, tensor<6x8x2x8xf32> -> tensor<2x3x4x8xf32>
  return %o, %k1, %v1 : tensor<2x3x4x8xf32>, tensor<6x8x2x8xf32>, tensor<6x8x2x8xf32>
}

//--- contiguous.mlir
func.func @main(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x2x8xf32>, %v: tensor<2x3x2x8xf32>,
    %kp: tensor<6x8x2x8xf32>, %vp: tensor<6x8x2x8xf32>)
    -> (tensor<2x3x4x8xf32>, tensor<6x8x2x8xf32>, tensor<6x8x2x8xf32>) {
  %pos = arith.constant dense<[14, 20]> : tensor<2xi32>
  %len = arith.constant dense<[17, 23]> : tensor<2xi32>
  // Each sequence's pages in table order, as contiguous caches.
  %kc_p00 = tensor.extract_slice %kp[4, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %kc_p01 = tensor.extract_slice %kp[0, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %kc_p02 = tensor.extract_slice %kp[2, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %kc_s0 = tensor.concat dim(1) %kc_p00, %kc_p01, %kc_p02 : (tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>) -> tensor<1x24x2x8xf32>
  %kc_p10 = tensor.extract_slice %kp[1, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %kc_p11 = tensor.extract_slice %kp[5, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %kc_p12 = tensor.extract_slice %kp[3, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %kc_s1 = tensor.concat dim(1) %kc_p10, %kc_p11, %kc_p12 : (tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>) -> tensor<1x24x2x8xf32>
  %kc = tensor.concat dim(0) %kc_s0, %kc_s1 : (tensor<1x24x2x8xf32>, tensor<1x24x2x8xf32>) -> tensor<2x24x2x8xf32>
  %vc_p00 = tensor.extract_slice %vp[4, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %vc_p01 = tensor.extract_slice %vp[0, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %vc_p02 = tensor.extract_slice %vp[2, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %vc_s0 = tensor.concat dim(1) %vc_p00, %vc_p01, %vc_p02 : (tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>) -> tensor<1x24x2x8xf32>
  %vc_p10 = tensor.extract_slice %vp[1, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %vc_p11 = tensor.extract_slice %vp[5, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %vc_p12 = tensor.extract_slice %vp[3, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<6x8x2x8xf32> to tensor<1x8x2x8xf32>
  %vc_s1 = tensor.concat dim(1) %vc_p10, %vc_p11, %vc_p12 : (tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>) -> tensor<1x24x2x8xf32>
  %vc = tensor.concat dim(0) %vc_s0, %vc_s1 : (tensor<1x24x2x8xf32>, tensor<1x24x2x8xf32>) -> tensor<2x24x2x8xf32>
  %kc1 = coda.append %k into %kc at %pos layout <bshd>
      : tensor<2x3x2x8xf32> into tensor<2x24x2x8xf32> at tensor<2xi32>
  %vc1 = coda.append %v into %vc at %pos layout <bshd>
      : tensor<2x3x2x8xf32> into tensor<2x24x2x8xf32> at tensor<2xi32>
  %o = coda.attention %q, %kc1, %vc1 cache(%len : tensor<2xi32>) scale 0.35 mask <causal = true> layout <bshd>
      : tensor<2x3x4x8xf32>, tensor<2x24x2x8xf32>, tensor<2x24x2x8xf32> -> tensor<2x3x4x8xf32>
  // The pages written back to their places in the pool.
  %k1_q0 = tensor.extract_slice %kc1[0, 8, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %k1_q1 = tensor.extract_slice %kc1[1, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %k1_q2 = tensor.extract_slice %kc1[0, 16, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %k1_q3 = tensor.extract_slice %kc1[1, 16, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %k1_q4 = tensor.extract_slice %kc1[0, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %k1_q5 = tensor.extract_slice %kc1[1, 8, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %k1 = tensor.concat dim(0) %k1_q0, %k1_q1, %k1_q2, %k1_q3, %k1_q4, %k1_q5 : (tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>) -> tensor<6x8x2x8xf32>
  %v1_q0 = tensor.extract_slice %vc1[0, 8, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %v1_q1 = tensor.extract_slice %vc1[1, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %v1_q2 = tensor.extract_slice %vc1[0, 16, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %v1_q3 = tensor.extract_slice %vc1[1, 16, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %v1_q4 = tensor.extract_slice %vc1[0, 0, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %v1_q5 = tensor.extract_slice %vc1[1, 8, 0, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<2x24x2x8xf32> to tensor<1x8x2x8xf32>
  %v1 = tensor.concat dim(0) %v1_q0, %v1_q1, %v1_q2, %v1_q3, %v1_q4, %v1_q5 : (tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32>) -> tensor<6x8x2x8xf32>
  return %o, %k1, %v1 : tensor<2x3x4x8xf32>, tensor<6x8x2x8xf32>, tensor<6x8x2x8xf32>
}
