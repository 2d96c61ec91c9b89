// A row reduction whose results only the next kernel reads as row operands (RMSNorm's Σx² before
// the QKV product) runs beside that kernel (overlap-rows, the default; coda/Runtime/Overlap.cuh):
// the kernel's row operands wait, per tile, for their row block's count; its launcher behind the
// public one takes the counts and the SMs to run on, and launches with programmatic dependent
// launch; the reduction reduces a row in a device function that its plain kernel and its
// publishing kernel both call; the function's launchers clear the counts and launch the two
// side by side where rowsOverlap finds SMs to spare, else one after the other. The zero fill the
// sum starts from never runs. Launch order: the weight preparation, which does not read the
// sums, goes before the reduction. The model takes the tiles along N (CUTLASS's heuristic would
// take this problem's 128x128 tiles along M), the order rowsOverlap needs.
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/small/rmsnorm_qkv.mlir -o %t.mlir
// RUN: coda-translate --coda-to-cuda %t.mlir | FileCheck %s
// RUN: coda-translate --coda-to-cuda --cuda-without=overlap-rows %t.mlir | FileCheck %s --check-prefix=SERIAL

// CHECK:       #include "coda/Runtime/Overlap.cuh"
// CHECK-LABEL: struct main_k0_kernel {
// CHECK:         static constexpr int kTileM = [[TM:[0-9]+]], kTileN
// CHECK:         coda::rt::AwaitedRows<{{.*}}Sm90ColBroadcast<{{.*}}>>,  // 0
// CHECK-LABEL: static coda::rt::RowsOverlap main_k0_rows_overlap(int m, int n) {
// CHECK-NEXT:    using K = main_k0_kernel;
// CHECK-NEXT:    typename K::Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {m, n, 1, 1}, {}, {}};
// CHECK-NEXT:    args.scheduler.max_swizzle_size = coda_swizzle(m, n, [[TM]],
// CHECK-NEXT:    args.scheduler.raster_order = cutlass::gemm::kernel::detail::RasterOrderOptions::AlongN;
// CHECK-NEXT:    return coda::rt::rowsOverlap(m, n, K::kTileM, K::kTileN, {{[0-9]+}}, {{[0-9]+}}, args.scheduler.max_swizzle_size, args.scheduler.raster_order);
// CHECK:       static int main_k0_launch(const void *a, const void *b, const void *operand0, void *result0, int m, int n, int k, long long lda, long long ldb, long long ldd, void *workspace, cudaStream_t stream, const unsigned *rowsDone, int sms) {
// CHECK:         args.epilogue.thread = {{[{][{][{]}}static_cast<const float *>(operand0)}, rowsDone}, {}, {}};
// CHECK:         args.hw_info.sm_count = sms > 0 ? sms : coda::rt::wholeWaves(m, n, K::kTileM, K::kTileN, {{[0-9]+}}, {{[0-9]+}}, args.scheduler.max_swizzle_size, args.scheduler.raster_order);
// CHECK:         if (coda::rt::launchGemm<G>(args, workspace, stream, /*pdl=*/rowsDone != nullptr) != cudaSuccess)
// The public launcher waits for nothing and runs on every SM.
// CHECK:       extern "C" int main_k0(const void *a, const void *b, const void *operand0, void *result0, int m, int n, int k, long long lda, long long ldb, long long ldd, void *workspace, cudaStream_t stream) {
// CHECK-NEXT:    return main_k0_launch(a, b, operand0, result0, m, n, k, lda, ldb, ldd, workspace, stream, nullptr, 0);
// CHECK-NOT:   __global__ void main_g0(
// CHECK-LABEL: __device__ __forceinline__ void main_g1_row(long long point, int lane, const __nv_bfloat16 *__restrict__ p0, float *__restrict__ p1) {
// CHECK-NEXT:    if (point >= 256LL) return;
// CHECK:         if (lane != 0) return;
// CHECK-NEXT:    coda::rt::store(p1, d0 + 0LL, 0.000000000e+00f + {{v[0-9]+}});
// CHECK-LABEL: __global__ void main_g1(const __nv_bfloat16 *__restrict__ p0, float *__restrict__ p1) {
// CHECK-NEXT:    main_g1_row((blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32, threadIdx.x % 32, p0, p1);
// CHECK-LABEL: __global__ void __launch_bounds__(1024) main_g1_published(const __nv_bfloat16 *__restrict__ p0, float *__restrict__ p1, unsigned *__restrict__ done, int tileM, long long early, int side) {
// CHECK-NEXT:    coda::rt::publishRows(256LL, tileM, early, side, done, [&](long long point, int lane) { main_g1_row(point, lane, p0, p1); });
// CHECK-LABEL: extern "C" int main_run(
// CHECK-NOT:     cudaMemcpyAsync
// CHECK:         // weight preparation
// CHECK-NOT:     cudaMemcpyAsync
// CHECK:         // main_g1 hands its rows to main_k0, which runs beside it.
// CHECK-NEXT:    coda::rt::RowsOverlap main_k0_rows = main_k0_rows_overlap(256, 768);
// CHECK-NEXT:    if (main_k0_rows.side > 0) {
// CHECK-NEXT:      if (cudaMemsetAsync(reinterpret_cast<unsigned *>(ws + [[DONE:[0-9]+]]), 0, 8, stream) != cudaSuccess)
// CHECK-NEXT:        return CODA_LAUNCH_FAILED;
// CHECK-NEXT:      main_g1_published<<<main_k0_rows.sms + main_k0_rows.side, 1024, 0, stream>>>(static_cast<const __nv_bfloat16 *>(arg0), reinterpret_cast<float *>(ws + [[SS:[0-9]+]]), reinterpret_cast<unsigned *>(ws + [[DONE]]), [[TM]], main_k0_rows.early, main_k0_rows.side);
// CHECK-NEXT:    } else {
// CHECK-NEXT:      main_g1<<<32, 256, 0, stream>>>(static_cast<const __nv_bfloat16 *>(arg0), reinterpret_cast<float *>(ws + [[SS]]));
// CHECK-NEXT:    }
// CHECK-NEXT:    if (cudaGetLastError() != cudaSuccess) return CODA_LAUNCH_FAILED;
// CHECK-NEXT:    // coda.gemm main_k0.
// CHECK-NEXT:    if (int s = main_k0_launch({{.*}}, reinterpret_cast<float *>(ws + [[SS]]), {{.*}}, scratch, stream, main_k0_rows.side > 0 ? reinterpret_cast<unsigned *>(ws + [[DONE]]) : nullptr, main_k0_rows.sms)) return s;
// CHECK-NEXT:    return CODA_OK;
// The prepared run does the same without the preparation.
// CHECK-LABEL: extern "C" int main_run_prepared(
// CHECK:         main_g1_published<<<
// CHECK:         if (int s = main_k0_launch(

// SERIAL-NOT:  AwaitedRows
// SERIAL:      extern "C" int main_k0(const void *a, const void *b, const void *operand0, void *result0, int m, int n, int k, long long lda, long long ldb, long long ldd, void *workspace, cudaStream_t stream) {
// SERIAL:        if (coda::rt::launchGemm<G>(args, workspace, stream) != cudaSuccess) return CODA_LAUNCH_FAILED;
// SERIAL-NOT:  _published
// SERIAL-LABEL: extern "C" int main_run(
// SERIAL:        main_g1<<<32, 256, 0, stream>>>(
// SERIAL:        if (int s = main_k0(
