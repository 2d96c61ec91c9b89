// fp32 inputs: one TF32 product by default; with --fp32-products=3xtf32 the plan marks the
// kernel exactFp32 (ranked at 3K), and its launcher splits A and B into TF32 high and low parts
// along a K three times as long ([hi | hi | lo] · [hi | lo | hi]: hi·hi + hi·lo + lo·hi), so
// that the same TF32 kernel reaches about fp32's accuracy. 16-bit inputs are unaffected, and an
// unknown mode is an error.
// RUN: coda-translate --coda-to-cuda %s | FileCheck %s --check-prefix=TF32
// RUN: coda-translate --coda-to-cuda --fp32-products=3xtf32 %s | FileCheck %s --check-prefix=EXACT
// RUN: coda-opt --coda-plan-cuda="fp32=3xtf32" %s | FileCheck %s --check-prefix=PLAN
// RUN: not coda-translate --coda-to-cuda --fp32-products=fp64 %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not test -e %t.cu

// TF32-NOT:    splitTf32(
// TF32-NOT:    exactFp32

// PLAN-LABEL:  func.func @linear
// PLAN:        coda.kernel = #coda.kernel<{{.*}}exactFp32 = true>
// PLAN-LABEL:  func.func @linear_bf16
// PLAN-NOT:    exactFp32
// PLAN:        return

// EXACT-LABEL: extern "C" int linear_k0(
// EXACT:         coda::rt::Restaging restaged(stream);
// EXACT:         if (coda::rt::splitTf32(restaged, a, lda, m, k, false, /*isA=*/true, stream) || coda::rt::splitTf32(restaged, b, ldb, n, k, false, /*isA=*/false, stream))
// EXACT-NEXT:      return CODA_LAUNCH_FAILED;
// EXACT-NEXT:    k = 3 * k;
// EXACT:       extern "C" size_t linear_k0_workspace_size(int m, int n, int k) {
// EXACT:         k = 3 * k; // the split inputs' K
// A · B with A stored transposed: K runs along A's rows and B's rows.
// EXACT-LABEL: extern "C" int transposed_k0(
// EXACT:         if (coda::rt::splitTf32(restaged, a, lda, k, m, true, /*isA=*/true, stream) || coda::rt::splitTf32(restaged, b, ldb, k, n, true, /*isA=*/false, stream))
// EXACT-LABEL: extern "C" int linear_bf16_k0(
// EXACT-NOT:     splitTf32(
// EXACT:         return CODA_OK;

// BAD: error: --fp32-products: unknown mode 'fp64'; expected tf32 or 3xtf32

func.func @linear(%x: tensor<64x96xf32>, %w: tensor<80x96xf32>) -> tensor<64x80xf32> {
  %0 = coda.gemm %x, %w transpose_b : tensor<64x96xf32>, tensor<80x96xf32>
      -> (store tensor<64x80xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<64x80xf32>
}

func.func @transposed(%x: tensor<96x64xf32>, %w: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %0 = coda.gemm %x, %w transpose_a : tensor<96x64xf32>, tensor<96x80xf32>
      -> (store tensor<64x80xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<64x80xf32>
}

func.func @linear_bf16(%x: tensor<64x96xbf16>, %w: tensor<80x96xbf16>) -> tensor<64x80xbf16> {
  %0 = coda.gemm %x, %w transpose_b : tensor<64x96xbf16>, tensor<80x96xbf16>
      -> (store tensor<64x80xbf16>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<64x80xbf16>
}
