//===- FuseAttention.cpp - torch-mlir's attention as coda.attention -------===//
//
// torch-mlir writes attention (an explicit softmax, or F.scaled_dot_product_attention
// decomposed) on [B·H, S, d] views of the heads:
//
//   s = batch_matmul(q·c1, (k·c2)ᵀ) [· c3] [+ select(j - i > 0, -inf, 0)]
//   p = exp(s - max_j s) / Σ_j exp(s - max_j s)      [0 where every score of the row is -inf]
//   o = batch_matmul(p, v)                          [truncated to the heads' element type]
//
// where the views come from [B, S, H, d] (or [B, H, S, d]) tensors through transposes,
// reshapes, widenings and, for grouped-query attention, a broadcast of each KV head over its
// group. This pass follows the views back to those tensors (AttentionHeads.cpp) and replaces
// the whole chain with one coda.attention: scale c1·c2·c3, the mask as the #coda.mask equal to
// it (AttentionMasks.cpp) or as a runtime mask prepared once, a soft-cap as the score region,
// heads read in place (layout bshd when the program's heads are token-major), the output
// written in the layout its users read.
//
//===----------------------------------------------------------------------===//

#include "AttentionHeads.h"
#include "AttentionMasks.h"

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <functional>
#include <limits>

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSEATTENTION
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::heads;

namespace {
/// The input of the reduction generic producing `v` over its last loop with `Combiner`-like
/// op `Op` from `init`, or null.
template <typename Op>
Value reducedOverLastLoop(Value v, double init) {
  linalg::GenericOp g = producerGeneric(v);
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 || g.getNumReductionLoops() != 1 ||
      g.getIteratorTypesArray().back() != utils::IteratorType::reduction ||
      !g.getIndexingMapsArray()[0].isIdentity())
    return nullptr;
  auto op = dyn_cast_or_null<Op>(getSoleBodyOp(g));
  Block *body = g.getBody();
  if (!op || !llvm::is_contained(op->getOperands(), body->getArgument(0)) ||
      !llvm::is_contained(op->getOperands(), body->getArgument(1)))
    return nullptr;
  auto fill = g.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  std::optional<double> start = fill ? floatConstant(fill.value()) : std::nullopt;
  if (!start || *start != init)
    return nullptr;
  return g.getDpsInputs()[0];
}

/// The block argument's operand of generic `g`, through reshapes.
Value operandOf(linalg::GenericOp g, Value arg) {
  auto a = dyn_cast<BlockArgument>(arg);
  if (!a || a.getOwner() != g.getBody() || a.getArgNumber() >= g.getNumDpsInputs())
    return nullptr;
  return throughReshapes(g.getDpsInputs()[a.getArgNumber()]);
}

/// Whether `flags` are, per row, "every score of s is -inf": an and-reduction of s == -inf.
bool isRowFullyMasked(Value flags, Value s) {
  linalg::GenericOp all = producerGeneric(flags);
  if (!all || all.getNumDpsInputs() != 1 || all.getNumReductionLoops() != 1 ||
      !isa_and_nonnull<arith::AndIOp>(getSoleBodyOp(all)))
    return false;
  auto fill = all.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  auto start = fill ? fill.value().getDefiningOp<arith::ConstantOp>() : arith::ConstantOp();
  if (!start || start.getValue() != BoolAttr::get(all.getContext(), true))
    return false;
  linalg::GenericOp eq = producerGeneric(all.getDpsInputs()[0]);
  if (!allParallelIdentity(eq) || eq.getNumDpsInputs() != 1 ||
      throughReshapes(eq.getDpsInputs()[0]) != s)
    return false;
  Value x = cast<linalg::YieldOp>(eq.getBody()->getTerminator()).getOperand(0);
  auto cmp = x.getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OEQ)
    return false;
  Value lhs = cmp.getLhs();
  if (auto ext = lhs.getDefiningOp<arith::ExtFOp>())
    lhs = ext.getIn();
  std::optional<double> c = floatConstant(cmp.getRhs());
  return lhs == eq.getBody()->getArgument(0) && c && std::isinf(*c) && *c < 0;
}

