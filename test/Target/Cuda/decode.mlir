// RUN: coda-translate --coda-to-cuda --emit-torch-binding %s | FileCheck %s

// A decode step: each coda.append writes its new rows into the result's buffer (after copying
// the cache there, unless the caller passed the cache's own buffer), 16 bytes a thread; the
// attention over the cache runs the decode kernel with its split partials in the scratch, and
// its Problem places query i at position len - Sq + i. The PyTorch binding returns the caches
// it was given, updated in place.
// CHECK-LABEL: struct step_a0 {
// CHECK:         using Length = int;
// CHECK:         static constexpr int B = 2, Hq = 8, Hkv = 2, Sq = 2, Sk = 512, D = 128;
// CHECK:         static constexpr bool paged = false;
// CHECK-NEXT:    static constexpr int pageSize = 512, maxPages = 1;
// CHECK-NEXT:    static __device__ __forceinline__ long long kvAt(int b, int g, int j, const int *table) {
// CHECK-NEXT:      return kvOffset(b, g) + static_cast<long long>(j) * kvStride;
// CHECK:         static __device__ __forceinline__ bool visible(int len, int i, int j) { return (j <= (i + len - 2)) && (i + len - 2) >= 0 && j < len; }
// CHECK:           k1 = (q1 - 1 + len - 2) >= 0 ? min(len, Sk) : 0;
// CHECK:           k1 = min(k1, (q1 - 1 + len - 2) + 1);
// CHECK:         static constexpr bool cache = true;
// CHECK:           return k1 - 1 <= (q0 + len - 2) && k1 <= len && (q0 + len - 2) >= 0;
// CHECK:       extern "C" size_t step_run_workspace_size() {
// CHECK:         scratch = std::max(scratch, coda::rt::attention::decode::workspaceSize<step_a0>());
// CHECK:       extern "C" int step_run(
// CHECK:         // coda.append: 2 new row(s) per sequence and head at pos[b].
// CHECK-NEXT:    if (static_cast<const void *>(static_cast<__nv_bfloat16 *>(result1)) != static_cast<const void *>(static_cast<const __nv_bfloat16 *>(arg3)))
// CHECK-NEXT:      cudaMemcpyAsync(static_cast<__nv_bfloat16 *>(result1), static_cast<const __nv_bfloat16 *>(arg3), 524288, cudaMemcpyDeviceToDevice, stream);
// CHECK-NEXT:    if (coda::rt::attention::decode::append<__nv_bfloat16, int, 8, true>(static_cast<const __nv_bfloat16 *>(arg1), static_cast<__nv_bfloat16 *>(result1), static_cast<const int *>(arg5), 1, nullptr, 512, 2, 2, 2, 512, 128, stream) != cudaSuccess)
// CHECK:         coda::rt::attention::decode::append<__nv_bfloat16, int, 8, true>(static_cast<const __nv_bfloat16 *>(arg2), static_cast<__nv_bfloat16 *>(result2)
// CHECK:         // coda.attention step_a0 over a KV cache (decode kernel).
// CHECK-NEXT:    if (coda::rt::attention::decode::launch<step_a0>(static_cast<const __nv_bfloat16 *>(arg0), static_cast<__nv_bfloat16 *>(result1), static_cast<__nv_bfloat16 *>(result2), static_cast<__nv_bfloat16 *>(result0), nullptr, static_cast<const int *>(arg6), nullptr, scratch, stream) != cudaSuccess)
func.func @step(%q: tensor<2x8x2x128xbf16>, %k: tensor<2x2x2x128xbf16>, %v: tensor<2x2x2x128xbf16>,
    %kc: tensor<2x2x512x128xbf16>, %vc: tensor<2x2x512x128xbf16>, %pos: tensor<2xi32>, %len: tensor<2xi32>)
    -> (tensor<2x8x2x128xbf16>, tensor<2x2x512x128xbf16>, tensor<2x2x512x128xbf16>) {
  %k1 = coda.append %k into %kc at %pos : tensor<2x2x2x128xbf16> into tensor<2x2x512x128xbf16> at tensor<2xi32>
  %v1 = coda.append %v into %vc at %pos : tensor<2x2x2x128xbf16> into tensor<2x2x512x128xbf16> at tensor<2xi32>
  %o = coda.attention %q, %k1, %v1 cache(%len : tensor<2xi32>) scale 0.088 mask <causal = true>
      : tensor<2x8x2x128xbf16>, tensor<2x2x512x128xbf16>, tensor<2x2x512x128xbf16> -> tensor<2x8x2x128xbf16>
  return %o, %k1, %v1 : tensor<2x8x2x128xbf16>, tensor<2x2x512x128xbf16>, tensor<2x2x512x128xbf16>
}

