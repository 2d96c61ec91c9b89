//===- Passes.h - the CUDA back end's plan passes ---------------*- C++ -*-===//

#ifndef CODA_TARGET_CUDA_TRANSFORMS_PASSES_H
#define CODA_TARGET_CUDA_TRANSFORMS_PASSES_H

#include "coda/Dialect/Coda/IR/CodaDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::coda {

#define GEN_PASS_DECL
#include "coda/Target/Cuda/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "coda/Target/Cuda/Transforms/Passes.h.inc"

struct CodaPlanCudaOptions : public PassPipelineOptions<CodaPlanCudaOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("The GPU the analytic model ranks kernel configurations for: h200 or "
                     "h100-sxm"),
      llvm::cl::init("h200")};
  PassOptions::Option<std::string> tuningDb{
      *this, "tuning-db",
      llvm::cl::desc("A JSON tuning database whose measured configurations replace the "
                     "model's")};
  PassOptions::ListOption<std::string> without{
      *this, "without",
      llvm::cl::desc("Default paths to leave out, for A/B runs: tma-halves, tma-contract, "
                     "tma-tables, overlap-rows, whole-waves")};
  PassOptions::ListOption<int64_t> dispatch{
      *this, "dispatch",
      llvm::cl::desc("Bounds of M at which each kernel's launcher switches configuration")};
  PassOptions::Option<std::string> fp32{
      *this, "fp32",
      llvm::cl::desc("How fp32 inputs are multiplied: tf32 (one TF32 product) or 3xtf32 "
                     "(three, about fp32's accuracy)"),
      llvm::cl::init("tf32")};
};

/// The plan of the CUDA back end, in order: the ops outside kernels as generics, row hand-offs (unless without overlap-rows),
/// kernel configurations, launch schedule, workspace layout. coda-translate --coda-to-cuda runs it first.
void buildCodaPlanCudaPipeline(OpPassManager &pm, const CodaPlanCudaOptions &options);

/// Registers --coda-plan-cuda.
void registerCodaPlanCudaPipeline();

} // namespace mlir::coda

#endif // CODA_TARGET_CUDA_TRANSFORMS_PASSES_H
