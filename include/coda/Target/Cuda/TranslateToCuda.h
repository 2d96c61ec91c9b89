//===- TranslateToCuda.h - coda.gemm as CUTLASS sm90 kernels ----*- C++ -*-===//

#ifndef CODA_TARGET_CUDA_TRANSLATETOCUDA_H
#define CODA_TARGET_CUDA_TRANSLATETOCUDA_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::coda {

struct GpuTarget;

struct CudaEmitterOptions {
  /// Also define a PyTorch extension module (for torch.utils.cpp_extension.load).
  bool torchBinding = false;
  /// A tuning database (bench/tune.py) with measured configurations; empty: the analytic model.
  std::string tuningDb;
  /// The GPU the analytic model ranks configurations for (GpuTargets.def); null: the default.
  const GpuTarget *target = nullptr;
  /// Write a pairwise(rotate, halves) result into its halves from the kernel (TMA stores of
  /// subtiles staged half by half) where the kernel allows it (not accumulated, a head as wide
  /// as some CTA tile, tiles a whole number of heads wide); otherwise, or when false, the pairs
  /// are staged and copied into place.
  bool tmaHalves = true;
  /// Write a pairwise(contract) result (SwiGLU's [M, N/2]) from the kernel by TMA stores of
  /// subtiles staged in shared memory (coda::rt::ContractStore): its rows must be 16-byte
  /// aligned (N a multiple of 16 for 16-bit results). When false, each thread stores its
  /// elements (coda::rt::GlobalStore), for any even N.
  bool tmaContract = true;
  /// Read a 16-bit tiled operand (an [M, P] table such as RoPE's cos and sin) through TMA into
  /// shared memory, pipelined by the epilogue's producer warp (coda::rt::TableLoad), in
  /// ping-pong kernels whose CTA tile is a whole number of periods wide; otherwise, or when
  /// false, each thread loads its elements (coda::rt::GlobalLoad).
  bool tmaTables = true;
  /// A row reduction whose results only the next kernel reads (as row operands) hands them over
  /// a row block at a time while that kernel runs beside it (coda/Runtime/Overlap.cuh).
  bool overlapRows = true;
  /// Persistent kernels run on the fewest CTAs that take as many waves of tiles as one CTA per
  /// SM would (coda::rt::wholeWaves) instead of on every SM.
  bool wholeWaves = true;
  /// Launch each CUTLASS kernel through coda::rt::launchGemm (coda/Runtime/Launch.cuh: kernel
  /// attributes set once, the driver's TMA descriptor entry point looked up once) instead of
  /// through GemmUniversalAdapter's initialize and run, which repeat both on every call. On by
  /// default: it takes 4-9 us of host time off each anchor's call (docs/benchmarks.md).
  bool directLaunch = true;
};

/// Checks that every statically shaped tensor of `module`'s functions has sizes the CUDA
/// kernels and launchers index: no dimension of size 0, none above 2^31 - 1, and at most
/// kMaxCudaElements elements. Emits an error at the first op (or function) that breaks this.
LogicalResult verifyCudaSizes(ModuleOp module);

/// Launches run one thread per element in blocks of 256, on at most 2^31 - 1 blocks.
constexpr int64_t kMaxCudaElements = ((int64_t(1) << 31) - 1) * 256;

/// Writes the CUDA C++ for every coda.gemm of `op` (a module) to `os`. Emits a diagnostic at
/// the offending op and writes nothing when a kernel cannot be emitted.
LogicalResult translateToCuda(Operation *op, llvm::raw_ostream &os,
                              const CudaEmitterOptions &options = {});

/// Registers --coda-to-cuda with mlir-translate's registry.
void registerToCudaTranslation();

} // namespace mlir::coda

#endif // CODA_TARGET_CUDA_TRANSLATETOCUDA_H
