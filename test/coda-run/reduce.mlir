// Reduce primitives: row and column sum, sum of squares, max and log-sum-exp of an epilogue
// value (here relu(acc) and acc itself), against linalg.reduce.
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/linalg.mlir --seed 3 | FileCheck %s
// CHECK-COUNT-6: max abs err {{.*}}: ok
// CHECK-NOT: MISMATCH

//--- coda.mlir
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x24xf32>)
    -> (tensor<8x24xf32>, tensor<8xf32>, tensor<8xf32>, tensor<24xf32>, tensor<24xf32>,
        tensor<8xf32>) {
  %0:6 = coda.gemm %x, %w : tensor<8x16xf32>, tensor<16x24xf32>
      -> (store tensor<8x24xf32>, reduce<row, sum> tensor<8xf32>,
          reduce<row, sumsq> tensor<8xf32>, reduce<col, max> tensor<24xf32>,
          reduce<col, sum> tensor<24xf32>, reduce<row, lse> tensor<8xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %acc, %zero : f32
    coda.yield %relu, %relu, %acc, %acc, %relu, %acc : f32, f32, f32, f32, f32, f32
  }
  return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5
      : tensor<8x24xf32>, tensor<8xf32>, tensor<8xf32>, tensor<24xf32>, tensor<24xf32>,
        tensor<8xf32>
}

//--- linalg.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x24xf32>)
    -> (tensor<8x24xf32>, tensor<8xf32>, tensor<8xf32>, tensor<24xf32>, tensor<24xf32>,
        tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>
  %acc = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x24xf32>)
      outs(%z : tensor<8x24xf32>) -> tensor<8x24xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>
  %relu = linalg.max ins(%acc, %zeros : tensor<8x24xf32>, tensor<8x24xf32>)
      outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>

  %er = tensor.empty() : tensor<8xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %rowsum = linalg.reduce ins(%relu : tensor<8x24xf32>) outs(%zr : tensor<8xf32>) dimensions = [1]
    (%in: f32, %o: f32) {
      %s = arith.addf %o, %in : f32
      linalg.yield %s : f32
    }
  %sq = linalg.mul ins(%acc, %acc : tensor<8x24xf32>, tensor<8x24xf32>)
      outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>
  %rowsumsq = linalg.reduce ins(%sq : tensor<8x24xf32>) outs(%zr : tensor<8xf32>) dimensions = [1]
    (%in: f32, %o: f32) {
      %s = arith.addf %o, %in : f32
      linalg.yield %s : f32
    }
  %ec = tensor.empty() : tensor<24xf32>
  %nc = linalg.fill ins(%ninf : f32) outs(%ec : tensor<24xf32>) -> tensor<24xf32>
  %colmax = linalg.reduce ins(%acc : tensor<8x24xf32>) outs(%nc : tensor<24xf32>) dimensions = [0]
    (%in: f32, %o: f32) {
      %s = arith.maximumf %o, %in : f32
      linalg.yield %s : f32
    }
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<24xf32>) -> tensor<24xf32>
  %colsum = linalg.reduce ins(%relu : tensor<8x24xf32>) outs(%zc : tensor<24xf32>) dimensions = [0]
    (%in: f32, %o: f32) {
      %s = arith.addf %o, %in : f32
      linalg.yield %s : f32
    }
  // log-softmax style: m = max, lse = m + log(sum(exp(x - m)))
  %nr = linalg.fill ins(%ninf : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %rowmax = linalg.reduce ins(%acc : tensor<8x24xf32>) outs(%nr : tensor<8xf32>) dimensions = [1]
    (%in: f32, %o: f32) {
      %s = arith.maximumf %o, %in : f32
      linalg.yield %s : f32
    }
  %shifted = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %rowmax : tensor<8x24xf32>, tensor<8xf32>) outs(%e : tensor<8x24xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %x2 = math.exp %d : f32
    linalg.yield %x2 : f32
  } -> tensor<8x24xf32>
  %sumexp = linalg.reduce ins(%shifted : tensor<8x24xf32>) outs(%zr : tensor<8xf32>) dimensions = [1]
    (%in: f32, %o: f32) {
      %s = arith.addf %o, %in : f32
      linalg.yield %s : f32
    }
  %lse = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%rowmax, %sumexp : tensor<8xf32>, tensor<8xf32>) outs(%er : tensor<8xf32>) {
  ^bb0(%m: f32, %s: f32, %o: f32):
    %l = math.log %s : f32
    %r = arith.addf %l, %m : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %relu, %rowsum, %rowsumsq, %colmax, %colsum, %lse
      : tensor<8x24xf32>, tensor<8xf32>, tensor<8xf32>, tensor<24xf32>, tensor<24xf32>,
        tensor<8xf32>
}
