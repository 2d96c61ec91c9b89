//===- Decode.cuh - coda.attention over a KV cache, and coda.append -------===//
//
// Decoding attends a few query rows per sequence (one, or a speculative step's few) to a KV
// cache of which sequence b holds len[b] rows. The step is memory-bound: the kernel reads each
// KV head's K and V once for its whole GQA group, keeps scores in registers, and launches
// enough CTAs to keep HBM busy at batch 1.
//
// - decodeKernel: a CTA takes 16 packed rows of one (sequence, KV head) — query i of head
//   g·rep + e is row i·rep + e — and one split of the sequence's keys. cp.async streams 64-key
//   tiles of K and V through a ring of stages; each of the four warps takes 16 keys of every
//   tile (mma.sync products, online softmax in registers, P kept in registers), and the
//   warps' softmax states merge through shared memory at the end.
// - Split-KV: Plan::splits picks how many CTAs share a sequence's keys from the problem's
//   shape and the SM count alone (never from the lengths), so one launch configuration serves
//   every step and CUDA graphs can capture it. With several splits each CTA writes its
//   normalized partial output and log-sum-exp to the workspace and mergeKernel, launched as a
//   programmatic dependent of the decode kernel, combines them by LSE.
// - appendKernel writes a step's new K or V rows at row pos[b] of each sequence: O(Sn·d) per
//   head, in place.
// - Paged caches (pools of pages and a page table per sequence, as vLLM and FlashInfer keep
//   them): the kernels find each row through Problem::kvAt and the table, a 64-key tile
//   spanning as many pages as it needs.
//
// The generated `Problem` is that of Attention.cuh with `len` the sequence's cache length:
// its mask functions place query i at position len - Sq + i.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_DECODE_CUH
#define CODA_RUNTIME_DECODE_CUH

#include "coda/Runtime/Attention.cuh"

