// Pairwise primitives against a reference that slices even and odd columns with strides:
// contract (SwiGLU on interleaved gate/up columns), rotate (RoPE-style rotation of each pair
// by a per-row, per-pair angle given as cos/sin matrices) and expand (one column into two).
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --entry contract --seed 4 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --entry rotate --seed 5 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --entry expand --seed 6 | FileCheck %s
// CHECK: result #0: {{.*}}: ok
// CHECK-NOT: MISMATCH

//--- coda.mlir
func.func @contract(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %0 = coda.gemm %x, %w pairwise(contract) : tensor<8x16xf32>, tensor<16x32xf32>
      -> (store tensor<8x16xf32>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %one = arith.constant 1.0 : f32
    %n = arith.negf %g : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %silu = arith.divf %g, %d : f32
    %y = arith.mulf %silu, %u : f32
    coda.yield %y : f32
  }
  return %0 : tensor<8x16xf32>
}

func.func @rotate(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %cos: tensor<8x16xf32>,
    %sin: tensor<8x16xf32>) -> tensor<8x32xf32> {
  // cos and sin are [M, N/2] per pair; duplicated to [M, N] they are matrix operands whose two
  // region values per pair are equal.
  %cos2 = tensor.empty() : tensor<8x16x2xf32>
  %c = linalg.broadcast ins(%cos : tensor<8x16xf32>) outs(%cos2 : tensor<8x16x2xf32>) dimensions = [2]
  %cm = tensor.collapse_shape %c [[0], [1, 2]] : tensor<8x16x2xf32> into tensor<8x32xf32>
  %sin2 = tensor.empty() : tensor<8x16x2xf32>
  %s = linalg.broadcast ins(%sin : tensor<8x16xf32>) outs(%sin2 : tensor<8x16x2xf32>) dimensions = [2]
  %sm = tensor.collapse_shape %s [[0], [1, 2]] : tensor<8x16x2xf32> into tensor<8x32xf32>
  %0 = coda.gemm %x, %w pairwise(rotate) : tensor<8x16xf32>, tensor<16x32xf32>
      with(%cm as matrix : tensor<8x32xf32>, %sm as matrix : tensor<8x32xf32>)
      -> (store tensor<8x32xf32>)
      epilogue(%a: f32, %b: f32, %c0: f32, %c1: f32, %s0: f32, %s1: f32, %i: index, %p: index) {
    %ac = arith.mulf %a, %c0 : f32
    %bs = arith.mulf %b, %s0 : f32
    %even = arith.subf %ac, %bs : f32
    %as = arith.mulf %a, %s0 : f32
    %bc = arith.mulf %b, %c0 : f32
    %odd = arith.addf %as, %bc : f32
    coda.yield %even, %odd : f32, f32
  }
  return %0 : tensor<8x32xf32>
}

func.func @expand(%x: tensor<8x16xf32>, %w: tensor<16x12xf32>) -> tensor<8x24xf32> {
  %0 = coda.gemm %x, %w pairwise(expand) : tensor<8x16xf32>, tensor<16x12xf32>
      -> (store tensor<8x24xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    %sq = arith.mulf %a, %a : f32
    %n = arith.negf %a : f32
    coda.yield %sq, %n : f32, f32
  }
  return %0 : tensor<8x24xf32>
}

//--- linalg.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @matmul_8x16x32(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>)
      outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %acc : tensor<8x32xf32>
}

func.func @contract(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %acc = func.call @matmul_8x16x32(%x, %w) : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %gate = tensor.extract_slice %acc[0, 0] [8, 16] [1, 2] : tensor<8x32xf32> to tensor<8x16xf32>
  %up = tensor.extract_slice %acc[0, 1] [8, 16] [1, 2] : tensor<8x32xf32> to tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%g: f32, %u: f32, %o: f32):
    %sig = math.exp %g : f32
    %one = arith.constant 1.0 : f32
    // silu(g) = g * sigmoid(g) = g * e^g / (1 + e^g), written differently from the coda side
    %den = arith.addf %one, %sig : f32
    %frac = arith.divf %sig, %den : f32
    %silu = arith.mulf %g, %frac : f32
    %r = arith.mulf %silu, %u : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

func.func @rotate(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %cos: tensor<8x16xf32>,
    %sin: tensor<8x16xf32>) -> tensor<8x32xf32> {
  %acc = func.call @matmul_8x16x32(%x, %w) : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %a = tensor.extract_slice %acc[0, 0] [8, 16] [1, 2] : tensor<8x32xf32> to tensor<8x16xf32>
  %b = tensor.extract_slice %acc[0, 1] [8, 16] [1, 2] : tensor<8x32xf32> to tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %even, %odd = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id],
                                iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %cos, %sin : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>)
      outs(%e, %e : tensor<8x16xf32>, tensor<8x16xf32>) {
  ^bb0(%av: f32, %bv: f32, %c: f32, %s: f32, %o0: f32, %o1: f32):
    %ac = arith.mulf %av, %c : f32
    %bs = arith.mulf %bv, %s : f32
    %r0 = arith.subf %ac, %bs : f32
    %as = arith.mulf %av, %s : f32
    %bc = arith.mulf %bv, %c : f32
    %r1 = arith.addf %as, %bc : f32
    linalg.yield %r0, %r1 : f32, f32
  } -> (tensor<8x16xf32>, tensor<8x16xf32>)
  %out = tensor.empty() : tensor<8x32xf32>
  %o1 = tensor.insert_slice %even into %out[0, 0] [8, 16] [1, 2] : tensor<8x16xf32> into tensor<8x32xf32>
  %o2 = tensor.insert_slice %odd into %o1[0, 1] [8, 16] [1, 2] : tensor<8x16xf32> into tensor<8x32xf32>
  return %o2 : tensor<8x32xf32>
}

func.func @expand(%x: tensor<8x16xf32>, %w: tensor<16x12xf32>) -> tensor<8x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x12xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x12xf32>) -> tensor<8x12xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x12xf32>)
      outs(%z : tensor<8x12xf32>) -> tensor<8x12xf32>
  %sq = linalg.mul ins(%acc, %acc : tensor<8x12xf32>, tensor<8x12xf32>) outs(%e : tensor<8x12xf32>) -> tensor<8x12xf32>
  %neg = linalg.negf ins(%acc : tensor<8x12xf32>) outs(%e : tensor<8x12xf32>) -> tensor<8x12xf32>
  %out = tensor.empty() : tensor<8x24xf32>
  %o1 = tensor.insert_slice %sq into %out[0, 0] [8, 12] [1, 2] : tensor<8x12xf32> into tensor<8x24xf32>
  %o2 = tensor.insert_slice %neg into %o1[0, 1] [8, 12] [1, 2] : tensor<8x12xf32> into tensor<8x24xf32>
  return %o2 : tensor<8x24xf32>
}
