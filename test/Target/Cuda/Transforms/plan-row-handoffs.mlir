// A row reduction whose results one kernel reads as row operands, one row per GEMM row, is
// marked to hand its rows over; a reduction that two kernels read, or that a kernel reads as
// something else, is not.
// RUN: coda-opt --coda-plan-row-handoffs --split-input-file %s | FileCheck %s

#rows = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @hands
// CHECK:         linalg.generic {{.*}} attrs = {coda.hands_rows}
// CHECK:         coda.gemm
// CHECK:           attributes {coda.awaits_rows}
func.func @hands(%x: tensor<256x512xbf16>, %w: tensor<768x512xbf16>, %init: tensor<256xf32>) -> tensor<256x768xbf16> {
  %ss = linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xbf16>) outs(%init : tensor<256xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %v = arith.extf %in : bf16 to f32
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %y = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<768x512xbf16>
      with(%ss as row : tensor<256xf32>)
      -> (store tensor<256x768xbf16>)
      epilogue(%acc: f32, %r: f32, %i: index, %j: index) {
    %o = arith.mulf %acc, %r : f32
    coda.yield %o : f32
  }
  return %y : tensor<256x768xbf16>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @two_readers
// CHECK-NOT:     coda.hands_rows
// CHECK-NOT:     coda.awaits_rows
func.func @two_readers(%x: tensor<256x512xbf16>, %w: tensor<768x512xbf16>, %init: tensor<256xf32>)
    -> (tensor<256x768xbf16>, tensor<256x768xbf16>) {
  %ss = linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xbf16>) outs(%init : tensor<256xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %v = arith.extf %in : bf16 to f32
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %y = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<768x512xbf16>
      with(%ss as row : tensor<256xf32>)
      -> (store tensor<256x768xbf16>)
      epilogue(%acc: f32, %r: f32, %i: index, %j: index) {
    %o = arith.mulf %acc, %r : f32
    coda.yield %o : f32
  }
  %z = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<768x512xbf16>
      with(%ss as row : tensor<256xf32>)
      -> (store tensor<256x768xbf16>)
      epilogue(%acc: f32, %r: f32, %i: index, %j: index) {
    %o = arith.addf %acc, %r : f32
    coda.yield %o : f32
  }
  return %y, %z : tensor<256x768xbf16>, tensor<256x768xbf16>
}