/// The scores and their softmax: p = exp(s - max s) / Σ exp(s - max s), optionally 0 on rows
/// that are all -inf. Returns s.
Value matchSoftmax(Value p) {
  linalg::GenericOp norm = producerGeneric(p);
  if (!norm || norm.getNumReductionLoops() != 0)
    return nullptr;
  Value y = cast<linalg::YieldOp>(norm.getBody()->getTerminator()).getOperand(0);
  Value guard;
  if (auto sel = y.getDefiningOp<arith::SelectOp>()) {
    std::optional<double> zero = floatConstant(sel.getTrueValue());
    if (!zero || *zero != 0.0)
      return nullptr;
    guard = operandOf(norm, sel.getCondition());
    y = sel.getFalseValue();
  }
  // A bf16 program rounds the probabilities for P·V.
  if (auto trunc = y.getDefiningOp<arith::TruncFOp>())
    y = trunc.getIn();
  auto div = y.getDefiningOp<arith::DivFOp>();
  if (!div)
    return nullptr;
  Value e = operandOf(norm, div.getLhs()), sum = operandOf(norm, div.getRhs());
  if (!e || !sum || throughReshapes(reducedOverLastLoop<arith::AddFOp>(sum, 0.0)) != e)
    return nullptr;
  linalg::GenericOp expo = e.getDefiningOp<linalg::GenericOp>();
  if (!expo || expo.getNumReductionLoops() != 0)
    return nullptr;
  Value ey = cast<linalg::YieldOp>(expo.getBody()->getTerminator()).getOperand(0);
  auto exp = ey.getDefiningOp<math::ExpOp>();
  auto sub = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : arith::SubFOp();
  if (!sub)
    return nullptr;
  Value s = operandOf(expo, sub.getLhs()), max = operandOf(expo, sub.getRhs());
  double minusInf = -std::numeric_limits<double>::infinity();
  if (!s || !max || throughReshapes(reducedOverLastLoop<arith::MaximumFOp>(max, minusInf)) != s)
    return nullptr;
  if (guard && !isRowFullyMasked(guard, s))
    return nullptr;
  return s;
}

/// A linear form a·j + b·i + c of the query index i and key index j.
bool isMinusInf(std::optional<double> c) { return c && std::isinf(*c) && *c < 0; }

/// What the score chain does to q·kᵀ: a scale, and the conditions on positions that hide keys.
struct ScoreEdit {
  double scale = 1.0;
  /// The steps on each score after the first that is not a product by a constant (soft-
  /// capping's tanh), in program order: they become the op's score region.
  /// Each step with its constant (a product or quotient's; none for the tanh).
  SmallVector<std::pair<Operation *, double>> region;
  SmallVector<masks::HiddenTerm> hidden;
  linalg::BatchMatmulOp qk;
  /// A boolean mask tensor the scores read (attn_mask): the operand, and whether true hides.
  OpOperand *runtime = nullptr;
  bool runtimeHidesWhenTrue = false;
  /// Keys j < p + keyBoundShift visible, p the one element of `keyBound` (a decode step's
  /// cache_position): the op reads its keys as a cache of p + keyBoundShift.
  Value keyBound;
  int64_t keyBoundShift = 0;
};

/// Condition `c` of generic `g` comparing the key's position with one position given as data,
/// `j <= p` or `j < p` (either way round, either sense): recorded in `edit` as its key bound.
LogicalResult matchKeyBound(linalg::GenericOp g, Value c, bool hidesWhenTrue, ScoreEdit &edit) {
  auto cmp = c.getDefiningOp<arith::CmpIOp>();
  if (edit.keyBound || !cmp || cmp->getBlock() != g.getBody())
    return failure();
  // Which side is the key position j, which the bound p.
  auto operandOf = [&](Value side) -> OpOperand * {
    auto arg = dyn_cast<BlockArgument>(side);
    if (!arg || arg.getOwner() != g.getBody() || arg.getArgNumber() >= g.getNumDpsInputs())
      return nullptr;
    return g.getDpsInputOperand(arg.getArgNumber());
  };
  OpOperand *lhs = operandOf(cmp.getLhs()), *rhs = operandOf(cmp.getRhs());
  if (!lhs || !rhs)
    return failure();
  unsigned key = g.getNumLoops() - 1;
  auto isKey = [&](OpOperand *o) {
    std::optional<unsigned> loop = masks::iotaLoop(g, *o);
    return loop && *loop == key;
  };
  auto boundOf = [&](OpOperand *o) {
    return heads::readsOnly(g.getMatchingIndexingMap(o), cast<ShapedType>(o->get().getType()))
               ? heads::sharedPosition(o->get())
               : Value();
  };
  using P = arith::CmpIPredicate;
  P pred = cmp.getPredicate();
  Value bound;
  if (isKey(lhs) && (bound = boundOf(rhs))) {
  } else if (isKey(rhs) && (bound = boundOf(lhs))) {
    // p pred j as j pred' p.
    switch (pred) {
    case P::sle: pred = P::sge; break;
    case P::sge: pred = P::sle; break;
    case P::slt: pred = P::sgt; break;
    case P::sgt: pred = P::slt; break;
    case P::ule: pred = P::uge; break;
    case P::uge: pred = P::ule; break;
    case P::ult: pred = P::ugt; break;
    case P::ugt: pred = P::ult; break;
    default: break;
    }
  } else {
    return failure();
  }
  // Now `j pred p`; the keys it leaves visible are j <= p or j < p.
  if (hidesWhenTrue)
    pred = arith::invertPredicate(pred);
  if (pred == P::sle || pred == P::ule)
    edit.keyBoundShift = 1;
  else if (pred == P::slt || pred == P::ult)
    edit.keyBoundShift = 0;
  else
    return failure();
  edit.keyBound = bound;
  return success();
}

/// Condition `c` of generic `g` read straight from a boolean input (a mask given as data):
/// recorded in `edit` as its one runtime mask.
LogicalResult matchRuntimeMask(linalg::GenericOp g, Value c, bool hidesWhenTrue,
                               ScoreEdit &edit) {
  auto arg = dyn_cast<BlockArgument>(c);
  if (edit.runtime || !arg || arg.getOwner() != g.getBody() ||
      arg.getArgNumber() >= g.getNumDpsInputs() || !arg.getType().isInteger(1))
    return failure();
  edit.runtime = g.getDpsInputOperand(arg.getArgNumber());
  edit.runtimeHidesWhenTrue = hidesWhenTrue;
  return success();
}

