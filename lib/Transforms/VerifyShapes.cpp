//===- VerifyShapes.cpp - static shapes agree on loop sizes ---------------===//
//
// Upstream's structured-op verifier skips dimensions of size 0 when it compares operand
// shapes with the loop sizes, so a product whose output has 0 rows and whose input has 16
// parses. The fusion passes read loop sizes from one operand and build kernels for the
// others; this check, first in --coda-fuse, turns such input into an error at the op.
//
//===----------------------------------------------------------------------===//

#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAVERIFYSHAPES
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// Checks every operand dimension that a loop indexes directly against that loop's size, as
/// the first operand that indexes it has it.
static LogicalResult verifyLoopSizes(linalg::LinalgOp op) {
  SmallVector<std::optional<int64_t>> loopSize(op.getNumLoops());
  SmallVector<std::pair<unsigned, unsigned>> loopSource(op.getNumLoops());
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
      auto loop = dyn_cast<AffineDimExpr>(expr);
      int64_t size = type.getDimSize(dim);
      if (!loop || ShapedType::isDynamic(size))
        continue;
      unsigned d = loop.getPosition();
      if (!loopSize[d]) {
        loopSize[d] = size;
        loopSource[d] = {operand.getOperandNumber(), static_cast<unsigned>(dim)};
      } else if (*loopSize[d] != size) {
        return op->emitOpError("operand #")
               << operand.getOperandNumber() << " has size " << size << " in dimension #"
               << dim << ", which indexes loop d" << d << " of size " << *loopSize[d]
               << " (dimension #" << loopSource[d].second << " of operand #"
               << loopSource[d].first << ")";
      }
    }
  }
  return success();
}

namespace {
struct CodaVerifyShapesPass : coda::impl::CodaVerifyShapesBase<CodaVerifyShapesPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](linalg::LinalgOp op) {
      return failed(verifyLoopSizes(op)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
