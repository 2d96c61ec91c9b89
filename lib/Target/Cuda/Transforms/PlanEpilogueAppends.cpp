//===- PlanEpilogueAppends.cpp - appends stored by the kernel's epilogue --===//

#include "coda/Target/Cuda/Plan.h"
#include "coda/Target/Cuda/Transforms/Passes.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAPLANEPILOGUEAPPENDS
#include "coda/Target/Cuda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

namespace {
struct PlanEpilogueAppendsPass
    : public coda::impl::CodaPlanEpilogueAppendsBase<PlanEpilogueAppendsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // A scheduled function keeps the plan it was scheduled with.
    if (isScheduled(func))
      return;
    Builder b(func.getContext());
    func.walk([&](AppendOp append) {
      if (epilogueAppendOf(append))
        append->setAttr(kInEpilogueAttr, b.getUnitAttr());
    });
  }
};
} // namespace
