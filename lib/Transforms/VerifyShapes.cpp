//===- VerifyShapes.cpp - static shapes agree on loop sizes ---------------===//
//
// Upstream's structured-op verifier skips dimensions of size 0 when it compares operand
// shapes with the loop sizes, so a product whose output has 0 rows and whose input has 16
// parses. The fusion passes read loop sizes from one operand and build kernels for the
// others; this check, first in --coda-fuse, turns such input into an error at the op.
// Static slices must lie inside the tensor they cut from or write into: the verifier does not
// check strides, and a slice past the end reads or writes outside the buffer once it runs.
//
//===----------------------------------------------------------------------===//

#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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

/// Checks that every element of a slice with static offsets, sizes and strides lies inside
/// `whole` (the tensor it reads from or writes into).
static LogicalResult verifySliceBounds(OffsetSizeAndStrideOpInterface slice,
                                       RankedTensorType whole) {
  ArrayRef<int64_t> offsets = slice.getStaticOffsets(), sizes = slice.getStaticSizes(),
                    strides = slice.getStaticStrides();
  for (unsigned d = 0, e = offsets.size(); d < e && d < whole.getRank(); ++d) {
    if (ShapedType::isDynamic(offsets[d]) || ShapedType::isDynamic(sizes[d]) ||
        ShapedType::isDynamic(strides[d]) || whole.isDynamicDim(d) || sizes[d] == 0)
      continue;
    // The last element's index, offset + (size - 1) * stride, in 128 bits: no overflow.
    __int128 last = static_cast<__int128>(offsets[d]) +
                    static_cast<__int128>(sizes[d] - 1) * static_cast<__int128>(strides[d]);
    if (offsets[d] < 0 || strides[d] < 1 || last >= whole.getDimSize(d))
      return slice->emitOpError("reaches outside its tensor in dimension #")
             << d << ": offset " << offsets[d] << ", " << sizes[d] << " elements with stride "
             << strides[d] << " in a dimension of size " << whole.getDimSize(d);
  }
  return success();
}

namespace {
struct CodaVerifyShapesPass : coda::impl::CodaVerifyShapesBase<CodaVerifyShapesPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](Operation *op) {
      LogicalResult ok = success();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        ok = verifyLoopSizes(linalgOp);
      else if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op))
        ok = verifySliceBounds(extract, extract.getSourceType());
      else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
        ok = verifySliceBounds(insert, insert.getDestType());
      return failed(ok) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
