// fp32 inputs: the product runs on TF32 wgmma (fp32 in memory and in the accumulator, the
// multiplications on 10-bit mantissas), in K steps of 32 so that a pipeline stage holds as many
// bytes as 16-bit inputs' 64; the analytic model counts half the 16-bit peak and 4-byte
// operands. TMA's 16-byte rows are 4 fp32 elements: the launcher re-pitches rows that are not.
// Both layouts: A · Bᵀ (a linear layer) and A · B.
// RUN: coda-translate --coda-to-cuda --emit-torch-binding %coda_src/examples/cuda/bias_gelu_f32.mlir | FileCheck %s
// RUN: coda-translate --coda-to-cuda %s | FileCheck %s --check-prefix=NN

// CHECK:       coda-tuning-key: 256x1024x512:f32:nt:plain:col-f32:store-f32:ops
// CHECK:       // configuration: {{[0-9]+}}x{{[0-9]+}}x32 cluster
// CHECK-LABEL: struct main_k0_kernel {
// CHECK:         using TileShape = cute::Shape<cute::_{{[0-9]+}}, cute::_{{[0-9]+}}, cute::_32>;
// CHECK:         using ElementIn = float;
// CHECK:         restaged.input(a, lda, m, k, sizeof(K::ElementIn))
// CHECK:       coda_check_matrix(fn, "a", a, at::kFloat, a.device());
// CHECK:       coda_check_matrix(fn, "b", b, at::kFloat, a.device());

// NN:          coda-tuning-key: 128x128x64:f32:nn:
// NN:          using ElementIn = float;
// NN:          using LayoutB = cutlass::layout::RowMajor;
func.func @nn(%x: tensor<128x64xf32>, %w: tensor<64x128xf32>) -> tensor<128x128xf32> {
  %0 = coda.gemm %x, %w : tensor<128x64xf32>, tensor<64x128xf32>
      -> (store tensor<128x128xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<128x128xf32>
}
