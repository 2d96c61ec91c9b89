//===- Attention.cuh - coda.attention's kernels ----------------------------===//
//
// Two kernels compute attention block by block with the softmax kept online in registers
// (exp2, running max and sum per row), the score edit and the mask applied only where a block
// of keys is partly visible, key blocks that the mask hides never visited, and P kept in
// registers as the A operand of P·V. Query head h reads KV head h / (Hq / Hkv) (grouped-query
// attention).
//
// - warpgroupKernel (heads of 64 or 128): one warpgroup loads Q once and 128-key blocks of K
//   and V through TMA (128-byte swizzle, two stages, mbarriers), two warpgroups compute 64
//   query rows each. Both products run on wgmma (sm_90a); each computing warpgroup issues the
//   scores of block j and P·V of block j - 1 together and computes the softmax of block j
//   while P·V is still running.
// - warpKernel (other head sizes): four warps of mma.sync, 64 query rows, 64-key blocks.
// - rows::rowKernel (where the plan's model finds it faster: a few query rows, as in
//   decoding): a warp per query row on CUDA cores, the query heads of a KV group in one CTA.
//
// The generated code supplies `Problem`: shapes, strides and scale as constants, the offsets
// of a (sequence, head) in Q, in K/V and in the output (qOffset, kvOffset, also on the host for
// the TMA maps, and outOffset; rows qStride, kvStride and outStride apart), and, given the
// sequence's length `len` (Sk without per-sequence lengths),
//   static bool visible(int len, int i, int j)           the mask at one element
//   static void keyRange(int len, int q0, int q1, int &k0, int &k1)
//                                                        keys rows [q0, q1) may see
//   static bool fullBlock(int len, int q0, int q1, int k0, int k1)
//                                                        every key of the block visible
//   static bool anyVisible(int len, int q0, int q1, int k0, int k1)
//                                                        some key of the block visible
//   static float score(float s, int b, int h, int i, int j)   the score region
// whether a runtime mask comes with the launch (hasBlocks, with its batch and head counts
// maskBatch and maskHeads: 1 where it is broadcast), and `dilation`: where it is d > 1, a CTA
// takes one residue class c of a dilated mask, rows c, c + d, c + 2d, ... of Q, K and V read
// as a strided view, so that its blocks are dense (fullBlock then ignores the dilation).
// Kernels index tiles by the class's local rows t and ask the mask of the rows c + t·d.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_ATTENTION_CUH
#define CODA_RUNTIME_ATTENTION_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <math_constants.h>

#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/mma_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/cuda_host_adapter.hpp>

#include <type_traits>
#include <utility>

