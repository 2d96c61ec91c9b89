// A bf16 program against its f32 form: the inputs are converted exactly, and with --baseline
// the program passes where its error is within twice the baseline's (here the bf16 original,
// which rounds after each op). A rewrite that rounds once is closer than the original and
// passes; one that drops the bias is caught although bf16 noise is larger than the usual
// tolerances.
// RUN: split-file %s %t
// RUN: coda-run %t/once.mlir --against %t/f32.mlir --baseline %t/bf16.mlir --atol 0 | FileCheck %s --check-prefix=ONCE
// RUN: not coda-run %t/wrong.mlir --against %t/f32.mlir --baseline %t/bf16.mlir --atol 0 | FileCheck %s --check-prefix=WRONG
// ONCE: result #0: tensor<64xbf16> max abs err {{.*}} (baseline max abs err {{.*}}, limit 2.00 x baseline + atol 0.0e+00 = {{.*}}): ok
// WRONG: result #0: tensor<64xbf16> {{.*}}: MISMATCH: the error exceeds the limit

//--- f32.mlir
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<64xf32>, %y: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %b : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%xv: f32, %yv: f32, %bv: f32, %o: f32):
    %p = arith.mulf %xv, %yv : f32
    %s = arith.addf %p, %bv : f32
    %t = arith.mulf %s, %s : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

//--- bf16.mlir
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<64xbf16>, %y: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<64xbf16> {
  %e = tensor.empty() : tensor<64xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %b : tensor<64xbf16>, tensor<64xbf16>, tensor<64xbf16>) outs(%e : tensor<64xbf16>) {
  ^bb0(%xv: bf16, %yv: bf16, %bv: bf16, %o: bf16):
    %p = arith.mulf %xv, %yv : bf16
    %s = arith.addf %p, %bv : bf16
    %t = arith.mulf %s, %s : bf16
    linalg.yield %t : bf16
  } -> tensor<64xbf16>
  return %r : tensor<64xbf16>
}

//--- once.mlir
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<64xbf16>, %y: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<64xbf16> {
  %e = tensor.empty() : tensor<64xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %b : tensor<64xbf16>, tensor<64xbf16>, tensor<64xbf16>) outs(%e : tensor<64xbf16>) {
  ^bb0(%xv: bf16, %yv: bf16, %bv: bf16, %o: bf16):
    %xf = arith.extf %xv : bf16 to f32
    %yf = arith.extf %yv : bf16 to f32
    %bf = arith.extf %bv : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %p, %bf : f32
    %t = arith.mulf %s, %s : f32
    %n = arith.truncf %t : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<64xbf16>
  return %r : tensor<64xbf16>
}

//--- wrong.mlir
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<64xbf16>, %y: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<64xbf16> {
  %e = tensor.empty() : tensor<64xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y, %b : tensor<64xbf16>, tensor<64xbf16>, tensor<64xbf16>) outs(%e : tensor<64xbf16>) {
  ^bb0(%xv: bf16, %yv: bf16, %bv: bf16, %o: bf16):
    %p = arith.mulf %xv, %yv : bf16
    %t = arith.mulf %p, %p : bf16
    linalg.yield %t : bf16
  } -> tensor<64xbf16>
  return %r : tensor<64xbf16>
}
