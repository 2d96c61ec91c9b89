//===- FuseCrossEntropy.cpp - log-softmax + label gather in the epilogue --===//
//
// torch-mlir writes F.cross_entropy(logits, labels) over fused logits L as
//
//   m = max_j L          s = L - m          z = sum_j exp(s)          ls = s - log(z)
//   t_i = ls[i, label_i]                    (a linalg.generic with tensor.extract)
//
// Since ls[i, label_i] = L[i, label_i] - lse_i with lse_i = log sum_j exp(L[i, j]), the gemm
// producing L can return lse (reduce<row, lse>) and the target logit (reduce<row, sum> of L
// where j == label_i) instead: the [M, V] logits never reach memory.
//
//===----------------------------------------------------------------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSECROSSENTROPY
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
/// The ops of one log-softmax over gemm logits, and the gathers that read it.
struct LogSoftmax {
  linalg::GenericOp max, shift, exp, sum, log, sub;
  SmallVector<linalg::GenericOp> gathers;
};
} // namespace


static bool isElementwise2D(linalg::GenericOp g) {
  return g && g.getNumLoops() == 2 && g.getNumReductionLoops() == 0 &&
         g->getNumResults() == 1;
}

/// A per-row map over (i, j): (i) or (i, 0).
static bool isRowMap(AffineMap map) {
  MLIRContext *ctx = map.getContext();
  AffineExpr i = getAffineDimExpr(0, ctx);
  return (map.getNumResults() == 1 && map.getResult(0) == i) ||
         (map.getNumResults() == 2 && map.getResult(0) == i &&
          map.getResult(1) == getAffineConstantExpr(0, ctx));
}

/// A row reduction of `input` combining with `combiner` (its other outputs unused: the argmax
/// torch-mlir computes next to the max).
static bool isRowReductionOf(linalg::GenericOp g, Value input, Combiner combiner) {
  std::optional<Reduction2D> r = matchReduction2D(g);
  return r && r->dim == ReduceDim::Row && r->input == input && r->combiner == combiner;
}

/// `candidate` is `v`, or `v` reshaped ([M] <-> [M, 1]).
static bool isSameRowValue(Value candidate, Value v) {
  if (candidate == v)
    return true;
  if (auto e = candidate.getDefiningOp<tensor::ExpandShapeOp>())
    return e.getSrc() == v;
  if (auto c = candidate.getDefiningOp<tensor::CollapseShapeOp>())
    return c.getSrc() == v;
  return false;
}

/// An elementwise `a - b` with `a` read elementwise and `b` per row.
static bool isRowShift(linalg::GenericOp g, Value a, Value b) {
  if (!isElementwise2D(g) || g.getNumDpsInputs() != 2 || g.getDpsInputs()[0] != a ||
      !isSameRowValue(g.getDpsInputs()[1], b) ||
      !g.getMatchingIndexingMap(g.getDpsInputOperand(0)).isIdentity() ||
      !isRowMap(g.getMatchingIndexingMap(g.getDpsInputOperand(1))))
    return false;
  auto sub = dyn_cast_or_null<arith::SubFOp>(getSoleBodyOp(g));
  Block *body = g.getBody();
  return sub && sub.getLhs() == body->getArgument(0) && sub.getRhs() == body->getArgument(1);
}

template <typename UnaryOp>
static bool isUnaryOf(linalg::GenericOp g, Value input) {
  if (!g || g.getNumDpsInputs() != 1 || g.getDpsInputs()[0] != input ||
      g.getNumReductionLoops() != 0 || g->getNumResults() != 1 ||
      !g.getMatchingIndexingMap(g.getDpsInputOperand(0)).isIdentity())
    return false;
  auto op = dyn_cast_or_null<UnaryOp>(getSoleBodyOp(g));
  return op && op->getOperand(0) == g.getBody()->getArgument(0);
}

/// The label tensor of a gather `out[i] = ls[i, label_i]`, or null.
static Value gatheredLabels(linalg::GenericOp g, Value ls) {
  if (!g || g.getNumDpsInputs() != 1 || g->getNumResults() != 1 || g.getNumReductionLoops())
    return nullptr;
  OpOperand *labels = g.getDpsInputOperand(0);
  auto labelsType = cast<RankedTensorType>(labels->get().getType());
  if (!labelsType.getElementType().isInteger(64) || labelsType.getDimSize(0) !=
                                                        cast<ShapedType>(ls.getType()).getDimSize(0) ||
      !g.getMatchingIndexingMap(labels).isIdentity())
    return nullptr;
  Block *body = g.getBody();
  tensor::ExtractOp extract;
  for (Operation &op : body->without_terminator()) {
    if (auto e = dyn_cast<tensor::ExtractOp>(op)) {
      if (extract)
        return nullptr;
      extract = e;
      continue;
    }
    // Index arithmetic and the bounds assertions around the gather.
    if (!isa<linalg::IndexOp, arith::IndexCastOp, arith::CmpIOp, arith::ConstantOp,
             cf::AssertOp>(op))
      return nullptr;
  }
  if (!extract || extract.getTensor() != ls ||
      cast<linalg::YieldOp>(body->getTerminator()).getValues()[0] != extract.getResult())
    return nullptr;
  auto row = extract.getIndices()[0].getDefiningOp<linalg::IndexOp>();
  auto col = extract.getIndices()[1].getDefiningOp<arith::IndexCastOp>();
  if (!row || row.getDim() != 0 || !col || col.getIn() != body->getArgument(0))
    return nullptr;
  return labels->get();
}

