// RUN: coda-translate --coda-to-cuda %s -split-input-file | FileCheck %s

// A coda.attention the kernel runs: its Problem (shapes, the strides of token-major heads,
// GQA's KV head offsets (on the host too, for the TMA maps), the causal mask at an element,
// the keys a row block may see, whether a block is all visible and whether it shows any key),
// launched by the function's launcher after the alignment
// check of its four buffers.
// CHECK-LABEL: struct main_a0 {
// CHECK-NEXT:    using Element = __nv_bfloat16;
// CHECK-NEXT:    using Length = int;
// CHECK-NEXT:    static constexpr int B = 2, Hq = 8, Hkv = 2, Sq = 48, Sk = 80, D = 64;
// CHECK-NEXT:    static constexpr float scale = 1.250000000e-01f;
// CHECK-NEXT:    static constexpr long long qStride = 512, kvStride = 128, outStride = 512;
// CHECK:         static __host__ __device__ __forceinline__ long long kvOffset(int b, int g) {
// CHECK-NEXT:      return static_cast<long long>(b) * 10240 + static_cast<long long>(g) * 64;
// CHECK:         static __device__ __forceinline__ bool visible(int, int i, int j) { return j <= (i + 32); }
// CHECK:           k1 = min(k1, (q1 - 1 + 32) + 1);
// CHECK:           return k1 - 1 <= (q0 + 32);
// CHECK:         anyVisible(int, int q0, int q1, int k0, int k1) {
// CHECK-NEXT:      return k0 <= (q1 - 1 + 32);
// CHECK:         static constexpr bool hasScore = false;
// CHECK-LABEL: extern "C" int main_run(
// CHECK:         if (!coda_aligned(
// CHECK:         // coda.attention main_a0.
// CHECK-NEXT:    if (coda::rt::attention::launch<main_a0>(static_cast<const __nv_bfloat16 *>(arg0), static_cast<const __nv_bfloat16 *>(arg1), static_cast<const __nv_bfloat16 *>(arg2), static_cast<__nv_bfloat16 *>(result0), static_cast<float *>(result1), nullptr, nullptr, nullptr, stream) != cudaSuccess)
func.func @main(%q: tensor<2x48x8x64xbf16>, %k: tensor<2x80x2x64xbf16>, %v: tensor<2x80x2x64xbf16>)
    -> (tensor<2x48x8x64xbf16>, tensor<2x8x48xf32>) {
  %o, %lse = coda.attention %q, %k, %v scale 0.125 mask <causal = true> layout <bshd>
      : tensor<2x48x8x64xbf16>, tensor<2x80x2x64xbf16>, tensor<2x80x2x64xbf16>
      -> tensor<2x48x8x64xbf16>, tensor<2x8x48xf32>
  return %o, %lse : tensor<2x48x8x64xbf16>, tensor<2x8x48xf32>
}

// -----

// Masks the band does not bound: dilation with sinks (keys outside the query's residue class)
// is not split into classes and never gives a full block; sinks and global tokens keep every
// key in range; a score region is a device function of the indices it reads.
// CHECK-LABEL: struct main_a0 {
// CHECK:         visible(int, int i, int j) { return (j <= i && (i - j) % 4 == 0) || (j < 2 && j <= i); }
// CHECK:         keyRange(int, int q0, int q1, int &k0, int &k1) {
// CHECK-NEXT:      k0 = 0;
// CHECK-NEXT:      k1 = Sk;
// CHECK-NEXT:      k1 = min(k1, q1 - 1 + 1);
// CHECK-NEXT:    }
// CHECK:         static constexpr int dilation = 1;
// CHECK:           return false && k1 - 1 <= q0;
// CHECK:         anyVisible(int, int q0, int q1, int k0, int k1) {
// CHECK-NEXT:      return (k0 <= q1 - 1) || (k0 < 2 && k0 <= q1 - 1);
// CHECK:         static constexpr bool hasScore = true;
// CHECK:         static __device__ __forceinline__ float score(float s, int b, int h, int i, int j) {
// CHECK-NEXT:      float [[S:v[0-9]+]] = s;
// CHECK-NEXT:      long long [[H:v[0-9]+]] = h;
// CHECK:           return
func.func @main(%q: tensor<1x4x64x32xf16>) -> tensor<1x4x64x32xf16> {
  %o = coda.attention %q, %q, %q scale 0.17 mask <causal = true, dilation = 4, sinks = 2>
      : tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>, tensor<1x4x64x32xf16>
      -> tensor<1x4x64x32xf16>
      score {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %hf = arith.index_cast %h : index to i32
        %x = arith.sitofp %hf : i32 to f32
        %y = arith.subf %s, %x : f32
        coda.yield %y : f32
      }
  return %o : tensor<1x4x64x32xf16>
}

