// A launcher per function: weight preparation as its own entry point, the function's kernels
// and callees in order, intermediates at static offsets in the workspace, results written in
// place. Functions with ops outside what the backend runs get a warning and no launcher.

// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/rmsnorm_block.mlir | FileCheck %s

// The weight preparation: one thread per 8 elements of diag(γ)·W along its contiguous rows
// (16-byte loads and stores, aligned pointers checked first), bf16 in and out, fp32 math.
// CHECK-LABEL: __global__ void prepare_qkv_weights_g0(const __nv_bfloat16 *__restrict__ p0, const __nv_bfloat16 *__restrict__ p1, __nv_bfloat16 *__restrict__ p2) {
// CHECK:         if (point >= 49152LL) return;
// CHECK:         long long d0 = point / 64LL % 768LL;
// CHECK-NEXT:    long long d1v = point / 1LL % 64LL * 8LL;
// CHECK:         coda::rt::Vec8 [[G:v[0-9]+v]] = coda::rt::load8(p0, d1v);
// CHECK-NEXT:    coda::rt::Vec8 [[W:v[0-9]+v]] = coda::rt::load8(p1, d0 * 512LL + d1v);
// CHECK:         for (int e = 0; e < 8; ++e) {
// CHECK:           float {{v[0-9]+}} = [[G]].v[e];
// CHECK:         coda::rt::store8(p2, d0 * 512LL + d1v, {{v[0-9]+v}});
// CHECK:       extern "C" size_t prepare_qkv_weights_run_workspace_size() {
// CHECK:         return 0 + scratch;
// CHECK:       extern "C" int prepare_qkv_weights_run(const void *arg0, const void *arg1, void *result0, void *workspace, cudaStream_t stream) {
// CHECK:         if (!coda_aligned(static_cast<const __nv_bfloat16 *>(arg0)) || !coda_aligned(static_cast<const __nv_bfloat16 *>(arg1)) || !coda_aligned(static_cast<__nv_bfloat16 *>(result0)))
// CHECK-NEXT:      return CODA_MISALIGNED;
// CHECK:         prepare_qkv_weights_g0<<<192, 256, 0, stream>>>(static_cast<const __nv_bfloat16 *>(arg0), static_cast<const __nv_bfloat16 *>(arg1), static_cast<__nv_bfloat16 *>(result0));

// The function: prepared weights and Σh² in the workspace, h and y straight into the results.
// CHECK:       extern "C" size_t main_run_workspace_size() {
// CHECK:         scratch = std::max(scratch, prepare_qkv_weights_run_workspace_size());
// CHECK-NEXT:    scratch = std::max(scratch, main_k0_workspace_size(256, 512, 512));
// CHECK-NEXT:    scratch = std::max(scratch, main_k1_workspace_size(256, 768, 512));
// CHECK-NEXT:    return 787456 + scratch;
// CHECK:       extern "C" int main_run(const void *arg0, const void *arg1, const void *arg2, const void *arg3, const void *arg4, void *result0, void *result1, void *workspace, cudaStream_t stream) {
// CHECK:         // weight preparation @prepare_qkv_weights.
// CHECK-NEXT:    if (int s = prepare_qkv_weights_run(static_cast<const __nv_bfloat16 *>(arg3), static_cast<const __nv_bfloat16 *>(arg4), reinterpret_cast<__nv_bfloat16 *>(ws + 0), scratch, stream)) return s;
// CHECK:         if (int s = main_k0({{.*}}, static_cast<__nv_bfloat16 *>(result0), reinterpret_cast<float *>(ws + 786432), 256, 512, 512, 512, 512, 512, scratch, stream)) return s;
// CHECK:         if (int s = main_k1(static_cast<__nv_bfloat16 *>(result0), reinterpret_cast<__nv_bfloat16 *>(ws + 0), reinterpret_cast<float *>(ws + 786432), static_cast<__nv_bfloat16 *>(result1), 256, 768, 512, 512, 512, 768, scratch, stream)) return s;
// CHECK-NEXT:    return CODA_OK;

