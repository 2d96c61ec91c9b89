//===- CollapseTokens.cpp - [B, S, ...] activations as [B·S, ...] ---------===//
//
// torch-mlir writes a model's `[B, S, D]` activations as they are in the model: every
// `F.linear` as `collapse_shape → linalg.matmul → expand_shape`, norms, activations and
// residuals as rank-3 generics, and attention's heads as `[B, S, H, HD]` views transposed to
// `[B, H, S, HD]`. The fusion passes read programs over a token dimension M. This pass rewrites
// the program into that form, keeping its meaning:
//
//  * the heads' transposes sink below elementwise ops, slices and concatenations (an
//    elementwise op commutes with a permutation of its loops), so that those ops run in token
//    order;
//  * views that only add unit dimensions to a table read by a generic (`cos.unsqueeze(1)`) are
//    folded into the generic's indexing map, and keepdim `[B, S, 1]` row statistics are read
//    and written as `[B, S]`;
//  * a batched product with one weight broadcast to every batch is one product over the tokens;
//  * token reshapes (the leading dimensions merged) move through elementwise ops, reductions,
//    slices and concatenations (upstream reshape-by-collapsing propagation) until they meet
//    the function's arguments and results, or ops that need the batch (attention).
//
//===----------------------------------------------------------------------===//

#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODACOLLAPSETOKENS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// Whether the reassociation merges the leading dimensions (the tokens: `[B, S, D] → [B·S, D]`,
/// or `[B, S] → [B·S]` for row statistics).
static bool isTokenReassociation(ArrayRef<ReassociationIndices> groups) {
  return !groups.empty() && groups.front().size() >= 2;
}

/// A collapse_shape or expand_shape of static shapes that merges or splits the tokens (and
/// possibly the heads of the last dimension).
static bool isTokenReshape(Operation *op) {
  if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(op))
    return collapse.getSrcType().hasStaticShape() &&
           isTokenReassociation(collapse.getReassociationIndices());
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(op))
    return expand.getResultType().hasStaticShape() &&
           isTokenReassociation(expand.getReassociationIndices());
  return false;
}

namespace {

/// The transpose of a value, of rank 3 or more (the heads' transposes, not a weight's).
static linalg::TransposeOp getHeadTranspose(Value v) {
  auto t = v.getDefiningOp<linalg::TransposeOp>();
  return t && t.getInput().getType().getRank() >= 3 ? t : nullptr;
}

static Value transposeOf(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, perm)->getResult(0);
}

/// An elementwise generic (one result) reading heads' transposes reads their sources instead,
/// through the composed maps. When one of them is read whole (`f(transpose(x), y)`), the op
/// first iterates in x's order and its result is transposed: `transpose(f'(x, y'))`.
struct SinkTransposeThroughElementwise : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() || op.hasIndexSemantics() ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
        op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)) ||
        llvm::none_of(op.getDpsInputs(), [](Value v) { return getHeadTranspose(v); }))
      return failure();
    linalg::TransposeOp whole;
    for (OpOperand *in : op.getDpsInputOperands())
      if (auto t = getHeadTranspose(in->get());
          t && op.getMatchingIndexingMap(in).isIdentity()) {
        whole = t;
        break;
      }
    MLIRContext *ctx = getContext();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    // Loop l of the op is loop k of the new one with l[i] = k[perm[i]].
    AffineMap toOld = AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx);
    SmallVector<int64_t> shape(resultType.getShape());
    if (whole) {
      toOld = AffineMap::getPermutationMap(whole.getPermutation(), ctx);
      shape.assign(whole.getInput().getType().getShape().begin(),
                   whole.getInput().getType().getShape().end());
    }
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *in : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(in).compose(toOld);
      Value v = in->get();
      if (auto t = getHeadTranspose(v)) {
        // transpose(x)[l] = x[k] with l[i] = k[perm[i]], so k[j] = l[perm⁻¹[j]].
        map = AffineMap::getPermutationMap(invertPermutationVector(t.getPermutation()), ctx)
                  .compose(map);
        v = t.getInput();
      }
      inputs.push_back(v);
      maps.push_back(map);
    }
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, shape, resultType.getElementType());
    maps.push_back(AffineMap::getMultiDimIdentityMap(shape.size(), ctx));
    auto sunk = linalg::GenericOp::create(rewriter, loc, TypeRange{init.getType()}, inputs,
                                          ValueRange{init}, maps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), sunk.getRegion(), sunk.getRegion().begin());
    Value result = sunk->getResult(0);
    rewriter.replaceOp(op, whole ? transposeOf(rewriter, loc, result, whole.getPermutation())
                                 : result);
    return success();
  }
};

