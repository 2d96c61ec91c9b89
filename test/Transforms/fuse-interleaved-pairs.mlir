// A gated combination of a kernel's even and odd columns (gpt-oss's clamped SwiGLU, gate and up
// stored interleaved) becomes a pairwise(contract) kernel over the same weight: its epilogue
// runs the product's bias on both columns of a pair, then the combination, with the row scale
// it reads. A result read otherwise stays as it is. Meaning checked with coda-run.
// RUN: coda-opt --coda-fuse-interleaved-pairs %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: coda-run %t.mlir --entry clamped_swiglu --against %s --rtol 0 --atol 0 --seed 0 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --entry clamped_swiglu --against %s --rtol 0 --atol 0 --seed 1 | FileCheck %s --check-prefix=SAME
// RUN: coda-run %t.mlir --entry also_stored --against %s --rtol 0 --atol 0 | FileCheck %s --check-prefix=SAME
// SAME: result #0: {{.*}}: ok

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @clamped_swiglu
// CHECK-NOT:     tensor.extract_slice
// CHECK:         %[[Y:.*]] = coda.gemm %arg0, %arg1 transpose_b pairwise(contract) : tensor<16x64xf32>, tensor<192x64xf32>
// CHECK-NEXT:      with(%arg2 as col : tensor<192xf32>, %arg3 as row : tensor<16xf32>)
// CHECK-NEXT:      -> (store tensor<16x96xf32>)
// CHECK-NEXT:      epilogue(%[[G:.*]]: f32, %[[U:.*]]: f32, %[[BG:.*]]: f32, %[[BU:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index)
// CHECK-DAG:       arith.addf %[[G]], %[[BG]] : f32
// CHECK-DAG:       arith.addf %[[U]], %[[BU]] : f32
// CHECK:           math.exp
// CHECK:           arith.mulf %{{.*}}, %[[S]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[Y]]
func.func @clamped_swiglu(%x: tensor<16x64xf32>, %w: tensor<192x64xf32>, %b: tensor<192xf32>,
                          %scale: tensor<16xf32>) -> tensor<16x96xf32> {
  %lo = arith.constant -7.000000e+00 : f32
  %hi = arith.constant 7.000000e+00 : f32
  %alpha = arith.constant 1.702000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %0 = coda.gemm %x, %w transpose_b : tensor<16x64xf32>, tensor<192x64xf32>
    with(%b as col : tensor<192xf32>)
    -> (store tensor<16x192xf32>)
    epilogue(%acc: f32, %bias: f32, %i: index, %j: index) {
    %s = arith.addf %acc, %bias : f32
    coda.yield %s : f32
  }
  %gate = tensor.extract_slice %0[0, 0] [16, 96] [1, 2] : tensor<16x192xf32> to tensor<16x96xf32>
  %up = tensor.extract_slice %0[0, 1] [16, 96] [1, 2] : tensor<16x192xf32> to tensor<16x96xf32>
  %e = tensor.empty() : tensor<16x96xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%up, %gate, %scale : tensor<16x96xf32>, tensor<16x96xf32>, tensor<16xf32>) outs(%e : tensor<16x96xf32>) {
  ^bb0(%u: f32, %g: f32, %r: f32, %out: f32):
    %c = arith.cmpf ugt, %g, %hi : f32
    %gc = arith.select %c, %hi, %g : f32
    %c2 = arith.cmpf ult, %u, %lo : f32
    %u1 = arith.select %c2, %lo, %u : f32
    %c3 = arith.cmpf ugt, %u1, %hi : f32
    %uc = arith.select %c3, %hi, %u1 : f32
    %ga = arith.mulf %gc, %alpha : f32
    %n = arith.negf %ga : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %sig = arith.divf %one, %d : f32
    %glu = arith.mulf %gc, %sig : f32
    %up1 = arith.addf %uc, %one : f32
    %o = arith.mulf %up1, %glu : f32
    %os = arith.mulf %o, %r : f32
    linalg.yield %os : f32
  } -> tensor<16x96xf32>
  return %y : tensor<16x96xf32>
}

// CHECK-LABEL: func.func @also_stored
// CHECK:         coda.gemm %arg0, %arg1 transpose_b : tensor<16x64xf32>, tensor<192x64xf32>
// CHECK-NEXT:      -> (store tensor<16x192xf32>)
// CHECK:         tensor.extract_slice
func.func @also_stored(%x: tensor<16x64xf32>, %w: tensor<192x64xf32>)
    -> (tensor<16x96xf32>, tensor<16x192xf32>) {
  %0 = coda.gemm %x, %w transpose_b : tensor<16x64xf32>, tensor<192x64xf32>
    -> (store tensor<16x192xf32>)
    epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  %gate = tensor.extract_slice %0[0, 0] [16, 96] [1, 2] : tensor<16x192xf32> to tensor<16x96xf32>
  %up = tensor.extract_slice %0[0, 1] [16, 96] [1, 2] : tensor<16x192xf32> to tensor<16x96xf32>
  %e = tensor.empty() : tensor<16x96xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<16x96xf32>, tensor<16x96xf32>) outs(%e : tensor<16x96xf32>) {
  ^bb0(%g: f32, %u: f32, %out: f32):
    %o = arith.mulf %g, %u : f32
    linalg.yield %o : f32
  } -> tensor<16x96xf32>
  return %y, %0 : tensor<16x96xf32>, tensor<16x192xf32>
}
