// Configuration choice: the analytic model's pick (tiles swizzled by 8; the raster order that
// reads fewer operand bytes where it clearly does and is not CUTLASS's own choice: along M for
// 1x2 clusters of this square problem; the 64-column epilogue subtile of a plain epilogue) and
// its ranked candidates as comments (the best per tile, then the best tile in the other
// clusters, the other raster orders, unswizzled and with CUTLASS's automatic subtile), a tuning
// database overriding it by kernel key (epilogue subtile included), and clear errors for a bad
// database.

// RUN: coda-translate --coda-to-cuda %s | FileCheck %s --check-prefix=MODEL
// MODEL:       static inline int coda_swizzle(
// MODEL:       // coda-tuning-key: 8192x4096x4096:bf16:nt:plain:-:accumulate-bf16:ops2
// MODEL-NEXT:  // configuration: 128x128x64 cluster 2x1 pingpong raster heuristic epilogue 64x64 (analytic model)
// MODEL-NEXT:  // model inputs: epilogue 4.0 bytes and {{[0-9]+}} fp32 ops per element
// MODEL-NEXT:  // coda-candidate: {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "heuristic", "epilogue_n": 64} model {{[0-9.]+}} ms
// MODEL:       // coda-candidate: {"tile": [128, 256, 64], "cluster": [2, 1], "schedule": "cooperative", "raster": "heuristic", "epilogue_n": 64} model
// MODEL:       // coda-candidate: {"tile": [256, 128, 64], "cluster": [2, 1], "schedule": "cooperative", "raster": "heuristic"} model
// MODEL:       // coda-candidate: {"tile": [128, 128, 64], "cluster": [1, 2], "schedule": "pingpong", "raster": "along_m", "epilogue_n": 64} model
// MODEL-NEXT:  // coda-candidate: {"tile": [128, 128, 64], "cluster": [2, 2], "schedule": "pingpong", "raster": "heuristic", "epilogue_n": 64} model
// MODEL-NEXT:  // coda-candidate: {"tile": [128, 128, 64], "cluster": [1, 1], "schedule": "pingpong", "raster": "heuristic", "epilogue_n": 64} model
// MODEL-NEXT:  // coda-candidate: {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "along_m", "epilogue_n": 64} model
// MODEL-NEXT:  // coda-candidate: {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "along_n", "epilogue_n": 64} model
// MODEL-NEXT:  // coda-candidate: {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "heuristic", "swizzle": 1, "epilogue_n": 64} model
// MODEL-NEXT:  // coda-candidate: {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "heuristic"} model
// MODEL:       using TileShape = cute::Shape<cute::_128, cute::_128, cute::_64>;
// MODEL-NEXT:  using ClusterShape = cute::Shape<cute::_2, cute::_1, cute::_1>;
// MODEL-NEXT:  static constexpr int kTileM = 128, kTileN = 128;
// MODEL-NEXT:  using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
// MODEL-NEXT:  using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
// MODEL:       using EpilogueTile = cute::Shape<cute::_64, cute::_64>;
// MODEL-NOT:   raster_order
// MODEL:       args.scheduler.max_swizzle_size = coda_swizzle(m, n, 128, 128, 2, 1, 8);
// MODEL-NEXT:  size_t gemmBytes

// RUN: coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db.json %s | FileCheck %s --check-prefix=DB
// DB:          // configuration: 256x128x64 cluster 1x2 cooperative raster along_n swizzle 1 (tuning database)
// DB:          using TileShape = cute::Shape<cute::_256, cute::_128, cute::_64>;
// DB-NEXT:     using ClusterShape = cute::Shape<cute::_1, cute::_2, cute::_1>;
// DB:          using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
// DB-NEXT:     using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
// DB:          args.scheduler.raster_order = cutlass::gemm::kernel::detail::RasterOrderOptions::AlongN;

// Unswizzled: no call, and no coda_swizzle for nvcc to warn about as unused; the scheduler's
// swizzle stays at CUTLASS's default, which whole waves read.
// RUN: coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db.json %s | FileCheck %s --check-prefix=DB-UNSWIZZLED
// DB-UNSWIZZLED-NOT: coda_swizzle
// DB-UNSWIZZLED-NOT: max_swizzle_size =
// DB-UNSWIZZLED:     args.hw_info.sm_count = coda::rt::wholeWaves(m, n, K::kTileM, K::kTileN, 1, 2, args.scheduler.max_swizzle_size, args.scheduler.raster_order);
// DB-UNSWIZZLED-NOT: coda_swizzle
// DB-UNSWIZZLED-NOT: max_swizzle_size =

// A wider epilogue subtile (stage 2's "epilogue_n"): spelled out for the collective.
// RUN: coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db-epilogue.json %s | FileCheck %s --check-prefix=DB-EPILOGUE
// DB-EPILOGUE:      // configuration: 128x256x64 cluster 2x1 cooperative raster heuristic epilogue 128x64 (tuning database)
// DB-EPILOGUE:      using EpilogueTile = cute::Shape<cute::_128, cute::_64>;
// DB-EPILOGUE:      EpilogueTile, float, float, ElementC, LayoutD, kAlignD,

// RUN: rm -f %t.cu && not coda-translate --coda-to-cuda --tuning-db=%t.missing %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not test -e %t.cu
// MISSING: error: cannot read tuning database '{{.*}}.missing'
// RUN: not coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db-bad.json %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: tuning database '{{.*}}tuning-db-bad.json': entry 'any': 96x96x64 cluster 1x1 cooperative raster heuristic is not one of the configurations the backend emits
// RUN: not coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db-bad-swizzle.json %s 2>&1 | FileCheck %s --check-prefix=BADSWIZZLE
// BADSWIZZLE: error: tuning database '{{.*}}tuning-db-bad-swizzle.json': entry 'any': swizzle must be 1, 2, 4 or 8
// RUN: not coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db-bad-epilogue.json %s 2>&1 | FileCheck %s --check-prefix=BADEPILOGUE
// BADEPILOGUE: error: tuning database '{{.*}}tuning-db-bad-epilogue.json': entry 'any': epilogue_n must be 16, 32, 64 or 128 and divide the tile's N (128)
// RUN: not coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db-bad-splits.json %s 2>&1 | FileCheck %s --check-prefix=BADSPLITS
// BADSPLITS: error: tuning database '{{.*}}tuning-db-bad-splits.json': entry 'any': split-K needs the cooperative schedule
// RUN: not coda-translate --coda-to-cuda --tuning-db=%s %s 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: error: tuning database '{{.*}}tuning-db.mlir' is not JSON

func.func @main(%x: tensor<8192x4096xbf16>, %w: tensor<4096x4096xbf16>, %r: tensor<8192x4096xbf16>)
    -> tensor<8192x4096xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<8192x4096xbf16>, tensor<4096x4096xbf16>
      -> (accumulate(%r) tensor<8192x4096xbf16>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %y : tensor<8192x4096xbf16>
}