static std::optional<LogSoftmax> matchLogSoftmax(Value logits) {
  LogSoftmax ls;
  for (Operation *user : logits.getUsers())
    if (auto g = dyn_cast<linalg::GenericOp>(user); isRowReductionOf(g, logits, Combiner::Max))
      ls.max = g;
  if (!ls.max)
    return std::nullopt;
  Value max = ls.max->getResult(0);
  for (Operation *user : logits.getUsers())
    if (auto g = dyn_cast<linalg::GenericOp>(user); isRowShift(g, logits, max))
      ls.shift = g;
  if (!ls.shift)
    return std::nullopt;
  Value shifted = ls.shift->getResult(0);
  for (Operation *user : shifted.getUsers()) {
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (isUnaryOf<math::ExpOp>(g, shifted))
      ls.exp = g;
  }
  if (!ls.exp)
    return std::nullopt;
  for (Operation *user : ls.exp->getResult(0).getUsers())
    if (auto g = dyn_cast<linalg::GenericOp>(user);
        isRowReductionOf(g, ls.exp->getResult(0), Combiner::Sum))
      ls.sum = g;
  if (!ls.sum)
    return std::nullopt;
  for (Operation *user : ls.sum->getResult(0).getUsers())
    if (auto g = dyn_cast<linalg::GenericOp>(user); isUnaryOf<math::LogOp>(g, ls.sum->getResult(0)))
      ls.log = g;
  if (!ls.log)
    return std::nullopt;
  for (Operation *user : shifted.getUsers())
    if (auto g = dyn_cast<linalg::GenericOp>(user); isRowShift(g, shifted, ls.log->getResult(0)))
      ls.sub = g;
  if (!ls.sub)
    return std::nullopt;
  // Every read of the log-probabilities is a label gather.
  for (Operation *user : ls.sub->getResult(0).getUsers()) {
    auto gather = dyn_cast_or_null<linalg::GenericOp>(user->getParentOp());
    if (!isa<tensor::ExtractOp>(user) || !gatheredLabels(gather, ls.sub->getResult(0)))
      return std::nullopt;
    if (!llvm::is_contained(ls.gathers, gather))
      ls.gathers.push_back(gather);
  }
  if (ls.gathers.size() != 1)
    return std::nullopt;
  return ls;
}

static Value collapseToVector(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 1)
    return v;
  return tensor::CollapseShapeOp::create(b, loc, v, SmallVector<ReassociationIndices>{{0, 1}});
}