namespace coda::rt::attention::decode {

constexpr int kRows = 16, kKeys = 64, kThreads = kWarps * 32;
constexpr float kLog2e = 1.4426950408889634f, kLn2 = 0.6931471805599453f;

/// The launch shape of `Problem`: its row blocks, pipeline stages, shared memory, and the
/// split of each sequence's keys.
template <class Problem> struct Plan {
  static constexpr int rep = Problem::Hq / Problem::Hkv, rows = Problem::Sq * rep;
  static constexpr int blocks = (rows + kRows - 1) / kRows; // row blocks per KV head
  static constexpr int stages = Problem::D <= 64 ? 4 : 3;
  static constexpr int smem = stages * 2 * kKeys * Problem::D * 2; // K and V tiles
  // Every split keeps at least two tiles, so that its loads overlap; the merge's first warp
  // holds the LSEs of at most kMaxSplits in registers.
  static constexpr int kMaxSplits = 256;
  static constexpr int kSplitsBySize = (Problem::Sk + 2 * kKeys - 1) / (2 * kKeys);
  static constexpr int maxSplits = kSplitsBySize < kMaxSplits ? kSplitsBySize : kMaxSplits;
  /// As many CTAs as fit on the GPU at once (its SMs times what each SM's shared memory
  /// holds), rounded down: one full wave, no tail of a few CTAs after it.
  static int splits(int sms) {
    int perSm = max(1, (227 * 1024) / (smem + kRows * Problem::D * 2 + 1024));
    int ctas = Problem::B * Problem::Hkv * blocks;
    return max(1, min(perSm * sms / ctas, maxSplits));
  }
  /// Partial outputs [B, Hkv, blocks, splits, 16, D] and their LSEs (fp32).
  static size_t workspace(int splits) {
    if (splits == 1)
      return 0;
    size_t slots = static_cast<size_t>(Problem::B) * Problem::Hkv * blocks * splits * kRows;
    return slots * (Problem::D + 1) * sizeof(float);
  }
};

/// Keys [j0, j0 + 64) of (sequence b, KV head g) into `tile` (rows at or past jEnd: zeros),
/// each row where Problem::kvAt puts it (a paged cache: on its page).
template <class Problem, class KV>
__device__ __forceinline__ void loadKeys(KV &tile, const typename Problem::Element *cache, int b,
                                         int g, int j0, int jEnd, const int *table) {
  for (int c = threadIdx.x; c < kKeys * KV::kChunks; c += kThreads) {
    int r = c / KV::kChunks, col = c % KV::kChunks * 8, j = j0 + r;
    bool valid = j < jEnd;
    copy16(tile.at(r, col), cache + (valid ? Problem::kvAt(b, g, j, table) + col : 0), valid);
  }
}

template <class Problem>
__global__ void __launch_bounds__(kThreads)
    decodeKernel(const typename Problem::Element *__restrict__ q,
                 const typename Problem::Element *__restrict__ k,
                 const typename Problem::Element *__restrict__ v,
                 typename Problem::Element *__restrict__ out, float *__restrict__ lse,
                 const typename Problem::Length *__restrict__ lens,
                 const int *__restrict__ table, int splits, float *__restrict__ partial,
                 float *__restrict__ partialLse) {
  using T = typename Problem::Element;
  using P = Plan<Problem>;
  using KV = Tile<T, Problem::D, kKeys>;
  constexpr int D = Problem::D, rep = P::rep, kTilesD = D / 8, kStepsD = D / 16;
  extern __shared__ __align__(128) unsigned char smem[];
  KV *sk = reinterpret_cast<KV *>(smem), *sv = sk + P::stages;
  __shared__ __align__(128) Tile<T, D, kRows> sq;
  __shared__ float state[kWarps][kRows][2]; // each warp's row maximum and sum

  const int split = blockIdx.x, g = blockIdx.y / P::blocks, block = blockIdx.y % P::blocks,
            b = blockIdx.z;
  const int r0 = block * kRows, r1 = min(r0 + kRows, P::rows);
  const int q0 = r0 / rep, q1 = (r1 - 1) / rep + 1;
  const int len = static_cast<int>(lens[b]);
  int kLo, kHi;
  Problem::keyRange(len, q0, q1, kLo, kHi);
  kLo = max(kLo, 0);
  kHi = min(kHi, Problem::Sk);
  // This split's share of the keys, in whole tiles.
  const int per = ((max(kHi - kLo, 0) + splits - 1) / splits + kKeys - 1) / kKeys * kKeys;
  const int kBegin = kLo + split * per, kEnd = min(kBegin + per, kHi);
  const int tiles = kBegin < kEnd ? (kEnd - kBegin + kKeys - 1) / kKeys : 0;

  // The block's rows, gathered from the group's heads.
  for (int c = threadIdx.x; c < kRows * (D / 8); c += kThreads) {
    int r = c / (D / 8), col = c % (D / 8) * 8, row = r0 + r;
    bool valid = row < r1;
    copy16(sq.at(r, col),
           q + (valid ? Problem::qOffset(b, g * rep + row % rep) +
                            static_cast<long long>(row / rep) * Problem::qStride + col
                      : 0),
           valid);
  }
  commit();
  for (int t = 0; t < P::stages - 1; ++t) {
    if (t < tiles) {
      loadKeys<Problem>(sk[t], k, b, g, kBegin + t * kKeys, kEnd, table);
      loadKeys<Problem>(sv[t], v, b, g, kBegin + t * kKeys, kEnd, table);
    }
    commit();
  }

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, quadRow = lane / 4,
            quadCol = lane % 4;
  // Each thread holds rows quadRow and quadRow + 8 of the block, over its warp's keys.
  float o[kTilesD][4] = {};
  float rowMax[2] = {-CUDART_INF_F, -CUDART_INF_F}, rowSum[2] = {0.f, 0.f};
  unsigned qFrag[kStepsD][4];
  for (int t = 0; t < tiles; ++t) {
    waitPending<P::stages - 2>();
    __syncthreads(); // tile t has landed; every warp is done with tile t - 1
    if (t == 0)
      for (int s = 0; s < kStepsD; ++s)
        ldmatrix4(qFrag[s], sq.at(lane % 16, s * 16 + lane / 16 * 8));
    if (int next = t + P::stages - 1; next < tiles) {
      loadKeys<Problem>(sk[next % P::stages], k, b, g, kBegin + next * kKeys, kEnd, table);
      loadKeys<Problem>(sv[next % P::stages], v, b, g, kBegin + next * kKeys, kEnd, table);
    }
    commit();
    KV &ks = sk[t % P::stages], &vs = sv[t % P::stages];
    const int k0 = kBegin + t * kKeys + warp * 16; // this warp's keys [k0, k0 + 16)
    if (k0 >= kEnd)
      continue;

    // S = Q Kᵀ for the block's 16 rows and the warp's 16 keys.
    float sc[2][4] = {};
#pragma unroll
    for (int s = 0; s < kStepsD; ++s) {
      unsigned kf[4];
      ldmatrix4(kf, ks.at(warp * 16 + lane % 8 + lane / 16 * 8, s * 16 + (lane / 8) % 2 * 8));
      Mma<T>::run(sc[0], qFrag[s], kf[0], kf[1]);
      Mma<T>::run(sc[1], qFrag[s], kf[2], kf[3]);
    }
    // Scale (in log2 units), score edit, and the mask where the keys are not all visible.
    const bool full = k0 + 16 <= kEnd && Problem::fullBlock(len, q0, q1, k0, k0 + 16);
#pragma unroll
    for (int n = 0; n < 2; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        int row = r0 + quadRow + (e / 2) * 8, i = row / rep, h = g * rep + row % rep;
        int j = k0 + n * 8 + quadCol * 2 + e % 2;
        float x = sc[n][e] * Problem::scale;
        if (Problem::hasScore)
          x = Problem::score(x, b, h, i, j);
        if (!full && (j >= kEnd || !Problem::visible(len, i, j)))
          x = -CUDART_INF_F;
        sc[n][e] = x * kLog2e;
      }
    // Online softmax over the warp's keys.
    float rescale[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float m = fmaxf(rowMax[r], fmaxf(fmaxf(sc[0][2 * r], sc[0][2 * r + 1]),
                                       fmaxf(sc[1][2 * r], sc[1][2 * r + 1])));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
      float base = m == -CUDART_INF_F ? 0.f : m;
      rescale[r] = exp2f(rowMax[r] - base);
      rowMax[r] = m;
      float sum = 0.f;
#pragma unroll
      for (int n = 0; n < 2; ++n) {
        sc[n][2 * r] = exp2f(sc[n][2 * r] - base);
        sc[n][2 * r + 1] = exp2f(sc[n][2 * r + 1] - base);
        sum += sc[n][2 * r] + sc[n][2 * r + 1];
      }
      rowSum[r] = rowSum[r] * rescale[r] + sum;
    }
    // O += P V: the two 8-key score tiles are the A operand of one 16-key step.
    unsigned p[4] = {Mma<T>::pack(sc[0][0], sc[0][1]), Mma<T>::pack(sc[0][2], sc[0][3]),
                     Mma<T>::pack(sc[1][0], sc[1][1]), Mma<T>::pack(sc[1][2], sc[1][3])};
#pragma unroll
    for (int t2 = 0; t2 < kTilesD; t2 += 2) {
      o[t2][0] *= rescale[0];
      o[t2][1] *= rescale[0];
      o[t2][2] *= rescale[1];
      o[t2][3] *= rescale[1];
      o[t2 + 1][0] *= rescale[0];
      o[t2 + 1][1] *= rescale[0];
      o[t2 + 1][2] *= rescale[1];
      o[t2 + 1][3] *= rescale[1];
      unsigned vf[4];
      ldmatrix4Trans(vf, vs.at(warp * 16 + lane % 8 + (lane / 8) % 2 * 8, t2 * 8 + lane / 16 * 8));
      Mma<T>::run(o[t2], p, vf[0], vf[1]);
      Mma<T>::run(o[t2 + 1], p, vf[2], vf[3]);
    }
  }
  waitPending<0>();
  __syncthreads(); // the stages are free: they hold the warps' outputs now
  // Let the merge kernel start its launch while this grid finishes.
  asm volatile("griddepcontrol.launch_dependents;\n" ::);

  float(*part)[kRows][D] = reinterpret_cast<float(*)[kRows][D]>(smem);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 1);
    rowSum[r] += __shfl_xor_sync(0xffffffffu, rowSum[r], 2);
    const int row = quadRow + r * 8;
    if (quadCol == 0) {
      state[warp][row][0] = rowMax[r];
      state[warp][row][1] = rowSum[r];
    }
#pragma unroll
    for (int t = 0; t < kTilesD; ++t) {
      part[warp][row][t * 8 + quadCol * 2] = o[t][2 * r];
      part[warp][row][t * 8 + quadCol * 2 + 1] = o[t][2 * r + 1];
    }
  }
  __syncthreads();

  // The warps' states merged: each thread a (row, column) at a time, over the block's rows
  // alone (a GQA group of 4 fills 4 of the 16).
  const long long slot =
      ((static_cast<long long>(b) * Problem::Hkv + g) * P::blocks + block) * splits + split;
  for (int e = threadIdx.x; e < (r1 - r0) * D; e += kThreads) {
    const int row = e / D, col = e % D;
    float m = -CUDART_INF_F;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
      m = fmaxf(m, state[w][row][0]);
    float l = 0.f, acc = 0.f;
    if (m != -CUDART_INF_F)
#pragma unroll
      for (int w = 0; w < kWarps; ++w) {
        float f = exp2f(state[w][row][0] - m);
        l += state[w][row][1] * f;
        acc += part[w][row][col] * f;
      }
    const float value = l > 0.f ? acc / l : 0.f, rowLse = l > 0.f ? m + log2f(l) : -CUDART_INF_F;
    if (splits > 1) {
      partial[(slot * kRows + row) * D + col] = value;
      if (col == 0)
        partialLse[slot * kRows + row] = rowLse;
      continue;
    }
    const int i = (r0 + row) / rep, h = g * rep + (r0 + row) % rep;
    out[Problem::outOffset(b, h) + static_cast<long long>(i) * Problem::outStride + col] =
        fromFloat<T>(value);
    if (lse && col == 0)
      lse[(static_cast<long long>(b) * Problem::Hq + h) * Problem::Sq + i] = rowLse * kLn2;
  }
}