// RUN: coda-translate --coda-to-cuda %s 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// RUN: coda-translate --coda-to-cuda %s | FileCheck %s --check-prefix=PARTIAL
// An op that is neither a kernel nor becomes one (a named linalg op would become a generic,
// --coda-generalize-outside-kernels): the function has no launcher, its kernels keep theirs.
// WARN: warning: no launcher for @with_softmax: 'linalg.softmax' runs outside coda kernels (its kernels have their own launchers)
// PARTIAL: extern "C" int with_softmax_k0(
// PARTIAL-NOT: with_softmax_run
func.func @with_softmax(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>) -> tensor<8x32xf32> {
  %y = coda.gemm %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>
      -> (store tensor<8x32xf32>)
      epilogue(%a: f32, %i: index, %j: index) {
    coda.yield %a : f32
  }
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.softmax dimension(1) ins(%y : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %z : tensor<8x32xf32>
}

// Weight preparation with a gather (linalg.index + tensor.extract), a fill and row reductions.
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/weight_prep.mlir | FileCheck %s --check-prefix=PREP
// No GEMM, so no workspace to round up: no coda_round_up for nvcc to warn about as unused.
// PREP-NOT:   coda_round_up
// The interleave runs 8 elements of a row per thread, 16 bytes at a time.
// PREP-LABEL: __global__ void interleave_rows_g0(
// PREP:         long long d2v = point / 1LL % 8LL * 8LL;
// PREP:         long long [[WHICH:v[0-9]+]] = d1;
// PREP:         coda::rt::store8(p2, d0 * 128LL + d1 * 64LL + d2v, {{v[0-9]+v}});
// PREP:       extern "C" int interleave_rows_run(const void *arg0, const void *arg1, void *result0, void *workspace, cudaStream_t stream) {
// PREP-NEXT:    char *ws
// The interleaved pairs are written straight into the result that their reshape returns.
// PREP:         interleave_rows_g0<<<6, 256, 0, stream>>>({{.*}}, static_cast<__nv_bfloat16 *>(result0));
// PREP-NEXT:    if (cudaGetLastError() != cudaSuccess) return CODA_LAUNCH_FAILED;
// PREP-NEXT:    return CODA_OK;
// PREP-LABEL: __global__ void rope_permute_g0(const __nv_bfloat16 *__restrict__ p0, __nv_bfloat16 *__restrict__ p1) {
// PREP:         long long d1 = d1v + e;
// PREP:         float {{v[0-9]+}} = coda::rt::load(p0, [[SRC:v[0-9]+]] * 64LL + {{v[0-9]+}});
// The zero fill that both row sums start from never runs: they start from its constant.
// PREP-NOT:   __global__ void layernorm_weights_g1(
// Row sums (a fold over the innermost dimension) run one warp per row: lanes stride along the
// row 8 elements (16 bytes) at a time, a butterfly of shuffles combines them, lane 0 folds the
// sum into the output.
// PREP-LABEL: __global__ void layernorm_weights_g2(const __nv_bfloat16 *__restrict__ p0, float *__restrict__ p1) {
// PREP:         long long point = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
// PREP-NEXT:    int lane = threadIdx.x % 32;
// PREP:         float [[ACC:v[0-9]+]] = 0.f; // this lane's part
// PREP-NEXT:    for (long long d1v = lane * 8LL; d1v < 64LL; d1v += 256) {
// PREP-NEXT:      coda::rt::Vec8 {{v[0-9]+v}} = coda::rt::load8(p0, d0 * 64LL + d1v);
// PREP:           [[ACC]] = [[ACC]] + {{v[0-9]+}};
// PREP:         [[ACC]] = [[ACC]] + __shfl_xor_sync(0xffffffffu, [[ACC]], offset);
// PREP:         if (lane != 0) return;
// PREP-NEXT:    coda::rt::store(p1, d0, 0.000000000e+00f + [[ACC]]);
// PREP:       extern "C" int layernorm_weights_run(
// PREP-NOT:     cudaMemcpyAsync
// PREP:         layernorm_weights_g0<<<6, 256, 0, stream>>>(
// PREP-NEXT:    if (cudaGetLastError() != cudaSuccess) return CODA_LAUNCH_FAILED;
// PREP-NEXT:    layernorm_weights_g2<<<24, 256, 0, stream>>>(static_cast<__nv_bfloat16 *>(result0), static_cast<float *>(result1));

// A function whose weight preparation reads only its arguments also gets a launcher for the
// preparation alone and one that takes the prepared weights (what a serving loop calls).
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/rmsnorm_block.mlir | FileCheck %s --check-prefix=SPLIT
// SPLIT:       extern "C" int main_prepare(const void *arg0, const void *arg1, const void *arg2, const void *arg3, const void *arg4, void *prepared0, void *workspace, cudaStream_t stream) {
// SPLIT:         if (int s = prepare_qkv_weights_run({{.*}}, static_cast<__nv_bfloat16 *>(prepared0), scratch, stream)) return s;
// SPLIT-NEXT:    return CODA_OK;
// SPLIT:       extern "C" size_t main_run_prepared_workspace_size() {
// SPLIT:         return 1024 + scratch;
// SPLIT:       extern "C" int main_run_prepared(const void *arg0, const void *arg1, const void *arg2, const void *arg3, const void *arg4, const void *prepared0, void *result0, void *result1, void *workspace, cudaStream_t stream) {
// SPLIT-NOT:     prepare_qkv_weights_run
// SPLIT:         if (int s = main_k1(static_cast<__nv_bfloat16 *>(result0), static_cast<const __nv_bfloat16 *>(prepared0),

// A chain of preparations reading slices of an argument (the Llama block before attention:
// γ widened, W_qkv split into q/k/v row blocks, each scaled, concatenated, RoPE-permuted): the
// prepare launcher runs the chain and the slices, the prepared run none of it; every launcher
// calls the kernels the full one defines (names follow the ops' order).
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/block/small/pre.mlir | coda-translate --coda-to-cuda | FileCheck %s --check-prefix=CHAIN
// RUN: coda-opt --coda-fuse %coda_src/bench/programs/block/small/pre.mlir | coda-translate --coda-to-cuda | FileCheck %s --check-prefix=SLICES
// q, k and v are column slices of the fused QKV result: each is copied 8 elements per thread,
// straight into its result.
// SLICES:      // main_g7: tensor.extract_slice, 8 elements per thread.
// SLICES-NEXT: __global__ void main_g7(const __nv_bfloat16 *__restrict__ src, __nv_bfloat16 *__restrict__ dst) {
// SLICES:        if (point >= 4096LL) return;
// SLICES-NEXT:   long long i0 = point / 64LL % 64LL;
// SLICES-NEXT:   long long i1 = point / 1LL % 64LL * 8LL;
// SLICES-NEXT:   coda::rt::copy8(dst + i0 * 512LL + i1, src + (i0 + 0LL) * 1024LL + (i1 + 0LL));
// SLICES:      extern "C" int main_run_prepared(
// SLICES:        if ({{.*}}!coda_aligned(static_cast<__nv_bfloat16 *>(result0))
// SLICES-NEXT:     return CODA_MISALIGNED;
// SLICES:        if (int s = main_k0_launch(
// SLICES:        main_g7<<<16, 256, 0, stream>>>(reinterpret_cast<__nv_bfloat16 *>(ws + {{[0-9]+}}), static_cast<__nv_bfloat16 *>(result0));
// SLICES-NOT:    cudaMemcpyAsync(result
// SLICES:        return CODA_OK;
// CHAIN:       extern "C" int main_prepare(const void *arg0, const void *arg1, const void *arg2, const void *arg3, const void *arg4, void *prepared0, void *workspace, cudaStream_t stream) {
// CHAIN:         coda_vector_prep_run(
// CHAIN:         main_g{{[0-9]+}}<<<
// CHAIN:         coda_norm_weights_512x512_nk_scale1_run(
// CHAIN:         coda_rope_permute_{{.*}}_run({{.*}}, static_cast<__nv_bfloat16 *>(prepared0), scratch, stream)) return s;
// CHAIN-NEXT:    return CODA_OK;
// CHAIN:       extern "C" int main_run_prepared(
// CHAIN-NOT:     _run(
// CHAIN:         if (int s = main_k0_launch(
// CHAIN:         return CODA_OK;

// An index tensor in the signature is stored as long long: 8 bytes per element on the device
// and torch.int64 in the binding.
// RUN: coda-translate --coda-to-cuda --emit-torch-binding %s | FileCheck %s --check-prefix=INDEX
// INDEX-LABEL: extern "C" int index_passthrough_run(
// INDEX:         cudaMemcpyAsync(result1, static_cast<const long long *>(arg1), 1024, cudaMemcpyDeviceToDevice, stream);
// INDEX:       coda_torch_fn_index_passthrough(
// INDEX:         options.dtype(at::kLong)
func.func @index_passthrough(%x: tensor<128x64xbf16>, %i: tensor<128xindex>) -> (tensor<128x64xbf16>, tensor<128xindex>) {
  return %x, %i : tensor<128x64xbf16>, tensor<128xindex>
}
