// tma-tables (the default): a 16-bit tiled operand (an [M, P] table such as RoPE's cos and
// sin) of a ping-pong kernel is read through TMA: coda::rt::TableLoad, CUTLASS's AuxLoad over
// the [M, P] table with each CTA tile's columns taken mod P, its stages the collective's load
// stages. Cooperative kernels (whose 128-row subtiles' stages would take 32 KB per table from
// the mainloop), tables of fp32, periods no CTA tile is a whole number of, and
// --cuda-without=tma-tables keep per-thread loads (coda::rt::GlobalLoad).

// Each program in a 128x128 ping-pong tile, from a one-entry tuning database.
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/rope_halves.mlir \
// RUN:   | sed -n 's|^// coda-tuning-key: \(.*\)|{"kernels": {"\1": {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "heuristic"}}}|p' > %t.halves.json
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/rope.mlir \
// RUN:   | sed -n 's|^// coda-tuning-key: \(.*\)|{"kernels": {"\1": {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "heuristic"}}}|p' > %t.f32.json
// RUN: coda-translate --coda-to-cuda %s \
// RUN:   | sed -n 's|^// coda-tuning-key: \(.*\)|{"kernels": {"\1": {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "heuristic"}}}|p' > %t.period.json

// RUN: coda-translate --coda-to-cuda --tuning-db=%t.halves.json %coda_src/examples/cuda/rope_halves.mlir | FileCheck %s
// RUN: coda-translate --coda-to-cuda --tuning-db=%t.halves.json --cuda-without=tma-tables %coda_src/examples/cuda/rope_halves.mlir | FileCheck %s --check-prefix=OFF
// RUN: coda-translate --coda-to-cuda --tuning-db=%t.f32.json %coda_src/examples/cuda/rope.mlir | FileCheck %s --check-prefix=F32
// RUN: coda-translate --coda-to-cuda --tuning-db=%t.period.json %s | FileCheck %s --check-prefix=PERIOD
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/rope_halves.mlir | FileCheck %s --check-prefix=COOP

// CHECK-LABEL: // main_k0: A · Bᵀ, pairwise(rotate); results: #0 store (TMA store into the heads' halves).
// CHECK:       // configuration: 128x128x64 cluster 2x1 pingpong raster heuristic (tuning database)
// CHECK:       using EpilogueTile = cute::Shape<cute::_64, cute::_32>;
// CHECK:       using ElementC = void;
// CHECK-NEXT:  // The tables' TMA loads go through the collective's load pipeline: its stages.
// CHECK-NEXT:  static constexpr int kLoadStages = decltype(cutlass::epilogue::collective::detail::
// CHECK-NEXT:      sm90_get_tma_dispatch_policy<TileShape, EpilogueTile, ElementC, cutlass::bfloat16_t, EpilogueSchedule>())::StagesC;
// CHECK:         coda::rt::TableLoad<kLoadStages, EpilogueTile, cutlass::bfloat16_t, 128>,  // 0
// CHECK-NEXT:    coda::rt::TableLoad<kLoadStages, EpilogueTile, cutlass::bfloat16_t, 128>,  // 1
// CHECK:       static_assert(CollectiveEpilogue::DispatchPolicy::StagesC == kLoadStages,
// CHECK:       !coda_aligned(result0) || !coda_aligned(operand0) || !coda_aligned(operand1))
// CHECK-NEXT:    return CODA_MISALIGNED;
// CHECK:       args.epilogue.thread = {{[{]}}{static_cast<const cutlass::bfloat16_t *>(operand0)}, {static_cast<const cutlass::bfloat16_t *>(operand1)}, {},

// OFF-NOT:     TableLoad
// OFF-NOT:     kLoadStages
// OFF:         coda::rt::GlobalLoad<cutlass::bfloat16_t, 128>,  // 0
// OFF-NEXT:    coda::rt::GlobalLoad<cutlass::bfloat16_t, 128>,  // 1
// OFF:         !coda_aligned(result0))
// OFF:         args.epilogue.thread = {{[{]}}{static_cast<const cutlass::bfloat16_t *>(operand0), 128}, {static_cast<const cutlass::bfloat16_t *>(operand1), 128}, {},

// F32:         // configuration: 128x128x64 cluster 2x1 pingpong
// F32-NOT:     TableLoad
// F32:         coda::rt::GlobalLoad<float, 128>,  // 0
// F32-NEXT:    coda::rt::GlobalLoad<float, 128>,  // 1

// The example's own tile (the model's choice) is cooperative.
// COOP:         // configuration: {{[0-9]+}}x{{[0-9]+}}x64 cluster {{[0-9]}}x{{[0-9]}} cooperative
// COOP-NOT:     TableLoad
// COOP:         coda::rt::GlobalLoad<cutlass::bfloat16_t, 128>,  // 0

// A period of 96 columns: no CTA tile width (128 here) is a whole number of periods.
// PERIOD-LABEL: // period96_k0: A · Bᵀ, pairwise(rotate); results: #0 store (TMA store).
// PERIOD:       // configuration: 128x128x64 cluster 2x1 pingpong
// PERIOD-NOT:   TableLoad
// PERIOD:       coda::rt::GlobalLoad<cutlass::bfloat16_t, 96>,  // 0
// Read per thread at column j mod 96, the table needs no N a multiple of its period.
// PERIOD:       if (m < 1 || n < 1 || k < 1 || n % 2 != 0)
func.func @period96(%x: tensor<256x512xbf16>, %w: tensor<1152x512xbf16>,
    %cos: tensor<256x96xbf16>) -> tensor<256x1152xbf16> {
  %q = coda.gemm %x, %w transpose_b pairwise(rotate) : tensor<256x512xbf16>, tensor<1152x512xbf16>
      with(%cos as tiled : tensor<256x96xbf16>)
      -> (store tensor<256x1152xbf16>)
      epilogue(%a: f32, %b: f32, %c0h: bf16, %c1h: bf16, %i: index, %p: index) {
    %c0 = arith.extf %c0h : bf16 to f32
    %c1 = arith.extf %c1h : bf16 to f32
    %even = arith.mulf %a, %c0 : f32
    %odd = arith.mulf %b, %c1 : f32
    coda.yield %even, %odd : f32, f32
  }
  return %q : tensor<256x1152xbf16>
}