// -----

// Per-sequence lengths: the kernel reads them (i64 here); rows and keys at or past a length see
// nothing, and row blocks past it visit no key.
// CHECK-LABEL: struct main_a0 {
// CHECK:         using Length = long long;
// CHECK:         visible(int len, int i, int j) { return (j <= i) && i < len && j < len; }
// CHECK:           k1 = q0 < len ? len : 0;
// CHECK:           return k1 - 1 <= q0 && k1 <= len && q1 <= len;
// CHECK:           return (k0 <= q1 - 1) && k0 < len && q0 < len;
// CHECK:         coda::rt::attention::launch<main_a0>({{.*}}, nullptr, static_cast<const long long *>(arg1), nullptr, nullptr, stream)
func.func @main(%q: tensor<2x4x80x32xbf16>, %n: tensor<2xi64>) -> tensor<2x4x80x32xbf16> {
  %o = coda.attention %q, %q, %q lens(%n : tensor<2xi64>) scale 0.17 mask <causal = true>
      : tensor<2x4x80x32xbf16>, tensor<2x4x80x32xbf16>, tensor<2x4x80x32xbf16>
      -> tensor<2x4x80x32xbf16>
  return %o : tensor<2x4x80x32xbf16>
}

// -----

// f32 heads are not the kernel's: the attention runs as the generics of its linalg meaning.
// CHECK-NOT:   struct main_a0
// CHECK-LABEL: __global__ void main_g
// CHECK-NOT:   coda::rt::attention::launch
func.func @main(%q: tensor<2x4x16x32xf32>) -> tensor<2x4x16x32xf32> {
  %o = coda.attention %q, %q, %q scale 0.17
      : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>
      -> tensor<2x4x16x32xf32>
  return %o : tensor<2x4x16x32xf32>
}

// -----

// A runtime mask: the Problem says so (with the mask's batch and head counts, 1 where it is
// broadcast), and the launcher passes its blocks and its bits (as 32-bit words).
// CHECK-LABEL: struct main_a0 {
// CHECK:         static constexpr bool hasBlocks = true;
// CHECK-NEXT:    static constexpr int maskBatch = 1, maskHeads = 4;
// CHECK:         coda::rt::attention::launch<main_a0>({{.*}}, nullptr, nullptr, static_cast<const signed char *>(arg1), reinterpret_cast<const unsigned *>(static_cast<const int *>(arg2)), stream)
func.func @main(%q: tensor<2x4x200x64xbf16>, %blocks: tensor<1x4x2x2xi8>,
    %bits: tensor<1x4x200x7xi32>) -> tensor<2x4x200x64xbf16> {
  %o = coda.attention %q, %q, %q blocks(%blocks, %bits : tensor<1x4x2x2xi8>, tensor<1x4x200x7xi32>)
      scale 0.125 : tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>, tensor<2x4x200x64xbf16>
      -> tensor<2x4x200x64xbf16>
  return %o : tensor<2x4x200x64xbf16>
}

// -----

// A dilated mask whose rate divides Sq and Sk is split into residue classes: the kernel asks
// only of keys in the query's class, so blocks are full by the band alone.
// CHECK-LABEL: struct main_a0 {
// CHECK:         visible(int, int i, int j) { return j <= i && (i - j) % 4 == 0; }
// CHECK:         static constexpr int dilation = 4;
// CHECK:         fullBlock(int, int q0, int q1, int k0, int k1) {
// CHECK-NEXT:      return k1 - 1 <= q0;
func.func @main(%q: tensor<1x4x64x64xbf16>) -> tensor<1x4x64x64xbf16> {
  %o = coda.attention %q, %q, %q scale 0.125 mask <causal = true, dilation = 4>
      : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
      -> tensor<1x4x64x64xbf16>
  return %o : tensor<1x4x64x64xbf16>
}

// -----

// A rate that does not divide the sequence: one class would hold fewer rows than the others,
// so the mask is applied on the whole head.
// CHECK-LABEL: struct main_a0 {
// CHECK:         static constexpr int dilation = 1;
// CHECK:           return false && k1 - 1 <= q0;
func.func @main(%q: tensor<1x4x66x64xbf16>) -> tensor<1x4x66x64xbf16> {
  %o = coda.attention %q, %q, %q scale 0.125 mask <causal = true, dilation = 4>
      : tensor<1x4x66x64xbf16>, tensor<1x4x66x64xbf16>, tensor<1x4x66x64xbf16>
      -> tensor<1x4x66x64xbf16>
  return %o : tensor<1x4x66x64xbf16>
}

// -----

