// A crash inside a tool (here MLIR 22's own parser, which dereferences a null element type on
// `array<index: ...>`, stores a null permutation for linalg.transpose's malformed one, and builds
// linalg.batch_matmul's region with a null value for an index operand) prints
// coda's banner and a stack dump that names the input file.
// RUN: split-file %s %t
// RUN: not --crash coda-opt %t/array.mlir 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not --crash coda-opt %t/transpose.mlir 2>&1 | FileCheck %s --check-prefix=TRANSPOSE
// RUN: not --crash coda-opt %t/batch-matmul.mlir 2>&1 | FileCheck %s --check-prefix=BATCH
// RUN: not --crash coda-opt %t/broadcast.mlir 2>&1 | FileCheck %s --check-prefix=BROADCAST
// RUN: not --crash coda-translate --coda-to-cuda %t/array.mlir 2>&1 | FileCheck %s --check-prefix=TRANSLATE
// RUN: not --crash coda-run %t/array.mlir 2>&1 | FileCheck %s --check-prefix=CPU

// OPT: PLEASE report this crash of a coda tool with the input file and the stack dump below
// OPT: coda-opt: processing '{{.*}}array.mlir'
// TRANSPOSE: PLEASE report this crash of a coda tool
// TRANSPOSE: coda-opt: processing '{{.*}}transpose.mlir'
// TRANSPOSE: MLIR Parser: custom op parser 'linalg.transpose'
// BATCH: coda-opt: processing '{{.*}}batch-matmul.mlir'
// BATCH: MLIR Parser: custom op parser 'linalg.batch_matmul'
// BROADCAST: MLIR Parser: custom op parser 'linalg.broadcast'
// TRANSLATE: PLEASE report this crash of a coda tool
// TRANSLATE: Program arguments: {{.*}}coda-translate --coda-to-cuda {{.*}}array.mlir
// CPU: PLEASE report this crash of a coda tool
// CPU: coda-run: running '{{.*}}array.mlir'

//--- array.mlir
func.func @main() attributes {a = array<index: 1, 2>} {
  return
}

//--- transpose.mlir
func.func @main(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %t = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%y : tensor<8x4xf32>) permutation = [1, x]
  return %t : tensor<8x4xf32>
}

//--- batch-matmul.mlir
func.func @main(%a: tensor<2x4x8xindex>, %b: tensor<2x8x4xf32>, %c: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xindex>, tensor<2x8x4xf32>) outs(%c : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %r : tensor<2x4x4xf32>
}

//--- broadcast.mlir
func.func @main(%t: tensor<4x3xf32>, %e: tensor<4x4x3xf32>) -> tensor<4x4x3xf32> {
  %b = linalg.broadcast ins(%t : tensor<4x3xf32>) outs(%e : tensor<4x4x3xf32>) dimensions = [x]
  return %b : tensor<4x4x3xf32>
}
