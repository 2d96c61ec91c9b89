//===- FuseLeftovers.cpp - fewer passes over memory between kernels -------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSELEFTOVERS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
struct CodaFuseLeftoversPass : coda::impl::CodaFuseLeftoversBase<CodaFuseLeftoversPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.walk([](GemmOp) { return WalkResult::interrupt(); }).wasInterrupted() == false)
      return;
    RewritePatternSet patterns(&getContext());
    // Only producers with a single user: fusing one with several users would recompute it.
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) { return fused->get().hasOneUse(); });
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
