// RUN: coda-translate --coda-to-cuda -split-input-file %s | FileCheck %s

// TMA addresses rows whose base and pitch are multiples of 16 bytes, at any extent. Each
// launcher copies the A, B, D (with its init) and residual whose rows are not into re-pitched
// stream-ordered buffers (coda::rt::Restaging), runs the kernel on them, copies D back, and asks
// CUTLASS's can_implement about the extents rounded up to 16 (it also wants aligned extents,
// which TMA does not).

// A·B with A stored transposed ([K, M]) and B row-major ([K, N]), an accumulated init: A's rows
// are M long, B's N long; D and its init share one copy when either is unaddressable.
// CHECK-LABEL: extern "C" int tn_k0(
// CHECK:         // TMA needs 16-byte aligned rows: the kernel reads (writes) re-pitched copies of A, B, D (and its init) where they have none.
// CHECK-NEXT:    coda::rt::Restaging restaged(stream);
// CHECK-NEXT:    if (restaged.input(a, lda, k, m, sizeof(K::ElementIn)) || restaged.input(b, ldb, k, n, sizeof(K::ElementIn)) ||
// CHECK-NEXT:        restaged.output(result0, ldd, m, n, sizeof(K::ElementD), &init0))
// CHECK-NEXT:      return CODA_LAUNCH_FAILED;
// CHECK-NOT:     CODA_MISALIGNED
// CHECK:         {{[{][{][}]}}, static_cast<const K::ElementC *>(init0), sD, static_cast<K::ElementD *>(result0), sD{{[}][}]}};
// CHECK:         auto padded = args;
// CHECK-NEXT:    padded.problem_shape = {coda::rt::tmaExtent(m), coda::rt::tmaExtent(n), coda::rt::tmaExtent(k), 1};
// CHECK-NEXT:    if (G::can_implement(padded) != cutlass::Status::kSuccess) return CODA_UNSUPPORTED;
// CHECK-NEXT:    if (coda::rt::launchGemm<G>(args, workspace, stream) != cudaSuccess) return CODA_LAUNCH_FAILED;
// CHECK-NEXT:    if (restaged.finish() != cudaSuccess) return CODA_LAUNCH_FAILED;
// CHECK:       extern "C" int tn_run(
// CHECK:         tn_k0({{.*}}, 8, 7, 129, 8, 7, 7, scratch, stream)
func.func @tn(%x: tensor<129x8xf32>, %w: tensor<129x7xf32>, %r: tensor<8x7xf32>) -> tensor<8x7xf32> {
  %0 = coda.gemm %x, %w transpose_a : tensor<129x8xf32>, tensor<129x7xf32>
      -> (accumulate(%r) tensor<8x7xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  return %0 : tensor<8x7xf32>
}

// -----

// A packed residual read through the collective's C is copied like A, B and D; a contracted
// pair stored by TMA keeps its refusal (a pairwise kernel's N/2 columns in 16-byte rows).
// CHECK-LABEL: extern "C" int residual_k0(
// CHECK:         long long ldc = n; // the residual is packed
// CHECK-NEXT:    if (restaged.input(a, lda, m, k, sizeof(K::ElementIn)) || restaged.input(b, ldb, n, k, sizeof(K::ElementIn)) ||
// CHECK-NEXT:        restaged.output(result0, ldd, m, n, sizeof(K::ElementD)) ||
// CHECK-NEXT:        restaged.input(operand0, ldc, m, n, sizeof(K::ElementC)))
// CHECK-NEXT:      return CODA_LAUNCH_FAILED;
// CHECK-NOT:     CODA_MISALIGNED
// CHECK:         cute::get<0>(sC) = ldc;
// CHECK-LABEL: extern "C" int contract_k0(
// CHECK:         if (restaged.input(a, lda, m, k, sizeof(K::ElementIn)) || restaged.input(b, ldb, n, k, sizeof(K::ElementIn)))
// CHECK-NEXT:      return CODA_LAUNCH_FAILED;
// CHECK-NEXT:    if ((n / 2) % (16 / sizeof(cutlass::bfloat16_t)) != 0 || !coda_aligned(result0))
// CHECK-NEXT:      return CODA_MISALIGNED;
// CHECK-NOT:     restaged.finish()
// CHECK:         return CODA_OK;
func.func @residual(%x: tensor<8x129xbf16>, %w: tensor<7x129xbf16>, %r: tensor<8x7xbf16>) -> tensor<8x7xbf16> {
  %0 = coda.gemm %x, %w transpose_b : tensor<8x129xbf16>, tensor<7x129xbf16>
      with(%r as matrix : tensor<8x7xbf16>)
      -> (store tensor<8x7xbf16>)
      epilogue(%a: f32, %res: bf16, %i: index, %j: index) {
    %e = arith.extf %res : bf16 to f32
    %s = arith.addf %a, %e : f32
    coda.yield %s : f32
  }
  return %0 : tensor<8x7xbf16>
}

func.func @contract(%x: tensor<8x129xbf16>, %w: tensor<32x129xbf16>) -> tensor<8x16xbf16> {
  %0 = coda.gemm %x, %w transpose_b pairwise(contract) : tensor<8x129xbf16>, tensor<32x129xbf16>
      -> (store tensor<8x16xbf16>)
      epilogue(%g: f32, %u: f32, %i: index, %j: index) {
    %p = arith.mulf %g, %u : f32
    coda.yield %p : f32
  }
  return %0 : tensor<8x16xbf16>
}