/// The merge's thread layout: a thread holds four columns of the row (one 16-byte load per
/// split), and the CTA's `groups` column groups take every `groups`-th split, so that each
/// thread's loads of a batch are independent and in flight together.
template <class Problem> struct Merge {
  static constexpr int columns = Problem::D / 4, kBatch = 8;
  static constexpr int groups = columns >= 128 ? 1 : 128 / columns;
  static constexpr int threads = groups * columns;
  static_assert(Problem::D % 4 == 0, "the merge reads four columns a thread");
};

/// Combines the splits of one query row (a CTA) by their LSEs. The partials were written by
/// the decode kernel just before, so every load is an L2 hit: the merge is a few round trips,
/// the LSE statistics (warp 0) overlapping the first batch of partial loads.
template <class Problem>
__global__ void __launch_bounds__(Merge<Problem>::threads)
    mergeKernel(typename Problem::Element *__restrict__ out, float *__restrict__ lse, int splits,
                const float *__restrict__ partial, const float *__restrict__ partialLse) {
  using P = Plan<Problem>;
  using M = Merge<Problem>;
  constexpr int D = Problem::D, rep = P::rep;
  __shared__ float total[2];                     // the largest LSE and the sum of the weights
  __shared__ float4 sums[M::groups][M::columns]; // each group's weighted sum
  asm volatile("griddepcontrol.wait;\n" ::: "memory"); // the decode kernel's partials
  const int i = blockIdx.x % Problem::Sq, h = blockIdx.x / Problem::Sq % Problem::Hq,
            b = blockIdx.x / (Problem::Sq * Problem::Hq), g = h / rep;
  const int row = i * rep + h % rep, block = row / kRows;
  const long long first =
      ((static_cast<long long>(b) * Problem::Hkv + g) * P::blocks + block) * splits;
  const float *rowLse = partialLse + first * kRows + row % kRows;
  const float4 *rowPartial =
      reinterpret_cast<const float4 *>(partial + (first * kRows + row % kRows) * D);
  const int group = threadIdx.x / M::columns, column = threadIdx.x % M::columns;

  if (threadIdx.x < 32) {
    float mine[P::kMaxSplits / 32];
    float m = -CUDART_INF_F, l = 0.f;
#pragma unroll
    for (int u = 0; u < P::kMaxSplits / 32; ++u) {
      const int s = threadIdx.x + 32 * u;
      mine[u] = s < splits ? rowLse[static_cast<long long>(s) * kRows] : -CUDART_INF_F;
      m = fmaxf(m, mine[u]);
    }
    for (int o = 16; o > 0; o /= 2)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
#pragma unroll
    for (int u = 0; u < P::kMaxSplits / 32; ++u)
      l += m == -CUDART_INF_F ? 0.f : exp2f(mine[u] - m);
    for (int o = 16; o > 0; o /= 2)
      l += __shfl_xor_sync(0xffffffffu, l, o);
    if (threadIdx.x == 0) {
      total[0] = m;
      total[1] = l;
    }
  }
  float4 acc = {0.f, 0.f, 0.f, 0.f};
  float m = 0.f, l = 0.f;
  for (int s0 = 0; s0 < splits; s0 += M::groups * M::kBatch) {
    float4 value[M::kBatch];
    float weight[M::kBatch];
#pragma unroll
    for (int u = 0; u < M::kBatch; ++u) {
      const int s = s0 + u * M::groups + group;
      const bool in = s < splits;
      value[u] = in ? rowPartial[static_cast<long long>(s) * kRows * D / 4 + column]
                    : float4{0.f, 0.f, 0.f, 0.f};
      weight[u] = in ? rowLse[static_cast<long long>(s) * kRows] : -CUDART_INF_F;
    }
    if (s0 == 0) { // every thread takes this batch: the statistics are ready after it
      __syncthreads();
      m = total[0];
      l = total[1];
    }
    if (m == -CUDART_INF_F)
      break;
#pragma unroll
    for (int u = 0; u < M::kBatch; ++u) {
      const float w = exp2f(weight[u] - m) / l;
      acc.x += w * value[u].x;
      acc.y += w * value[u].y;
      acc.z += w * value[u].z;
      acc.w += w * value[u].w;
    }
  }
  sums[group][column] = acc;
  __syncthreads();
  if (group != 0)
    return;
  for (int other = 1; other < M::groups; ++other) {
    const float4 x = sums[other][column];
    acc.x += x.x;
    acc.y += x.y;
    acc.z += x.z;
    acc.w += x.w;
  }
  using T = typename Problem::Element;
  T *at = out + Problem::outOffset(b, h) + static_cast<long long>(i) * Problem::outStride +
          column * 4;
  const bool seen = l > 0.f && m != -CUDART_INF_F;
  at[0] = fromFloat<T>(seen ? acc.x : 0.f);
  at[1] = fromFloat<T>(seen ? acc.y : 0.f);
  at[2] = fromFloat<T>(seen ? acc.z : 0.f);
  at[3] = fromFloat<T>(seen ? acc.w : 0.f);
  if (lse && threadIdx.x == 0)
    lse[(static_cast<long long>(b) * Problem::Hq + h) * Problem::Sq + i] =
        seen ? (m + log2f(l)) * kLn2 : -CUDART_INF_F;
}

