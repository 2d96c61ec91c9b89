//===- Attention.cuh - coda.attention's block-wise kernel ------------------===//
//
// One CTA of four warps computes 64 query rows of one (batch, query head): it walks the key
// blocks of 64 that the mask can make visible, computes S = Q·Kᵀ with mma.sync (bf16/f16 in,
// fp32 accumulation), applies the score edit and the mask only where a block is partly
// visible, keeps the softmax online in registers (exp2, running max and sum per row), and
// accumulates O += P·V with P kept in registers. K and V stream through shared memory with
// cp.async, V of a block loading under the scores of the same block and K of the next under
// P·V. Query head h reads KV head h / (Hq / Hkv) (grouped-query attention).
//
// The generated code supplies `Problem`: shapes, strides and scale as constants, and, given the
// sequence's length `len` (Sk without per-sequence lengths),
//   static bool visible(int len, int i, int j)           the mask at one element
//   static void keyRange(int len, int q0, int q1, int &k0, int &k1)
//                                                        keys rows [q0, q1) may see
//   static bool fullBlock(int len, int q0, int q1, int k0, int k1)
//                                                        every key of the block visible
//   static float score(float s, int b, int h, int i, int j)   the score region
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_ATTENTION_CUH
#define CODA_RUNTIME_ATTENTION_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <math_constants.h>

namespace coda::rt::attention {

constexpr int kBlockM = 64, kBlockN = 64, kWarps = 4;

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

/// A [64, D] tile of 16-bit elements in shared memory, 16-byte chunks of each row swizzled by
/// the row (conflict-free ldmatrix).
template <class T, int D> struct Tile {
  static constexpr int kChunks = D / 8;
  static constexpr int kSwizzle = kChunks < 8 ? kChunks - 1 : 7;
  T data[kBlockM * D];
  __device__ __forceinline__ T *at(int row, int col) {
    int chunk = (col / 8) ^ (row & kSwizzle);
    return data + row * D + chunk * 8 + col % 8;
  }
  /// Rows [row0, row0 + 64) of a global tensor with `stride` elements between rows; rows at or
  /// past `rows` are zeros.
  __device__ __forceinline__ void load(const T *base, long long stride, int row0, int rows) {
    for (int c = threadIdx.x; c < kBlockM * kChunks; c += kWarps * 32) {
      int r = c / kChunks, col = c % kChunks * 8;
      bool valid = row0 + r < rows;
      copy16(at(r, col), base + (valid ? (row0 + r) * stride + col : 0), valid);
    }
  }
};

template <class Problem>
__global__ void __launch_bounds__(kWarps * 32) kernel(const typename Problem::Element *__restrict__ q,
                                                      const typename Problem::Element *__restrict__ k,
                                                      const typename Problem::Element *__restrict__ v,
                                                      typename Problem::Element *__restrict__ out,
                                                      float *__restrict__ lse,
                                                      const typename Problem::Length *__restrict__ lens) {
  using T = typename Problem::Element;
  constexpr int D = Problem::D;
  constexpr int kTilesD = D / 8, kStepsD = D / 16, kTilesN = kBlockN / 8, kStepsN = kBlockN / 16;
  __shared__ __align__(128) Tile<T, D> sq, sk, sv;

  // Heavy query blocks (the last ones of a causal mask) start first.
  const int qBlock = gridDim.x - 1 - blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  const int g = h / (Problem::Hq / Problem::Hkv);
  const int q0 = qBlock * kBlockM, q1 = min(q0 + kBlockM, Problem::Sq);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int quadRow = lane / 4, quadCol = lane % 4;

  const T *qBase = q + Problem::qOffset(b, h);
  const T *kBase = k + Problem::kvOffset(b, g), *vBase = v + Problem::kvOffset(b, g);

  const int len = lens ? static_cast<int>(lens[b]) : Problem::Sk;
  int kLo, kHi;
  Problem::keyRange(len, q0, q1, kLo, kHi);
  kLo = max(kLo, 0) / kBlockN * kBlockN;
  kHi = min(kHi, Problem::Sk);

  sq.load(qBase, Problem::qStride, q0, Problem::Sq);
  if (kLo < kHi)
    sk.load(kBase, Problem::kvStride, kLo, Problem::Sk);
  commit();
  if (kLo < kHi)
    sv.load(vBase, Problem::kvStride, kLo, Problem::Sk);
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
      sk.load(kBase, Problem::kvStride, k0 + kBlockN, Problem::Sk);
    commit();

    // Scale (in log2 units), score edit and mask where the block is not fully visible.
    const int k1 = min(k0 + kBlockN, Problem::Sk);
    const bool full = k1 == k0 + kBlockN && Problem::fullBlock(len, q0, q1, k0, k1);
    for (int n = 0; n < kTilesN; ++n)
      for (int e = 0; e < 4; ++e) {
        int i = q0 + warpRow + quadRow + (e / 2) * 8, j = k0 + n * 8 + quadCol * 2 + e % 2;
        float x = sc[n][e] * Problem::scale;
        if (Problem::hasScore)
          x = Problem::score(x, b, h, i, j);
        if (!full && (j >= Problem::Sk || !Problem::visible(len, i, j)))
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
      sv.load(vBase, Problem::kvStride, k0 + kBlockN, Problem::Sk);
    commit();
  }
  waitPending<0>();

  // Rows' sums across the quad, then O / l (0 for a row that sees nothing) and lse.
  for (int r = 0; r < 2; ++r) {
    rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 1);
    rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 2);
    int i = q0 + warpRow + quadRow + r * 8;
    if (i >= Problem::Sq)
      continue;
    float inv = rowSum[r] > 0.f ? 1.f / rowSum[r] : 0.f;
    T *row = out + Problem::qOffset(b, h) + i * Problem::qStride;
    for (int t = 0; t < kTilesD; ++t) {
      unsigned packed = Mma<T>::pack(o[t][2 * r] * inv, o[t][2 * r + 1] * inv);
      *reinterpret_cast<unsigned *>(row + t * 8 + quadCol * 2) = packed;
    }
    if (lse && quadCol == 0)
      lse[(static_cast<long long>(b) * Problem::Hq + h) * Problem::Sq + i] =
          rowSum[r] > 0.f ? (rowMax[r] + log2f(rowSum[r])) * 0.6931471805599453f : -CUDART_INF_F;
  }
}

/// Launches the kernel for `Problem` on `stream` (`lens`: per-sequence lengths, or null).
template <class Problem>
cudaError_t launch(const typename Problem::Element *q, const typename Problem::Element *k,
                   const typename Problem::Element *v, typename Problem::Element *out, float *lse,
                   const typename Problem::Length *lens, cudaStream_t stream) {
  dim3 grid((Problem::Sq + kBlockM - 1) / kBlockM, Problem::Hq, Problem::B);
  kernel<Problem><<<grid, kWarps * 32, 0, stream>>>(q, k, v, out, lse, lens);
  return cudaGetLastError();
}

} // namespace coda::rt::attention

#endif // CODA_RUNTIME_ATTENTION_CUH
