// Host check of the layouts of coda::rt::StagedStore's placements (no GPU needed), for a
// HalvesStore and a ContractStore: every accumulator element of a pairwise(rotate, halves P)
// kernel, found through the CTA tile and epilogue subtile the way the node's callbacks find
// them, lands where the halves go, once; the shared-memory subtile keeps each half contiguous,
// in swizzled rows. Every column pair of a pairwise(contract) kernel lands on its element of the
// [M, N/2] result, once, and both columns of a pair on one element of the staged subtile, whose
// rows are swizzled. Prints "ok" or the first mismatch.
// The headers an emitted file includes before coda's runtime.
#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp"
#include "coda/Runtime/Epilogue.cuh"

#include <cstdio>
#include <type_traits>
#include <vector>

// Every element of an [M, cols] result (leading dimension ld) was written exactly once.
static int writtenOnce(std::vector<int> const &hits, int M, int cols, long long ld, const char *what) {
  for (int row = 0; row < M; ++row)
    for (int col = 0; col < cols; ++col)
      if (hits[size_t(row) * ld + col] != 1) {
        std::printf("%s element (%d, %d) written %d times\n", what, row, col, hits[size_t(row) * ld + col]);
        return 1;
      }
  return 0;
}

template <int TileM, int EpiM, class Element = cutlass::bfloat16_t>
static int checkHalves(int M, int N, long long ld) {
  constexpr int P = 128, TileN = P, EpiN = 32;
  using Node = coda::rt::HalvesStore<2, cute::Shape<cute::Int<EpiM>, cute::Int<EpiN>>, Element, P>;
  using namespace cute;
  std::vector<Element> buffer(size_t(M) * ld);
  auto out = Node::viewOf(buffer.data(), M, N, ld);
  static_assert(std::is_same_v<typename Node::SmemLayout, typename Node::SmemLayoutTmaStaged>);
  std::vector<int> hits(buffer.size(), 0);
  for (int tm = 0; tm < (M + TileM - 1) / TileM; ++tm)
    for (int tn = 0; tn < N / TileN; ++tn) {
      auto tile = local_tile(out, make_shape(Int<TileM>{}, Int<TileN>{}), make_coord(tm, tn, 0));
      auto subtiles = flat_divide(tile, make_shape(Int<EpiM>{}, Int<EpiN>{}));
      for (int em = 0; em < TileM / EpiM; ++em)
        for (int en = 0; en < TileN / EpiN; ++en)
          for (int i = 0; i < EpiM; ++i)
            for (int j = 0; j < EpiN; ++j) {
              int row = tm * TileM + em * EpiM + i, col = tn * TileN + en * EpiN + j;
              if (row >= M)
                continue;
              long long got = &subtiles(i, j, em, en) - buffer.data();
              int c = col % P, q = c / 2, s = c % 2;
              long long want = row * ld + col / P * P + s * (P / 2) + q;
              if (got != want) {
                std::printf("tile (%d, %d) subtile (%d, %d) element (%d, %d): offset %lld, want %lld\n",
                            tm, tn, em, en, i, j, got, want);
                return 1;
              }
              ++hits[want];
            }
    }
  if (writtenOnce(hits, M, N, ld, "halves"))
    return 1;
  // The subtile in shared memory: column 2q' + s at s * EpiN/2 + q' of row i, each half a row
  // swizzled by the TMA swizzle as wide as it (32 bytes of bf16, 64 of fp32).
  using RowSwizzle = std::conditional_t<sizeof(Element) == 2, Swizzle<1, 4, 3>, Swizzle<2, 4, 3>>;
  static_assert(std::is_same_v<decltype(get_swizzle_portion(typename Node::SmemLayoutTma{})),
                               RowSwizzle>);
  auto smem = get_nonswizzle_portion(typename Node::SmemLayoutTma{});
  for (int i = 0; i < EpiM; ++i)
    for (int j = 0; j < EpiN; ++j)
      if (smem(i, j) != i * EpiN + j % 2 * (EpiN / 2) + j / 2) {
        std::printf("shared memory (%d, %d): offset %d\n", i, j, int(smem(i, j)));
        return 1;
      }
  return 0;
}