inline int multiprocessors() {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return 1;
  return sms;
}

/// Bytes of workspace the launch of `Problem` needs (its split partials).
template <class Problem> size_t workspaceSize() {
  return Plan<Problem>::workspace(Plan<Problem>::splits(multiprocessors()));
}

/// Launches decode attention for `Problem` on `stream`; `lens` holds each sequence's cache
/// length, `table` a paged cache's page table (null otherwise), `workspace`
/// workspaceSize<Problem>() bytes.
template <class Problem>
cudaError_t launch(const typename Problem::Element *q, const typename Problem::Element *k,
                   const typename Problem::Element *v, typename Problem::Element *out, float *lse,
                   const typename Problem::Length *lens, const int *table, void *workspace,
                   cudaStream_t stream) {
  using P = Plan<Problem>;
  const int splits = P::splits(multiprocessors());
  float *partial = static_cast<float *>(workspace);
  float *partialLse = partial + static_cast<size_t>(Problem::B) * Problem::Hkv * P::blocks *
                                    splits * kRows * Problem::D;
  cudaError_t error = cudaFuncSetAttribute(decodeKernel<Problem>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, P::smem);
  if (error != cudaSuccess)
    return error;
  dim3 grid(splits, Problem::Hkv * P::blocks, Problem::B);
  decodeKernel<Problem><<<grid, kThreads, P::smem, stream>>>(q, k, v, out, lse, lens, table,
                                                             splits, partial, partialLse);
  error = cudaGetLastError();
  if (splits == 1 || error != cudaSuccess)
    return error;
  // The merge launches while the decode kernel drains and waits for its partials.
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(Problem::B * Problem::Hq * Problem::Sq);
  config.blockDim = dim3(Merge<Problem>::threads);
  config.stream = stream;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, mergeKernel<Problem>, out, lse, splits,
                            static_cast<const float *>(partial),
                            static_cast<const float *>(partialLse));
}