/// A mask term of generic `g`, select(cond(i, j), 0 | -inf, -inf | 0) added to the scores:
/// the condition on positions, added to `edit` (or a mask given as data).
LogicalResult matchMaskTerm(linalg::GenericOp g, Value m, ScoreEdit &edit) {
  // A bf16 program builds the additive mask in bf16 and widens it.
  if (auto ext = m.getDefiningOp<arith::ExtFOp>())
    m = ext.getIn();
  auto sel = m.getDefiningOp<arith::SelectOp>();
  if (!sel)
    return failure();
  std::optional<double> t = floatConstant(sel.getTrueValue()),
                        f = floatConstant(sel.getFalseValue());
  bool hideWhenTrue = isMinusInf(t) && f == 0.0;
  if (!hideWhenTrue && !(isMinusInf(f) && t == 0.0))
    return failure();
  std::optional<masks::PositionCondition> cond =
      masks::matchPositionCondition(g, sel.getCondition());
  if (!cond) {
    if (succeeded(matchKeyBound(g, sel.getCondition(), hideWhenTrue, edit)))
      return success();
    return matchRuntimeMask(g, sel.getCondition(), hideWhenTrue, edit);
  }
  edit.hidden.push_back({*cond, hideWhenTrue});
  return success();
}

/// The scores' elementwise chain back to the product q·kᵀ: each generic computes c·s, plus
/// mask terms on the positions (added -inf, or a select of -inf).
FailureOr<ScoreEdit> matchScoreChain(Value s) {
  ScoreEdit edit;
  // The steps from the softmax back to the product: products by constants (with their
  // constant) and region steps; masks must come after every region step.
  SmallVector<std::pair<Operation *, double>> steps;
  bool regionSeen = false;
  while (!(edit.qk = s.getDefiningOp<linalg::BatchMatmulOp>())) {
    // [B·H, Sq, Sk] scores viewed as [B, H, Sq, Sk] (the batch split, the last two dimensions
    // kept), straight from the product or after a bf16 program rounded it.
    if (auto expand = s.getDefiningOp<tensor::ExpandShapeOp>()) {
      if (expand.getSrcType().getRank() != 3 ||
          expand.getReassociationIndices() !=
              SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}})
        return failure();
      s = expand.getSrc();
      continue;
    }
    auto g = s.getDefiningOp<linalg::GenericOp>();
    if (!g || g.getNumReductionLoops() != 0 || g.getNumResults() != 1)
      return failure();
    // The running score is the one input read with the identity map.
    std::optional<unsigned> scoreArg;
    for (OpOperand *in : g.getDpsInputOperands())
      if (g.getMatchingIndexingMap(in).isIdentity() &&
          isa<FloatType>(getElementTypeOrSelf(in->get().getType()))) {
        if (scoreArg)
          return failure();
        scoreArg = in->getOperandNumber();
      }
    if (!scoreArg)
      return failure();
    Value x = cast<linalg::YieldOp>(g.getBody()->getTerminator()).getOperand(0);
    while (x != g.getBody()->getArgument(*scoreArg)) {
      Operation *op = x.getDefiningOp();
      if (!op || op->getBlock() != g.getBody())
        return failure();
      if (isa<arith::MulFOp, arith::DivFOp>(op)) {
        Value lhs = op->getOperand(0), rhs = op->getOperand(1);
        std::optional<double> c = floatConstant(rhs);
        if (!c && isa<arith::MulFOp>(op) && (c = floatConstant(lhs)))
          std::swap(lhs, rhs);
        if (!c)
          return failure();
        steps.push_back({op, *c});
        x = lhs;
      } else if (isa<math::TanhOp>(op)) {
        // A step the scale cannot take (soft-capping): the score region's.
        steps.push_back({op, 0.0});
        regionSeen = true;
        x = op->getOperand(0);
      } else if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
        // Roundings of the scores (a bf16 program's): coda.attention keeps them in fp32.
        x = op->getOperand(0);
      } else if (auto add = dyn_cast<arith::AddFOp>(op)) {
        Value term = add.getRhs(), rest = add.getLhs();
        if (failed(matchMaskTerm(g, term, edit))) {
          std::swap(term, rest);
          if (failed(matchMaskTerm(g, term, edit)))
            return failure();
        }
        if (regionSeen)
          return failure(); // a mask before the region's steps: -inf would not stay -inf
        x = rest;
      } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
        // masked_fill / where: the score where the condition says, -inf elsewhere.
        bool keepWhenTrue = isMinusInf(floatConstant(sel.getFalseValue()));
        if (!keepWhenTrue && !isMinusInf(floatConstant(sel.getTrueValue())))
          return failure();
        if (std::optional<masks::PositionCondition> cond =
                masks::matchPositionCondition(g, sel.getCondition()))
          edit.hidden.push_back({*cond, !keepWhenTrue});
        else if (failed(matchRuntimeMask(g, sel.getCondition(), !keepWhenTrue, edit)))
          return failure();
        if (regionSeen)
          return failure();
        x = keepWhenTrue ? sel.getTrueValue() : sel.getFalseValue();
      } else {
        return failure();
      }
    }
    s = g.getDpsInputs()[*scoreArg];
  }
  // In program order: constant factors up to the first region step multiply into the scale,
  // everything from it on is the score region.
  std::reverse(steps.begin(), steps.end());
  for (auto [op, c] : steps) {
    if (edit.region.empty() && !isa<math::TanhOp>(op))
      edit.scale = isa<arith::MulFOp>(op) ? edit.scale * c : edit.scale / c;
    else
      edit.region.push_back({op, c});
  }
  return edit;
}

