// coda-run refuses what it cannot hold before allocating anything, keeps random integers in
// the range the program indexes, and reports a failed assertion or index check at its location
// with a non-zero exit instead of aborting.
// RUN: split-file %s %t
// RUN: not coda-run %t/huge.mlir 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not coda-run %t/overflow.mlir 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not coda-run %t/half-of-it.mlir --against %t/half-of-it.mlir 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not coda-run %t/wraps.mlir 2>&1 | FileCheck %s --check-prefix=WRAPS
// RUN: not coda-run %t/big-intermediate.mlir --max-memory 1M 2>&1 | FileCheck %s --check-prefix=INTERMEDIATE
// RUN: coda-run %t/big-intermediate.mlir --max-memory 2M | FileCheck %s --check-prefix=FITS
// RUN: not coda-run %t/big-intermediate.mlir --max-memory 12Q 2>&1 | FileCheck %s --check-prefix=BADSIZE
// RUN: not coda-run %t/big-intermediate.mlir --max-memory 0 2>&1 | FileCheck %s --check-prefix=BADSIZE
// RUN: not coda-run %t/big-intermediate.mlir --int-max 0 2>&1 | FileCheck %s --check-prefix=INTMAX
// RUN: not coda-run %t/big-intermediate.mlir --int-max -5 2>&1 | FileCheck %s --check-prefix=INTMAX
// RUN: not coda-run %t/assert.mlir 2>&1 | FileCheck %s --check-prefix=ASSERT
// RUN: not coda-run %t/out-of-bounds.mlir 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: coda-run %t/gather.mlir --int-max 100000000 | FileCheck %s --check-prefix=GATHER
// RUN: coda-run %t/narrow.mlir --int-max 1000 | FileCheck %s --check-prefix=NARROW
// RUN: coda-run %t/empty.mlir | FileCheck %s --check-prefix=EMPTY
// RUN: not coda-run %t/zero-row-output.mlir 2>&1 | FileCheck %s --check-prefix=ZEROROWS
// RUN: coda-run %t/zero-size-views.mlir | FileCheck %s --check-prefix=ZEROVIEWS
// RUN: not coda-run %t/divide-by-zero.mlir 2>&1 | FileCheck %s --check-prefix=DIVZERO
// RUN: not coda-run %t/divide-overflow.mlir 2>&1 | FileCheck %s --check-prefix=DIVOVERFLOW
// RUN: not coda-run %t/attention-scores.mlir --max-memory 1G 2>&1 | FileCheck %s --check-prefix=SCORES

// HUGE: huge.mlir:1:1: error: running @main may need 13194139533312 bytes (12288.00 GiB) of memory, above the limit of {{.*}} (raise it with --max-memory)
// OVERFLOW: overflow.mlir:1:1: error: argument #0 of @main has type 'tensor<4611686018427387904xf32>', which needs more than 2^63 bytes
// Each program needs 3 * 2^61 bytes, which fits in 63 bits; the two together do not.
// BOTH: half-of-it.mlir:1:1: error: running @main may need 9223372036854775807 bytes (8589934592.00 GiB) of memory, above the limit of
// WRAPS: wraps.mlir:3:8: error: a value of type 'tensor<4294967296x4294967296xf32>' needs more than 2^63 bytes; coda-run cannot hold it
// INTERMEDIATE: big-intermediate.mlir:1:1: error: running @main may need 1048608 bytes (1.00 MiB) of memory, above the limit of 1048576 bytes (1.00 MiB) (raise it with --max-memory)
// FITS: result #0: tensor<4xf32>
// BADSIZE: coda-run: --max-memory wants a positive size such as 512M or 8G
// INTMAX: coda-run: --int-max must be between 1 and 2^53
// ASSERT: assert.mlir:6:3: error: assertion failed while running @main: labels must be negative
// BOUNDS: out-of-bounds.mlir:9:10: error: runtime check failed while running @main: index out of range in dimension #0 of 'tensor<5xf32>'
// The labels index a table of 5 rows: every lookup is in range whatever --int-max says.
// GATHER: result #0: tensor<8xf32> min
// An i8 input holds [0, 128): int-max is narrowed to it.
// NARROW: result #0: tensor<64xi8> min {{.*}} max {{([0-9]\.[0-9]{4}e\+0[01]|1\.[01][0-9]{3}e\+02|1\.2[0-7]00e\+02)}} mean
// EMPTY: result #0: tensor<0x4xf32> has no elements
// ZEROVIEWS: result #0: tensor<0x16x2xf32> has no elements
// A 0-row output for 16 input rows (upstream's verifier skips sizes of 0).
// A divisor the program computes (here 0 for the first row, in a score region) is checked as
// it runs: division by zero and the smallest value divided by -1 would trap.
// DIVZERO: divide-by-zero.mlir:5:10: error: runtime check failed while running @main: integer division by zero
// DIVOVERFLOW: divide-overflow.mlir:7:10: error: runtime check failed while running @main: signed division overflows (smallest value by -1)
// Attention's empty heads need no memory, its [B, H, Sq, Sk] scores do.
// SCORES: attention-scores.mlir:1:1: error: running @main may need {{.*}} of memory, above the limit of 1073741824 bytes (1.00 GiB)
// ZEROROWS: zero-row-output.mlir:2:8: error: 'linalg.matmul' op operand #2 has size 0 in dimension #0, which indexes loop d0 of size 16 (dimension #0 of operand #0)