namespace coda::rt::attention {

constexpr int kBlockM = 64, kBlockN = 64, kWarps = 4;

/// One CTA's residue class of a dilated problem (the whole head where dilation is 1): local
/// row t is row at(t) = c + t·d of the head, and the query and key ranges in both numberings.
template <class Problem> struct Residues {
  static constexpr int R = Problem::dilation, Sq = Problem::Sq / R, Sk = Problem::Sk / R;
  int c;
  __device__ __forceinline__ int at(int t) const { return c + t * R; }
  /// Rows [t0, t1) as the head's rows: the span [at(t0), at(t1 - 1) + 1).
  __device__ __forceinline__ int end(int t1) const { return at(t1 - 1) + 1; }
  /// The local keys [u0, u1) among the head's keys [k0, k1).
  __device__ __forceinline__ void localKeys(int k0, int k1, int &u0, int &u1) const {
    u0 = (max(k0 - c, 0) + R - 1) / R;
    u1 = k1 > c ? min((k1 - c + R - 1) / R, Sk) : 0;
  }
};

template <class T> struct Mma;
template <> struct Mma<__nv_bfloat16> {
  static __device__ __forceinline__ unsigned pack(float a, float b) {
    __nv_bfloat162 v = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<unsigned *>(&v);
  }
  static __device__ __forceinline__ void run(float (&c)[4], const unsigned (&a)[4],
                                             unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};
template <> struct Mma<__half> {
  static __device__ __forceinline__ unsigned pack(float a, float b) {
    __half2 v = __floats2half2_rn(a, b);
    return *reinterpret_cast<unsigned *>(&v);
  }
  static __device__ __forceinline__ void run(float (&c)[4], const unsigned (&a)[4],
                                             unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

/// 16-bit elements to and from fp32 (explicitly: PyTorch extensions build without the
/// implicit conversions).
__device__ __forceinline__ float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float toFloat(__half x) { return __half2float(x); }
template <class T> __device__ __forceinline__ T fromFloat(float x);
template <> __device__ __forceinline__ __nv_bfloat16 fromFloat(float x) {
  return __float2bfloat16(x);
}
template <> __device__ __forceinline__ __half fromFloat(float x) { return __float2half(x); }

__device__ __forceinline__ unsigned smemAddress(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix4(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddress(p)));
}
__device__ __forceinline__ void ldmatrix4Trans(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddress(p)));
}

/// 16 bytes from global to shared memory, or zeros where `valid` is false.
__device__ __forceinline__ void copy16(void *dst, const void *src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddress(dst)),
               "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void waitPending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/// A [Rows, D] tile of 16-bit elements in shared memory, 16-byte chunks of each row swizzled
/// by the row (conflict-free ldmatrix).
template <class T, int D, int Rows = kBlockM> struct Tile {
  static constexpr int kChunks = D / 8;
  // XOR within the largest power-of-two group of chunks that divides the row.
  static constexpr int kSwizzle = (kChunks & -kChunks) < 8 ? (kChunks & -kChunks) - 1 : 7;
  T data[Rows * D];
  __device__ __forceinline__ T *at(int row, int col) {
    int chunk = (col / 8) ^ (row & kSwizzle);
    return data + row * D + chunk * 8 + col % 8;
  }
  /// Rows [row0, row0 + Rows) of a global tensor with `stride` elements between rows; rows at
  /// or past `rows` are zeros.
  __device__ __forceinline__ void load(const T *base, long long stride, int row0, int rows) {
    for (int c = threadIdx.x; c < Rows * kChunks; c += kWarps * 32) {
      int r = c / kChunks, col = c % kChunks * 8;
      bool valid = row0 + r < rows;
      copy16(at(r, col), base + (valid ? (row0 + r) * stride + col : 0), valid);
    }
  }
};

/// A runtime mask (coda.attention's `blocks` and `bits`) as one CTA of sequence b, head h
/// reads it: the class of the 128 × 128 tile holding (q0, k0) (0: nothing visible, 1: all,
/// 2: read the bits), and whether key j is visible to query i in a tile of class 2. Without a
/// runtime mask every tile is of class 1.
template <class Problem> struct RuntimeMask {
  static constexpr int kTile = 128, kTilesQ = (Problem::Sq + kTile - 1) / kTile,
                       kTilesK = (Problem::Sk + kTile - 1) / kTile, kWords = (Problem::Sk + 31) / 32;
  const signed char *blocks;
  const unsigned *bits;
  long long slice; // (b, h) among the mask's [Mb, Mh]
  __device__ __forceinline__ RuntimeMask(const signed char *blocks, const unsigned *bits, int b,
                                         int h)
      : blocks(blocks), bits(bits),
        slice(static_cast<long long>(Problem::maskBatch == 1 ? 0 : b) * Problem::maskHeads +
              (Problem::maskHeads == 1 ? 0 : h)) {}
  __device__ __forceinline__ int tileClass(int q0, int k0) const {
    if constexpr (!Problem::hasBlocks)
      return 1;
    return blocks[(slice * kTilesQ + q0 / kTile) * kTilesK + k0 / kTile];
  }
  /// Word w of query i's bits (keys 32w to 32w + 31).
  __device__ __forceinline__ unsigned word(int i, int w) const {
    return bits[(slice * Problem::Sq + i) * kWords + w];
  }
  /// The four words of query i's bits over keys [k0, k0 + 128) (k0 a multiple of 128), for
  /// visibleIn: a tile of class 2 reads them once per row, not once per key.
  __device__ __forceinline__ void rowWords(int i, int k0, unsigned (&w)[4]) const {
#pragma unroll
    for (int t = 0; t < 4; ++t)
      w[t] = i < Problem::Sq && k0 / 32 + t < kWords ? word(i, k0 / 32 + t) : 0u;
  }
  static __device__ __forceinline__ bool visibleIn(const unsigned (&w)[4], int key) {
    return w[key / 32] >> (key % 32) & 1u;
  }
  /// Key j visible to query i (i < Sq, j < Sk) in a tile of class `cls`.
  __device__ __forceinline__ bool visible(int cls, int i, int j) const {
    if constexpr (!Problem::hasBlocks)
      return true;
    return cls == 1 || (cls == 2 && (word(i, j / 32) >> (j % 32) & 1u));
  }
};

template <class Problem>
__global__ void __launch_bounds__(kWarps * 32) warpKernel(const typename Problem::Element *__restrict__ q,
                                                      const typename Problem::Element *__restrict__ k,
                                                      const typename Problem::Element *__restrict__ v,
                                                      typename Problem::Element *__restrict__ out,
                                                      float *__restrict__ lse,
                                                      const typename Problem::Length *__restrict__ lens,
                                                      const signed char *__restrict__ blocks,
                                                      const unsigned *__restrict__ bits) {
  using T = typename Problem::Element;
  constexpr int D = Problem::D;
  constexpr int kTilesD = D / 8, kStepsD = D / 16, kTilesN = kBlockN / 8, kStepsN = kBlockN / 16;
  __shared__ __align__(128) Tile<T, D> sq, sk, sv;

  // Heavy query blocks (the last ones of a causal mask) start first.
  using Local = Residues<Problem>;
  const int qBlock = gridDim.x - 1 - blockIdx.x, h = blockIdx.y / Local::R, b = blockIdx.z;
  const Local local{static_cast<int>(blockIdx.y % Local::R)};
  const int g = h / (Problem::Hq / Problem::Hkv);
  // Local query rows [t0, t1), the head's rows [q0, q1) around them.
  const int t0 = qBlock * kBlockM, t1 = min(t0 + kBlockM, Local::Sq);
  const int q0 = local.at(t0), q1 = local.end(t1);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int quadRow = lane / 4, quadCol = lane % 4;

  // The class's rows: local row t is row c + t·d.
  constexpr long long qStride = Problem::qStride * Local::R, kvStride = Problem::kvStride * Local::R;
  const T *qBase = q + Problem::qOffset(b, h) + local.c * Problem::qStride;
  const T *kBase = k + Problem::kvOffset(b, g) + local.c * Problem::kvStride,
          *vBase = v + Problem::kvOffset(b, g) + local.c * Problem::kvStride;

  const int len = lens ? static_cast<int>(lens[b]) : Problem::Sk;
  const RuntimeMask<Problem> runtime(blocks, bits, b, h);
  int kLo, kHi;
  Problem::keyRange(len, q0, q1, kLo, kHi);
  local.localKeys(kLo, kHi, kLo, kHi);
  kLo = kLo / kBlockN * kBlockN;

  sq.load(qBase, qStride, t0, Local::Sq);
  if (kLo < kHi)
    sk.load(kBase, kvStride, kLo, Local::Sk);
  commit();
  if (kLo < kHi)
    sv.load(vBase, kvStride, kLo, Local::Sk);
  commit();

  // Each thread holds rows quadRow and quadRow + 8 of its warp's 16.
  float o[kTilesD][4] = {};
  float rowMax[2] = {-CUDART_INF_F, -CUDART_INF_F}, rowSum[2] = {0.f, 0.f};
  unsigned qFrag[kStepsD][4];
  const int warpRow = warp * 16;

  for (int k0 = kLo; k0 < kHi; k0 += kBlockN) {
    waitPending<1>();
    __syncthreads();
    if (k0 == kLo)
      for (int s = 0; s < kStepsD; ++s)
        ldmatrix4(qFrag[s], sq.at(warpRow + lane % 16, s * 16 + lane / 16 * 8));

    // S = Q Kᵀ for this warp's 16 rows and the block's 64 keys.
    float sc[kTilesN][4] = {};
    for (int s = 0; s < kStepsD; ++s)
      for (int n = 0; n < kTilesN; n += 2) {
        unsigned kf[4];
        ldmatrix4(kf, sk.at(n * 8 + lane % 8 + lane / 16 * 8, s * 16 + (lane / 8) % 2 * 8));
        Mma<T>::run(sc[n], qFrag[s], kf[0], kf[1]);
        Mma<T>::run(sc[n + 1], qFrag[s], kf[2], kf[3]);
      }
    __syncthreads();
    if (k0 + kBlockN < kHi)
      sk.load(kBase, kvStride, k0 + kBlockN, Local::Sk);
    commit();

    // Scale (in log2 units), score edit and mask where the block is not fully visible.
    const int k1 = min(k0 + kBlockN, Local::Sk);
    const int cls = runtime.tileClass(q0, local.at(k0));
    const bool full = cls == 1 && k1 == k0 + kBlockN &&
                      Problem::fullBlock(len, q0, q1, local.at(k0), local.end(k1));
    for (int n = 0; n < kTilesN; ++n)
      for (int e = 0; e < 4; ++e) {
        int i = local.at(t0 + warpRow + quadRow + (e / 2) * 8),
            j = local.at(k0 + n * 8 + quadCol * 2 + e % 2);
        float x = sc[n][e] * Problem::scale;
        if (Problem::hasScore)
          x = Problem::score(x, b, h, i, j);
        if (!full && (j >= Problem::Sk || !Problem::visible(len, i, j) || i >= Problem::Sq ||
                      !runtime.visible(cls, i, j)))
          x = -CUDART_INF_F;
        sc[n][e] = x * 1.4426950408889634f;
      }

    // Online softmax: the new row maxima, the old sums and outputs rescaled.
    float scaleOld[2];
    for (int r = 0; r < 2; ++r) {
      float m = rowMax[r];
      for (int n = 0; n < kTilesN; ++n)
        m = fmaxf(m, fmaxf(sc[n][2 * r], sc[n][2 * r + 1]));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
      float base = m == -CUDART_INF_F ? 0.f : m;
      scaleOld[r] = exp2f(rowMax[r] - base);
      rowMax[r] = m;
      float sum = 0.f;
      for (int n = 0; n < kTilesN; ++n) {
        sc[n][2 * r] = exp2f(sc[n][2 * r] - base);
        sc[n][2 * r + 1] = exp2f(sc[n][2 * r + 1] - base);
        sum += sc[n][2 * r] + sc[n][2 * r + 1];
      }
      rowSum[r] = rowSum[r] * scaleOld[r] + sum;
    }
    for (int t = 0; t < kTilesD; ++t) {
      o[t][0] *= scaleOld[0];
      o[t][1] *= scaleOld[0];
      o[t][2] *= scaleOld[1];
      o[t][3] *= scaleOld[1];
    }

    // O += P V, P from the score registers (the accumulator layout of two 8-key tiles is the
    // operand layout of one 16-key step).
    waitPending<1>();
    __syncthreads();
    for (int s = 0; s < kStepsN; ++s) {
      unsigned p[4] = {Mma<T>::pack(sc[2 * s][0], sc[2 * s][1]),
                       Mma<T>::pack(sc[2 * s][2], sc[2 * s][3]),
                       Mma<T>::pack(sc[2 * s + 1][0], sc[2 * s + 1][1]),
                       Mma<T>::pack(sc[2 * s + 1][2], sc[2 * s + 1][3])};
      for (int t = 0; t < kTilesD; t += 2) {
        unsigned vf[4];
        ldmatrix4Trans(vf, sv.at(s * 16 + lane % 8 + (lane / 8) % 2 * 8, t * 8 + lane / 16 * 8));
        Mma<T>::run(o[t], p, vf[0], vf[1]);
        Mma<T>::run(o[t + 1], p, vf[2], vf[3]);
      }
    }
    __syncthreads();
    if (k0 + kBlockN < kHi)
      sv.load(vBase, kvStride, k0 + kBlockN, Local::Sk);
    commit();
  }
  waitPending<0>();

  // Rows' sums across the quad, then O / l (0 for a row that sees nothing) and lse.
  for (int r = 0; r < 2; ++r) {
    rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 1);
    rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 2);
    int i = local.at(t0 + warpRow + quadRow + r * 8);
    if (i >= Problem::Sq)
      continue;
    float inv = rowSum[r] > 0.f ? 1.f / rowSum[r] : 0.f;
    T *row = out + Problem::outOffset(b, h) + i * Problem::outStride;
    for (int t = 0; t < kTilesD; ++t) {
      unsigned packed = Mma<T>::pack(o[t][2 * r] * inv, o[t][2 * r + 1] * inv);
      *reinterpret_cast<unsigned *>(row + t * 8 + quadCol * 2) = packed;
    }
    if (lse && quadCol == 0)
      lse[(static_cast<long long>(b) * Problem::Hq + h) * Problem::Sq + i] =
          rowSum[r] > 0.f ? (rowMax[r] + log2f(rowSum[r])) * 0.6931471805599453f : -CUDART_INF_F;
  }
}

