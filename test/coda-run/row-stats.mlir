// Row statistics: row_sum and row_sumsq of the product's A (and of another [M, X] operand),
// against linalg.reduce of x and x² widened to f32.
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --seed 5 | FileCheck %s
// CHECK: max abs err {{.*}}: ok
// CHECK-NOT: MISMATCH

//--- coda.mlir
func.func @main(%x: tensor<8x16xbf16>, %w: tensor<24x16xbf16>, %t: tensor<8x5xf32>)
    -> tensor<8x24xf32> {
  %0 = coda.gemm %x, %w transpose_b : tensor<8x16xbf16>, tensor<24x16xbf16>
      with(%x as row_sum : tensor<8x16xbf16>, %x as row_sumsq : tensor<8x16xbf16>,
           %t as row_sum : tensor<8x5xf32>)
      -> (store tensor<8x24xf32>)
      epilogue(%acc: f32, %s: f32, %ss: f32, %ts: f32, %i: index, %j: index) {
    %a = arith.addf %acc, %s : f32
    %b = arith.mulf %ss, %ts : f32
    %y = arith.subf %a, %b : f32
    coda.yield %y : f32
  }
  return %0 : tensor<8x24xf32>
}

//--- linalg.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%x: tensor<8x16xbf16>, %w: tensor<24x16xbf16>, %t: tensor<8x5xf32>)
    -> tensor<8x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8xf32>
  %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %ex = tensor.empty() : tensor<8x16xf32>
  %xf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xbf16>) outs(%ex : tensor<8x16xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %f = arith.extf %v : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<8x16xf32>
  %wt = tensor.empty() : tensor<24x16xf32>
  %wf = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<24x16xbf16>) outs(%wt : tensor<24x16xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %f = arith.extf %v : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<24x16xf32>
  %s = linalg.reduce ins(%xf : tensor<8x16xf32>) outs(%z8 : tensor<8xf32>) dimensions = [1]
    (%v: f32, %a: f32) {
      %r = arith.addf %v, %a : f32
      linalg.yield %r : f32
    }
  %sq = linalg.mul ins(%xf, %xf : tensor<8x16xf32>, tensor<8x16xf32>)
      outs(%ex : tensor<8x16xf32>) -> tensor<8x16xf32>
  %ss = linalg.reduce ins(%sq : tensor<8x16xf32>) outs(%z8 : tensor<8xf32>) dimensions = [1]
    (%v: f32, %a: f32) {
      %r = arith.addf %v, %a : f32
      linalg.yield %r : f32
    }
  %ts = linalg.reduce ins(%t : tensor<8x5xf32>) outs(%z8 : tensor<8xf32>) dimensions = [1]
    (%v: f32, %a: f32) {
      %r = arith.addf %v, %a : f32
      linalg.yield %r : f32
    }
  %e = tensor.empty() : tensor<8x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>
  %acc = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                          affine_map<(i, j, k) -> (j, k)>,
                                          affine_map<(i, j, k) -> (i, j)>],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xf, %wf : tensor<8x16xf32>, tensor<24x16xf32>) outs(%z : tensor<8x24xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<8x24xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc, %s, %ss, %ts : tensor<8x24xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
      outs(%e : tensor<8x24xf32>) {
  ^bb0(%a: f32, %sv: f32, %ssv: f32, %tsv: f32, %o: f32):
    %p = arith.addf %a, %sv : f32
    %q = arith.mulf %ssv, %tsv : f32
    %r = arith.subf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x24xf32>
  return %y : tensor<8x24xf32>
}
