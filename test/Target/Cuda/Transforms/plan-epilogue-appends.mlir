// An append whose new rows are a column block of a coda.gemm's stored result, one GEMM row per
// new row, is marked coda.in_epilogue: the kernel stores those columns into the cache. Appends
// the kernel cannot write stay unmarked: a cache that something else reads too, positions
// computed after the kernel, head-major rows of several tokens per sequence, contracted
// pairs, f32 caches.
// RUN: coda-opt --coda-plan-epilogue-appends --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @qkv
// CHECK:         coda.append {{.*}} into %arg2 {{.*}} {coda.in_epilogue}
// CHECK:         coda.append {{.*}} into %arg3 {{.*}} {coda.in_epilogue}
func.func @qkv(%x: tensor<4x64xbf16>, %w: tensor<192x64xbf16>, %kc: tensor<4x16x2x32xbf16>,
    %vc: tensor<4x16x2x32xbf16>, %pos: tensor<4xi32>)
    -> (tensor<4x64xbf16>, tensor<4x16x2x32xbf16>, tensor<4x16x2x32xbf16>) {
  %qkv = coda.gemm %x, %w transpose_b : tensor<4x64xbf16>, tensor<192x64xbf16>
      -> (store tensor<4x192xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %q = tensor.extract_slice %qkv[0, 0] [4, 64] [1, 1] : tensor<4x192xbf16> to tensor<4x64xbf16>
  %k = tensor.extract_slice %qkv[0, 64] [4, 64] [1, 1] : tensor<4x192xbf16> to tensor<4x64xbf16>
  %v = tensor.extract_slice %qkv[0, 128] [4, 64] [1, 1] : tensor<4x192xbf16> to tensor<4x64xbf16>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [4, 1, 2, 32] : tensor<4x64xbf16> into tensor<4x1x2x32xbf16>
  %v4 = tensor.expand_shape %v [[0, 1], [2, 3]] output_shape [4, 1, 2, 32] : tensor<4x64xbf16> into tensor<4x1x2x32xbf16>
  %k1 = coda.append %k4 into %kc at %pos layout <bshd> : tensor<4x1x2x32xbf16> into tensor<4x16x2x32xbf16> at tensor<4xi32>
  %v1 = coda.append %v4 into %vc at %pos layout <bshd> : tensor<4x1x2x32xbf16> into tensor<4x16x2x32xbf16> at tensor<4xi32>
  return %q, %k1, %v1 : tensor<4x64xbf16>, tensor<4x16x2x32xbf16>, tensor<4x16x2x32xbf16>
}

// -----

// Head-major caches with one new token per sequence: [B, H, 1, d] is the rows' order too.
// CHECK-LABEL: func.func @head_major
// CHECK:         coda.append {{.*}} {coda.in_epilogue}
func.func @head_major(%x: tensor<4x64xbf16>, %w: tensor<64x64xbf16>, %kc: tensor<4x2x16x32xbf16>,
    %pos: tensor<1xi64>) -> tensor<4x2x16x32xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<4x64xbf16>, tensor<64x64xbf16>
      -> (store tensor<4x64xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %k = tensor.extract_slice %y[0, 0] [4, 64] [1, 1] : tensor<4x64xbf16> to tensor<4x64xbf16>
  %k4 = tensor.expand_shape %k [[0], [1, 2, 3]] output_shape [4, 2, 1, 32] : tensor<4x64xbf16> into tensor<4x2x1x32xbf16>
  %k1 = coda.append %k4 into %kc at %pos : tensor<4x2x1x32xbf16> into tensor<4x2x16x32xbf16> at tensor<1xi64>
  return %k1 : tensor<4x2x16x32xbf16>
}

// -----

// The caller reads the cache after the append: writing it from the kernel, before the append,
// would be seen by nobody else only if the append were its one reader.
// CHECK-LABEL: func.func @cache_read_twice
// CHECK-NOT:     coda.in_epilogue
func.func @cache_read_twice(%x: tensor<4x64xbf16>, %w: tensor<64x64xbf16>,
    %kc: tensor<4x16x2x32xbf16>, %pos: tensor<4xi32>)
    -> (tensor<4x16x2x32xbf16>, tensor<4x16x2x32xbf16>) {
  %y = coda.gemm %x, %w transpose_b : tensor<4x64xbf16>, tensor<64x64xbf16>
      -> (store tensor<4x64xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %k = tensor.extract_slice %y[0, 0] [4, 64] [1, 1] : tensor<4x64xbf16> to tensor<4x64xbf16>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [4, 1, 2, 32] : tensor<4x64xbf16> into tensor<4x1x2x32xbf16>
  %k1 = coda.append %k4 into %kc at %pos layout <bshd> : tensor<4x1x2x32xbf16> into tensor<4x16x2x32xbf16> at tensor<4xi32>
  return %k1, %kc : tensor<4x16x2x32xbf16>, tensor<4x16x2x32xbf16>
}

// -----

// Positions computed after the kernel are not there when its epilogue runs.
// CHECK-LABEL: func.func @late_positions
// CHECK-NOT:     coda.in_epilogue
func.func @late_positions(%x: tensor<4x64xbf16>, %w: tensor<64x64xbf16>,
    %kc: tensor<4x16x2x32xbf16>, %len: tensor<4xi32>) -> tensor<4x16x2x32xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<4x64xbf16>, tensor<64x64xbf16>
      -> (store tensor<4x64xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %e = tensor.empty() : tensor<4xi32>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]} ins(%len : tensor<4xi32>) outs(%e : tensor<4xi32>) {
  ^bb0(%l: i32, %o: i32):
    %c1 = arith.constant 1 : i32
    %p = arith.subi %l, %c1 : i32
    linalg.yield %p : i32
  } -> tensor<4xi32>
  %k = tensor.extract_slice %y[0, 0] [4, 64] [1, 1] : tensor<4x64xbf16> to tensor<4x64xbf16>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [4, 1, 2, 32] : tensor<4x64xbf16> into tensor<4x1x2x32xbf16>
  %k1 = coda.append %k4 into %kc at %pos layout <bshd> : tensor<4x1x2x32xbf16> into tensor<4x16x2x32xbf16> at tensor<4xi32>
  return %k1 : tensor<4x16x2x32xbf16>
}

