// tma-contract (the default): a pairwise(contract) result ([M, N/2], SwiGLU's) is written by
// the kernel's own TMA stores (coda::rt::ContractStore) from subtiles staged in shared memory;
// its packed rows must then be 16-byte aligned, which the launcher checks (N a multiple of 16
// for 16-bit results, 8 for fp32). --cuda-without=tma-contract: each thread stores its elements
// (coda::rt::GlobalStore), for any even N.

// RUN: coda-translate --coda-to-cuda %s -split-input-file | FileCheck %s
// RUN: coda-translate --coda-to-cuda --cuda-without=tma-contract %s -split-input-file | FileCheck %s --check-prefix=THREADS

// CHECK-LABEL: // swiglu_k0: A · Bᵀ, pairwise(contract); results: #0 store (TMA store of N/2 columns).
// CHECK:       using ElementD = void;
// CHECK:       using EpilogueTile = cute::Shape<cute::_{{64|128}}, cute::_32>;
// CHECK-NEXT:  static constexpr int kStoreStages = 2;
// CHECK:       using EVT = coda::rt::WithoutD<
// CHECK:         coda::rt::IndexedCompute<swiglu_k0_v0>,  // 0
// CHECK-NEXT:    coda::rt::ContractStore<kStoreStages, EpilogueTile, cutlass::bfloat16_t>,  // 1
// CHECK:         EpilogueTile, float, float, ElementC, LayoutD, kAlignD,
// CHECK:       static_assert(CollectiveEpilogue::DispatchPolicy::StagesD == kStoreStages,
// CHECK:       if (m < 1 || n < 1 || k < 1 || n % 2 != 0)
// CHECK:       if ((n / 2) % (16 / sizeof(cutlass::bfloat16_t)) != 0 || !coda_aligned(result0))
// CHECK-NEXT:    return CODA_MISALIGNED;
// CHECK:       args.epilogue.thread = {{[{][{][}]}}, {static_cast<cutlass::bfloat16_t *>(result0), n / 2}, {}};

// THREADS-LABEL: // swiglu_k0: A · Bᵀ, pairwise(contract); results: #0 store (direct store).
// THREADS-NOT:   EpilogueTile =
// THREADS:         coda::rt::GlobalStore<cutlass::bfloat16_t, coda::rt::Columns::Contract>,  // 1
// THREADS-NOT:   (n / 2) %
// THREADS:       args.epilogue.thread = {{[{][{][}]}}, {static_cast<cutlass::bfloat16_t *>(result0), n / 2}, {}};
func.func @swiglu(%x: tensor<256x512xbf16>, %w: tensor<2048x512xbf16>) -> tensor<256x1024xbf16> {
  %y = coda.gemm %x, %w transpose_b pairwise(contract) : tensor<256x512xbf16>, tensor<2048x512xbf16>
      -> (store tensor<256x1024xbf16>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %one = arith.constant 1.0 : f32
    %ng = arith.negf %g : f32
    %e = math.exp %ng : f32
    %d = arith.addf %e, %one : f32
    %silu = arith.divf %g, %d : f32
    %y = arith.mulf %silu, %u : f32
    coda.yield %y : f32
  }
  return %y : tensor<256x1024xbf16>
}

// -----

// An fp32 result: rows of 4-byte elements, N/2 a multiple of 4. A second contracted result
// keeps the per-thread store: one ContractStore per kernel.
// CHECK-LABEL: // two_k0: A · Bᵀ, pairwise(contract); results: #0 store (TMA store of N/2 columns) #1 store (direct store).
// CHECK:         coda::rt::ContractStore<kStoreStages, EpilogueTile, float>,  // 2
// CHECK-NEXT:    coda::rt::GlobalStore<cutlass::bfloat16_t, coda::rt::Columns::Contract>,  // 3
// CHECK:       if ((n / 2) % (16 / sizeof(float)) != 0 || !coda_aligned(result0))
// CHECK:       args.epilogue.thread = {{[{][{][}]}}, {}, {static_cast<float *>(result0), n / 2}, {static_cast<cutlass::bfloat16_t *>(result1), n / 2}, {}};
func.func @two(%x: tensor<256x512xbf16>, %w: tensor<2048x512xbf16>) -> (tensor<256x1024xf32>, tensor<256x1024xbf16>) {
  %y, %z = coda.gemm %x, %w transpose_b pairwise(contract) : tensor<256x512xbf16>, tensor<2048x512xbf16>
      -> (store tensor<256x1024xf32>, store tensor<256x1024xbf16>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %y = arith.mulf %g, %u : f32
    %z = arith.addf %g, %u : f32
    coda.yield %y, %z : f32, f32
  }
  return %y, %z : tensor<256x1024xf32>, tensor<256x1024xbf16>
}
