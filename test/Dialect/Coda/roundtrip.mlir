// RUN: coda-opt %s | coda-opt | FileCheck %s
// RUN: coda-opt %s --mlir-print-op-generic | coda-opt | FileCheck %s
// Both the custom and the generic form round-trip to the same printed IR.

// CHECK-LABEL: func.func @store_with_every_role
// CHECK:       coda.gemm %{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16x32xbf16>
// CHECK-NEXT:    with(%{{.*}} as scalar : tensor<f32>, %{{.*}} as row : tensor<8xf32>, %{{.*}} as col : tensor<32xbf16>, %{{.*}} as matrix : tensor<8x32xf16>)
// CHECK-NEXT:    -> (store tensor<8x32xbf16>)
// CHECK-NEXT:    epilogue(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: bf16, %{{.*}}: f16, %{{.*}}: index, %{{.*}}: index) {
// CHECK:         coda.yield %{{.*}} : f32
func.func @store_with_every_role(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>,
    %alpha: tensor<f32>, %r: tensor<8xf32>, %bias: tensor<32xbf16>, %res: tensor<8x32xf16>)
    -> tensor<8x32xbf16> {
  %0 = coda.gemm %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>
      with(%alpha as scalar : tensor<f32>, %r as row : tensor<8xf32>,
           %bias as col : tensor<32xbf16>, %res as matrix : tensor<8x32xf16>)
      -> (store tensor<8x32xbf16>)
      epilogue(%acc: f32, %a: f32, %rv: f32, %b: bf16, %m: f16, %i: index, %j: index) {
    %s = arith.mulf %acc, %a : f32
    %t = arith.mulf %s, %rv : f32
    %bf = arith.extf %b : bf16 to f32
    %mf = arith.extf %m : f16 to f32
    %u = arith.addf %t, %bf : f32
    %v = arith.addf %u, %mf : f32
    coda.yield %v : f32
  }
  return %0 : tensor<8x32xbf16>
}

// CHECK-LABEL: func.func @every_result_mode
// CHECK:       coda.gemm %{{.*}}, %{{.*}} transpose_b : tensor<8x16xf32>, tensor<32x16xf32>
// CHECK-NEXT:    -> (store tensor<8x32xf16>, accumulate(%{{.*}}) tensor<8x32xf32>, reduce<row, sum> tensor<8xf32>, reduce<row, sumsq> tensor<8xf32>, reduce<col, max> tensor<32xf32>, reduce<row, lse> tensor<8xf32>)
func.func @every_result_mode(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>,
    %o: tensor<8x32xf32>) -> (tensor<8x32xf16>, tensor<8x32xf32>, tensor<8xf32>,
                              tensor<8xf32>, tensor<32xf32>, tensor<8xf32>) {
  %0:6 = coda.gemm %x, %w transpose_b : tensor<8x16xf32>, tensor<32x16xf32>
      -> (store tensor<8x32xf16>, accumulate(%o) tensor<8x32xf32>,
          reduce<row, sum> tensor<8xf32>, reduce<row, sumsq> tensor<8xf32>,
          reduce<col, max> tensor<32xf32>, reduce<row, lse> tensor<8xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc, %acc, %acc, %acc, %acc, %acc : f32, f32, f32, f32, f32, f32
  }
  return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5
      : tensor<8x32xf16>, tensor<8x32xf32>, tensor<8xf32>, tensor<8xf32>, tensor<32xf32>,
        tensor<8xf32>
}