/// The score region of `attention`: `edit.region`'s steps on the scaled score, in fp32.
void buildScoreRegion(RewriterBase &rewriter, AttentionOp attention,
                      ArrayRef<std::pair<Operation *, double>> steps) {
  OpBuilder::InsertionGuard guard(rewriter);
  Location loc = attention.getLoc();
  Type f32 = rewriter.getF32Type(), index = rewriter.getIndexType();
  Block *body = rewriter.createBlock(&attention.getScore(), {}, {f32, index, index, index, index},
                                     SmallVector<Location>(5, loc));
  rewriter.setInsertionPointToStart(body);
  Value x = body->getArgument(0);
  for (auto [op, c] : steps) {
    if (isa<math::TanhOp>(op)) {
      x = math::TanhOp::create(rewriter, loc, x);
      continue;
    }
    Value k = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(c));
    x = isa<arith::MulFOp>(op) ? arith::MulFOp::create(rewriter, loc, x, k).getResult()
                               : arith::DivFOp::create(rewriter, loc, x, k).getResult();
  }
  YieldOp::create(rewriter, loc, ValueRange{x});
}

/// The sizes [Mb, Mh] of a runtime mask over scores [B, H, Sq, Sk] (or [B·H, Sq, Sk]) read
/// through `operand`'s map: a [Sq, Sk] mask, or [Mb, Mh, Sq, Sk] with Mb 1 or B, Mh 1 or H.
std::optional<std::pair<int64_t, int64_t>> runtimeMaskSizes(OpOperand &operand) {
  auto g = cast<linalg::GenericOp>(operand.getOwner());
  auto type = cast<RankedTensorType>(operand.get().getType());
  AffineMap map = g.getMatchingIndexingMap(&operand);
  unsigned loops = g.getNumLoops(), rank = type.getRank();
  auto isDim = [&](unsigned r, unsigned d) {
    return map.getResult(r) == getAffineDimExpr(d, g.getContext());
  };
  if (rank < 2 || !isDim(rank - 2, loops - 2) || !isDim(rank - 1, loops - 1))
    return std::nullopt;
  if (rank == 2)
    return std::make_pair<int64_t, int64_t>(1, 1);
  if (rank != 4 || loops != 4)
    return std::nullopt;
  for (unsigned r = 0; r < 2; ++r)
    if (type.getDimSize(r) != 1 && !isDim(r, r))
      return std::nullopt;
  return std::make_pair(type.getDimSize(0), type.getDimSize(1));
}

/// A call of a run-once function (`coda.weight_prep`, no arguments) that computes the [Sq, Sk]
/// boolean mask the position conditions `hidden` leave visible.
Value positionMask(RewriterBase &rewriter, Location loc, ModuleOp module,
                   ArrayRef<masks::HiddenTerm> hidden, int64_t sq, int64_t sk) {
  OpBuilder b(module.getContext());
  auto type = RankedTensorType::get({sq, sk}, b.getI1Type());
  auto func = func::FuncOp::create(
      module.getLoc(), "coda_attention_positions_" + std::to_string(sq) + "x" + std::to_string(sk),
      b.getFunctionType({}, {type}));
  SymbolTable(module).insert(func); // at the module's end, renamed where the name is taken
  func.setPrivate();
  func->setAttr(CodaDialect::getWeightPrepAttrName(), b.getUnitAttr());
  b.setInsertionPointToStart(func.addEntryBlock());
  func::ReturnOp::create(b, loc, masks::materializeVisible(b, loc, hidden, sq, sk));
  return func::CallOp::create(rewriter, loc, func, ValueRange{}).getResult(0);
}

