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
//     must come before CUTLASS's TMA headers: coda-translate's direct-launch path includes it first.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_LAUNCH_CUH
#define CODA_RUNTIME_LAUNCH_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

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

#include "coda/Runtime/KernelAttributes.cuh"

namespace coda::rt {

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
  dim3 cluster = clusterShape<Kernel>();
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
  return cudaLaunchKernelExC(&config, kernelEntry<Kernel>(), kernelArgs);
}

} // namespace coda::rt

#endif // CODA_RUNTIME_LAUNCH_CUH
