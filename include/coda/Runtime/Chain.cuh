//===- Chain.cuh - kernels launched behind the kernel before them --------------===//
//
// Between two dependent kernels on a stream the GPU drains the first grid, flushes its memory
// and only then starts launching the second. With programmatic dependent launch the second
// grid may be launched while the first drains; it waits in `griddepcontrol.wait` until the
// first grid has completed and its memory is visible. coda-translate --chain-launches launches
// coda's own kernels (not the GEMMs) this way.
//
// Correctness rests on one rule: every CTA of a chained kernel waits before it touches global
// memory and before it can exit. Then a chained grid completes only after the grid before it,
// so a kernel that needs the results of one two launches back (waiting only on its direct
// predecessor) still sees them. A kernel launched normally waits for everything before it.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_RUNTIME_CHAIN_CUH
#define CODA_RUNTIME_CHAIN_CUH

#include <cuda_runtime.h>

#include <utility>

namespace coda::rt {

/// Waits until the grid this one was chained behind has completed and its writes are visible.
/// Returns at once in a grid launched without programmatic serialization.
__device__ __forceinline__ void awaitPriorGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Launches `kernel` on `stream` with programmatic dependent launch: it may start before the
/// kernel before it has completed (once that one's CTAs have all exited or executed
/// griddepcontrol.launch_dependents). What it reads of that kernel's work it must wait for:
/// awaitPriorGrid() first thing (--chain-launches), or counters the other kernel publishes
/// (RowPass.cuh).
template <class... Params, class... Args>
inline cudaError_t launchProgrammatic(void (*kernel)(Params...), dim3 grid, dim3 block,
                                      cudaStream_t stream, Args &&...args) {
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

} // namespace coda::rt

#endif // CODA_RUNTIME_CHAIN_CUH