// The contracted result [M, N/2] with leading dimension ld.
template <int TileM, int TileN, int EpiM, class Element = cutlass::bfloat16_t>
static int checkContract(int M, int N, long long ld) {
  constexpr int EpiN = 32;
  using Node = coda::rt::ContractStore<2, cute::Shape<cute::Int<EpiM>, cute::Int<EpiN>>, Element>;
  using namespace cute;
  std::vector<Element> buffer(size_t(M) * ld);
  auto out = Node::viewOf(buffer.data(), M, N, ld);
  std::vector<int> hits(buffer.size(), 0);
  auto tileShape = Node::tileOf(make_shape(Int<TileM>{}, Int<TileN>{}));
  auto subtileShape = Node::tileOf(make_shape(Int<EpiM>{}, Int<EpiN>{}));
  for (int tm = 0; tm < (M + TileM - 1) / TileM; ++tm)
    for (int tn = 0; tn < (N + TileN - 1) / TileN; ++tn) {
      auto tile = local_tile(out, tileShape, make_coord(tm, tn, 0));
      auto subtiles = flat_divide(tile, subtileShape);
      for (int em = 0; em < TileM / EpiM; ++em)
        for (int en = 0; en < TileN / EpiN; ++en)
          for (int i = 0; i < EpiM; ++i)
            for (int j = 0; j < EpiN; j += 2) {
              int row = tm * TileM + em * EpiM + i, col = tn * TileN + en * EpiN + j;
              if (row >= M || col >= N)
                continue;
              long long got = &subtiles(i, j / 2, em, en) - buffer.data();
              long long want = row * ld + col / 2;
              if (got != want) {
                std::printf("contract tile (%d, %d) subtile (%d, %d) element (%d, %d): offset %lld, want %lld\n",
                            tm, tn, em, en, i, j, got, want);
                return 1;
              }
              ++hits[want];
            }
    }
  if (writtenOnce(hits, M, N / 2, ld, "contract"))
    return 1;
  // Shared memory: rows of EpiN/2 elements swizzled by the TMA swizzle as wide as a row (32
  // bytes of bf16, 64 of fp32); the threads' column pair (2q, 2q + 1) of row i, stage p, writes
  // element (i, q) of stage p as TMA reads it.
  using RowSwizzle = std::conditional_t<sizeof(Element) == 2, Swizzle<1, 4, 3>, Swizzle<2, 4, 3>>;
  static_assert(std::is_same_v<decltype(get_swizzle_portion(typename Node::SmemLayoutTma{})),
                               RowSwizzle>);
  auto rows = get_nonswizzle_portion(typename Node::SmemLayoutTma{});
  typename Node::SmemLayout threads;
  typename Node::SmemLayoutTmaStaged staged;
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < EpiM; ++i)
      for (int j = 0; j < EpiN; ++j) {
        if (p == 0 && j % 2 == 0 && rows(i, j / 2) != i * (EpiN / 2) + j / 2) {
          std::printf("contract shared memory (%d, %d): offset %d\n", i, j / 2, int(rows(i, j / 2)));
          return 1;
        }
        if (threads(i, j, p) != staged(i, j / 2, p)) {
          std::printf("contract stage %d element (%d, %d): offset %d, TMA reads %d\n", p, i, j,
                      int(threads(i, j, p)), int(staged(i, j / 2, p)));
          return 1;
        }
      }
  return 0;
}

int main() {
  // Ping-pong (64-row subtiles) and cooperative (128-row) tiles; ragged M and N, padded rows;
  // an fp32 result (64-byte half rows).
  if (checkHalves<128, 64>(256, 512, 512) || checkHalves<128, 64>(129, 896, 1024) ||
      checkHalves<128, 128>(200, 384, 384) || checkHalves<256, 128>(300, 256, 264) ||
      checkHalves<128, 64, float>(129, 896, 1024))
    return 1;
  if (checkContract<128, 128, 64>(256, 512, 256) || checkContract<128, 256, 128>(129, 1008, 504) ||
      checkContract<128, 128, 64>(300, 400, 208) || checkContract<128, 256, 128, float>(129, 1008, 512))
    return 1;
  std::printf("ok\n");
  return 0;
}
