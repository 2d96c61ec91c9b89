//===- SplitSlicedMatmul.cpp - one matmul per column slice ----------------===//

#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODASPLITSLICEDMATMUL
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// A static [offset, offset + size) column slice of all rows with unit strides, or nullopt.
static std::optional<std::pair<int64_t, int64_t>> columnRange(tensor::ExtractSliceOp slice,
                                                              int64_t rows) {
  if (!slice.hasUnitStride() || slice.getSourceType().getRank() != 2 ||
      slice.getResultType().getRank() != 2)
    return std::nullopt;
  ArrayRef<int64_t> offsets = slice.getStaticOffsets(), sizes = slice.getStaticSizes();
  if (offsets[0] != 0 || sizes[0] != rows || ShapedType::isDynamic(offsets[1]) ||
      ShapedType::isDynamic(sizes[1]))
    return std::nullopt;
  return std::make_pair(offsets[1], sizes[1]);
}

static Value sliceOf(OpBuilder &b, Location loc, Value v, unsigned dim, int64_t offset,
                     int64_t size) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0)), sizes, strides(2, b.getIndexAttr(1));
  offsets[dim] = b.getIndexAttr(offset);
  for (int64_t d = 0; d < 2; ++d)
    sizes.push_back(b.getIndexAttr(d == dim ? size : type.getDimSize(d)));
  return tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
}

static bool split(linalg::MatmulOp matmul, RewriterBase &rewriter) {
  if (matmul.hasUserDefinedMaps() || matmul->getResult(0).use_empty())
    return false;
  Value init = matmul.getDpsInits()[0];
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return false;
  auto outType = cast<RankedTensorType>(matmul->getResult(0).getType());
  // torch-mlir's bf16 programs round the product before slicing it: such an elementwise cast
  // between the matmul and the slices is applied to each slice's product instead.
  linalg::GenericOp roundFirst;
  Value sliced = matmul->getResult(0);
  if (sliced.hasOneUse())
    if (auto g = dyn_cast<linalg::GenericOp>(*sliced.getUsers().begin());
        g && g.getNumDpsInputs() == 1 && g.getNumDpsInits() == 1 &&
        g.getNumParallelLoops() == g.getNumLoops() &&
        llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }) &&
        g.getMatchingBlockArgument(g.getDpsInitOperand(0)).use_empty()) {
      roundFirst = g;
      sliced = g->getResult(0);
    }
  SmallVector<tensor::ExtractSliceOp> slices;
  for (Operation *user : sliced.getUsers()) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || !columnRange(slice, outType.getDimSize(0)))
      return false;
    slices.push_back(slice);
  }
  if (slices.size() < 2)
    return false;

  Value a = matmul.getDpsInputs()[0], b = matmul.getDpsInputs()[1];
  auto transpose = b.getDefiningOp<linalg::TransposeOp>();
  bool transposed = transpose && transpose.getPermutation() == ArrayRef<int64_t>{1, 0};
  for (tensor::ExtractSliceOp slice : slices) {
    auto [offset, size] = *columnRange(slice, outType.getDimSize(0));
    rewriter.setInsertionPoint(slice);
    Location loc = slice.getLoc();
    Value weight;
    if (transposed) {
      Value rows = sliceOf(rewriter, loc, transpose.getInput(), 0, offset, size);
      auto rowsType = cast<RankedTensorType>(rows.getType());
      Value empty = tensor::EmptyOp::create(rewriter, loc,
                                            {rowsType.getDimSize(1), rowsType.getDimSize(0)},
                                            rowsType.getElementType());
      weight = linalg::TransposeOp::create(rewriter, loc, rows, empty, ArrayRef<int64_t>{1, 0})
                   ->getResult(0);
    } else {
      weight = sliceOf(rewriter, loc, b, 1, offset, size);
    }
    auto type = RankedTensorType::get(slice.getResultType().getShape(), outType.getElementType());
    Value zero = linalg::FillOp::create(
                     rewriter, loc, fill.getInputs()[0],
                     tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType()).getResult())
                     .getResult(0);
    Value product = linalg::MatmulOp::create(rewriter, loc, TypeRange{type}, ValueRange{a, weight},
                                             ValueRange{zero})
                        ->getResult(0);
    if (roundFirst) {
      IRMapping mapping;
      mapping.map(roundFirst.getDpsInputs()[0], product);
      mapping.map(roundFirst.getDpsInits()[0],
                  tensor::EmptyOp::create(rewriter, loc, slice.getResultType().getShape(),
                                          slice.getResultType().getElementType())
                      .getResult());
      Operation *rounded = rewriter.clone(*roundFirst, mapping);
      rounded->getResult(0).setType(slice.getResultType());
      product = rounded->getResult(0);
    }
    rewriter.replaceOp(slice, product);
  }
  SmallVector<Value> fed(matmul->getOperands());
  if (roundFirst) {
    fed.push_back(roundFirst.getDpsInits()[0]);
    rewriter.eraseOp(roundFirst);
  }
  rewriter.eraseOp(matmul);
  eraseDeadProducers(rewriter, fed);
  return true;
}

namespace {
struct CodaSplitSlicedMatmulPass
    : coda::impl::CodaSplitSlicedMatmulBase<CodaSplitSlicedMatmulPass> {
  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : matmuls)
      split(op, rewriter);
  }
};
} // namespace
