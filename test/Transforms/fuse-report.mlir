// RUN: coda-opt %s --coda-fuse-report -o %t | FileCheck %s
// The report is an analysis: the IR comes out unchanged.
// RUN: coda-opt %s | diff - %t

// CHECK-LABEL: @main: 1 fused kernel, 3 ops outside
// CHECK-NEXT:    kernel 0 at {{.*}}fuse-report.mlir:[[# @LINE + 18]]:{{[0-9]+}}
// CHECK-NEXT:      gemm      8x16 · 16x32 (f32, fp32 accumulation)
// CHECK-NEXT:      operands  %arg2 as col 32
// CHECK-NEXT:      epilogue  arith.addf
// CHECK-NEXT:      results   store tensor<8x32xf32>
// CHECK-NEXT:    outside: linalg.matmul (line [[# @LINE + 20]]): nothing to fuse: no epilogue, no transpose, no sibling product
// CHECK-NEXT:    outside: linalg.batch_matmul (line [[# @LINE + 22]]): batched product: fusable (--coda-fuse runs --coda-fuse-epilogue=batched=true after attention)
// CHECK-NEXT:    outside: linalg.generic (line [[# @LINE + 22]]): attention (scores, masking, softmax, values): left for the attention path
// CHECK-NEXT:  @prep (run-once weight preparation): 0 fused kernels, 1 op outside
// CHECK-NEXT:    (transforms weights once, at load time; not part of the per-call work)

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>,
    %y: tensor<8x16xf32>, %q: tensor<2x4x8xf32>, %k: tensor<2x8x4xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %0 = coda.gemm %x, %w : tensor<8x16xf32>, tensor<16x32xf32>
      with(%b as col : tensor<32xf32>)
      -> (store tensor<8x32xf32>)
      epilogue(%acc: f32, %bv: f32, %i: index, %j: index) {
    %s = arith.addf %acc, %bv : f32
    coda.yield %s : f32
  }
  %1 = linalg.matmul ins(%y, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %es = tensor.empty() : tensor<2x4x4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %2 = linalg.batch_matmul ins(%q, %k : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%zs : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<2x4x4xf32>) outs(%es : tensor<2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<2x4x4xf32>
  return %0, %1, %3 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<2x4x4xf32>
}

func.func private @prep(%w: tensor<16xf32>) -> tensor<16xf32> attributes {coda.weight_prep} {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// An op on a kernel's even and odd columns that stays outside (the kernel's result is also
// returned) says so, naming the strided slices, not "values no GEMM produces".
// CHECK-LABEL: @strided_pairs: 1 fused kernel, 1 op outside
// CHECK:         outside: linalg.generic (line {{[0-9]+}}): elementwise op on a kernel result read through strided column slices (interleaved pairs): no pairwise(contract) fusion matches this combination
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @strided_pairs(%x: tensor<16x64xf32>, %w: tensor<192x64xf32>)
    -> (tensor<16x96xf32>, tensor<16x192xf32>) {
  %0 = coda.gemm %x, %w transpose_b : tensor<16x64xf32>, tensor<192x64xf32>
    -> (store tensor<16x192xf32>)
    epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %gate = tensor.extract_slice %0[0, 0] [16, 96] [1, 2] : tensor<16x192xf32> to tensor<16x96xf32>
  %up = tensor.extract_slice %0[0, 1] [16, 96] [1, 2] : tensor<16x192xf32> to tensor<16x96xf32>
  %e = tensor.empty() : tensor<16x96xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<16x96xf32>, tensor<16x96xf32>) outs(%e : tensor<16x96xf32>) {
  ^bb0(%g: f32, %u: f32, %out: f32):
    %o = arith.mulf %g, %u : f32
    linalg.yield %o : f32
  } -> tensor<16x96xf32>
  return %y, %0 : tensor<16x96xf32>, tensor<16x192xf32>
}

// A rotation of q left between its projection and attention (here a product with a table of
// per-position values broadcast over the heads, which no pass took in) is named as such; the
// batched product after it (attention's, had the rotation matched) is named as well.
// CHECK-LABEL: @unmatched_rotation: 1 fused kernel, 2 ops outside
// CHECK:         outside: linalg.generic (line {{[0-9]+}}): elementwise op between a projection and attention that no epilogue absorbed (a rotation of q or k in a layout coda-fuse-rope does not match)
// CHECK:         outside: linalg.batch_matmul (line {{[0-9]+}}): batched product: fusable (--coda-fuse runs --coda-fuse-epilogue=batched=true after attention)
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#table = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @unmatched_rotation(%x: tensor<8x32xf32>, %w: tensor<16x32xf32>, %cos: tensor<8x8xf32>,
                              %kt: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
  %0 = coda.gemm %x, %w transpose_b : tensor<8x32xf32>, tensor<16x32xf32>
    -> (store tensor<8x16xf32>)
    epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %heads = tensor.expand_shape %0 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
  %e = tensor.empty() : tensor<2x8x8xf32>
  %q = linalg.transpose ins(%heads : tensor<8x2x8xf32>) outs(%e : tensor<2x8x8xf32>) permutation = [1, 0, 2]
  %r = linalg.generic {indexing_maps = [#id3, #table, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q, %cos : tensor<2x8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<2x8x8xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %o = arith.mulf %v, %c : f32
    linalg.yield %o : f32
  } -> tensor<2x8x8xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%r, %kt : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%z : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %s : tensor<2x8x8xf32>
}
