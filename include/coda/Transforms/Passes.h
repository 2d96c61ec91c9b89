//===- Passes.h - coda transforms -------------------------------*- C++ -*-===//

#ifndef CODA_TRANSFORMS_PASSES_H
#define CODA_TRANSFORMS_PASSES_H

#include "coda/Dialect/Coda/IR/CodaDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::coda {

#define GEN_PASS_DECL
#include "coda/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "coda/Transforms/Passes.h.inc"

/// Options of the --coda-fuse pipeline.
struct CodaFuseOptions : public PassPipelineOptions<CodaFuseOptions> {
  PassOptions::Option<bool> training{
      *this, "training",
      llvm::cl::desc("Keep norm weights on the activations (applied in the producer's "
                     "epilogue, where they get a gradient) instead of folding them into the "
                     "next weights"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> twoPassVariance{
      *this, "two-pass-variance",
      llvm::cl::desc("Keep LayerNorm's centered two-pass variance as written (the statistics "
                     "of a GEMM output then stay a separate step) instead of E[x²] − E[x]² in "
                     "fp32"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fp32Epilogues{
      *this, "fp32-epilogues",
      llvm::cl::desc("Compute the bf16/f16 arithmetic of epilogues in fp32 and round only what "
                     "is stored, as torch.compile does (default; false rounds after every op "
                     "as the program is written)"),
      llvm::cl::init(true)};
};

/// Builds --coda-fuse: every fusion pass, then canonicalization and CSE.
void buildCodaFusePipeline(OpPassManager &pm, const CodaFuseOptions &options);

/// Registers --coda-fuse.
void registerCodaFusePipeline();

} // namespace mlir::coda

#endif // CODA_TRANSFORMS_PASSES_H