//--- huge.mlir
func.func @main(%x: tensor<1099511627776xf32>) -> tensor<1099511627776xf32> {
  return %x : tensor<1099511627776xf32>
}

//--- overflow.mlir
func.func @main(%x: tensor<4611686018427387904xf32>) -> tensor<4611686018427387904xf32> {
  return %x : tensor<4611686018427387904xf32>
}

//--- wraps.mlir
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // 2^64 elements: the count wraps to 0 in 64 bits.
  %e = tensor.empty() : tensor<4294967296x4294967296xf32>
  return %x : tensor<4xf32>
}

//--- big-intermediate.mlir
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<262140xf32>
  return %x : tensor<4xf32>
}

//--- assert.mlir
func.func @main(%labels: tensor<4xi64>) -> tensor<4xi64> {
  %c0 = arith.constant 0 : index
  %l = tensor.extract %labels[%c0] : tensor<4xi64>
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi slt, %l, %zero : i64
  cf.assert %ok, "labels must be negative"
  return %labels : tensor<4xi64>
}

//--- out-of-bounds.mlir
// The index is 5 past the label: no bound keeps it inside the table.
func.func @main(%table: tensor<5xf32>, %labels: tensor<8xi64>) -> tensor<8xf32> {
  %c5 = arith.constant 5 : index
  %init = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%labels : tensor<8xi64>) outs(%init : tensor<8xf32>) {
  ^bb0(%l: i64, %o: f32):
    %i = arith.index_cast %l : i64 to index
    %j = arith.addi %i, %c5 : index
    %v = tensor.extract %table[%j] : tensor<5xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

//--- gather.mlir
func.func @main(%table: tensor<5xf32>, %labels: tensor<8xi64>) -> tensor<8xf32> {
  %init = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%labels : tensor<8xi64>) outs(%init : tensor<8xf32>) {
  ^bb0(%l: i64, %o: f32):
    %i = arith.index_cast %l : i64 to index
    %v = tensor.extract %table[%i] : tensor<5xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

//--- narrow.mlir
func.func @main(%x: tensor<64xi8>) -> tensor<64xi8> {
  return %x : tensor<64xi8>
}

//--- empty.mlir
func.func @main(%x: tensor<0x4xf32>) -> tensor<0x4xf32> {
  return %x : tensor<0x4xf32>
}

//--- zero-row-output.mlir
func.func @main(%a: tensor<16x8xf32>, %b: tensor<8x4xf32>, %c: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x4xf32>) outs(%c : tensor<0x4xf32>) -> tensor<0x4xf32>
  return %r : tensor<0x4xf32>
}

//--- zero-size-views.mlir
func.func @main(%x: tensor<0x32xf32>) -> tensor<0x16x2xf32> {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [0, 16, 2] : tensor<0x32xf32> into tensor<0x16x2xf32>
  return %e : tensor<0x16x2xf32>
}

//--- half-of-it.mlir
func.func @main(%x: tensor<576460752303423488xf32>) -> tensor<576460752303423488xf32> {
  return %x : tensor<576460752303423488xf32>
}

//--- divide-by-zero.mlir
func.func @main(%q: tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32> {
  %o = coda.attention %q, %q, %q scale 1.0 : tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32> -> tensor<1x1x8x4xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c7 = arith.constant 7 : index
    %r = arith.remui %c7, %i : index
    %x = arith.index_cast %r : index to i32
    %y = arith.sitofp %x : i32 to f32
    %z = arith.addf %s, %y : f32
    coda.yield %z : f32
  }
  return %o : tensor<1x1x8x4xf32>
}

//--- divide-overflow.mlir
func.func @main(%x: tensor<4xi32>) -> tensor<4xi32> {
  %min = arith.constant -2147483648 : i32
  %m1 = arith.constant -1 : i32
  %init = tensor.empty() : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<4xi32>) outs(%init : tensor<4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %d = arith.divsi %min, %m1 : i32
    linalg.yield %d : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

//--- attention-scores.mlir
func.func @main(%q: tensor<2147483648x4x64x0xf16>) -> tensor<2147483648x4x64x0xf16> {
  %o = coda.attention %q, %q, %q scale 1.0 : tensor<2147483648x4x64x0xf16>, tensor<2147483648x4x64x0xf16>, tensor<2147483648x4x64x0xf16> -> tensor<2147483648x4x64x0xf16>
  return %o : tensor<2147483648x4x64x0xf16>
}