// CHECK-LABEL: func.func @pairwise_contract
// CHECK:       coda.gemm %{{.*}}, %{{.*}} pairwise(contract) : tensor<4x8xbf16>, tensor<8x16xbf16>
// CHECK-NEXT:    with(%{{.*}} as col : tensor<16xf32>)
// CHECK-NEXT:    -> (store tensor<4x8xbf16>)
// CHECK-NEXT:    epilogue(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: index, %{{.*}}: index) {
func.func @pairwise_contract(%x: tensor<4x8xbf16>, %w: tensor<8x16xbf16>, %b: tensor<16xf32>)
    -> tensor<4x8xbf16> {
  %0 = coda.gemm %x, %w pairwise(contract) : tensor<4x8xbf16>, tensor<8x16xbf16>
      with(%b as col : tensor<16xf32>)
      -> (store tensor<4x8xbf16>)
      epilogue(%gate: f32, %up: f32, %bg: f32, %bu: f32, %i: index, %p: index) {
    %g = arith.addf %gate, %bg : f32
    %u = arith.addf %up, %bu : f32
    %n = arith.negf %g : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %silu = arith.divf %g, %d : f32
    %y = arith.mulf %silu, %u : f32
    coda.yield %y : f32
  }
  return %0 : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @pairwise_rotate_and_expand
// CHECK:       coda.gemm %{{.*}}, %{{.*}} pairwise(rotate) : tensor<4x8xf32>, tensor<8x16xf32>
// CHECK:         coda.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK:       coda.gemm %{{.*}}, %{{.*}} pairwise(expand) : tensor<4x8xf32>, tensor<8x16xf32>
// CHECK-NEXT:    -> (store tensor<4x32xf32>, reduce<col, sum> tensor<32xf32>)
func.func @pairwise_rotate_and_expand(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>,
    %cos: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x32xf32>, tensor<32xf32>) {
  %0 = coda.gemm %x, %w pairwise(rotate) : tensor<4x8xf32>, tensor<8x16xf32>
      with(%cos as matrix : tensor<4x16xf32>)
      -> (store tensor<4x16xf32>)
      epilogue(%a: f32, %b: f32, %c0: f32, %c1: f32, %i: index, %p: index) {
    %x0 = arith.mulf %a, %c0 : f32
    %x1 = arith.mulf %b, %c1 : f32
    coda.yield %x1, %x0 : f32, f32
  }
  %1:2 = coda.gemm %x, %w pairwise(expand) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x32xf32>, reduce<col, sum> tensor<32xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    %n = arith.negf %a : f32
    coda.yield %a, %n, %a, %n : f32, f32, f32, f32
  }
  return %0, %1#0, %1#1 : tensor<4x16xf32>, tensor<4x32xf32>, tensor<32xf32>
}

// CHECK-LABEL: func.func @rotate_into_halves
// CHECK:       coda.gemm %{{.*}}, %{{.*}} pairwise(rotate, halves 8) : tensor<4x8xf32>, tensor<8x16xf32>
// CHECK-NEXT:    -> (store tensor<4x16xf32>, reduce<row, sumsq> tensor<4xf32>)
func.func @rotate_into_halves(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %0:2 = coda.gemm %x, %w pairwise(rotate, halves 8) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x16xf32>, reduce<row, sumsq> tensor<4xf32>)
      epilogue(%a: f32, %b: f32, %i: index, %p: index) {
    coda.yield %b, %a, %a, %b : f32, f32, f32, f32
  }
  return %0#0, %0#1 : tensor<4x16xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @batched_transposed_with_indices
// CHECK:       coda.gemm %{{.*}}, %{{.*}} transpose_a transpose_b : tensor<2x16x8xf16>, tensor<2x32x16xf16>
// CHECK-NEXT:    with(%{{.*}} as row : tensor<2x8xi64>)
// CHECK-NEXT:    -> (reduce<row, sum> tensor<2x8xf32>) attributes {note = "target logit"}
// CHECK:         arith.index_cast
func.func @batched_transposed_with_indices(%a: tensor<2x16x8xf16>, %b: tensor<2x32x16xf16>,
    %labels: tensor<2x8xi64>) -> tensor<2x8xf32> {
  %0 = coda.gemm %a, %b transpose_a transpose_b : tensor<2x16x8xf16>, tensor<2x32x16xf16>
      with(%labels as row : tensor<2x8xi64>)
      -> (reduce<row, sum> tensor<2x8xf32>)
      attributes {note = "target logit"}
      epilogue(%acc: f32, %label: i64, %i: index, %j: index) {
    %ji = arith.index_cast %j : index to i64
    %hit = arith.cmpi eq, %ji, %label : i64
    %zero = arith.constant 0.0 : f32
    %v = arith.select %hit, %acc, %zero : f32
    coda.yield %v : f32
  }
  return %0 : tensor<2x8xf32>
}

