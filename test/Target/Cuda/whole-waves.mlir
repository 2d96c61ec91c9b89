// whole-waves (the default): a persistent kernel runs on the fewest CTAs that take as many
// waves of tiles as one CTA per SM would (coda::rt::wholeWaves, from CUTLASS's scheduler with the
// kernel's tile, cluster, and the swizzle and raster order its scheduler arguments were given, at
// the launch's m and n). With
// --cuda-without=whole-waves CUTLASS takes every SM.
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/bias_gelu.mlir | FileCheck %s
// RUN: coda-translate --coda-to-cuda --cuda-without=whole-waves %coda_src/examples/cuda/bias_gelu.mlir | FileCheck %s --check-prefix=ALL

// CHECK:       // configuration: {{[0-9]+}}x{{[0-9]+}}x64 cluster [[CM:[0-9]+]]x[[CN:[0-9]+]]
// CHECK:       extern "C" int main_k0(
// CHECK:         args.scheduler.max_swizzle_size = coda_swizzle(
// CHECK:         args.hw_info.sm_count = coda::rt::wholeWaves(m, n, K::kTileM, K::kTileN, [[CM]], [[CN]], args.scheduler.max_swizzle_size, args.scheduler.raster_order);
// CHECK:         if (G::can_implement(padded) != cutlass::Status::kSuccess) return CODA_UNSUPPORTED;
// CHECK-NEXT:    if (coda::rt::launchGemm<G>(args, workspace, stream) != cudaSuccess)

// ALL-NOT:     sm_count
