//===- Launch.cuh - CUTLASS GEMMs launched with less host work ----------------===//
//
// A call from an idle GPU waits for the host's launch work, so that work is part of the call's
// time. CUTLASS's own host path repeats two things on every call that one process needs once:
//
//   - GemmUniversalAdapter sets the kernel's shared-memory size and cluster attributes (two
//     cudaFuncSetAttribute). `launchGemm` sets them once per device and kernel, then builds the
//     kernel's parameters and launches it as the adapter does.
//   - Each TMA descriptor looks the driver's cuTensorMapEncodeTiled up again
//     (cudaGetDriverEntryPointByVersion, through CUTLASS_CUDA_DRIVER_WRAPPER_CALL). Here that
//     macro names `coda::rt::driver`'s functions, which look theirs up once. So this header
//     must come before CUTLASS's TMA headers: coda-translate --direct-launch includes it first.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_LAUNCH_CUH
#define CODA_RUNTIME_LAUNCH_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <atomic>

#include "cutlass/cuda_host_adapter.hpp"

namespace coda::rt::driver {

/// The driver's function `name` at CUDA 12.0's signature `Fn`; null if the driver lacks it.
template <class Fn> Fn entryPoint(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(fn);
}

template <class... Args> CUresult cuTensorMapEncodeTiled(Args... args) {
  static const auto fn = entryPoint<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled");
  return fn ? fn(args...) : CUDA_ERROR_NOT_FOUND;
}

template <class... Args> CUresult cuTensorMapEncodeIm2col(Args... args) {
  static const auto fn = entryPoint<PFN_cuTensorMapEncodeIm2col_v12000>("cuTensorMapEncodeIm2col");
  return fn ? fn(args...) : CUDA_ERROR_NOT_FOUND;
}

} // namespace coda::rt::driver

#undef CUTLASS_CUDA_DRIVER_WRAPPER_CALL
#define CUTLASS_CUDA_DRIVER_WRAPPER_CALL(func) coda::rt::driver::func

#include "cute/layout.hpp"
#include "cutlass/device_kernel.h"

namespace coda::rt {

// Both functions are static, each emitted file's own. Two files built into two extensions of one
// process may hold kernels of one name (main_k0_kernel, ...), so one GEMM type by name, whose
// kernels differ. The static in a template of external linkage is a unique symbol that the
// loader shares between them: the second file's kernel was launched without its attributes and
// failed. (An unnamed namespace would not do: nvcc gives it an external name.)

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
  const void *kernel = reinterpret_cast<const void *>(cutlass::device_kernel<Kernel>);
  if (Kernel::SharedStorageSize >= (48 << 10))
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             int(Kernel::SharedStorageSize)))
      return e;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1))
    return e;
  set.fetch_or(bit, std::memory_order_release);
  return cudaSuccess;
}

/// Launches the sm90 GEMM `Gemm` (a GemmUniversalAdapter) on `args` as Gemm::run would: its
/// workspace initialized, its parameters built, the kernel launched on its cluster shape (none
/// for 1×1×1, as CUTLASS), with programmatic dependent launch if `pdl`. The caller checks
/// Gemm::can_implement first.
template <class Gemm>
static cudaError_t launchGemm(typename Gemm::Arguments const &args, void *workspace,
                              cudaStream_t stream, bool pdl = false) {
  using Kernel = typename Gemm::GemmKernel;
  if (Kernel::initialize_workspace(args, workspace, stream) != cutlass::Status::kSuccess)
    return cudaErrorUnknown;
  typename Kernel::Params params = Kernel::to_underlying_arguments(args, workspace);
  if (cudaError_t e = kernelAttributesOnce<Kernel>())
    return e;
  using Cluster = typename Kernel::DispatchPolicy::ClusterShape;
  dim3 cluster(unsigned(cute::size<0>(Cluster{})), unsigned(cute::size<1>(Cluster{})),
               unsigned(cute::size<2>(Cluster{})));
  cudaLaunchAttribute attributes[2];
  unsigned count = 0;
  if (cluster.x * cluster.y * cluster.z > 1) {
    attributes[count].id = cudaLaunchAttributeClusterDimension;
    attributes[count].val.clusterDim.x = cluster.x;
    attributes[count].val.clusterDim.y = cluster.y;
    attributes[count++].val.clusterDim.z = cluster.z;
  }
  if (pdl) {
    attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[count++].val.programmaticStreamSerializationAllowed = 1;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = Kernel::get_grid_shape(params);
  config.blockDim = Kernel::get_block_shape();
  config.dynamicSmemBytes = size_t(Kernel::SharedStorageSize);
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = count;
  void *kernelArgs[] = {&params};
  return cudaLaunchKernelExC(&config, reinterpret_cast<const void *>(cutlass::device_kernel<Kernel>),
                             kernelArgs);
}

} // namespace coda::rt

#endif // CODA_RUNTIME_LAUNCH_CUH