// Operands of a batched product without the batch dimension are shared by every batch; a
// kernel configuration that runs fp32 inputs as three TF32 products says so.
// CHECK-LABEL: func.func @batched_shared_operands
// CHECK:       coda.gemm %{{.*}}, %{{.*}} transpose_b : tensor<3x8x16xf32>, tensor<3x32x16xf32>
// CHECK-NEXT:    with(%{{.*}} as col : tensor<32xf32>, %{{.*}} as row : tensor<3x8xf32>, %{{.*}} as matrix : tensor<8x32xf32>)
// CHECK-NEXT:    -> (store tensor<3x8x32xf32>) attributes {coda.kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 32, schedule = cooperative, stores = [tma], exactFp32 = true>}
func.func @batched_shared_operands(%a: tensor<3x8x16xf32>, %b: tensor<3x32x16xf32>,
    %bias: tensor<32xf32>, %scale: tensor<3x8xf32>, %res: tensor<8x32xf32>) -> tensor<3x8x32xf32> {
  %0 = coda.gemm %a, %b transpose_b : tensor<3x8x16xf32>, tensor<3x32x16xf32>
      with(%bias as col : tensor<32xf32>, %scale as row : tensor<3x8xf32>,
           %res as matrix : tensor<8x32xf32>)
      -> (store tensor<3x8x32xf32>)
      attributes {coda.kernel = #coda.kernel<tileM = 128, tileN = 128, tileK = 32, schedule = cooperative, stores = [tma], exactFp32 = true>}
      epilogue(%acc: f32, %b0: f32, %s0: f32, %r0: f32, %i: index, %j: index) {
    %x = arith.addf %acc, %b0 : f32
    %y = arith.mulf %x, %s0 : f32
    %z = arith.addf %y, %r0 : f32
    coda.yield %z : f32
  }
  return %0 : tensor<3x8x32xf32>
}

// CHECK-LABEL: func.func @tiled_table
// CHECK:       coda.gemm %{{.*}}, %{{.*}} pairwise(rotate) : tensor<4x8xf32>, tensor<8x16xf32>
// CHECK-NEXT:    with(%{{.*}} as tiled : tensor<4x8xf32>)
// CHECK-NEXT:    -> (store tensor<4x16xf32>)
func.func @tiled_table(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %cos: tensor<4x8xf32>)
    -> tensor<4x16xf32> {
  %0 = coda.gemm %x, %w pairwise(rotate) : tensor<4x8xf32>, tensor<8x16xf32>
      with(%cos as tiled : tensor<4x8xf32>)
      -> (store tensor<4x16xf32>)
      epilogue(%a: f32, %b: f32, %c0: f32, %c1: f32, %i: index, %p: index) {
    %x0 = arith.mulf %a, %c0 : f32
    %x1 = arith.mulf %b, %c1 : f32
    coda.yield %x0, %x1 : f32, f32
  }
  return %0 : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @attention_causal_gqa
// CHECK:       %{{.*}}, %{{.*}} = coda.attention %{{.*}}, %{{.*}}, %{{.*}} scale 1.250000e-01 mask <causal = true, left = 7> : tensor<2x8x16x64xbf16>, tensor<2x2x16x64xbf16>, tensor<2x2x16x64xbf16> -> tensor<2x8x16x64xbf16>, tensor<2x8x16xf32>
func.func @attention_causal_gqa(%q: tensor<2x8x16x64xbf16>, %k: tensor<2x2x16x64xbf16>,
    %v: tensor<2x2x16x64xbf16>) -> (tensor<2x8x16x64xbf16>, tensor<2x8x16xf32>) {
  %o, %lse = coda.attention %q, %k, %v scale 0.125 mask <causal = true, left = 7>
      : tensor<2x8x16x64xbf16>, tensor<2x2x16x64xbf16>, tensor<2x2x16x64xbf16>
      -> tensor<2x8x16x64xbf16>, tensor<2x8x16xf32>
  return %o, %lse : tensor<2x8x16x64xbf16>, tensor<2x8x16xf32>
}

// CHECK-LABEL: func.func @attention_runtime_mask
// CHECK:       coda.attention %{{.*}}, %{{.*}}, %{{.*}} blocks(%{{.*}}, %{{.*}} : tensor<1x8x2x3xi8>, tensor<1x8x200x9xi32>) scale 1.250000e-01 mask <causal = true> : tensor<2x8x200x64xbf16>, tensor<2x2x280x64xbf16>, tensor<2x2x280x64xbf16> -> tensor<2x8x200x64xbf16>
func.func @attention_runtime_mask(%q: tensor<2x8x200x64xbf16>, %k: tensor<2x2x280x64xbf16>,
    %v: tensor<2x2x280x64xbf16>, %blocks: tensor<1x8x2x3xi8>, %bits: tensor<1x8x200x9xi32>)
    -> tensor<2x8x200x64xbf16> {
  %o = coda.attention %q, %k, %v blocks(%blocks, %bits : tensor<1x8x2x3xi8>, tensor<1x8x200x9xi32>)
      scale 0.125 mask <causal = true>
      : tensor<2x8x200x64xbf16>, tensor<2x2x280x64xbf16>, tensor<2x2x280x64xbf16>
      -> tensor<2x8x200x64xbf16>
  return %o : tensor<2x8x200x64xbf16>
}

// CHECK-LABEL: func.func @attention_tokens_lens_softcap
// CHECK:       coda.attention %{{.*}}, %{{.*}}, %{{.*}} lens(%{{.*}} : tensor<2xi32>) scale 1.000000e+00 layout <bshd> : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x32xf32> -> tensor<2x16x8x32xf32> score {
// CHECK-NEXT:  ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK:         math.tanh
// CHECK:         coda.yield %{{.*}} : f32
func.func @attention_tokens_lens_softcap(%q: tensor<2x16x8x64xf32>, %k: tensor<2x16x8x64xf32>,
    %v: tensor<2x16x8x32xf32>, %len: tensor<2xi32>) -> tensor<2x16x8x32xf32> {
  %o = coda.attention %q, %k, %v lens(%len : tensor<2xi32>) scale 1.0 layout <bshd>
      : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x32xf32>
      -> tensor<2x16x8x32xf32>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %cap = arith.constant 30.0 : f32
        %d = arith.divf %s, %cap : f32
        %t = math.tanh %d : f32
        %r = arith.mulf %t, %cap : f32
        coda.yield %r : f32
      }
  return %o : tensor<2x16x8x32xf32>
}

// CHECK-LABEL: func.func @decode_step
// CHECK:       %[[K:.*]] = coda.append %{{.*}} into %{{.*}} at %{{.*}} : tensor<4x2x1x64xbf16> into tensor<4x2x512x64xbf16> at tensor<4xi32>
// CHECK:       %[[V:.*]] = coda.append %{{.*}} into %{{.*}} at %{{.*}} layout <bshd> : tensor<4x1x2x64xbf16> into tensor<4x512x2x64xbf16> at tensor<4xi64>
// CHECK:       coda.attention %{{.*}}, %[[K]], %{{.*}} cache(%{{.*}} : tensor<4xi32>) scale 1.250000e-01 mask <causal = true> : tensor<4x8x1x64xbf16>, tensor<4x2x512x64xbf16>, tensor<4x2x512x64xbf16> -> tensor<4x8x1x64xbf16>
func.func @decode_step(%q: tensor<4x8x1x64xbf16>, %k: tensor<4x2x1x64xbf16>, %kc: tensor<4x2x512x64xbf16>,
    %vt: tensor<4x1x2x64xbf16>, %vct: tensor<4x512x2x64xbf16>, %vc: tensor<4x2x512x64xbf16>,
    %pos: tensor<4xi32>, %pos64: tensor<4xi64>, %len: tensor<4xi32>) -> tensor<4x8x1x64xbf16> {
  %k1 = coda.append %k into %kc at %pos : tensor<4x2x1x64xbf16> into tensor<4x2x512x64xbf16> at tensor<4xi32>
  %v1 = coda.append %vt into %vct at %pos64 layout <bshd>
      : tensor<4x1x2x64xbf16> into tensor<4x512x2x64xbf16> at tensor<4xi64>
  %o = coda.attention %q, %k1, %vc cache(%len : tensor<4xi32>) scale 0.125 mask <causal = true>
      : tensor<4x8x1x64xbf16>, tensor<4x2x512x64xbf16>, tensor<4x2x512x64xbf16>
      -> tensor<4x8x1x64xbf16>
  return %o : tensor<4x8x1x64xbf16>
}

// CHECK-LABEL: func.func @paged_decode_step
// CHECK:       coda.append %{{.*}} into %{{.*}} at %{{.*}} pages(%{{.*}} : tensor<4x32xi32>) layout <bshd> : tensor<4x1x8x128xbf16> into tensor<512x16x8x128xbf16> at tensor<4xi32>
// CHECK:       coda.attention %{{.*}}, %{{.*}}, %{{.*}} cache(%{{.*}} : tensor<4xi32>) pages(%{{.*}} : tensor<4x32xi32>) scale 1.250000e-01 layout <bshd> : tensor<4x1x32x128xbf16>, tensor<512x16x8x128xbf16>, tensor<512x16x8x128xbf16> -> tensor<4x1x32x128xbf16>
func.func @paged_decode_step(%q: tensor<4x1x32x128xbf16>, %k: tensor<4x1x8x128xbf16>,
    %kp: tensor<512x16x8x128xbf16>, %vp: tensor<512x16x8x128xbf16>, %table: tensor<4x32xi32>,
    %pos: tensor<4xi32>, %len: tensor<4xi32>) -> tensor<4x1x32x128xbf16> {
  %k1 = coda.append %k into %kp at %pos pages(%table : tensor<4x32xi32>) layout <bshd>
      : tensor<4x1x8x128xbf16> into tensor<512x16x8x128xbf16> at tensor<4xi32>
  %o = coda.attention %q, %k1, %vp cache(%len : tensor<4xi32>) pages(%table : tensor<4x32xi32>)
      scale 0.125 layout <bshd>
      : tensor<4x1x32x128xbf16>, tensor<512x16x8x128xbf16>, tensor<512x16x8x128xbf16>
      -> tensor<4x1x32x128xbf16>
  return %o : tensor<4x1x32x128xbf16>
}
