// tma-halves (the default): a pairwise(rotate, halves) result is written into its heads'
// halves by the kernel's own TMA stores (coda::rt::HalvesStore), with no staging and no copy
// after the GEMM; the CTA tile is a whole number of heads wide. Heads no CTA tile is as wide as
// fall back to the staged pairs and the copy kernel (--cuda-without=tma-halves:
// test/Target/Cuda/coda-to-cuda.mlir).

// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/rope_halves.mlir | FileCheck %s
// RUN: coda-translate --coda-to-cuda %s -split-input-file | FileCheck %s --check-prefix=NARROW

// A CTA tile two heads wide (a stage-2 candidate, here from a tuning database) keeps the
// HalvesStore: its view of the result tiles whole heads.
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/rope_halves.mlir \
// RUN:   | sed -n 's|^// coda-tuning-key: \(.*\)|{"kernels": {"\1": {"tile": [128, 256, 64], "cluster": [2, 1], "schedule": "cooperative", "raster": "heuristic"}}}|p' > %t.json
// RUN: coda-translate --coda-to-cuda --tuning-db=%t.json %coda_src/examples/cuda/rope_halves.mlir | FileCheck %s --check-prefix=WIDE
// WIDE: // configuration: 128x256x64 cluster 2x1 cooperative raster heuristic (tuning database)
// WIDE: // coda-candidate: {"tile": [64, 256, 64], "cluster": [2, 1], "schedule": "pingpong"
// WIDE: using EpilogueTile = cute::Shape<cute::_128, cute::_32>;
// WIDE: coda::rt::HalvesStore<kStoreStages, EpilogueTile, cutlass::bfloat16_t, 128>

// CHECK-LABEL: // main_k0: A · Bᵀ, pairwise(rotate); results: #0 store (TMA store into the heads' halves).
// CHECK:       // configuration: 128x128x64
// CHECK:       using ElementD = void;
// CHECK:       using EpilogueTile = cute::Shape<cute::_{{64|128}}, cute::_32>;
// CHECK-NEXT:  static constexpr int kStoreStages = 2;
// CHECK:       using EVT = coda::rt::WithoutD<
// CHECK:         coda::rt::IndexedCompute<main_k0_v0>,  // 2
// CHECK-NEXT:    coda::rt::HalvesStore<kStoreStages, EpilogueTile, cutlass::bfloat16_t, 128>,  // 3
// CHECK:         EpilogueTile, float, float, ElementC, LayoutD, kAlignD,
// CHECK:       static_assert(CollectiveEpilogue::DispatchPolicy::StagesD == kStoreStages,
// CHECK-NOT:   staging
// CHECK:       if (m < 1 || n < 1 || k < 1 || n % 2 != 0 || n % 128 != 0)
// CHECK:       if (lda < k || ldb < k || ldd < n)
// CHECK:       if (ldd % (16 / sizeof(cutlass::bfloat16_t)) != 0 || !coda_aligned(result0))
// CHECK:       args.epilogue.thread = {{.*}}, {static_cast<cutlass::bfloat16_t *>(result0), ldd}, {}};
// CHECK-NOT:   PairsToHalves
// CHECK:       extern "C" size_t main_k0_workspace_size(int m, int n, int k) {
// CHECK-NEXT:    using G = main_k0_kernel::Gemm;

// -----

// Heads of 64 columns: no CTA tile of the backend is one head wide, so the pairs are staged
// and copied.
// NARROW-LABEL: // narrow_heads_k0: A · Bᵀ, pairwise(rotate); results: #0 store (TMA store).
// NARROW-NOT:   HalvesStore
// NARROW:       coda::rt::launchPairsToHalves<K::ElementD, 64>(staging,
func.func @narrow_heads(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
    %cos: tensor<256x64xf32>, %sin: tensor<256x64xf32>) -> tensor<256x1024xbf16> {
  %q = coda.gemm %x, %w transpose_b pairwise(rotate, halves 64) : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%cos as tiled : tensor<256x64xf32>, %sin as tiled : tensor<256x64xf32>)
      -> (store tensor<256x1024xbf16>)
      epilogue(%a: f32, %b: f32, %c0: f32, %c1: f32, %s0: f32, %s1: f32, %i: index, %p: index) {
    %ac = arith.mulf %a, %c0 : f32
    %bs = arith.mulf %b, %s0 : f32
    %even = arith.subf %ac, %bs : f32
    %bc = arith.mulf %b, %c1 : f32
    %as = arith.mulf %a, %s1 : f32
    %odd = arith.addf %bc, %as : f32
    coda.yield %even, %odd : f32, f32
  }
  return %q : tensor<256x1024xbf16>
}
