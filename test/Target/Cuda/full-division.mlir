// The epilogue's fp32 divisions: through div.full.f32 (coda::rt::divFull, 2 ulp) in a kernel
// configured for it ("division": "full"), which the model picks for cooperative kernels whose
// results are all stored 16-bit (the epilogue runs after the mainloop there); IEEE `/` in
// ping-pong kernels, where the results are not all 16-bit stores whatever the configuration,
// and in generics outside the kernels. Stage 2 gets the model's best with the other division as
// a candidate.

// RUN: coda-translate --coda-to-cuda %s -split-input-file | FileCheck %s
// RUN: coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db-division.json %s -split-input-file | FileCheck %s --check-prefix=DB
// RUN: not coda-translate --coda-to-cuda --tuning-db=%S/Inputs/tuning-db-bad-division.json %s -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: tuning database '{{.*}}tuning-db-bad-division.json': entry 'any': division must be ieee or full

// SwiGLU's gate: the model's cooperative candidates divide through div.full.f32, its ping-pong
// ones (and its choice, ping-pong) do not; the other division is a candidate.
// CHECK-LABEL: void main_k0_epilogue(
// CHECK:         float [[SUM:v[0-9]+]] = {{v[0-9]+}} + {{v[0-9]+}};
// CHECK-NEXT:    float {{v[0-9]+}} = {{v[0-9]+}} / [[SUM]];
// CHECK:       // configuration: 128x128x64 cluster 2x1 pingpong raster along_n epilogue 64x64 (analytic model)
// CHECK-NEXT:  // model inputs: epilogue 1.0 bytes and {{[0-9]+}} fp32 ops per element ({{[0-9]+}} with div.full.f32)
// CHECK:       // coda-candidate: {"tile": [128, 256, 64], "cluster": [2, 1], "schedule": "cooperative", "raster": "heuristic", "epilogue_n": 64, "division": "full"} model
// CHECK:       // coda-candidate: {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "along_n", "epilogue_n": 64, "division": "full"} model
// CHECK-NEXT:  struct main_k0_kernel {

// A database entry asks for it: the same kernel divides through div.full.f32.
// DB-LABEL: void main_k0_epilogue(
// DB:         float {{v[0-9]+}} = coda::rt::divFull({{v[0-9]+}}, {{v[0-9]+}});
// DB:       // configuration: 128x128x64 cluster 2x1 pingpong raster along_n division full (tuning database)
func.func @main(%x: tensor<8192x4096xbf16>, %w: tensor<28672x4096xbf16>) -> tensor<8192x14336xbf16> {
  %y = coda.gemm %x, %w transpose_b pairwise(contract) : tensor<8192x4096xbf16>, tensor<28672x4096xbf16>
      -> (store tensor<8192x14336xbf16>)
      epilogue(%gate: f32, %up: f32, %i: index, %j: index) {
    %one = arith.constant 1.0 : f32
    %n = arith.negf %gate : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %one, %d : f32
    %g = arith.mulf %gate, %s : f32
    %r = arith.mulf %g, %up : f32
    coda.yield %r : f32
  }
  return %y : tensor<8192x14336xbf16>
}

// -----

// A cooperative kernel (the model's choice for this longer epilogue): div.full.f32.
// CHECK-LABEL: void main_k0_epilogue(
// CHECK:         float {{v[0-9]+}} = coda::rt::divFull({{v[0-9]+}}, {{v[0-9]+}});
// CHECK:       // configuration: 128x256x64 cluster 2x1 cooperative raster heuristic epilogue 128x64 division full (analytic model)
// CHECK:       // coda-candidate: {"tile": [128, 256, 64], "cluster": [2, 1], "schedule": "cooperative", "raster": "heuristic", "epilogue_n": 64} model
// CHECK-NEXT:  struct main_k0_kernel {
func.func @main(%x: tensor<8192x4096xbf16>, %w: tensor<14336x4096xbf16>, %b: tensor<14336xf32>) -> tensor<8192x14336xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<8192x4096xbf16>, tensor<14336x4096xbf16>
      with(%b as col : tensor<14336xf32>)
      -> (store tensor<8192x14336xbf16>)
      epilogue(%acc: f32, %bias: f32, %i: index, %j: index) {
    %e = math.erf %acc : f32
    %f = math.erf %e : f32
    %q = arith.divf %f, %bias : f32
    coda.yield %q : f32
  }
  return %y : tensor<8192x14336xbf16>
}

// -----

// An fp32 result: IEEE division in any configuration.
// CHECK-LABEL: void main_k0_epilogue(
// CHECK:         float {{v[0-9]+}} = {{v[0-9]+}} / {{v[0-9]+}};
// CHECK:       // model inputs: epilogue 4.0 bytes and {{[0-9]+}} fp32 ops per element{{$}}
// CHECK-NOT:   division
// CHECK:       struct main_k0_kernel {
func.func @main(%x: tensor<8192x4096xbf16>, %w: tensor<14336x4096xbf16>, %b: tensor<14336xf32>) -> tensor<8192x14336xf32> {
  %y = coda.gemm %x, %w transpose_b : tensor<8192x4096xbf16>, tensor<14336x4096xbf16>
      with(%b as col : tensor<14336xf32>)
      -> (store tensor<8192x14336xf32>)
      epilogue(%acc: f32, %bias: f32, %i: index, %j: index) {
    %q = arith.divf %acc, %bias : f32
    coda.yield %q : f32
  }
  return %y : tensor<8192x14336xf32>
}
