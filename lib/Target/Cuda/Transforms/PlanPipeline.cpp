//===- PlanPipeline.cpp - --coda-plan-cuda --------------------------------===//

#include "coda/Target/Cuda/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::coda;

void mlir::coda::buildCodaPlanCudaPipeline(OpPassManager &pm,
                                           const CodaPlanCudaOptions &options) {
  SmallVector<std::string> without;
  bool overlapRows = true;
  for (const std::string &path : options.without) {
    if (path == "overlap-rows")
      overlapRows = false;
    else
      without.push_back(path);
  }
  pm.addNestedPass<func::FuncOp>(createCodaGeneralizeOutsideKernels());
  if (overlapRows)
    pm.addNestedPass<func::FuncOp>(createCodaPlanRowHandoffs());
  CodaPlanKernelConfigsOptions configs;
  configs.target = options.target;
  configs.tuningDb = options.tuningDb;
  configs.without = without;
  configs.dispatch.assign(options.dispatch.begin(), options.dispatch.end());
  configs.fp32 = options.fp32;
  pm.addPass(createCodaPlanKernelConfigs(configs));
  pm.addNestedPass<func::FuncOp>(createCodaScheduleLaunches());
  pm.addNestedPass<func::FuncOp>(createCodaPlanWorkspace());
}

void mlir::coda::registerCodaPlanCudaPipeline() {
  PassPipelineRegistration<CodaPlanCudaOptions>(
      "coda-plan-cuda",
      "Plan the CUDA back end's kernels: row hand-offs, kernel configurations and sinks, "
      "kernel names and launch order, workspace layout (what coda-translate --coda-to-cuda "
      "prints)",
      buildCodaPlanCudaPipeline);
}
