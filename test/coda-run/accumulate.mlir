// Accumulate primitive (O += r, e.g. gradient accumulation or a residual stream kept in
// place) in fp32 and into a bf16 tensor, next to a second stored output.
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --seed 7 | FileCheck %s
// CHECK: result #0: tensor<8x32xf32> {{.*}}: ok
// CHECK: result #1: tensor<8x32xbf16> {{.*}}: ok
// CHECK: result #2: tensor<8x32xf32> {{.*}}: ok

//--- coda.mlir
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %g: tensor<8x32xf32>,
    %h: tensor<8x32xbf16>) -> (tensor<8x32xf32>, tensor<8x32xbf16>, tensor<8x32xf32>) {
  %0:3 = coda.gemm %x, %w : tensor<8x16xf32>, tensor<16x32xf32>
      -> (accumulate(%g) tensor<8x32xf32>, accumulate(%h) tensor<8x32xbf16>,
          store tensor<8x32xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    %half = arith.constant 0.5 : f32
    %s = arith.mulf %acc, %half : f32
    coda.yield %acc, %s, %acc : f32, f32, f32
  }
  return %0#0, %0#1, %0#2 : tensor<8x32xf32>, tensor<8x32xbf16>, tensor<8x32xf32>
}

//--- linalg.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %g: tensor<8x32xf32>,
    %h: tensor<8x32xbf16>) -> (tensor<8x32xf32>, tensor<8x32xbf16>, tensor<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>)
      outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %sum = linalg.add ins(%g, %acc : tensor<8x32xf32>, tensor<8x32xf32>)
      outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %eb = tensor.empty() : tensor<8x32xbf16>
  %hs = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %acc : tensor<8x32xbf16>, tensor<8x32xf32>) outs(%eb : tensor<8x32xbf16>) {
  ^bb0(%old: bf16, %a: f32, %o: bf16):
    %half = arith.constant 0.5 : f32
    %s = arith.mulf %a, %half : f32
    %of = arith.extf %old : bf16 to f32
    %n = arith.addf %of, %s : f32
    %t = arith.truncf %n : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x32xbf16>
  return %sum, %hs, %acc : tensor<8x32xf32>, tensor<8x32xbf16>, tensor<8x32xf32>
}
