//===- CleanupFused.cpp - canonicalize only what fusion changed -----------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODACLEANUPFUSED
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
struct CodaCleanupFusedPass : coda::impl::CodaCleanupFusedBase<CodaCleanupFusedPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    // The canonicalization patterns of every loaded dialect may run.
    OpPassManager pm(func::FuncOp::getOperationName());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool touched = func.isPrivate() && func->hasAttr(CodaDialect::getWeightPrepAttrName());
    func.walk([&](Operation *op) {
      if (isa<GemmOp>(op))
        touched = true;
    });
    if (!touched)
      return;
    // Canonicalize again after CSE: values CSE merges can make a kernel read one operand twice.
    OpPassManager pm(func::FuncOp::getOperationName());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    pm.addPass(createCanonicalizerPass());
    if (failed(runPipeline(pm, func)))
      signalPassFailure();
  }
};
} // namespace
