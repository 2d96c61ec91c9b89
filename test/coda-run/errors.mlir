// coda-run's diagnostics for bad input: each names the problem and the location, and the
// exit code is non-zero.
// RUN: split-file %s %t
// RUN: not coda-run %t/parse.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not coda-run %t/missing-file.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not coda-run %t/two.mlir 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// RUN: not coda-run %t/two.mlir --entry nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not coda-run %t/unsupported.mlir 2>&1 | FileCheck %s --check-prefix=NOTENSOR
// RUN: not coda-run %t/dynamic.mlir 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not coda-run %t/two.mlir --entry a --against %t/other-signature.mlir 2>&1 | FileCheck %s --check-prefix=SIGNATURE
// RUN: not coda-run %t/invalid-gemm.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY

// PARSE: parse.mlir:2:3: error: custom op 'bogus' is unknown
// NOFILE: coda-run: cannot open input file '{{.*}}missing-file.mlir'
// AMBIGUOUS: two.mlir:0:0: error: no function 'main' and 2 public functions; choose one with --entry: a b
// NOFUNC: two.mlir:0:0: error: no function named 'nope' with a body in this file
// NOTENSOR: unsupported.mlir:1:1: error: argument #0 of @main has type 'memref<4xf32>'; coda-run supports statically shaped tensors
// DYNAMIC: dynamic.mlir:1:1: error: argument #0 of @main has type 'tensor<?xf32>'
// SIGNATURE: other-signature.mlir:1:1: error: @a has type '(tensor<4xf32>) -> tensor<4xf32>' here but '(tensor<2xf32>) -> tensor<2xf32>' in {{.*}}two.mlir (a reference may differ only in its float types)
// RUN: not coda-run %t/two.mlir --entry a --baseline %t/two.mlir 2>&1 | FileCheck %s --check-prefix=NOREF
// RUN: not coda-run %t/two.mlir --entry a --against %t/two.mlir --baseline %t/other-signature.mlir 2>&1 | FileCheck %s --check-prefix=BASETYPE
// RUN: not coda-run %t/two.mlir --entry a --against %t/two.mlir --baseline %t/two.mlir --baseline-factor -1 2>&1 | FileCheck %s --check-prefix=FACTOR
// NOREF: coda-run: --baseline needs --against (the reference both are compared with)
// FACTOR: coda-run: --baseline-factor must be positive, got -1
// BASETYPE: other-signature.mlir:1:1: error: @a has type '(tensor<4xf32>) -> tensor<4xf32>' here but '(tensor<2xf32>) -> tensor<2xf32>' in {{.*}}two.mlir
// VERIFY: invalid-gemm.mlir:2:8: error: 'coda.gemm' op contraction dimension mismatch: A has K = 8, B has K = 4

//--- parse.mlir
func.func @main() {
  bogus
}

//--- two.mlir
func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }

//--- unsupported.mlir
func.func @main(%x: memref<4xf32>) -> tensor<4xf32> {
  %t = bufferization.to_tensor %x : memref<4xf32> to tensor<4xf32>
  return %t : tensor<4xf32>
}

//--- dynamic.mlir
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> { return %x : tensor<?xf32> }

//--- other-signature.mlir
func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }

//--- invalid-gemm.mlir
func.func @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = coda.gemm %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
      -> (store tensor<4x8xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %0 : tensor<4x8xf32>
}
