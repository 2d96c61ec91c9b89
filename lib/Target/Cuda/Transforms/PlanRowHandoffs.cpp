//===- PlanRowHandoffs.cpp - row reductions that run beside their kernel --===//

#include "coda/Target/Cuda/Plan.h"
#include "coda/Target/Cuda/Transforms/Passes.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAPLANROWHANDOFFS
#include "coda/Target/Cuda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

namespace {
struct PlanRowHandoffsPass : public coda::impl::CodaPlanRowHandoffsBase<PlanRowHandoffsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // A scheduled function keeps the hand-offs it was scheduled with.
    if (isScheduled(func))
      return;
    Builder b(func.getContext());
    for (auto generic : func.getBody().getOps<linalg::GenericOp>())
      if (GemmOp consumer = rowsConsumer(generic)) {
        generic->setAttr(kHandsRowsAttr, b.getUnitAttr());
        consumer->setAttr(kAwaitsRowsAttr, b.getUnitAttr());
      }
  }
};
} // namespace
