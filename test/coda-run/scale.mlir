// Scale primitives (scalar, row and column broadcast) and a matrix operand, in fp32 and with
// bf16 inputs and outputs, against hand-written linalg.
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --entry f32 --seed 1 | FileCheck %s --check-prefix=F32
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --entry bf16 --seed 2 | FileCheck %s --check-prefix=BF16
// F32: @f32 (seed 1) against
// F32: result #0: tensor<8x32xf32> max abs err {{.*}}: ok
// BF16: result #0: tensor<8x32xbf16> max abs err {{.*}}: ok

//--- coda.mlir
func.func @f32(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %s: tensor<f32>,
    %r: tensor<8xf32>, %c: tensor<32xf32>, %m: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = coda.gemm %x, %w : tensor<8x16xf32>, tensor<16x32xf32>
      with(%s as scalar : tensor<f32>, %r as row : tensor<8xf32>, %c as col : tensor<32xf32>,
           %m as matrix : tensor<8x32xf32>)
      -> (store tensor<8x32xf32>)
      epilogue(%acc: f32, %sv: f32, %rv: f32, %cv: f32, %mv: f32, %i: index, %j: index) {
    %a = arith.mulf %acc, %sv : f32
    %b = arith.mulf %a, %rv : f32
    %d = arith.addf %b, %cv : f32
    %e = arith.addf %d, %mv : f32
    coda.yield %e : f32
  }
  return %0 : tensor<8x32xf32>
}

func.func @bf16(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16>, %c: tensor<32xbf16>)
    -> tensor<8x32xbf16> {
  %0 = coda.gemm %x, %w transpose_b : tensor<8x16xbf16>, tensor<32x16xbf16>
      with(%c as col : tensor<32xbf16>)
      -> (store tensor<8x32xbf16>)
      epilogue(%acc: f32, %cv: bf16, %i: index, %j: index) {
    %cf = arith.extf %cv : bf16 to f32
    %y = arith.addf %acc, %cf : f32
    coda.yield %y : f32
  }
  return %0 : tensor<8x32xbf16>
}

//--- linalg.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @f32(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %s: tensor<f32>,
    %r: tensor<8xf32>, %c: tensor<32xf32>, %m: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>)
      outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #scalar, #row, #col, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc, %s, %r, %c, %m : tensor<8x32xf32>, tensor<f32>, tensor<8xf32>, tensor<32xf32>,
          tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %sv: f32, %rv: f32, %cv: f32, %mv: f32, %o: f32):
    %1 = arith.mulf %a, %sv : f32
    %2 = arith.mulf %1, %rv : f32
    %3 = arith.addf %2, %cv : f32
    %4 = arith.addf %3, %mv : f32
    linalg.yield %4 : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

func.func @bf16(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16>, %c: tensor<32xbf16>)
    -> tensor<8x32xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %wt0 = tensor.empty() : tensor<16x32xbf16>
  %wt = linalg.transpose ins(%w : tensor<32x16xbf16>) outs(%wt0 : tensor<16x32xbf16>)
      permutation = [1, 0]
  %acc = linalg.matmul ins(%x, %wt : tensor<8x16xbf16>, tensor<16x32xbf16>)
      outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %out = tensor.empty() : tensor<8x32xbf16>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %c : tensor<8x32xf32>, tensor<32xbf16>) outs(%out : tensor<8x32xbf16>) {
  ^bb0(%a: f32, %cv: bf16, %o: bf16):
    %cf = arith.extf %cv : bf16 to f32
    %s = arith.addf %a, %cf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}