/// The run-once preparation (`coda.weight_prep`) of a boolean mask [Sq, Sk] or [Mb, Mh, Sq, Sk]
/// into coda.attention's blocks (the class of each 128 × 128 tile) and bits (a bit per key):
/// a tile of only visible keys is class 1, one with some is class 2, one with none class 0.
func::FuncOp maskPreparation(ModuleOp module, RankedTensorType maskType, int64_t mb, int64_t mh,
                             bool hidesWhenTrue) {
  int64_t rank = maskType.getRank(), sq = maskType.getDimSize(rank - 2),
          sk = maskType.getDimSize(rank - 1), tile = AttentionOp::kMaskTile;
  int64_t qt = AttentionOp::getMaskTiles(sq), kt = AttentionOp::getMaskTiles(sk),
          words = AttentionOp::getMaskWords(sk);
  std::string name = "coda_attention_mask_" + std::to_string(mb) + "x" + std::to_string(mh) +
                     "x" + std::to_string(sq) + "x" + std::to_string(sk) +
                     (rank == 2 ? "" : "_batched") + (hidesWhenTrue ? "_hides" : "");
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  MLIRContext *ctx = module.getContext();
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  Type i1 = b.getI1Type(), i8 = b.getI8Type(), i32 = b.getI32Type();
  auto blocksType = RankedTensorType::get({mb, mh, qt, kt}, i8);
  auto bitsType = RankedTensorType::get({mb, mh, sq, words}, i32);
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType({maskType}, {blocksType, bitsType}));
  func.setPrivate();
  func->setAttr(CodaDialect::getWeightPrepAttrName(), b.getUnitAttr());
  b.setInsertionPointToStart(func.addEntryBlock());
  Value mask = func.getArgument(0);
  auto dim = [&](unsigned d) { return getAffineDimExpr(d, ctx); };
  auto cidx = [&](OpBuilder &nb, int64_t v) {
    return arith::ConstantIndexOp::create(nb, loc, v).getResult();
  };
  // The mask at (b, h, i, j): visible, and inside [Sq, Sk].
  auto visible = [&](OpBuilder &nb, Value bi, Value hi, Value i, Value j) {
    using P = arith::CmpIPredicate;
    Value inside = arith::AndIOp::create(
        nb, loc, arith::CmpIOp::create(nb, loc, P::slt, i, cidx(nb, sq)),
        arith::CmpIOp::create(nb, loc, P::slt, j, cidx(nb, sk)));
    SmallVector<Value> at;
    if (rank == 4) {
      at.push_back(maskType.getDimSize(0) == 1 ? cidx(nb, 0) : bi);
      at.push_back(maskType.getDimSize(1) == 1 ? cidx(nb, 0) : hi);
    }
    at.push_back(arith::MinSIOp::create(nb, loc, i, cidx(nb, sq - 1)));
    at.push_back(arith::MinSIOp::create(nb, loc, j, cidx(nb, sk - 1)));
    Value v = tensor::ExtractOp::create(nb, loc, mask, at);
    if (hidesWhenTrue)
      v = arith::XOrIOp::create(nb, loc, v, arith::ConstantIntOp::create(nb, loc, 1, 1));
    return std::make_pair(arith::AndIOp::create(nb, loc, v, inside).getResult(), inside);
  };
  // Indices of a body that a [Sq, Sk] mask does not read (its batch and head).
  auto eraseUnused = [](ArrayRef<Value> idx) {
    for (Value index : idx)
      if (index.use_empty())
        index.getDefiningOp()->erase();
  };
  auto filled = [&](RankedTensorType type, Attribute value) {
    Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
    Value c = arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
    return linalg::FillOp::create(b, loc, c, init).getResult(0);
  };
  using utils::IteratorType;
  SmallVector<IteratorType> tileLoops(4, IteratorType::parallel);
  tileLoops.append(2, IteratorType::reduction);
  // Whether a tile shows some key, and whether it shows every key inside the mask.
  auto tileFold = [&](bool every) {
    auto flags = RankedTensorType::get({mb, mh, qt, kt}, i1);
    Value span = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{tile, tile}, i1);
    SmallVector<AffineMap> maps{AffineMap::get(6, 0, {dim(4), dim(5)}, ctx),
                                AffineMap::get(6, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)};
    return linalg::GenericOp::create(
               b, loc, flags, ValueRange{span}, ValueRange{filled(flags, b.getBoolAttr(every))},
               maps, tileLoops,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 SmallVector<Value> idx;
                 for (unsigned d = 0; d < 6; ++d)
                   idx.push_back(linalg::IndexOp::create(nb, l, d));
                 Value t = cidx(nb, tile);
                 Value i = arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, idx[2], t), idx[4]);
                 Value j = arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, idx[3], t), idx[5]);
                 auto [v, inside] = visible(nb, idx[0], idx[1], i, j);
                 Value r;
                 if (every) {
                   Value outside = arith::XOrIOp::create(nb, l, inside,
                                                         arith::ConstantIntOp::create(nb, l, 1, 1));
                   r = arith::AndIOp::create(nb, l, args[1], arith::OrIOp::create(nb, l, outside, v));
                 } else {
                   r = arith::OrIOp::create(nb, l, args[1], v);
                 }
                 linalg::YieldOp::create(nb, l, r);
                 eraseUnused(idx);
               })
        .getResult(0);
  };
  Value some = tileFold(false), every = tileFold(true);
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  Value blocks =
      linalg::GenericOp::create(
          b, loc, blocksType, ValueRange{some, every},
          ValueRange{tensor::EmptyOp::create(b, loc, blocksType.getShape(), i8)},
          SmallVector<AffineMap>{id4, id4, id4}, SmallVector<IteratorType>(4, IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            auto c = [&](int64_t v) { return arith::ConstantIntOp::create(nb, l, v, 8).getResult(); };
            Value partial = arith::SelectOp::create(nb, l, args[0], c(2), c(0));
            Value all = arith::AndIOp::create(nb, l, args[0], args[1]);
            linalg::YieldOp::create(nb, l, arith::SelectOp::create(nb, l, all, c(1), partial).getResult());
          })
          .getResult(0);
  // Bit t of word w of row i: key 32 w + t.
  SmallVector<IteratorType> bitLoops(4, IteratorType::parallel);
  bitLoops.push_back(IteratorType::reduction);
  Value lanes = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{32}, i1);
  Value bits =
      linalg::GenericOp::create(
          b, loc, bitsType, ValueRange{lanes}, ValueRange{filled(bitsType, b.getI32IntegerAttr(0))},
          SmallVector<AffineMap>{AffineMap::get(5, 0, {dim(4)}, ctx),
                                 AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)},
          bitLoops,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            SmallVector<Value> idx;
            for (unsigned d = 0; d < 5; ++d)
              idx.push_back(linalg::IndexOp::create(nb, l, d));
            Value j = arith::AddIOp::create(
                nb, l, arith::MulIOp::create(nb, l, idx[3], cidx(nb, 32)), idx[4]);
            Value v = visible(nb, idx[0], idx[1], idx[2], j).first;
            Value t = arith::IndexCastOp::create(nb, l, i32, idx[4]);
            Value bit = arith::ShLIOp::create(nb, l, arith::ConstantIntOp::create(nb, l, 1, 32), t);
            Value term = arith::SelectOp::create(nb, l, v, bit, arith::ConstantIntOp::create(nb, l, 0, 32));
            linalg::YieldOp::create(nb, l, arith::OrIOp::create(nb, l, args[1], term).getResult());
            eraseUnused(idx);
          })
          .getResult(0);
  func::ReturnOp::create(b, loc, ValueRange{blocks, bits});
  return func;
}