/// `extract_slice(transpose(x))` becomes `transpose(extract_slice(x))`.
struct SinkTransposeThroughExtractSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto t = getHeadTranspose(op.getSource());
    if (!t || op.getResultType().getRank() != op.getSourceType().getRank())
      return failure();
    ArrayRef<int64_t> perm = t.getPermutation();
    SmallVector<OpFoldResult> offsets(perm.size()), sizes(perm.size()), strides(perm.size());
    for (auto [i, p] : llvm::enumerate(perm)) {
      offsets[p] = op.getMixedOffsets()[i];
      sizes[p] = op.getMixedSizes()[i];
      strides[p] = op.getMixedStrides()[i];
    }
    Value slice = tensor::ExtractSliceOp::create(rewriter, op.getLoc(), t.getInput(), offsets,
                                                 sizes, strides);
    rewriter.replaceOp(op, transposeOf(rewriter, op.getLoc(), slice, perm));
    return success();
  }
};

/// `concat(transpose(a), transpose(b))` (one permutation) becomes `transpose(concat(a, b))`.
struct SinkTransposeThroughConcat : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp op, PatternRewriter &rewriter) const override {
    SmallVector<Value> sources;
    ArrayRef<int64_t> perm;
    for (Value in : op.getInputs()) {
      auto t = getHeadTranspose(in);
      if (!t || (!perm.empty() && t.getPermutation() != perm))
        return failure();
      perm = t.getPermutation();
      sources.push_back(t.getInput());
    }
    Value concat = tensor::ConcatOp::create(rewriter, op.getLoc(), perm[op.getDim()], sources);
    rewriter.replaceOp(op, transposeOf(rewriter, op.getLoc(), concat, perm));
    return success();
  }
};

/// A generic input that is an expand_shape adding only unit dimensions, read at 0 along them
/// (`cos.unsqueeze(1)` broadcast over the heads), is read directly with those results dropped.
struct FoldUnitViewIntoMap : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto expand = in->get().getDefiningOp<tensor::ExpandShapeOp>();
      if (!expand || !expand.getResultType().hasStaticShape())
        continue;
      RankedTensorType type = expand.getResultType();
      AffineMap map = op.getMatchingIndexingMap(in);
      SmallVector<AffineExpr> results;
      bool ok = true;
      for (const ReassociationIndices &g : expand.getReassociationIndices()) {
        // At most one dimension of the group is not a unit; every unit one is read at 0.
        std::optional<AffineExpr> kept;
        for (int64_t d : g) {
          AffineExpr e = map.getResult(d);
          if (type.getDimSize(d) != 1) {
            ok &= !kept.has_value();
            kept = e;
          } else {
            auto c = dyn_cast<AffineConstantExpr>(e);
            ok &= c && c.getValue() == 0;
          }
        }
        results.push_back(kept ? *kept : getAffineConstantExpr(0, getContext()));
      }
      if (!ok)
        continue;
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      maps[in->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, getContext());
      rewriter.modifyOpInPlace(op, [&] {
        in->set(expand.getSrc());
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return failure();
  }
};

/// `batch_matmul(x, broadcast(W))` (what torch-mlir writes for `F.linear` on a `[B, S, K]`
/// input it cannot view as `[B·S, K]` for free, e.g. attention's output after its transpose)
/// becomes `expand(matmul(collapse(x), W))`: one weight for every batch is one product over the
/// tokens.
struct SharedWeightBatchMatmulAsMatmul : OpRewritePattern<linalg::BatchMatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasUserDefinedMaps() || !op.hasPureTensorSemantics())
      return failure();
    auto broadcast = op.getDpsInputs()[1].getDefiningOp<linalg::GenericOp>();
    if (!broadcast || broadcast.getNumDpsInputs() != 1 || broadcast.getNumLoops() != 3 ||
        broadcast.getNumReductionLoops())
      return failure();
    MLIRContext *ctx = getContext();
    AffineMap shared = AffineMap::get(3, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)},
                                      ctx);
    auto yield = cast<linalg::YieldOp>(broadcast.getBody()->getTerminator());
    if (broadcast.getIndexingMapsArray()[0] != shared ||
        !broadcast.getIndexingMapsArray()[1].isIdentity() || yield.getNumOperands() != 1 ||
        yield.getOperand(0) != broadcast.getBody()->getArgument(0))
      return failure();
    auto init = cast<RankedTensorType>(op.getDpsInits()[0].getType());
    if (!init.hasStaticShape())
      return failure();
    Location loc = op.getLoc();
    SmallVector<ReassociationIndices> groups{{0, 1}, {2}};
    Value a = tensor::CollapseShapeOp::create(rewriter, loc, op.getDpsInputs()[0], groups);
    Value c = tensor::CollapseShapeOp::create(rewriter, loc, op.getDpsInits()[0], groups);
    auto product = linalg::MatmulOp::create(rewriter, loc, TypeRange{c.getType()},
                                            ValueRange{a, broadcast.getDpsInputs()[0]},
                                            ValueRange{c});
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, init, product->getResult(0), groups);
    return success();
  }
};

