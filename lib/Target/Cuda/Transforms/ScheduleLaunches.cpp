//===- ScheduleLaunches.cpp - kernel names and launch order ---------------===//

#include "coda/Target/Cuda/Plan.h"
#include "coda/Target/Cuda/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODASCHEDULELAUNCHES
#include "coda/Target/Cuda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

/// How many of coda's own kernels `op` runs as: one per generic, fill or slice, one per piece
/// of a concat.
static unsigned ownKernels(Operation &op) {
  if (isa<linalg::GenericOp, linalg::FillOp, tensor::InsertSliceOp, tensor::ExtractSliceOp>(op))
    return 1;
  if (auto concat = dyn_cast<tensor::ConcatOp>(op))
    return concat.getInputs().size();
  return 0;
}

/// The ops of `block` in launch order: between a row reduction that hands its rows on and the
/// kernel that awaits them, the ops that do not depend on the reduction go first, so that the
/// kernel can start beside it.
static SmallVector<Operation *> launchOrder(Block &block) {
  SmallVector<Operation *> order;
  for (Operation &op : block.without_terminator())
    order.push_back(&op);
  for (unsigned i = 0; i < order.size(); ++i) {
    auto generic = dyn_cast<linalg::GenericOp>(order[i]);
    GemmOp consumer =
        generic && generic->hasAttr(kHandsRowsAttr) ? rowsConsumer(generic) : GemmOp();
    auto at = llvm::find(order, consumer.getOperation());
    if (!consumer || at == order.end())
      continue;
    DenseSet<Operation *> dependent{generic};
    SmallVector<Operation *> before, after;
    for (Operation *op : llvm::make_range(order.begin() + i + 1, at)) {
      bool reads = false;
      op->walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          reads |= dependent.contains(v.getDefiningOp());
      });
      (reads ? after : before).push_back(op);
      if (reads)
        dependent.insert(op);
    }
    before.push_back(generic);
    before.append(after);
    llvm::copy(before, order.begin() + i);
    i += before.size() - after.size() - 1;
  }
  return order;
}

namespace {
struct ScheduleLaunchesPass : public coda::impl::CodaScheduleLaunchesBase<ScheduleLaunchesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || isScheduled(func))
      return;
    Builder b(func.getContext());
    std::string prefix = func.getSymName().str();
    unsigned gemms = 0, attentions = 0;
    func.walk([&](GemmOp op) {
      op->setAttr(kKernelsAttr,
                  b.getStrArrayAttr({prefix + "_k" + std::to_string(gemms++)}));
    });
    func.walk([&](AttentionOp op) {
      op->setAttr(kKernelsAttr,
                  b.getStrArrayAttr({prefix + "_a" + std::to_string(attentions++)}));
    });
    // Named in the ops' order before scheduling, so that every launcher of the function (the
    // weight preparation's runs a subset of its ops) calls the kernels the full one defines.
    Block &block = func.getBody().front();
    unsigned own = 0;
    for (Operation &op : block) {
      SmallVector<std::string> names;
      for (unsigned i = 0, e = ownKernels(op); i < e; ++i)
        names.push_back(prefix + "_g" + std::to_string(own++));
      if (!names.empty())
        op.setAttr(kKernelsAttr, b.getStrArrayAttr(SmallVector<StringRef>(names.begin(), names.end())));
    }
    Operation *terminator = block.getTerminator();
    for (Operation *op : launchOrder(block))
      op->moveBefore(terminator);
  }
};
} // namespace