// Token-major heads sliced from one [tokens, (Hq + 2 Hkv)·d] tensor (the QKV kernel's output)
// are read in place: rows 256 elements apart, each operand at its column offset, no copy; the
// output is its own dense tensor.
// CHECK-LABEL: struct main_a0 {
// CHECK:         static constexpr long long qStride = 256, kvStride = 256, outStride = 128;
// CHECK:         qOffset(int b, int h) {
// CHECK-NEXT:      return static_cast<long long>(b) * 16384 + static_cast<long long>(h) * 64;
// CHECK:         outOffset(int b, int h) {
// CHECK-NEXT:      return static_cast<long long>(b) * 8192 + static_cast<long long>(h) * 64;
// CHECK-LABEL: extern "C" int main_run(
// CHECK-NOT:     <<<
// CHECK:         coda::rt::attention::launch<main_a0>((static_cast<const __nv_bfloat16 *>(arg0) + 0), (static_cast<const __nv_bfloat16 *>(arg0) + 128), (static_cast<const __nv_bfloat16 *>(arg0) + 192),
func.func @main(%qkv: tensor<128x256xbf16>) -> tensor<2x64x2x64xbf16> {
  %q2 = tensor.extract_slice %qkv[0, 0] [128, 128] [1, 1] : tensor<128x256xbf16> to tensor<128x128xbf16>
  %k2 = tensor.extract_slice %qkv[0, 128] [128, 64] [1, 1] : tensor<128x256xbf16> to tensor<128x64xbf16>
  %v2 = tensor.extract_slice %qkv[0, 192] [128, 64] [1, 1] : tensor<128x256xbf16> to tensor<128x64xbf16>
  %q = tensor.expand_shape %q2 [[0, 1], [2, 3]] output_shape [2, 64, 2, 64] : tensor<128x128xbf16> into tensor<2x64x2x64xbf16>
  %k = tensor.expand_shape %k2 [[0, 1], [2, 3]] output_shape [2, 64, 1, 64] : tensor<128x64xbf16> into tensor<2x64x1x64xbf16>
  %v = tensor.expand_shape %v2 [[0, 1], [2, 3]] output_shape [2, 64, 1, 64] : tensor<128x64xbf16> into tensor<2x64x1x64xbf16>
  %o = coda.attention %q, %k, %v scale 0.125 mask <causal = true> layout <bshd>
      : tensor<2x64x2x64xbf16>, tensor<2x64x1x64xbf16>, tensor<2x64x1x64xbf16>
      -> tensor<2x64x2x64xbf16>
  return %o : tensor<2x64x2x64xbf16>
}

// -----

// K and V sliced from tensors of different widths cannot share one row stride: both are
// copied out, Q is still read in place.
// CHECK-LABEL: struct main_a0 {
// CHECK:         static constexpr long long qStride = 256, kvStride = 64, outStride = 128;
// CHECK-LABEL: extern "C" int main_run(
// CHECK:         main_g1<<<
// CHECK:         main_g2<<<
// CHECK:         coda::rt::attention::launch<main_a0>((static_cast<const __nv_bfloat16 *>(arg0) + 0), reinterpret_cast
func.func @main(%qkv: tensor<128x256xbf16>, %kv: tensor<128x128xbf16>) -> tensor<2x64x2x64xbf16> {
  %q2 = tensor.extract_slice %qkv[0, 0] [128, 128] [1, 1] : tensor<128x256xbf16> to tensor<128x128xbf16>
  %k2 = tensor.extract_slice %qkv[0, 128] [128, 64] [1, 1] : tensor<128x256xbf16> to tensor<128x64xbf16>
  %v2 = tensor.extract_slice %kv[0, 64] [128, 64] [1, 1] : tensor<128x128xbf16> to tensor<128x64xbf16>
  %q = tensor.expand_shape %q2 [[0, 1], [2, 3]] output_shape [2, 64, 2, 64] : tensor<128x128xbf16> into tensor<2x64x2x64xbf16>
  %k = tensor.expand_shape %k2 [[0, 1], [2, 3]] output_shape [2, 64, 1, 64] : tensor<128x64xbf16> into tensor<2x64x1x64xbf16>
  %v = tensor.expand_shape %v2 [[0, 1], [2, 3]] output_shape [2, 64, 1, 64] : tensor<128x64xbf16> into tensor<2x64x1x64xbf16>
  %o = coda.attention %q, %k, %v scale 0.125 mask <causal = true> layout <bshd>
      : tensor<2x64x2x64xbf16>, tensor<2x64x1x64xbf16>, tensor<2x64x1x64xbf16>
      -> tensor<2x64x2x64xbf16>
  return %o : tensor<2x64x2x64xbf16>
}
