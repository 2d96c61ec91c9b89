//===- Restage.cuh - matrices copied to rows that TMA can address -------------===//
//
// TMA reads and writes rows whose base address and pitch are multiples of 16 bytes; the extents
// themselves may be anything (it fills loads past them with zeros and clips stores). A matrix
// that misses the first condition (K = 129 in bf16, N = 7, a view that starts one element into
// its storage) is copied to a buffer whose rows are re-pitched to 16 bytes, the kernel runs on
// the copy, and results are copied back. The copies are one cudaMemcpy2DAsync each, into
// stream-ordered memory (cudaMallocAsync) that is freed behind the launch, so a launcher keeps
// its workspace contract and stays capturable in a CUDA graph.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_RESTAGE_CUH
#define CODA_RUNTIME_RESTAGE_CUH

#include <cstdint>
#include <cuda_runtime.h>

namespace coda::rt {

/// CUTLASS's can_implement also asks for extents that are multiples of the alignment, which
/// TMA does not need: launchers ask it about the extents rounded up to this.
inline int tmaExtent(int x) {
  long long rounded = (x + 15LL) / 16 * 16;
  return rounded > INT32_MAX ? x : int(rounded);
}

/// Whether TMA can address rows of elements of `bytes` at `ptr` with pitch `ld` elements.
inline bool tmaAddressable(const void *ptr, long long ld, size_t bytes) {
  return reinterpret_cast<uintptr_t>(ptr) % 16 == 0 && (ld * (long long)bytes) % 16 == 0;
}

/// The aligned copies of one launch. Each `input`/`output` call leaves an addressable matrix
/// as it is; `finish` copies the outputs back; the destructor frees the copies on the stream.
class Restaging {
public:
  explicit Restaging(cudaStream_t stream) : stream(stream) {}
  Restaging(const Restaging &) = delete;
  Restaging &operator=(const Restaging &) = delete;
  ~Restaging() {
    for (int i = 0; i < count; ++i)
      cudaFreeAsync(copies[i].copy, stream);
  }

  /// Points `ptr` and `ld` at a copy of `rows` rows of `cols` elements of `bytes` each, made
  /// before the kernel runs, if TMA cannot read them in place.
  cudaError_t input(const void *&ptr, long long &ld, long long rows, long long cols, size_t bytes) {
    if (tmaAddressable(ptr, ld, bytes))
      return cudaSuccess;
    void *copy = nullptr;
    if (cudaError_t e = copyOf(ptr, ld, rows, cols, bytes, copy))
      return e;
    ptr = copy;
    return cudaSuccess;
  }

  /// The same for a result, which goes back in `finish`. A result accumulated into has its init
  /// (same pitch): both are staged in one copy that starts with the init's values, if either
  /// is not addressable, and `*init` points at it as well (the kernel reads C where it writes D).
  cudaError_t output(void *&ptr, long long &ld, long long rows, long long cols, size_t bytes,
                     const void **init = nullptr) {
    if (tmaAddressable(ptr, ld, bytes) && (!init || tmaAddressable(*init, ld, bytes)))
      return cudaSuccess;
    long long from = ld;
    void *copy = nullptr;
    if (cudaError_t e = init ? copyOf(*init, ld, rows, cols, bytes, copy)
                             : allocate(ld, rows, cols, bytes, copy))
      return e;
    copies[count - 1].back = ptr;
    copies[count - 1].backLd = from;
    ptr = copy;
    if (init)
      *init = copy;
    return cudaSuccess;
  }

  /// A rows × cols matrix of `bytes`-byte elements whose rows are padded to 16 bytes, freed
  /// with the launch's other copies; sets `ld` to its pitch.
  cudaError_t allocate(long long &ld, long long rows, long long cols, size_t bytes, void *&copy) {
    if (count == kMaxCopies)
      return cudaErrorInvalidValue;
    long long pitch = (cols * (long long)bytes + 15) / 16 * 16 / (long long)bytes;
    if (cudaError_t e = cudaMallocAsync(&copy, size_t(rows) * pitch * bytes, stream))
      return e;
    copies[count++] = {copy, pitch, rows, cols, bytes, nullptr, 0};
    ld = pitch;
    return cudaSuccess;
  }

  /// Copies the outputs' copies back to the results.
  cudaError_t finish() {
    for (int i = 0; i < count; ++i) {
      const Copy &c = copies[i];
      if (!c.back)
        continue;
      if (cudaError_t e = cudaMemcpy2DAsync(c.back, c.backLd * c.bytes, c.copy, c.ld * c.bytes,
                                            c.cols * c.bytes, c.rows, cudaMemcpyDeviceToDevice,
                                            stream))
        return e;
    }
    return cudaSuccess;
  }

private:
  struct Copy {
    void *copy;
    long long ld, rows, cols;
    size_t bytes;
    void *back;
    long long backLd;
  };
  // A launch stages at most A, B (or their three-TF32 splits), one result (with its init) and
  // one source operand.
  static constexpr int kMaxCopies = 4;

  /// `allocate`, filled from `from` (pitch `ld` before the call).
  cudaError_t copyOf(const void *from, long long &ld, long long rows, long long cols, size_t bytes,
                     void *&copy) {
    long long fromLd = ld;
    if (cudaError_t e = allocate(ld, rows, cols, bytes, copy))
      return e;
    return cudaMemcpy2DAsync(copy, ld * bytes, from, fromLd * bytes, cols * bytes, rows,
                             cudaMemcpyDeviceToDevice, stream);
  }

  cudaStream_t stream;
  Copy copies[kMaxCopies];
  int count = 0;
};

} // namespace coda::rt

#endif // CODA_RUNTIME_RESTAGE_CUH