/// The row-wise kernel: a warp per query row, for problems of a few query rows (decoding,
/// speculative steps) where a 64- or 128-row tile of the block-wise kernels would mostly hold
/// padding. A CTA takes up to kRows rows of one (sequence, KV head): the queries i of every
/// query head of the group, row r = i·rep + (h mod rep), so that each 32-key tile of K and V it
/// loads serves the whole group. Lane j scores key j of the tile against its warp's row (the
/// row in shared memory, read by every lane at once); the softmax runs online over tiles; for
/// P·V each lane owns columns lane, lane + 32, ... of the output.
namespace rows {

constexpr int kWarps = 8, kRows = 32, kKeys = 32;

template <class Problem>
__global__ void __launch_bounds__(kWarps * 32)
    rowKernel(const typename Problem::Element *__restrict__ q,
              const typename Problem::Element *__restrict__ k,
              const typename Problem::Element *__restrict__ v,
              typename Problem::Element *__restrict__ out, float *__restrict__ lse,
              const typename Problem::Length *__restrict__ lens,
              const signed char *__restrict__ blocks, const unsigned *__restrict__ bits) {
  using T = typename Problem::Element;
  constexpr int D = Problem::D, rep = Problem::Hq / Problem::Hkv, kCols = (D + 31) / 32;
  constexpr int kRowsPerWarp = kRows / kWarps, kPitch = D + 8; // +16 bytes: no bank conflicts
  __shared__ float sq[kRows][D];
  __shared__ __align__(16) T sk[kKeys * kPitch];
  __shared__ __align__(16) T sv[kKeys * D];

  const int g = blockIdx.y, b = blockIdx.z, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r0 = blockIdx.x * kRows, r1 = min(r0 + kRows, Problem::Sq * rep);
  const int len = lens ? static_cast<int>(lens[b]) : Problem::Sk;
  // The CTA's queries [q0, q1), and the keys any of them may see.
  const int q0 = r0 / rep, q1 = (r1 - 1) / rep + 1;
  int kLo, kHi;
  Problem::keyRange(len, q0, q1, kLo, kHi);
  kLo = max(kLo, 0) / kKeys * kKeys;
  kHi = min(kHi, Problem::Sk);

  for (int e = threadIdx.x; e < kRows * D; e += kWarps * 32) {
    int r = r0 + e / D, c = e % D;
    sq[e / D][c] = r < r1 ? toFloat(q[Problem::qOffset(b, g * rep + r % rep) +
                                      static_cast<long long>(r / rep) * Problem::qStride + c])
                          : 0.f;
  }

  // Per row of the warp: the running maximum (log2 units), this lane's share of the sum, and
  // its output columns.
  float rowMax[kRowsPerWarp], rowSum[kRowsPerWarp], o[kRowsPerWarp][kCols];
#pragma unroll
  for (int w = 0; w < kRowsPerWarp; ++w) {
    rowMax[w] = -CUDART_INF_F;
    rowSum[w] = 0.f;
#pragma unroll
    for (int c = 0; c < kCols; ++c)
      o[w][c] = 0.f;
  }
  constexpr float toLog2 = 1.4426950408889634f;
  const T *kBase = k + Problem::kvOffset(b, g), *vBase = v + Problem::kvOffset(b, g);

  for (int k0 = kLo; k0 < kHi; k0 += kKeys) {
    __syncthreads(); // the previous tile is read
    for (int e = threadIdx.x; e < kKeys * D / 8; e += kWarps * 32) {
      int j = e / (D / 8), c = e % (D / 8) * 8;
      uint4 kc = make_uint4(0, 0, 0, 0), vc = kc;
      if (k0 + j < Problem::Sk) {
        kc = *reinterpret_cast<const uint4 *>(kBase + static_cast<long long>(k0 + j) * Problem::kvStride + c);
        vc = *reinterpret_cast<const uint4 *>(vBase + static_cast<long long>(k0 + j) * Problem::kvStride + c);
      }
      *reinterpret_cast<uint4 *>(sk + j * kPitch + c) = kc;
      *reinterpret_cast<uint4 *>(sv + j * D + c) = vc;
    }
    __syncthreads();
    const int key = k0 + lane;
#pragma unroll
    for (int w = 0; w < kRowsPerWarp; ++w) {
      const int local = warp * kRowsPerWarp + w, r = r0 + local;
      if (r >= r1)
        break;
      const int i = r / rep, h = g * rep + r % rep;
      // The score of this lane's key.
      float dot = 0.f;
#pragma unroll
      for (int c = 0; c < D; c += 8) {
        uint4 chunk = *reinterpret_cast<const uint4 *>(sk + lane * kPitch + c);
        const T *kv = reinterpret_cast<const T *>(&chunk);
#pragma unroll
        for (int e = 0; e < 8; ++e)
          dot = fmaf(sq[local][c + e], toFloat(kv[e]), dot);
      }
      float x = dot * Problem::scale;
      if (Problem::hasScore)
        x = Problem::score(x, b, h, i, key);
      RuntimeMask<Problem> runtime(blocks, bits, b, h);
      int cls = key < Problem::Sk ? runtime.tileClass(i, key) : 0;
      bool seen = key < Problem::Sk && Problem::visible(len, i, key) && runtime.visible(cls, i, key);
      x = seen ? x * toLog2 : -CUDART_INF_F;
      // Online softmax over the tile.
      float m = x;
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
      m = fmaxf(m, rowMax[w]);
      if (m == -CUDART_INF_F)
        continue; // nothing visible yet
      const float rescale = exp2f(rowMax[w] - m), p = exp2f(x - m);
      rowMax[w] = m;
      rowSum[w] = rowSum[w] * rescale + p;
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        o[w][c] *= rescale;
      for (int j = 0; j < kKeys; ++j) {
        float pj = __shfl_sync(0xffffffffu, p, j);
#pragma unroll
        for (int c = 0; c < kCols; ++c)
          if (lane + 32 * c < D)
            o[w][c] = fmaf(pj, toFloat(sv[j * D + lane + 32 * c]), o[w][c]);
      }
    }
  }

  // The sums across the warp, then O / l (0 for a row that sees nothing) and lse.
#pragma unroll
  for (int w = 0; w < kRowsPerWarp; ++w) {
    const int r = r0 + warp * kRowsPerWarp + w;
    if (r >= r1)
      break;
    float sum = rowSum[w];
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    const int i = r / rep, h = g * rep + r % rep;
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    T *row = out + Problem::outOffset(b, h) + static_cast<long long>(i) * Problem::outStride;
#pragma unroll
    for (int c = 0; c < kCols; ++c)
      if (lane + 32 * c < D)
        row[lane + 32 * c] = fromFloat<T>(o[w][c] * inv);
    if (lse && lane == 0)
      lse[(static_cast<long long>(b) * Problem::Hq + h) * Problem::Sq + i] =
          sum > 0.f ? (rowMax[w] + log2f(sum)) * 0.6931471805599453f : -CUDART_INF_F;
  }
}

} // namespace rows

