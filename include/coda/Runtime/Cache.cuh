//===- Cache.cuh - where a KV cache keeps a sequence's rows ---------------===//
//
// A KV cache holds, per sequence b and head h, C rows of D elements: [B, C, H, D] (token-major,
// "bshd") or [B, H, C, D] (head-major). A paged cache is a pool of pages of `page` rows
// ([N, page, H, D] or [N, H, page, D]) and a table [B, C / page] naming the page that holds
// rows [i·page, (i+1)·page) of each sequence. coda.append's kernel and the GEMM epilogue that
// stores K and V rows into a cache both place a row through rowOffset.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_CACHE_CUH
#define CODA_RUNTIME_CACHE_CUH

namespace coda::rt::cache {

/// The offset (in elements) of row p of sequence b and head h, or -1 when p lies outside the
/// capacity C (a row past the end is dropped, as coda.append defines). `table` is null for a
/// contiguous cache.
template <bool HeadMajor>
__host__ __device__ __forceinline__ long long rowOffset(long long b, int h, long long p, int H,
                                                       int C, int D, const int *table,
                                                       int page) {
  if (p < 0 || p >= C)
    return -1;
  long long block = b;
  long long span = C;
  if (table) {
    block = table[b * (C / page) + p / page];
    p %= page;
    span = page;
  }
  return HeadMajor ? ((block * H + h) * span + p) * D : ((block * span + p) * H + h) * D;
}

} // namespace coda::rt::cache

#endif // CODA_RUNTIME_CACHE_CUH
