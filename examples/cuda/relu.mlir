// y = relu(x·Wᵀ): an epilogue that reads nothing but the accumulator and stores one result, the
// smallest epilogue DAG (one compute node under the root: a tree, which CUTLASS's topological
// visitor cannot hold).
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>) -> tensor<256x1024xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      -> (store tensor<256x1024xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %acc, %zero : f32
    coda.yield %r : f32
  }
  return %y : tensor<256x1024xbf16>
}
