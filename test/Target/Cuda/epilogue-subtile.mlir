// The analytic model's epilogue subtile: 64 columns for a plain epilogue (16-bit results through
// the TMA store, a ContractStore or reduction partials; no tables) at the tiles where stage 2
// measured it faster than CUTLASS's 32 (cooperative 128x256, ping-pong 128x128 and 64x256);
// CUTLASS's automatic subtile otherwise, and as one more stage-2 candidate.

// RUN: coda-translate --coda-to-cuda %s -split-input-file | FileCheck %s

// A bias epilogue, bf16 out: the 64-column subtile, spelled out for the collective; its stage-2
// neighbour leaves it to CUTLASS.
// CHECK-LABEL: // bias_k0:
// CHECK:       // configuration: 128x128x64 cluster 2x1 pingpong raster {{[a-z_]+}} epilogue 64x64 (analytic model)
// CHECK:       // coda-candidate: {"tile": [128, 256, 64], "cluster": [2, 1], "schedule": "cooperative", {{.*}}"epilogue_n": 64} model
// CHECK:       // coda-candidate: {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "{{[a-z_]+}}"} model
// CHECK:       using EpilogueTile = cute::Shape<cute::_64, cute::_64>;
// CHECK:       EpilogueTile, float, float, ElementC, LayoutD, kAlignD,
func.func @bias(%x: tensor<8192x4096xbf16>, %w: tensor<4096x4096xbf16>, %b: tensor<4096xf32>)
    -> tensor<8192x4096xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<8192x4096xbf16>, tensor<4096x4096xbf16>
      with(%b as col : tensor<4096xf32>)
      -> (store tensor<8192x4096xbf16>)
      epilogue(%acc: f32, %bias: f32, %i: index, %j: index) {
    %s = arith.addf %acc, %bias : f32
    coda.yield %s : f32
  }
  return %y : tensor<8192x4096xbf16>
}

// -----

// An fp32 result: its subtile was never measured wider; CUTLASS's automatic one.
// CHECK-LABEL: // wide_k0:
// CHECK:       // configuration: {{[^(]*}} raster {{[a-z_]+}} (analytic model)
// CHECK-NOT:   "epilogue_n"
// CHECK:       cutlass::epilogue::collective::EpilogueTileAuto
func.func @wide(%x: tensor<8192x4096xbf16>, %w: tensor<4096x4096xbf16>)
    -> tensor<8192x4096xf32> {
  %y = coda.gemm %x, %w transpose_b : tensor<8192x4096xbf16>, tensor<4096x4096xbf16>
      -> (store tensor<8192x4096xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc : f32
  }
  return %y : tensor<8192x4096xf32>
}

// -----

// RoPE's tables (a tiled operand): the wider subtile lost 5 % there.
// CHECK-LABEL: // rope_k0:
// CHECK:       // configuration: {{[^(]*}} raster {{[a-z_]+}} (analytic model)
// CHECK-NOT:   "epilogue_n"
// CHECK:       using EpilogueTile = cute::Shape<cute::_64, cute::_32>;
func.func @rope(%x: tensor<8192x4096xbf16>, %w: tensor<4096x4096xbf16>,
    %cos: tensor<8192x128xbf16>) -> tensor<8192x4096xbf16> {
  %q = coda.gemm %x, %w transpose_b pairwise(rotate) : tensor<8192x4096xbf16>, tensor<4096x4096xbf16>
      with(%cos as tiled : tensor<8192x128xbf16>)
      -> (store tensor<8192x4096xbf16>)
      epilogue(%a: f32, %b: f32, %c0h: bf16, %c1h: bf16, %i: index, %p: index) {
    %c0 = arith.extf %c0h : bf16 to f32
    %c1 = arith.extf %c1h : bf16 to f32
    %even = arith.mulf %a, %c0 : f32
    %odd = arith.mulf %b, %c1 : f32
    coda.yield %even, %odd : f32, f32
  }
  return %q : tensor<8192x4096xbf16>
}