// -----

// Two tokens per sequence, head-major: the new rows [B, H, 2, d] are not the result's
// row-major order.
// CHECK-LABEL: func.func @head_major_tokens
// CHECK-NOT:     coda.in_epilogue
func.func @head_major_tokens(%x: tensor<4x64xbf16>, %w: tensor<64x64xbf16>,
    %kc: tensor<2x2x16x32xbf16>, %pos: tensor<2xi32>) -> tensor<2x2x16x32xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<4x64xbf16>, tensor<64x64xbf16>
      -> (store tensor<4x64xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %k = tensor.extract_slice %y[0, 0] [4, 64] [1, 1] : tensor<4x64xbf16> to tensor<4x64xbf16>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [2, 2, 2, 32] : tensor<4x64xbf16> into tensor<2x2x2x32xbf16>
  %k1 = coda.append %k4 into %kc at %pos : tensor<2x2x2x32xbf16> into tensor<2x2x16x32xbf16> at tensor<2xi32>
  return %k1 : tensor<2x2x16x32xbf16>
}

// -----

// f32 caches: the kernel's epilogue stores 16-bit K and V only.
// CHECK-LABEL: func.func @f32_cache
// CHECK-NOT:     coda.in_epilogue
func.func @f32_cache(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>, %kc: tensor<4x16x2x32xf32>,
    %pos: tensor<4xi32>) -> tensor<4x16x2x32xf32> {
  %y = coda.gemm %x, %w transpose_b : tensor<4x64xf32>, tensor<64x64xf32>
      -> (store tensor<4x64xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %k = tensor.extract_slice %y[0, 0] [4, 64] [1, 1] : tensor<4x64xf32> to tensor<4x64xf32>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [4, 1, 2, 32] : tensor<4x64xf32> into tensor<4x1x2x32xf32>
  %k1 = coda.append %k4 into %kc at %pos layout <bshd> : tensor<4x1x2x32xf32> into tensor<4x16x2x32xf32> at tensor<4xi32>
  return %k1 : tensor<4x16x2x32xf32>
}
