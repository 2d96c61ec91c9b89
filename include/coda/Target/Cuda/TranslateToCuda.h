//===- TranslateToCuda.h - coda.gemm as CUTLASS sm90 kernels ----*- C++ -*-===//

#ifndef CODA_TARGET_CUDA_TRANSLATETOCUDA_H
#define CODA_TARGET_CUDA_TRANSLATETOCUDA_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::coda {

struct CudaEmitterOptions {
  /// Also define a PyTorch extension module (for torch.utils.cpp_extension.load).
  bool torchBinding = false;
  /// Launch each CUTLASS kernel through coda::rt::launchGemm (coda/Runtime/Launch.cuh: kernel
  /// attributes set once, the driver's TMA descriptor entry point looked up once) instead of
  /// through GemmUniversalAdapter's initialize and run, which repeat both on every call: 4-9 us
  /// of host time less per call.
  bool directLaunch = true;
  /// For what is not planned yet (--coda-plan-cuda's options): the GPU the analytic model
  /// ranks configurations for, a tuning database, and default paths to leave out.
  std::string target = "h200";
  std::string tuningDb;
  std::vector<std::string> without;
  /// Bounds of M at which each kernel's launcher switches configuration (none: one).
  std::vector<int64_t> dispatch;
  /// How fp32 inputs are multiplied: "tf32" or "3xtf32".
  std::string fp32 = "tf32";
};

/// Checks that every statically shaped tensor of `module`'s functions has sizes the CUDA
/// kernels and launchers index: no dimension of size 0, none above 2^31 - 1, and at most
/// kMaxCudaElements elements. Emits an error at the first op (or function) that breaks this.
LogicalResult verifyCudaSizes(ModuleOp module);

/// Launches run one thread per element in blocks of 256, on at most 2^31 - 1 blocks.
constexpr int64_t kMaxCudaElements = ((int64_t(1) << 31) - 1) * 256;

/// Writes the CUDA C++ for every coda.gemm of `op` (a module) to `os`, after planning what is
/// not planned yet (--coda-plan-cuda). Emits a diagnostic at the offending op and writes
/// nothing when a kernel cannot be emitted.
LogicalResult translateToCuda(Operation *op, llvm::raw_ostream &os,
                              const CudaEmitterOptions &options = {});

/// Registers --coda-to-cuda with mlir-translate's registry.
void registerToCudaTranslation();

} // namespace mlir::coda

#endif // CODA_TARGET_CUDA_TRANSLATETOCUDA_H