namespace wg {

namespace gmma = cute::SM90::GMMA;

constexpr int kBlockM = 128, kBlockN = 128, kThreads = 384;

/// The wgmma shapes of one element type: S = Q·Kᵀ with both operands in shared memory (K-major),
/// O += P·V with P in registers and V in shared memory (V's rows are keys: MN-major).
template <class T, int N> struct Ops;
#define CODA_ATTENTION_OPS(T, NAME, N)                                                          \
  template <> struct Ops<T, N> {                                                                \
    using SS = gmma::MMA_64x##N##x16_F32##NAME##NAME##_SS<gmma::Major::K, gmma::Major::K>;      \
    using RS = gmma::MMA_64x##N##x16_F32##NAME##NAME##_RS<gmma::Major::K, gmma::Major::MN>;     \
  };
CODA_ATTENTION_OPS(__nv_bfloat16, BF16, 64)
CODA_ATTENTION_OPS(__nv_bfloat16, BF16, 128)
CODA_ATTENTION_OPS(__half, F16, 64)
CODA_ATTENTION_OPS(__half, F16, 128)
#undef CODA_ATTENTION_OPS

template <class Op, size_t... I>
__device__ __forceinline__ void ss(uint64_t a, uint64_t b, float *d, bool accumulate,
                                   std::index_sequence<I...>) {
  Op::fma(a, b, d[I]..., accumulate ? gmma::ScaleOut::One : gmma::ScaleOut::Zero);
}
template <class Op, size_t... I>
__device__ __forceinline__ void rs(const unsigned (&a)[4], uint64_t b, float *d,
                                   std::index_sequence<I...>) {
  Op::fma(a[0], a[1], a[2], a[3], b, d[I]...);
}

__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void commitGroup() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> __device__ __forceinline__ void waitGroup() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/// Keeps the compiler from moving reads or writes of a wgmma operand across an issue or a wait.
template <int N> __device__ __forceinline__ void pin(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+f"(r[i])::"memory");
}
template <int N> __device__ __forceinline__ void pin(unsigned (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      asm volatile("" : "+r"(r[i][e])::"memory");
}

/// A [Rows, D] tile of 16-bit elements in the canonical 128-byte-swizzled layout of wgmma and
/// TMA: columns in blocks of 64 (one 128-byte row each), each block [Rows, 64] with the 16-byte
/// chunks of row r permuted by r % 8. The tile starts 1024-byte aligned.
template <int Rows, int D> struct SwizzledTile {
  static constexpr int kBytes = Rows * D * 2, kBlockBytes = Rows * 128;
  char *base;
  /// The wgmma descriptor of rows [row0, ...) and columns [col, col + 16) as a K-major operand.
  __device__ __forceinline__ uint64_t kMajor(int row0, int col) const {
    return descriptor(base + col / 64 * kBlockBytes + row0 * 128 + col % 64 * 2, 16, 1024);
  }
  /// The wgmma descriptor of rows [row0, row0 + 16) and all columns as an MN-major operand.
  __device__ __forceinline__ uint64_t mnMajor(int row0) const {
    return descriptor(base + row0 * 128, kBlockBytes, 1024);
  }
  static __device__ __forceinline__ uint64_t descriptor(const char *p, unsigned leading,
                                                        unsigned stride) {
    uint64_t address = smemAddress(p);
    return (address & 0x3FFFF) >> 4 | uint64_t(leading >> 4) << 16 |
           uint64_t(stride >> 4) << 32 | uint64_t(1) << 62;
  }
  /// Local rows [row, row + Rows) of residue class `cls` of head `head` of sequence `b`
  /// through TMA (rows past the tensor's end are zeros), completing on `bar`.
  __device__ __forceinline__ void load(const CUtensorMap *map, uint64_t *bar, int row, int cls,
                                       int head, int b) const {
#pragma unroll
    for (int c = 0; c < D / 64; ++c)
      cute::SM90_TMA_LOAD_5D::copy(map, bar, 0, base + c * kBlockBytes, c * 64, cls, row, head,
                                   b);
  }
};

/// The mbarriers of the load pipeline (init, arrive, expect bytes, wait for a phase).
using Barrier = cutlass::arch::ClusterTransactionBarrier;

/// Warpgroup 0 loads (one thread issues TMA copies), warpgroups 1 and 2 compute 64 query rows
/// each. K and V have two stages each, with a "full" barrier (the copy landed) and an "empty"
/// one (both warpgroups are done with it) per stage.
template <class Problem>
__global__ void __launch_bounds__(kThreads, 1)
    warpgroupKernel(const __grid_constant__ CUtensorMap qMap,
                    const __grid_constant__ CUtensorMap kMap,
                    const __grid_constant__ CUtensorMap vMap,
                    typename Problem::Element *__restrict__ out, float *__restrict__ lse,
                    const typename Problem::Length *__restrict__ lens,
                    const signed char *__restrict__ blocks, const unsigned *__restrict__ bits) {
  using T = typename Problem::Element;
  constexpr int D = Problem::D, kTilesN = kBlockN / 8, kTilesD = D / 8;
  using QTile = SwizzledTile<kBlockM, D>;
  using KVTile = SwizzledTile<kBlockN, D>;
  using Op = Ops<T, kBlockN>;
  using OpV = Ops<T, D>;
  extern __shared__ char raw[];
  char *smem = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  const QTile sq{smem};
  auto sk = [&](int stage) { return KVTile{smem + QTile::kBytes + stage * KVTile::kBytes}; };
  auto sv = [&](int stage) { return KVTile{smem + QTile::kBytes + (2 + stage) * KVTile::kBytes}; };
  // qFull, kFull[2], vFull[2], kEmpty[2], vEmpty[2].
  uint64_t *bars = reinterpret_cast<uint64_t *>(smem + QTile::kBytes + 4 * KVTile::kBytes);
  uint64_t *qFull = bars, *kFull = bars + 1, *vFull = bars + 3, *kEmpty = bars + 5,
           *vEmpty = bars + 7;

  using Local = Residues<Problem>;
  const int qBlock = gridDim.x - 1 - blockIdx.x, h = blockIdx.y / Local::R, b = blockIdx.z;
  const Local local{static_cast<int>(blockIdx.y % Local::R)};
  const int g = h / (Problem::Hq / Problem::Hkv);
  // Local query rows [t0, t1), the head's rows [q0, q1) around them.
  const int t0 = qBlock * kBlockM, t1 = min(t0 + kBlockM, Local::Sq);
  const int q0 = local.at(t0), q1 = local.end(t1);
  const int len = lens ? static_cast<int>(lens[b]) : Problem::Sk;
  const RuntimeMask<Problem> runtime(blocks, bits, b, h);
  int kLo, kHi;
  Problem::keyRange(len, q0, q1, kLo, kHi);
  local.localKeys(kLo, kHi, kLo, kHi);
  kLo = kLo / kBlockN * kBlockN;
  // The (local) key blocks both roles walk: those of [kLo, kHi) where the mask shows any key.
  auto visited = [&](int k0) {
    return Problem::anyVisible(len, q0, q1, local.at(k0),
                               local.end(min(k0 + kBlockN, Local::Sk))) &&
           runtime.tileClass(q0, local.at(k0)) != 0;
  };

  if (threadIdx.x == 0) {
    Barrier::init(qFull, 1);
    for (int i = 0; i < 2; ++i) {
      Barrier::init(kFull + i, 1);
      Barrier::init(vFull + i, 1);
      Barrier::init(kEmpty + i, 2 * 128);
      Barrier::init(vEmpty + i, 2 * 128);
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  if (threadIdx.x < 128) {
    cutlass::arch::warpgroup_reg_dealloc<24>();
    if (threadIdx.x != 0)
      return;
    int j = 0;
    for (int k0 = kLo; k0 < kHi; k0 += kBlockN) {
      if (!visited(k0))
        continue;
      const int stage = j % 2;
      if (j == 0) {
        Barrier::arrive_and_expect_tx(qFull, QTile::kBytes);
        sq.load(&qMap, qFull, t0, local.c, h, b);
      }
      if (j >= 2)
        Barrier::wait(kEmpty + stage, (j / 2 - 1) & 1);
      Barrier::arrive_and_expect_tx(kFull + stage, KVTile::kBytes);
      sk(stage).load(&kMap, kFull + stage, k0, local.c, g, b);
      if (j >= 2)
        Barrier::wait(vEmpty + stage, (j / 2 - 1) & 1);
      Barrier::arrive_and_expect_tx(vFull + stage, KVTile::kBytes);
      sv(stage).load(&vMap, vFull + stage, k0, local.c, g, b);
      ++j;
    }
    return;
  }
  cutlass::arch::warpgroup_reg_alloc<240>();

  const int group = threadIdx.x / 128 - 1, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
  const int quadRow = lane / 4, quadCol = lane % 4;
  const int rowBase = t0 + group * 64 + warp * 16 + quadRow;

  // Each thread holds (local) rows rowBase and rowBase + 8: element 4n + 2r + e of an
  // accumulator is row rowBase + 8r, column 8n + 2 quadCol + e.
  float o[D / 2], s[kBlockN / 2];
  unsigned p[kBlockN / 16][4];
#pragma unroll
  for (int i = 0; i < D / 2; ++i)
    o[i] = 0.f;
  float rowMax[2] = {-CUDART_INF_F, -CUDART_INF_F}, rowSum[2] = {0.f, 0.f};

  // S = Q·Kᵀ of key block j (issued, not waited for).
  auto scores = [&](int j) {
    Barrier::wait(kFull + j % 2, (j / 2) & 1);
    fence();
#pragma unroll
    for (int t = 0; t < D / 16; ++t)
      ss<typename Op::SS>(sq.kMajor(group * 64, t * 16), sk(j % 2).kMajor(0, t * 16), s, t > 0,
                          std::make_index_sequence<kBlockN / 2>());
    commitGroup();
  };
  // O += P·V of key block j (issued, not waited for).
  auto values = [&](int j) {
    Barrier::wait(vFull + j % 2, (j / 2) & 1);
    fence();
#pragma unroll
    for (int t = 0; t < kBlockN / 16; ++t)
      rs<typename OpV::RS>(p[t], sv(j % 2).mnMajor(t * 16), o, std::make_index_sequence<D / 2>());
    commitGroup();
  };
  // Scale (log2 units), score edit, mask; the new row maxima; s := exp2(s - max); the factor
  // that rescales what O and the sums held.
  // The row maxima are kept in the units of the scores as the product gives them (or as the
  // score region returns them); `toLog2` takes them to log2 units inside one FFMA per element.
  constexpr float toLog2 = (Problem::hasScore ? 1.f : Problem::scale) * 1.4426950408889634f;
  auto softmax = [&](int k0, float (&rescale)[2]) {
    const int k1 = min(k0 + kBlockN, Local::Sk);
    const int cls = runtime.tileClass(q0, local.at(k0));
    const bool full = cls == 1 && k1 == k0 + kBlockN &&
                      Problem::fullBlock(len, q0, q1, local.at(k0), local.end(k1));
    // A tile of class 2: this thread's two rows of bits, read once.
    unsigned words[2][4] = {};
    if (Problem::hasBlocks && cls == 2)
      for (int r = 0; r < 2; ++r)
        runtime.rowWords(rowBase + r * 8, k0, words[r]);
    if (Problem::hasScore || !full)
#pragma unroll
      for (int n = 0; n < kTilesN; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          int key = n * 8 + quadCol * 2 + e % 2;
          int i = local.at(rowBase + (e / 2) * 8), j = local.at(k0 + key);
          float x = s[4 * n + e];
          if (Problem::hasScore)
            x = Problem::score(x * Problem::scale, b, h, i, j);
          if (!full && (j >= Problem::Sk || !Problem::visible(len, i, j) || i >= Problem::Sq ||
                        (Problem::hasBlocks && cls != 1 &&
                         !(cls == 2 && RuntimeMask<Problem>::visibleIn(words[e / 2], key)))))
            x = -CUDART_INF_F;
          s[4 * n + e] = x;
        }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float m = rowMax[r];
#pragma unroll
      for (int n = 0; n < kTilesN; ++n)
        m = fmaxf(m, fmaxf(s[4 * n + 2 * r], s[4 * n + 2 * r + 1]));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
      float base = m == -CUDART_INF_F ? 0.f : m * toLog2;
      rescale[r] = exp2f(rowMax[r] * toLog2 - base);
      rowMax[r] = m;
      float sum = 0.f;
#pragma unroll
      for (int n = 0; n < kTilesN; ++n) {
        s[4 * n + 2 * r] = exp2f(fmaf(s[4 * n + 2 * r], toLog2, -base));
        s[4 * n + 2 * r + 1] = exp2f(fmaf(s[4 * n + 2 * r + 1], toLog2, -base));
        sum += s[4 * n + 2 * r] + s[4 * n + 2 * r + 1];
      }
      rowSum[r] = rowSum[r] * rescale[r] + sum;
    }
  };
  // P from the scores: the accumulator layout of two 8-key tiles is the A-operand layout of
  // one 16-key step.
  auto pack = [&] {
#pragma unroll
    for (int t = 0; t < kBlockN / 16; ++t) {
      p[t][0] = Mma<T>::pack(s[8 * t + 0], s[8 * t + 1]);
      p[t][1] = Mma<T>::pack(s[8 * t + 2], s[8 * t + 3]);
      p[t][2] = Mma<T>::pack(s[8 * t + 4], s[8 * t + 5]);
      p[t][3] = Mma<T>::pack(s[8 * t + 6], s[8 * t + 7]);
    }
  };

  int k0 = kLo;
  while (k0 < kHi && !visited(k0))
    k0 += kBlockN;
  if (k0 < kHi) {
    Barrier::wait(qFull, 0);
    scores(0);
    waitGroup<0>();
    pin(s);
    Barrier::arrive(kEmpty);
    float rescale[2];
    softmax(k0, rescale);
    pack();

    // Block j's scores and block j - 1's P·V run together; the softmax of block j waits only
    // for its scores.
    int j = 1;
    for (k0 += kBlockN; k0 < kHi; k0 += kBlockN) {
      if (!visited(k0))
        continue;
      scores(j);
      values(j - 1);
      waitGroup<1>();
      pin(s);
      Barrier::arrive(kEmpty + j % 2);
      softmax(k0, rescale);
      waitGroup<0>();
      pin(o);
      pin(p);
      Barrier::arrive(vEmpty + (j - 1) % 2);
#pragma unroll
      for (int t = 0; t < kTilesD; ++t) {
        o[4 * t + 0] *= rescale[0];
        o[4 * t + 1] *= rescale[0];
        o[4 * t + 2] *= rescale[1];
        o[4 * t + 3] *= rescale[1];
      }
      pack();
      ++j;
    }
    values(j - 1);
    waitGroup<0>();
    pin(o);
  }

  // Rows' sums across the quad, then O / l (0 for a row that sees nothing) and lse.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 1);
    rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 2);
    int i = local.at(rowBase + r * 8);
    if (i >= Problem::Sq)
      continue;
    float inv = rowSum[r] > 0.f ? 1.f / rowSum[r] : 0.f;
    T *row = out + Problem::outOffset(b, h) + i * Problem::outStride;
#pragma unroll
    for (int t = 0; t < kTilesD; ++t)
      *reinterpret_cast<unsigned *>(row + t * 8 + quadCol * 2) =
          Mma<T>::pack(o[4 * t + 2 * r] * inv, o[4 * t + 2 * r + 1] * inv);
    if (lse && quadCol == 0)
      lse[(static_cast<long long>(b) * Problem::Hq + h) * Problem::Sq + i] =
          rowSum[r] > 0.f ? (rowMax[r] * toLog2 + log2f(rowSum[r])) * 0.6931471805599453f
                          : -CUDART_INF_F;
  }
}

/// A 5-D TMA map of [B, H, S, d] heads (any strides) with each head's rows split into
/// `classes` residue classes, [B, H, S / classes, classes, d]: boxes of 64 columns × `rows`
/// rows of one class with the 128-byte swizzle.
template <class T>
cudaError_t tensorMap(CUtensorMap *map, const T *base, int d, int seq, int classes, int heads,
                      int batch, long long rowStride, long long headStride, long long batchStride,
                      int rows) {
  cuuint64_t dims[5] = {cuuint64_t(d), cuuint64_t(classes), cuuint64_t(seq / classes),
                        cuuint64_t(heads), cuuint64_t(batch)};
  cuuint64_t strides[4] = {cuuint64_t(rowStride) * 2, cuuint64_t(rowStride) * classes * 2,
                           cuuint64_t(headStride) * 2, cuuint64_t(batchStride) * 2};
  cuuint32_t box[5] = {64, 1, cuuint32_t(rows), 1, 1}, elementStrides[5] = {1, 1, 1, 1, 1};
  CUresult result = CUTLASS_CUDA_DRIVER_WRAPPER_CALL(cuTensorMapEncodeTiled)(
      map, std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
      5, const_cast<T *>(base), dims, strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return result == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

template <class Problem>
cudaError_t launch(const typename Problem::Element *q, const typename Problem::Element *k,
                   const typename Problem::Element *v, typename Problem::Element *out, float *lse,
                   const typename Problem::Length *lens, const signed char *blocks,
                   const unsigned *bits, cudaStream_t stream) {
  constexpr int D = Problem::D;
  constexpr int kSmem = (kBlockM + 4 * kBlockN) * D * 2 + 1024 + 9 * 8;
  CUtensorMap maps[3];
  // Rows are qStride / kvStride apart; heads and sequences as the layout puts them.
  constexpr int R = Problem::dilation;
  cudaError_t error = tensorMap(maps, q, D, Problem::Sq, R, Problem::Hq, Problem::B,
                                Problem::qStride, Problem::qOffset(0, 1), Problem::qOffset(1, 0),
                                kBlockM);
  for (int i = 1; i < 3 && error == cudaSuccess; ++i)
    error = tensorMap(maps + i, i == 1 ? k : v, D, Problem::Sk, R, Problem::Hkv, Problem::B,
                      Problem::kvStride, Problem::kvOffset(0, 1), Problem::kvOffset(1, 0), kBlockN);
  if (error == cudaSuccess)
    error = cudaFuncSetAttribute(warpgroupKernel<Problem>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (error != cudaSuccess)
    return error;
  // A CTA per block of 128 query rows of one residue class of a head.
  dim3 grid((Problem::Sq / R + kBlockM - 1) / kBlockM, Problem::Hq * R, Problem::B);
  warpgroupKernel<Problem><<<grid, kThreads, kSmem, stream>>>(maps[0], maps[1], maps[2], out, lse,
                                                              lens, blocks, bits);
  return cudaGetLastError();
}

} // namespace wg

/// Launches the kernel for `Problem` on `stream` (`lens`: per-sequence lengths, `blocks` and
/// `bits`: a runtime mask; null where the op has none).
template <class Problem>
cudaError_t launch(const typename Problem::Element *q, const typename Problem::Element *k,
                   const typename Problem::Element *v, typename Problem::Element *out, float *lse,
                   const typename Problem::Length *lens, const signed char *blocks,
                   const unsigned *bits, cudaStream_t stream) {
  if constexpr (Problem::rowWise) {
    dim3 grid((Problem::Sq * (Problem::Hq / Problem::Hkv) + rows::kRows - 1) / rows::kRows,
              Problem::Hkv, Problem::B);
    rows::rowKernel<Problem><<<grid, rows::kWarps * 32, 0, stream>>>(q, k, v, out, lse, lens,
                                                                    blocks, bits);
    return cudaGetLastError();
  } else if constexpr (Problem::D == 64 || Problem::D == 128) {
    return wg::launch<Problem>(q, k, v, out, lse, lens, blocks, bits, stream);
  } else {
    constexpr int R = Problem::dilation;
    dim3 grid((Problem::Sq / R + kBlockM - 1) / kBlockM, Problem::Hq * R, Problem::B);
    warpKernel<Problem><<<grid, kWarps * 32, 0, stream>>>(q, k, v, out, lse, lens, blocks, bits);
    return cudaGetLastError();
  }
}

} // namespace coda::rt::attention

#endif // CODA_RUNTIME_ATTENTION_CUH
