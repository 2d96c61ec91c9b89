//===- KernelAttributes.cuh - what a CUTLASS kernel needs set before it runs ---===//
//
// The host side of coda's launch path (Launch.cuh): a kernel's entry point, its attributes, set
// once per device, and its cluster shape.
//
// Its functions are static, each emitted file's own. Two files built into two extensions of one
// process may hold kernels of one name (main_k0_kernel, ...), so one GEMM type by name, whose
// kernels differ. The static in a template of external linkage is a unique symbol that the
// loader shares between them: the second file's kernel was launched without its attributes and
// failed. (An unnamed namespace would not do: nvcc gives it an external name.)
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_KERNELATTRIBUTES_CUH
#define CODA_RUNTIME_KERNELATTRIBUTES_CUH

#include <cuda_runtime.h>

#include <atomic>

#include "cute/layout.hpp"
#include "cutlass/device_kernel.h"

namespace coda::rt {

/// The entry point of `Kernel` (CUTLASS's device_kernel), as the runtime API's calls take it.
template <class Kernel> static const void *kernelEntry() {
  return reinterpret_cast<const void *>(cutlass::device_kernel<Kernel>);
}

/// The attributes `Kernel` needs before its first launch on the current device: its dynamic
/// shared memory (above the default 48 KiB) and cluster shapes beyond the portable ones. Set
/// once per device (for the first 64 devices; above, on every call).
template <class Kernel> static cudaError_t kernelAttributesOnce() {
  static std::atomic<unsigned long long> set{0};
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device))
    return e;
  unsigned long long bit = device < 64 ? 1ULL << device : 0;
  if (set.load(std::memory_order_acquire) & bit)
    return cudaSuccess;
  const void *kernel = kernelEntry<Kernel>();
  if (Kernel::SharedStorageSize >= (48 << 10))
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             int(Kernel::SharedStorageSize)))
      return e;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1))
    return e;
  set.fetch_or(bit, std::memory_order_release);
  return cudaSuccess;
}

/// `Kernel`'s cluster shape.
template <class Kernel> static dim3 clusterShape() {
  using Cluster = typename Kernel::DispatchPolicy::ClusterShape;
  return dim3(unsigned(cute::size<0>(Cluster{})), unsigned(cute::size<1>(Cluster{})),
              unsigned(cute::size<2>(Cluster{})));
}

} // namespace coda::rt

#endif // CODA_RUNTIME_KERNELATTRIBUTES_CUH
