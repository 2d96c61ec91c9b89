// Host check of coda::rt::HalvesStore's layouts (no GPU needed): every accumulator element of a
// pairwise(rotate, halves P) kernel, found through the CTA tile and epilogue subtile the way the
// node's callbacks find it, lands where the halves go, once; the shared-memory subtile keeps each
// half contiguous, in swizzled rows. Prints "ok" or the first mismatch.
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

template <int TileM, int EpiM, class Element = cutlass::bfloat16_t>
static int check(int M, int N, long long ld) {
  constexpr int P = 128, TileN = P, EpiN = 32;
  using Node = coda::rt::HalvesStore<2, cute::Shape<cute::Int<EpiM>, cute::Int<EpiN>>, Element, P>;
  using namespace cute;
  std::vector<Element> buffer(size_t(M) * ld);
  auto out = Node::viewOf(buffer.data(), M, N, ld);
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
  for (int row = 0; row < M; ++row)
    for (int col = 0; col < N; ++col)
      if (hits[size_t(row) * ld + col] != 1) {
        std::printf("element (%d, %d) written %d times\n", row, col, hits[size_t(row) * ld + col]);
        return 1;
      }
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

int main() {
  // Ping-pong (64-row subtiles) and cooperative (128-row) tiles; ragged M, padded rows; an fp32
  // result (64-byte half rows).
  if (check<128, 64>(256, 512, 512) || check<128, 64>(129, 896, 1024) ||
      check<128, 128>(200, 384, 384) || check<256, 128>(300, 256, 264) ||
      check<128, 64, float>(129, 896, 1024))
    return 1;
  std::printf("ok\n");
  return 0;
}