/// Writes rows [B, H, Sn, D] (or [B, Sn, H, D] when not head-major) into a cache of capacity
/// C at row pos[b] + t, W elements (16 bytes) a thread; rows past the capacity are dropped.
/// With a page table ([B, C / page]) the cache is a pool of pages ([N, H, page, D] or
/// [N, page, H, D]) and row p of sequence b is row p mod page of page table[b, p / page].
template <class T, class Pos, int W, bool HeadMajor>
__global__ void appendKernel(const T *__restrict__ rows, T *__restrict__ cache,
                             const Pos *__restrict__ pos, int posStride,
                             const int *__restrict__ table, int page, int B, int H, int Sn, int C,
                             int D) {
  using Chunk = std::conditional_t<W == 1, T, uint4>;
  const int chunks = D / W;
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= static_cast<long long>(B) * H * Sn * chunks)
    return;
  const int c = e % chunks;
  long long rest = e / chunks;
  int b, h, t;
  if constexpr (HeadMajor) {
    t = rest % Sn;
    h = rest / Sn % H;
    b = rest / Sn / H;
  } else {
    h = rest % H;
    t = rest / H % Sn;
    b = rest / H / Sn;
  }
  long long p = static_cast<long long>(pos[b * posStride]) + t;
  if (p < 0 || p >= C)
    return;
  // The sequence's own rows, or the page holding row p.
  long long block = b;
  int span = C;
  if (table) {
    block = table[static_cast<long long>(b) * (C / page) + p / page];
    p %= page;
    span = page;
  }
  const long long at =
      HeadMajor ? ((block * H + h) * span + p) * D : ((block * span + p) * H + h) * D;
  reinterpret_cast<Chunk *>(cache + at)[c] = reinterpret_cast<const Chunk *>(rows)[e];
}

/// Launches appendKernel (W: 16 / sizeof(T) where D and the buffers allow, else 1; posStride
/// 0 where every sequence appends at pos[0]; table null and page unused for a contiguous
/// cache).
template <class T, class Pos, int W, bool HeadMajor>
cudaError_t append(const T *rows, T *cache, const Pos *pos, int posStride, const int *table,
                   int page, int B, int H, int Sn, int C, int D, cudaStream_t stream) {
  long long threads = static_cast<long long>(B) * H * Sn * (D / W);
  appendKernel<T, Pos, W, HeadMajor>
      <<<static_cast<unsigned>((threads + 255) / 256), 256, 0, stream>>>(
          rows, cache, pos, posStride, table, page, B, H, Sn, C, D);
  return cudaGetLastError();
}

} // namespace coda::rt::attention::decode

#endif // CODA_RUNTIME_DECODE_CUH