/// A rank-3 generic reading or writing `[B, S, 1]` keepdim tensors (a norm's row statistics)
/// at 0 along the unit dimension, or iterating over `[B, S, 1]` itself, reads and writes them as
/// `[B, S]` instead: upstream reshape propagation only collapses loops of generics whose maps
/// are projected permutations.
struct DropKeepdimUnitDims : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumLoops() != 3 || op.hasIndexSemantics())
      return failure();
    MLIRContext *ctx = getContext();
    // A unit last loop goes with the unit dimension.
    bool unitLoop = op.getStaticLoopRanges()[2] == 1;
    AffineExpr lastLoop = getAffineDimExpr(2, ctx);
    auto isUnitRead = [&](AffineExpr e) {
      auto c = dyn_cast<AffineConstantExpr>(e);
      return (c && c.getValue() == 0) || (unitLoop && e == lastLoop);
    };
    SmallVector<bool> drop;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      AffineMap map = op.getMatchingIndexingMap(&operand);
      drop.push_back(type && type.getRank() == 3 && type.getDimSize(2) == 1 &&
                     isUnitRead(map.getResult(2)));
      AffineMap kept = drop.back() ? map.dropResult(2) : map;
      if (unitLoop && kept.isFunctionOfDim(2))
        return failure();
    }
    if (llvm::none_of(drop, [](bool d) { return d; }))
      return failure();
    Location loc = op.getLoc();
    SmallVector<ReassociationIndices> groups{{0}, {1, 2}};
    SmallVector<Value> inputs, inits;
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      Value v = operand.get();
      if (drop[operand.getOperandNumber()]) {
        v = tensor::CollapseShapeOp::create(rewriter, loc, v, groups);
        map = map.dropResult(2);
      }
      if (unitLoop)
        map = AffineMap::get(2, 0, map.getResults(), ctx);
      (op.isDpsInit(&operand) ? inits : inputs).push_back(v);
      maps.push_back(map);
    }
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (unitLoop)
      iterators.pop_back();
    auto narrow = linalg::GenericOp::create(rewriter, loc, ValueRange(inits).getTypes(), inputs,
                                            inits, maps, iterators);
    rewriter.inlineRegionBefore(op.getRegion(), narrow.getRegion(), narrow.getRegion().begin());
    SmallVector<Value> results;
    for (auto [old, now] : llvm::zip(op->getResults(), narrow->getResults()))
      results.push_back(old.getType() == now.getType()
                            ? now
                            : Value(tensor::ExpandShapeOp::create(rewriter, loc, old.getType(),
                                                                  now, groups)));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// `extract_slice(expand(x))` with the token dimensions whole becomes