// A cache that the function also reads after appending to it is not updated in place: the
// binding allocates the result, and the launcher copies the cache into it first. Head sizes
// that 16-byte chunks do not divide are written an element a thread.
// CHECK:       extern "C" int shared_run(
// CHECK:         coda::rt::attention::decode::append<float, long long, 1, false>(
func.func @shared(%k: tensor<1x1x2x6xf32>, %kc: tensor<1x64x2x6xf32>, %pos: tensor<1xi64>)
    -> (tensor<1x64x2x6xf32>, tensor<1x64x2x6xf32>) {
  %k1 = coda.append %k into %kc at %pos layout <bshd> : tensor<1x1x2x6xf32> into tensor<1x64x2x6xf32> at tensor<1xi64>
  return %k1, %kc : tensor<1x64x2x6xf32>, tensor<1x64x2x6xf32>
}

// A paged cache: rows found through the page table (vLLM's [N, page, Hkv, d] pools), for the
// append (its capacity: 4 pages of 16 rows) and the decode kernel.
// CHECK-LABEL: struct paged_a0 {
// CHECK:         static constexpr int B = 2, Hq = 4, Hkv = 2, Sq = 1, Sk = 64, D = 64;
// CHECK:         static constexpr bool paged = true;
// CHECK-NEXT:    static constexpr int pageSize = 16, maxPages = 4;
// CHECK-NEXT:    static __device__ __forceinline__ long long kvAt(int b, int g, int j, const int *table) {
// CHECK-NEXT:      long long page = table[b * maxPages + j / pageSize];
// CHECK-NEXT:      return (page * pageSize + j % pageSize) * 128 + static_cast<long long>(g) * 64;
// CHECK:       extern "C" int paged_run(
// CHECK:         coda::rt::attention::decode::append<__nv_bfloat16, int, 8, false>(static_cast<const __nv_bfloat16 *>(arg1), static_cast<__nv_bfloat16 *>(result1), static_cast<const int *>(arg4), 1, static_cast<const int *>(arg3), 16, 2, 2, 1, 64, 64, stream)
// CHECK:         coda::rt::attention::decode::launch<paged_a0>(static_cast<const __nv_bfloat16 *>(arg0), static_cast<__nv_bfloat16 *>(result1), static_cast<const __nv_bfloat16 *>(arg2), static_cast<__nv_bfloat16 *>(result0), nullptr, static_cast<const int *>(arg5), static_cast<const int *>(arg3), scratch, stream)
func.func @paged(%q: tensor<2x1x4x64xbf16>, %k: tensor<2x1x2x64xbf16>, %vp: tensor<10x16x2x64xbf16>,
    %table: tensor<2x4xi32>, %pos: tensor<2xi32>, %len: tensor<2xi32>, %kp: tensor<10x16x2x64xbf16>)
    -> (tensor<2x1x4x64xbf16>, tensor<10x16x2x64xbf16>) {
  %k1 = coda.append %k into %kp at %pos pages(%table : tensor<2x4xi32>) layout <bshd>
      : tensor<2x1x2x64xbf16> into tensor<10x16x2x64xbf16> at tensor<2xi32>
  %o = coda.attention %q, %k1, %vp cache(%len : tensor<2xi32>) pages(%table : tensor<2x4xi32>)
      scale 0.125 layout <bshd>
      : tensor<2x1x4x64xbf16>, tensor<10x16x2x64xbf16>, tensor<10x16x2x64xbf16> -> tensor<2x1x4x64xbf16>
  return %o, %k1 : tensor<2x1x4x64xbf16>, tensor<10x16x2x64xbf16>
}

// The PyTorch functions follow the launchers.
// CHECK:       coda_torch_fn_step(
// CHECK:         auto out0 = torch::empty({2, 8, 2, 128}
// CHECK-NEXT:    auto out1 = in3; // updated in place
// CHECK-NEXT:    auto out2 = in4; // updated in place
// CHECK:       coda_torch_fn_shared(
// CHECK:         auto out0 = torch::empty({1, 64, 2, 6}
// CHECK:       coda_torch_fn_paged(
// CHECK:         auto out1 = in6; // updated in place
