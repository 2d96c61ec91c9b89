//===- FoldIndexRanges.cpp - epilogue values the index ranges decide -----===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFOLDINDEXRANGES
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
struct CodaFoldIndexRangesPass
    : coda::impl::CodaFoldIndexRangesBase<CodaFoldIndexRangesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool hasKernels = false;
    func.walk([&](GemmOp) { hasKernels = true; });
    if (!hasKernels)
      return;
    DataFlowSolver solver;
    dataflow::loadBaselineAnalyses(solver);
    solver.load<dataflow::IntegerRangeAnalysis>();
    if (failed(solver.initializeAndRun(func)))
      return signalPassFailure();

    // Every integer value of an epilogue whose range is one value, but constants themselves,
    // becomes that constant (one per value, first in the epilogue); what only they read goes.
    func.walk([&](GemmOp gemm) {
      Block &body = gemm.getEpilogue().front();
      SmallVector<std::pair<Value, APInt>> decided;
      for (Operation &op : body) {
        if (op.hasTrait<OpTrait::ConstantLike>())
          continue;
        for (Value result : op.getResults()) {
          if (!result.getType().isIntOrIndex())
            continue;
          auto *range = solver.lookupState<dataflow::IntegerValueRangeLattice>(result);
          if (!range || range->getValue().isUninitialized())
            continue;
          if (std::optional<APInt> value = range->getValue().getValue().getConstantValue())
            decided.push_back({result, *value});
        }
      }
      if (decided.empty())
        return;
      OpBuilder b = OpBuilder::atBlockBegin(&body);
      DenseMap<Attribute, Value> constants;
      for (auto [value, constant] : decided) {
        auto attr = IntegerAttr::get(value.getType(), constant);
        Value &c = constants[attr];
        if (!c)
          c = arith::ConstantOp::create(b, value.getLoc(), value.getType(), attr);
        value.replaceAllUsesWith(c);
      }
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
        if (isOpTriviallyDead(&op))
          op.erase();
    });
  }
};
} // namespace
