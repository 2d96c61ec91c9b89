//===- FuseCacheAppend.cpp - a KV cache's update as coda.append ------------===//
//
// transformers' StaticCache writes a decode step's keys and values into the cache with
// `index_copy_(dim, cache_position, new)`. Exported with coda's decompositions
// (python/coda/exporting.py) that is a select over the cache:
//
//   eq[.., j, ..]   = (iota(C)[j] == cache_position[0])                    (a generic)
//   out[b, h, j, c] = eq[j] ? new[b, h, 0, c] : cache[b, h, j, c]         (a generic)
//
// which reads and writes the whole cache. It is the append of one row at cache_position for
// every sequence: `coda.append %new into %cache at %cache_position`, which the GPU writes in
// place in O(d) per head.
//
//===----------------------------------------------------------------------===//

#include "AttentionHeads.h"
#include "AttentionMasks.h"

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSECACHEAPPEND
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {

/// The position that condition `cond` (an i1 tensor) compares loop `seq`'s index with, where
/// `cond` is `iota == p` (or `p == iota`) over a shared position p; null otherwise.
Value comparedPosition(Value cond, unsigned seq) {
  linalg::GenericOp eq = heads::producerGeneric(cond);
  if (!eq || eq.getNumDpsInputs() != 2 || eq.getNumDpsInits() != 1 ||
      !eq.getMatchingIndexingMap(eq.getDpsInitOperand(0)).isIdentity())
    return {};
  Block *body = eq.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto cmp = yield.getOperand(0).getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp->getBlock() != body || cmp.getPredicate() != arith::CmpIPredicate::eq ||
      body->getOperations().size() != 2)
    return {};
  Value position;
  bool iota = false;
  for (Value side : {cmp.getLhs(), cmp.getRhs()}) {
    auto arg = dyn_cast<BlockArgument>(side);
    if (!arg || arg.getOwner() != body || arg.getArgNumber() >= 2)
      return {};
    OpOperand *operand = eq.getDpsInputOperand(arg.getArgNumber());
    if (std::optional<unsigned> loop = masks::iotaLoop(eq, *operand); loop && *loop == seq) {
      iota = true;
      continue;
    }
    if (!heads::readsOnly(eq.getMatchingIndexingMap(operand),
                          cast<ShapedType>(operand->get().getType())))
      return {};
    position = heads::sharedPosition(operand->get());
  }
  return iota ? position : Value();
}

/// `select(iota == p, new, cache)` over a [B, H, C, d] (or [B, C, H, d]) cache, new a row
/// broadcast along the cache's rows: coda.append of new at p.
struct SelectAsAppend : OpRewritePattern<linalg::GenericOp> {
  /// `replacedInputs` collects the producers of the selects' operands (the comparison that
  /// chose the row, the select's empty init).
  SelectAsAppend(MLIRContext *ctx, SetVector<Operation *> &replacedInputs)
      : OpRewritePattern(ctx), replacedInputs(replacedInputs) {}
  SetVector<Operation *> &replacedInputs;

  LogicalResult matchAndRewrite(linalg::GenericOp g, PatternRewriter &rewriter) const override {
    if (g.getNumDpsInputs() != 3 || g.getNumDpsInits() != 1 || g.getNumLoops() != 4 ||
        g.getNumParallelLoops() != 4 || !g.hasPureTensorSemantics())
      return failure();
    Block *body = g.getBody();
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    auto select = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
    if (!select || body->getOperations().size() != 2 || select.getCondition() != body->getArgument(0) ||
        select.getTrueValue() != body->getArgument(1) ||
        select.getFalseValue() != body->getArgument(2))
      return failure();
    Value cache = g.getDpsInputs()[2], fresh = g.getDpsInputs()[1];
    auto type = cast<RankedTensorType>(g->getResult(0).getType());
    if (cache.getType() != type ||
        !g.getMatchingIndexingMap(g.getDpsInputOperand(2)).isIdentity() ||
        !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
      return failure();
    // The new row: the cache's shape with one row, read at row 0 along the cache's rows.
    AffineMap freshMap = g.getMatchingIndexingMap(g.getDpsInputOperand(1));
    auto freshType = cast<RankedTensorType>(fresh.getType());
    Type element = type.getElementType();
    if (freshType.getRank() != 4 || type.getRank() != 4 ||
        !(element.isBF16() || element.isF16() || element.isF32()))
      return failure();
    std::optional<unsigned> seq;
    for (unsigned d = 0; d < 4; ++d) {
      AffineExpr e = freshMap.getResult(d);
      if (e == rewriter.getAffineDimExpr(d) && freshType.getDimSize(d) == type.getDimSize(d))
        continue;
      auto c = dyn_cast<AffineConstantExpr>(e);
      if (!c || c.getValue() != 0 || freshType.getDimSize(d) != 1 || seq)
        return failure();
      seq = d;
    }
    if (!seq || (*seq != 1 && *seq != 2))
      return failure();
    // The condition: which rows take the new one.
    if (!heads::readsOnly(g.getMatchingIndexingMap(g.getDpsInputOperand(0)),
                          cast<ShapedType>(g.getDpsInputs()[0].getType()), *seq))
      return failure();
    Value position = comparedPosition(g.getDpsInputs()[0], *seq);
    if (!position)
      return failure();
    auto layout = AttentionLayoutAttr::get(
        getContext(), *seq == 2 ? AttentionLayout::BHSD : AttentionLayout::BSHD);
    for (Value operand : g->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        replacedInputs.insert(producer);
    rewriter.replaceOpWithNewOp<AppendOp>(g, type, fresh, cache, position, /*pages=*/Value(),
                                          layout);
    return success();
  }
};

struct CodaFuseCacheAppendPass : coda::impl::CodaFuseCacheAppendBase<CodaFuseCacheAppendPass> {
  void runOnOperation() override {
    SetVector<Operation *> replacedInputs;
    RewritePatternSet patterns(&getContext());
    patterns.add<SelectAsAppend>(&getContext(), replacedInputs);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // What only the replaced selects read (the comparison that chose the rows, its iota and the
    // position's reshapes, the selects' inits), once nothing reads it.
    SmallVector<Operation *> worklist(replacedInputs.begin(), replacedInputs.end());
    DenseSet<Operation *> erased;
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!op || erased.contains(op) || !isOpTriviallyDead(op))
        continue;
      for (Value operand : op->getOperands())
        worklist.push_back(operand.getDefiningOp());
      erased.insert(op);
      op->erase();
    }
  }
};

} // namespace