/// Erases what `attention` replaced, from the values `last` up, and records the bytes those ops moved,
/// with `before` (for --coda-report-traffic).
void eraseReplaced(RewriterBase &rewriter, AttentionOp attention, ArrayRef<Value> last,
                   Traffic before = {}) {
  eraseDeadProducers(rewriter, last, [&](Operation *op) {
    if (isKernel(op) && !isa<linalg::FillOp>(op))
      before += kernelTraffic(op);
  });
  attention->setAttr(kUnfusedBytesAttr,
                     rewriter.getDenseI64ArrayAttr({before.read, before.written}));
}

/// Replaces the attention that ends in `pv` with one coda.attention; false when it is not one.
bool fuseAttention(linalg::BatchMatmulOp pv, RewriterBase &rewriter) {
  auto fill = pv.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  std::optional<double> zero = fill ? floatConstant(fill.value()) : std::nullopt;
  if (!zero || *zero != 0.0)
    return false;
  Value s = matchSoftmax(pv.getDpsInputs()[0]);
  if (!s)
    return false;
  // Scores as the product wrote them: [B·H, Sq, Sk].
  auto scoreType = cast<RankedTensorType>(s.getType());
  if (scoreType.getRank() != 3 && scoreType.getRank() != 4)
    return false;
  if (scoreType.getRank() == 4)
    scoreType = RankedTensorType::get({scoreType.getDimSize(0) * scoreType.getDimSize(1),
                                       scoreType.getDimSize(2), scoreType.getDimSize(3)},
                                      scoreType.getElementType());
  FailureOr<ScoreEdit> edit = matchScoreChain(s);
  if (failed(edit))
    return false;
  int64_t sq = scoreType.getDimSize(1), sk = scoreType.getDimSize(2);
  std::optional<MaskAttr> mask = masks::fitMask(pv.getContext(), edit->hidden, sq, sk);
  // A mask on positions that no #coda.mask says becomes a runtime mask, computed from the
  // positions once (beside a mask given as data, it is left as written).
  bool fromPositions = !mask && !edit->runtime && !edit->hidden.empty();
  if (fromPositions)
    mask = MaskAttr();
  if (!mask)
    return false;
  // A bound on the keys alone is a cache's length for one query (with other terms, or more
  // queries, the positions of the queries would differ).
  if (edit->keyBound && (sq != 1 || edit->runtime || !edit->hidden.empty()))
    return false;
  // A runtime mask's positions are 32-bit in the kernels.
  std::optional<std::pair<int64_t, int64_t>> runtimeSizes;
  if ((edit->runtime || fromPositions) && (sq >= (int64_t(1) << 31) || sk >= (int64_t(1) << 31)))
    return false;
  if (edit->runtime && !(runtimeSizes = runtimeMaskSizes(*edit->runtime)))
    return false;
  linalg::BatchMatmulOp qk = edit->qk;
  auto qkFill = qk.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  std::optional<double> qkZero = qkFill ? floatConstant(qkFill.value()) : std::nullopt;
  if (!qkZero || *qkZero != 0.0)
    return false;

  Heads q = traceHeads(qk.getDpsInputs()[0]), k = traceHeads(qk.getDpsInputs()[1]),
        v = traceHeads(pv.getDpsInputs()[1]);
  if (q.transposed || !k.transposed || v.transposed || q.repeat != 1 || v.scale != 1.0 ||
      k.repeat != v.repeat || q.layout != k.layout || q.layout != v.layout ||
      q.unbatched != k.unbatched || q.unbatched != v.unbatched)
    return false;
  Type element = getElementTypeOrSelf(q.base.getType());
  if (getElementTypeOrSelf(k.base.getType()) != element ||
      getElementTypeOrSelf(v.base.getType()) != element ||
      !(element.isBF16() || element.isF16() || element.isF32()))
    return false;
  auto qDims = batchAndHeads(q), kDims = batchAndHeads(k);
  if (!qDims || !kDims || batchAndHeads(v) != kDims || kDims->first != qDims->first ||
      kDims->second * k.repeat != qDims->second ||
      qDims->first * qDims->second != scoreType.getDimSize(0))
    return false;

  // The output: [B·H, Sq, dv] in f32, or truncated to the heads' type by its one user (after
  // an expansion to [B, H, Sq, dv], as SDPA's decomposition writes it).
  Value result = pv.getResult(0);
  Operation *replaced = pv;
  if (element != getElementTypeOrSelf(result.getType())) {
    if (!result.hasOneUse())
      return false;
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin())) {
      if (!expand->hasOneUse() || expand.getResultType().getRank() != 4)
        return false;
      result = expand.getResult();
    }
    auto trunc = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
    auto op = trunc ? dyn_cast_or_null<arith::TruncFOp>(getSoleBodyOp(trunc)) : nullptr;
    if (!op || !allParallelIdentity(trunc) || trunc.getNumDpsInputs() != 1 ||
        op.getType() != element)
      return false;
    replaced = trunc;
  }

  Location loc = pv.getLoc();
  rewriter.setInsertionPoint(replaced);
  Value qv = headsOperand(rewriter, loc, q), kv = headsOperand(rewriter, loc, k),
        vv = headsOperand(rewriter, loc, v);
  auto vType = cast<RankedTensorType>(vv.getType());
  SmallVector<int64_t> outShape(cast<RankedTensorType>(qv.getType()).getShape());
  outShape[3] = vType.getDimSize(3);
  auto outType = RankedTensorType::get(outShape, element);
  MLIRContext *ctx = rewriter.getContext();
  double scale = q.scale * k.scale * edit->scale;
  // A mask given as data: its blocks and bits, prepared once.
  Value blocks, bits;
  if (fromPositions) {
    runtimeSizes = std::make_pair<int64_t, int64_t>(1, 1);
    edit->runtimeHidesWhenTrue = false;
  }
  if (edit->runtime || fromPositions) {
    Value m = fromPositions ? positionMask(rewriter, loc, pv->getParentOfType<ModuleOp>(),
                                           edit->hidden, sq, sk)
                            : edit->runtime->get();
    func::FuncOp prep = maskPreparation(pv->getParentOfType<ModuleOp>(),
                                        cast<RankedTensorType>(m.getType()), runtimeSizes->first,
                                        runtimeSizes->second, edit->runtimeHidesWhenTrue);
    auto call = func::CallOp::create(rewriter, loc, prep, ValueRange{m});
    blocks = call.getResult(0);
    bits = call.getResult(1);
  }
  // Keys j < p + shift: a cache holding that many keys in every sequence.
  Value cacheLens;
  if (edit->keyBound) {
    Type i64 = rewriter.getI64Type();
    auto lensType = RankedTensorType::get({qDims->first}, i64);
    Value init = tensor::EmptyOp::create(rewriter, loc, lensType.getShape(), i64);
    SmallVector<AffineMap> maps{
        AffineMap::get(1, 0, {rewriter.getAffineConstantExpr(0)}, ctx),
        AffineMap::getMultiDimIdentityMap(1, ctx)};
    int64_t shift = edit->keyBoundShift;
    cacheLens = linalg::GenericOp::create(
                    rewriter, loc, lensType, ValueRange{edit->keyBound}, ValueRange{init}, maps,
                    {utils::IteratorType::parallel},
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value p = args[0];
                      if (p.getType() != i64)
                        p = arith::ExtSIOp::create(b, l, i64, p);
                      Value c = arith::ConstantIntOp::create(b, l, shift, 64);
                      linalg::YieldOp::create(b, l, arith::AddIOp::create(b, l, p, c).getResult());
                    })
                    .getResult(0);
  }
  auto attention = AttentionOp::create(
      rewriter, loc, outType, Type(), qv, kv, vv, /*lens=*/Value(), /*cache_lens=*/cacheLens,
      /*pages=*/Value(), blocks, bits,
      rewriter.getF32FloatAttr(static_cast<float>(scale)), *mask,
      AttentionLayoutAttr::get(ctx, q.layout));
  if (!edit->region.empty())
    buildScoreRegion(rewriter, attention, edit->region);

  // Back to the [B·H, Sq, dv] view the program had; a token-major output read back as
  // expand → transpose(0, 2, 1, 3) replaces that transpose instead.
  Value out = attention.getOut();
  Value old = replaced->getResult(0);
  if (q.layout == AttentionLayout::BSHD && old.hasOneUse()) {
    auto expand = dyn_cast<tensor::ExpandShapeOp>(*old.getUsers().begin());
    auto t = expand && expand.getResult().hasOneUse()
                 ? dyn_cast<linalg::TransposeOp>(*expand.getResult().getUsers().begin())
                 : linalg::TransposeOp();
    if (isPermutation(t, {0, 2, 1, 3}) && t.getResult()[0].getType() == out.getType()) {
      Traffic transpose = kernelTraffic(t);
      Value init = t.getInit();
      rewriter.replaceOp(t, out);
      eraseReplaced(rewriter, attention, {expand.getResult(), init}, transpose);
      return true;
    }
  }
  // Unbatched token-major heads read back as [S, H, dv] (from [H, S, dv], or from [1, H, S, dv]
  // collapsed to it): the transpose (1, 0, 2) the program writes is the output itself.
  Value heads3 = old;
  if (auto c = old.hasOneUse() ? dyn_cast<tensor::CollapseShapeOp>(*old.getUsers().begin())
                               : tensor::CollapseShapeOp();
      c && c.getSrcType().getRank() == 4 && c.getSrcType().getDimSize(0) == 1 &&
      c.getReassociationIndices() == SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}})
    heads3 = c.getResult();
  if (q.layout == AttentionLayout::BSHD && q.unbatched && heads3.hasOneUse())
    if (auto t = dyn_cast<linalg::TransposeOp>(*heads3.getUsers().begin());
        isPermutation(t, {1, 0, 2})) {
      Value heads = tensor::CollapseShapeOp::create(
          rewriter, loc, t.getResult()[0].getType(), out,
          SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
      Traffic transpose = kernelTraffic(t);
      Value init = t.getInit();
      rewriter.replaceOp(t, heads);
      eraseReplaced(rewriter, attention, {heads3, init}, transpose);
      return true;
    }
  if (q.layout == AttentionLayout::BSHD) {
    SmallVector<int64_t> bhsd{outShape[0], outShape[2], outShape[1], outShape[3]};
    Value init = tensor::EmptyOp::create(rewriter, loc, bhsd, element);
    out = linalg::TransposeOp::create(rewriter, loc, out, init, ArrayRef<int64_t>{0, 2, 1, 3})
              .getResult()[0];
  }
  if (cast<RankedTensorType>(old.getType()).getRank() != 4)
    out = tensor::CollapseShapeOp::create(rewriter, loc, old.getType(), out,
                                          SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
  rewriter.replaceAllUsesWith(old, out);
  eraseReplaced(rewriter, attention, old);
  return true;
}

/// The generics between a P·V product and the products before it, when they hold a softmax
/// (an exp): where a program writes attention's elementwise steps as separate generics
/// (torch-mlir's SDPA decomposition), chains of them are fused, never into a product or a
/// reduction, so that the score chain and the softmax read as the matchers expect.
void fuseSoftmaxSteps(linalg::BatchMatmulOp pv) {
  SetVector<Operation *> region;
  SmallVector<Value> work{pv.getDpsInputs()[0]};
  bool softmax = false;
  while (!work.empty()) {
    Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || isa<linalg::BatchMatmulOp>(op) || !region.insert(op))
      continue;
    if (auto g = dyn_cast<linalg::GenericOp>(op))
      softmax |= !g.getBody()->getOps<math::ExpOp>().empty();
    else if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, linalg::FillOp, tensor::EmptyOp>(op))
      continue;
    llvm::append_range(work, op->getOperands());
  }
  if (!softmax)
    return;
  // Every generic producer of the region's generics is in the region; fused ones are new.
  auto elementwise = [](Operation *op) {
    auto g = dyn_cast_or_null<linalg::GenericOp>(op);
    return g && g.getNumReductionLoops() == 0;
  };
  RewritePatternSet patterns(pv.getContext());
  // Chains only: a value several steps read (the masked scores, exp(s - max)) stays one value.
  linalg::populateElementwiseOpsFusionPatterns(patterns, [&](OpOperand *fused) {
    return fused->get().hasOneUse() && elementwise(fused->get().getDefiningOp()) &&
           elementwise(fused->getOwner());
  });
  linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(region.getArrayRef(), std::move(patterns), config);
}

struct CodaFuseAttentionPass : coda::impl::CodaFuseAttentionBase<CodaFuseAttentionPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::BatchMatmulOp> products;
    getOperation()->walk([&](linalg::BatchMatmulOp op) { products.push_back(op); });
    for (linalg::BatchMatmulOp op : products)
      fuseSoftmaxSteps(op);
    // Each P·V product in turn; a rewrite erases other products (its q·kᵀ), so the walk
    // restarts after each. Products that do not match are not changed and not tried again.
    llvm::DenseSet<Operation *> tried;
    bool changed = true;
    while (changed) {
      changed = false;
      getOperation()->walk([&](linalg::BatchMatmulOp op) {
        if (!tried.insert(op).second)
          return WalkResult::advance();
        changed = fuseAttention(op, rewriter);
        return changed ? WalkResult::interrupt() : WalkResult::advance();
      });
    }
  }
};
} // namespace