static bool fuseCrossEntropy(GemmOp gemm, unsigned resultIndex, RewriterBase &rewriter) {
  Value logits = gemm->getResult(resultIndex);
  if (gemm.getPairwise() || gemm.isBatched() || !gemm.getMode(resultIndex).isStore() ||
      !cast<ShapedType>(logits.getType()).getElementType().isF32())
    return false;
  std::optional<LogSoftmax> ls = matchLogSoftmax(logits);
  if (!ls)
    return false;
  linalg::GenericOp gather = ls->gathers.front();
  Value labels = gatheredLabels(gather, ls->sub->getResult(0));
  DenseSet<Operation *> chain{ls->max, ls->shift, ls->exp, ls->sum, ls->log, ls->sub, gather};

  // Results the program still reads elsewhere stay; the new gemm goes where the labels are
  // known (at the gather), so those readers must come after it.
  SmallVector<unsigned> kept;
  for (unsigned r = 0, e = gemm->getNumResults(); r < e; ++r) {
    bool readElsewhere = false;
    for (Operation *user : gemm->getResult(r).getUsers()) {
      if (chain.contains(user))
        continue;
      if (user->getBlock() != gather->getBlock() || user->isBeforeInBlock(gather))
        return false;
      readElsewhere = true;
    }
    if (readElsewhere)
      kept.push_back(r);
  }
  if (!gemm.getInits().empty())
    return false; // accumulate results stay with the kernel they came from

  MLIRContext *ctx = rewriter.getContext();
  Location loc = gather.getLoc();
  rewriter.setInsertionPoint(gather);
  Value labelVector = collapseToVector(rewriter, loc, labels);
  SmallVector<Value> extras(gemm.getExtras());
  SmallVector<OperandRole> roles;
  for (unsigned i = 0, e = extras.size(); i < e; ++i)
    roles.push_back(gemm.getRole(i));
  extras.push_back(labelVector);
  roles.push_back(OperandRole::Row);

  SmallVector<Type> types;
  SmallVector<ResultModeAttr> modes;
  for (unsigned r : kept) {
    types.push_back(gemm->getResult(r).getType());
    modes.push_back(gemm.getMode(r));
  }
  int64_t m = gemm.getM();
  auto rowType = RankedTensorType::get({m}, rewriter.getF32Type());
  types.append({rowType, rowType});
  modes.push_back(ResultModeAttr::get(ctx, ResultKind::Reduce, ReduceDim::Row, Combiner::LogSumExp));
  modes.push_back(ResultModeAttr::get(ctx, ResultKind::Reduce, ReduceDim::Row, Combiner::Sum));

  auto fused = GemmOp::create(
      rewriter, gemm.getLoc(), types, gemm.getA(), gemm.getB(), extras, roles, ValueRange{},
      modes, gemm.getTransposeA(), gemm.getTransposeB(), std::nullopt,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Block &old = gemm.getEpilogue().front();
        IRMapping mapping;
        mapping.map(old.getArgument(0), args[0]);
        for (unsigned i = 0, e = gemm.getExtras().size(); i < e; ++i)
          mapping.map(gemm.getExtraArgs(i).front(), args[1 + i]);
        Value row = args[args.size() - 2], col = args[args.size() - 1];
        mapping.map(gemm.getRowIndexArg(), row);
        mapping.map(gemm.getColIndexArg(), col);
        for (Operation &op : old.without_terminator())
          b.clone(op, mapping);
        auto yield = cast<YieldOp>(old.getTerminator());
        SmallVector<Value> values;
        for (unsigned r : kept)
          values.push_back(mapping.lookup(yield.getValues()[r]));
        Value logit = mapping.lookup(yield.getValues()[resultIndex]);
        Value label = args[args.size() - 3];
        Value column = arith::IndexCastOp::create(b, l, b.getI64Type(), col);
        Value isTarget = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, column, label);
        Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0));
        values.push_back(logit);
        values.push_back(arith::SelectOp::create(b, l, isTarget, logit, zero));
        YieldOp::create(b, l, values);
      });

  // log_softmax[i, label_i] = target_i - lse_i, in the gather's shape.
  unsigned numKept = kept.size();
  Value lse = fused->getResult(numKept), target = fused->getResult(numKept + 1);
  AffineMap id = rewriter.getMultiDimIdentityMap(1);
  auto logProb = linalg::GenericOp::create(
      rewriter, loc, rowType, ValueRange{target, lse},
      ValueRange{tensor::EmptyOp::create(rewriter, loc, rowType.getShape(), rewriter.getF32Type())},
      ArrayRef<AffineMap>{id, id, id}, {utils::IteratorType::parallel},
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, ValueRange{arith::SubFOp::create(b, l, args[0], args[1])});
      });
  Value replacement = logProb.getResult(0);
  auto gatherType = cast<RankedTensorType>(gather->getResult(0).getType());
  if (gatherType.getRank() == 2)
    replacement = tensor::ExpandShapeOp::create(rewriter, loc, gatherType, replacement,
                                                SmallVector<ReassociationIndices>{{0, 1}});
  rewriter.replaceAllUsesWith(gather->getResult(0), replacement);
  for (auto [index, r] : llvm::enumerate(kept))
    rewriter.replaceUsesWithIf(gemm->getResult(r), fused->getResult(index), [&](OpOperand &use) {
      return !chain.contains(use.getOwner());
    });

  if (auto before = gemm->getAttrOfType<DenseI64ArrayAttr>(kUnfusedBytesAttr)) {
    Traffic unfused{before[0], before[1]};
    for (Operation *op : chain)
      unfused += kernelTraffic(op);
    fused->setAttr(kUnfusedBytesAttr, rewriter.getDenseI64ArrayAttr({unfused.read, unfused.written}));
  }
  // The gather asserts (not trivially dead): erase it by hand, then the log-softmax and the
  // old gemm as they become unused.
  SmallVector<Value> fed(gather->getOperands());
  fed.push_back(ls->sub->getResult(0));
  rewriter.eraseOp(gather);
  eraseDeadProducers(rewriter, fed);
  return true;
}

namespace {
struct CodaFuseCrossEntropyPass
    : coda::impl::CodaFuseCrossEntropyBase<CodaFuseCrossEntropyPass> {
  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation().walk([&](GemmOp op) { gemms.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (GemmOp gemm : gemms)
      for (unsigned r = 0, e = gemm->getNumResults(); r < e; ++r)
        if (fuseCrossEntropy(gemm, r, rewriter))
          break;
  }
};
} // namespace
