// coda-run --against must catch a wrong program: here a SwiGLU whose epilogue swaps gate and
// up (silu(u) * g instead of silu(g) * u). It exits 1 and reports the mismatch; the correct
// program passes on the same inputs.
// RUN: split-file %s %t
// RUN: not coda-run %t/wrong.mlir --against %t/reference.mlir 2>%t/stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=STDERR < %t/stderr
// RUN: coda-run %t/right.mlir --against %t/reference.mlir | FileCheck %s --check-prefix=RIGHT
// CHECK: result #0: tensor<4x8xf32> max abs err {{.*}}: MISMATCH in {{[0-9]+}} of 32 elements
// STDERR: coda-run: {{.*}}wrong.mlir and {{.*}}reference.mlir disagree beyond the tolerances
// RIGHT: result #0: tensor<4x8xf32> {{.*}}: ok

//--- wrong.mlir
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %0 = coda.gemm %x, %w pairwise(contract) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x8xf32>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %one = arith.constant 1.0 : f32
    %n = arith.negf %u : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %silu = arith.divf %u, %d : f32
    %y = arith.mulf %silu, %g : f32
    coda.yield %y : f32
  }
  return %0 : tensor<4x8xf32>
}

//--- right.mlir
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %0 = coda.gemm %x, %w pairwise(contract) : tensor<4x8xf32>, tensor<8x16xf32>
      -> (store tensor<4x8xf32>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %one = arith.constant 1.0 : f32
    %n = arith.negf %g : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %silu = arith.divf %g, %d : f32
    %y = arith.mulf %silu, %u : f32
    coda.yield %y : f32
  }
  return %0 : tensor<4x8xf32>
}

//--- reference.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e16 = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e16 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %g = tensor.extract_slice %acc[0, 0] [4, 8] [1, 2] : tensor<4x16xf32> to tensor<4x8xf32>
  %u = tensor.extract_slice %acc[0, 1] [4, 8] [1, 2] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%gv: f32, %uv: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %gv : f32
    %ex = math.exp %n : f32
    %d = arith.addf %one, %ex : f32
    %sig = arith.divf %one, %d : f32
    %silu = arith.mulf %gv, %sig : f32
    %r = arith.mulf %silu, %uv : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