/// `expand(extract_slice(v))`, where v is x, or x's head view when the expand also splits the
/// heads (`[B·S, H·HD] → [B·S, H, HD]`).
struct SinkTokenExpandThroughExtractSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto expand = op.getSource().getDefiningOp<tensor::ExpandShapeOp>();
    if (!expand || !isTokenReshape(expand) ||
        op.getResultType().getRank() != op.getSourceType().getRank())
      return failure();
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    size_t tokens = groups.front().size();
    ArrayRef<int64_t> shape = op.getSourceType().getShape();
    for (size_t d = 0; d < tokens; ++d)
      if (op.getStaticOffsets()[d] != 0 || op.getStaticSizes()[d] != shape[d] ||
          op.getStaticStrides()[d] != 1)
        return failure();
    Location loc = op.getLoc();
    Value source = expand.getSrc();
    SmallVector<ReassociationIndices> headGroups{{0}}, tokenGroups{groups.front()};
    SmallVector<int64_t> headShape{expand.getSrcType().getDimSize(0)};
    for (size_t d = tokens; d < shape.size(); ++d) {
      tokenGroups.push_back({static_cast<int64_t>(d)});
      headShape.push_back(shape[d]);
    }
    for (const ReassociationIndices &g : llvm::drop_begin(groups)) {
      headGroups.emplace_back();
      for (int64_t d : g)
        headGroups.back().push_back(d - tokens + 1);
    }
    if (headShape.size() != static_cast<size_t>(expand.getSrcType().getRank()))
      source = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(headShape, op.getSourceType().getElementType()),
          source, headGroups);
    SmallVector<OpFoldResult> offsets{rewriter.getIndexAttr(0)},
        sizes{rewriter.getIndexAttr(headShape.front())}, strides{rewriter.getIndexAttr(1)};
    for (size_t d = tokens; d < shape.size(); ++d) {
      offsets.push_back(op.getMixedOffsets()[d]);
      sizes.push_back(op.getMixedSizes()[d]);
      strides.push_back(op.getMixedStrides()[d]);
    }
    Value slice = tensor::ExtractSliceOp::create(rewriter, loc, source, offsets, sizes, strides);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, op.getResultType(), slice,
                                                       tokenGroups);
    return success();
  }
};

/// `concat(expand(a), expand(b))` along a dimension after the tokens, every input a token view
/// of the same tokens, becomes `expand(concat(a, b))`.
struct SinkTokenExpandThroughConcat : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp op, PatternRewriter &rewriter) const override {
    SmallVector<Value> sources;
    SmallVector<ReassociationIndices> groups;
    for (Value in : op.getInputs()) {
      auto expand = in.getDefiningOp<tensor::ExpandShapeOp>();
      if (!expand || !isTokenReshape(expand) ||
          (!groups.empty() && expand.getReassociationIndices() != groups))
        return failure();
      groups = expand.getReassociationIndices();
      sources.push_back(expand.getSrc());
    }
    size_t tokens = groups.front().size();
    if (op.getDim() < tokens || !llvm::all_of(llvm::drop_begin(groups), [](auto &g) {
          return g.size() == 1;
        }))
      return failure();
    Value concat =
        tensor::ConcatOp::create(rewriter, op.getLoc(), op.getDim() - tokens + 1, sources);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, op.getResultType(), concat, groups);
    return success();
  }
};

struct CodaCollapseTokensPass : coda::impl::CodaCollapseTokensBase<CodaCollapseTokensPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // Programs that already run over tokens are left exactly as they are: a program is batched
    // when it merges `[B, S, D]` activations into tokens or splits tokens back into them.
    bool batched = false;
    getOperation().walk([&](Operation *op) {
      auto groups = SmallVector<ReassociationIndices>{{0, 1}, {2}};
      if (auto c = dyn_cast<tensor::CollapseShapeOp>(op))
        batched |= isTokenReshape(op) && c.getReassociationIndices() == groups;
      if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
        batched |= isTokenReshape(op) && e.getReassociationIndices() == groups;
    });
    if (!batched)
      return;
    patterns.add<SinkTransposeThroughElementwise, DropKeepdimUnitDims,
                 SharedWeightBatchMatmulAsMatmul,
                 SinkTransposeThroughExtractSlice, SinkTransposeThroughConcat,
                 FoldUnitViewIntoMap, SinkTokenExpandThroughExtractSlice,
                 SinkTokenExpandThroughConcat>(ctx);
    // Only token reshapes move: a head view stays where the program put it.
    linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns, [](OpOperand *operand) {
      Operation *owner = operand->getOwner();
      return isTokenReshape(isa<tensor::CollapseShapeOp>(owner) ? owner
                                                                : operand->get().getDefiningOp());
    });
    tensor::populateFoldTensorEmptyPatterns(patterns);
    linalg::FillOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::TransposeOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // A reshape sits right after what it reshapes, so that a kernel can read it as an operand
    // (it must dominate the product), and one view of a value is one value.
    getOperation().walk([](Operation *op) {
      if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
        return;
      Value src = op->getOperand(0);
      if (Operation *def = src.getDefiningOp())
        op->moveAfter(def);
      else
        op->moveBefore(&src.getParentBlock()->front());
    });
    IRRewriter rewriter(&getContext());
    eliminateCommonSubExpressions(rewriter, getAnalysis<DominanceInfo>(), getOperation());
  }
};

} // namespace
