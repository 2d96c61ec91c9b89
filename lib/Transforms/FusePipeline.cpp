//===- FusePipeline.cpp - the --coda-fuse pipeline ------------------------===//

#include "coda/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::coda::buildCodaFusePipeline(OpPassManager &pm) {
  // Chain fusion first, then the passes that merge fused kernels.
  OpPassManager &func = pm.nest<func::FuncOp>();
  func.addPass(createCodaFuseEpilogue());
  func.addPass(createCodaFuseCrossEntropy());
  pm.addPass(createCodaFuseGated());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::coda::registerCodaFusePipeline() {
  PassPipelineRegistration<>(
      "coda-fuse",
      "Find every GEMM-epilogue opportunity: reparametrize, fuse chains into coda.gemm "
      "kernels, then canonicalize; ops that cannot be fused stay as they are",
      buildCodaFusePipeline);
}
