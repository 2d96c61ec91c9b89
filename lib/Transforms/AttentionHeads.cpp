//===- AttentionHeads.cpp - attention's operands back to the stored heads -===//
//
// torch-mlir reads attention's operands as [B·H, S, d] views: transposes of token-major
// [B, S, H, d] heads, reshapes that add or drop unit dimensions, widenings and constant
// factors, and for grouped-query attention a broadcast of each KV head over its group. These
// functions follow such a view back to the tensor that holds the heads.
//
//===----------------------------------------------------------------------===//

#include "AttentionHeads.h"

#include "coda/Transforms/KernelQueries.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::heads;

Value heads::throughReshapes(Value v) {
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  return v;
}

linalg::GenericOp heads::producerGeneric(Value v) {
  return throughReshapes(v).getDefiningOp<linalg::GenericOp>();
}

Value heads::sharedPosition(Value v) {
  v = throughReshapes(v);
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != 1 || type.getDimSize(0) != 1 || !type.getElementType().isInteger() ||
      type.getElementType().isInteger(1))
    return {};
  return v;
}

bool heads::readsOnly(AffineMap map, ShapedType type, unsigned dim) {
  for (auto [index, e] : llvm::enumerate(map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (d.getPosition() != dim && type.getDimSize(index) != 1)
        return false;
    } else if (auto c = dyn_cast<AffineConstantExpr>(e); !c || c.getValue() != 0) {
      return false;
    }
  }
  return true;
}

bool heads::isPermutation(linalg::TransposeOp t, ArrayRef<int64_t> perm) {
  return t && t.getPermutation() == perm;
}

bool heads::allParallelIdentity(linalg::GenericOp g) {
  return g && g.getNumReductionLoops() == 0 &&
         llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); });
}

std::optional<double> heads::floatConstant(Value v) {
  // torch-mlir writes the softmax scale as an f64 constant truncated in the body.
  if (auto trunc = v.getDefiningOp<arith::TruncFOp>())
    v = trunc.getIn();
  auto c = v.getDefiningOp<arith::ConstantOp>();
  if (auto f = c ? dyn_cast<FloatAttr>(c.getValue()) : FloatAttr())
    return f.getValueAsDouble();
  return std::nullopt;
}

/// Follows an elementwise generic's result back through widenings and products or quotients
/// by constants to the input it is computed from; multiplies `scale` by the constants.
static Value peelElementwise(Value v, double &scale) {
  while (auto g = v.getDefiningOp<linalg::GenericOp>()) {
    if (!allParallelIdentity(g))
      break;
    Value x = cast<linalg::YieldOp>(g.getBody()->getTerminator())
                  .getOperand(cast<OpResult>(v).getResultNumber());
    double factor = 1.0;
    while (Operation *op = x.getDefiningOp()) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        x = ext.getIn();
      } else if (isa<arith::MulFOp, arith::DivFOp>(op)) {
        Value lhs = op->getOperand(0), rhs = op->getOperand(1);
        std::optional<double> c = floatConstant(rhs);
        if (!c && isa<arith::MulFOp>(op) && (c = floatConstant(lhs)))
          std::swap(lhs, rhs);
        if (!c)
          return v;
        factor = isa<arith::MulFOp>(op) ? factor * *c : factor / *c;
        x = lhs;
      } else {
        return v;
      }
    }
    auto arg = dyn_cast<BlockArgument>(x);
    if (!arg || arg.getOwner() != g.getBody() || arg.getArgNumber() >= g.getNumDpsInputs())
      return v;
    scale *= factor;
    v = g.getDpsInputs()[arg.getArgNumber()];
  }
  return v;
}

/// The [H, S, d] (or [S, H, d]) heads that `v4` views as [1, H, S, d] through reshapes that only
/// add or drop unit dimensions (`x[None]`, or the [1, H, 1, S, d] a repeat_interleave starts
/// from collapsed again), or null.
static Value unitBatchOf(Value v4) {
  auto type = cast<RankedTensorType>(v4.getType());
  if (type.getRank() != 4 || type.getDimSize(0) != 1)
    return nullptr;
  auto nonUnit = [](RankedTensorType t) {
    SmallVector<int64_t> dims;
    llvm::copy_if(t.getShape(), std::back_inserter(dims), [](int64_t d) { return d != 1; });
    return dims;
  };
  SmallVector<int64_t> dims = nonUnit(type);
  Value v = v4;
  while (Operation *op = v.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      break;
    Value src = op->getOperand(0);
    auto srcType = cast<RankedTensorType>(src.getType());
    if (nonUnit(srcType) != dims)
      return nullptr;
    v = src;
    if (srcType.getRank() == 3 && srcType.getShape() == type.getShape().drop_front())
      return v;
  }
  return nullptr;
}

/// Unbatched heads `v3` ([H, S, d], or [S, H, d] when a transpose (1, 0, 2) made them) as
/// `h`'s base.
static void setUnbatchedBase(Value v3, Heads &h) {
  h.unbatched = true;
  h.base = v3;
  if (auto t = v3.getDefiningOp<linalg::TransposeOp>();
      h.layout == AttentionLayout::BHSD && isPermutation(t, {1, 0, 2})) {
    h.layout = AttentionLayout::BSHD;
    h.base = peelElementwise(t.getInput(), h.scale);
  }
}

/// [B, Hkv, rep, S, d] broadcast from [B, Hkv, S, d] (or [B, S, Hkv, d]): the source, with the
/// layout and the repeat.
static bool traceRepeat(Value v5, Heads &h) {
  auto g = v5.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumReductionLoops() != 0 ||
      !g.getIndexingMapsArray().back().isIdentity())
    return false;
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  if (yield.getOperand(0) != g.getBody()->getArgument(0))
    return false;
  MLIRContext *ctx = g.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap in = g.getIndexingMapsArray()[0];
  if (in == AffineMap::get(5, 0, {d(0), d(1), d(3), d(4)}, ctx))
    h.layout = AttentionLayout::BHSD;
  else if (in == AffineMap::get(5, 0, {d(0), d(3), d(1), d(4)}, ctx))
    h.layout = AttentionLayout::BSHD;
  else
    return false;
  h.repeat = cast<RankedTensorType>(v5.getType()).getDimSize(2);
  h.base = peelElementwise(g.getDpsInputs()[0], h.scale);
  // [B, Hkv, S, d] may itself be a transpose of token-major heads, or unbatched heads.
  if (auto t = h.base.getDefiningOp<linalg::TransposeOp>();
      h.layout == AttentionLayout::BHSD && isPermutation(t, {0, 2, 1, 3})) {
    h.layout = AttentionLayout::BSHD;
    h.base = peelElementwise(t.getInput(), h.scale);
  } else if (Value v3 = unitBatchOf(h.base)) {
    setUnbatchedBase(v3, h);
  }
  return true;
}

/// A rank-4 [B, H, S, d] (or [B, H, d, S]) view back to its stored heads.
static void traceHeads4(Value v4, Heads &h) {
  v4 = peelElementwise(v4, h.scale);
  if (auto t = v4.getDefiningOp<linalg::TransposeOp>(); isPermutation(t, {0, 1, 3, 2})) {
    h.transposed = !h.transposed;
    v4 = peelElementwise(t.getInput(), h.scale);
  }
  auto t = v4.getDefiningOp<linalg::TransposeOp>();
  if (isPermutation(t, {0, 2, 1, 3}) || isPermutation(t, {0, 2, 3, 1})) {
    h.layout = AttentionLayout::BSHD;
    h.transposed ^= isPermutation(t, {0, 2, 3, 1});
    h.base = peelElementwise(t.getInput(), h.scale);
    return;
  }
  if (auto c = v4.getDefiningOp<tensor::CollapseShapeOp>();
      c && c.getSrcType().getRank() == 5 &&
      c.getReassociationIndices() ==
          SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}} &&
      traceRepeat(c.getSrc(), h))
    return;
  if (Value v3 = unitBatchOf(v4)) {
    setUnbatchedBase(peelElementwise(v3, h.scale), h);
    return;
  }
  h.base = v4;
}

/// Unbatched [Hkv, rep, S, d] broadcast from [Hkv, S, d] (or [S, Hkv, d]): the source, with
/// the layout and the repeat (repeat_interleave of [tokens, D] programs).
static bool traceUnbatchedRepeat(Value v4, Heads &h) {
  auto g = v4.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumReductionLoops() != 0 ||
      !g.getIndexingMapsArray().back().isIdentity() ||
      cast<linalg::YieldOp>(g.getBody()->getTerminator()).getOperand(0) !=
          g.getBody()->getArgument(0))
    return false;
  MLIRContext *ctx = g.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap in = g.getIndexingMapsArray()[0];
  if (in == AffineMap::get(4, 0, {d(0), d(2), d(3)}, ctx))
    h.layout = AttentionLayout::BHSD;
  else if (in == AffineMap::get(4, 0, {d(2), d(0), d(3)}, ctx))
    h.layout = AttentionLayout::BSHD;
  else
    return false;
  h.unbatched = true;
  h.repeat = cast<RankedTensorType>(v4.getType()).getDimSize(1);
  h.base = peelElementwise(g.getDpsInputs()[0], h.scale);
  if (auto t = h.base.getDefiningOp<linalg::TransposeOp>();
      h.layout == AttentionLayout::BHSD && isPermutation(t, {1, 0, 2})) {
    h.layout = AttentionLayout::BSHD;
    h.base = peelElementwise(t.getInput(), h.scale);
  }
  return true;
}

/// The [B·H, S, d] (or [B·H, d, S]) view of heads back to where they are stored.
static void traceHeads3(Value v3, Heads &h) {
  v3 = peelElementwise(v3, h.scale);
  auto t = v3.getDefiningOp<linalg::TransposeOp>();
  if (isPermutation(t, {0, 2, 1})) {
    h.transposed = true;
    v3 = peelElementwise(t.getInput(), h.scale);
    t = v3.getDefiningOp<linalg::TransposeOp>();
  }
  // Unbatched token-major heads [S, H, d] (programs over [tokens, D]).
  if (isPermutation(t, {1, 0, 2}) || isPermutation(t, {1, 2, 0})) {
    h.layout = AttentionLayout::BSHD;
    h.unbatched = true;
    h.transposed ^= isPermutation(t, {1, 2, 0});
    h.base = peelElementwise(t.getInput(), h.scale);
    return;
  }
  if (auto c = v3.getDefiningOp<tensor::CollapseShapeOp>()) {
    SmallVector<ReassociationIndices> r = c.getReassociationIndices();
    if (c.getSrcType().getRank() == 4 &&
        r == SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}}) {
      double scale = h.scale;
      if (!traceUnbatchedRepeat(peelElementwise(c.getSrc(), h.scale), h)) {
        h.scale = scale;
        traceHeads4(c.getSrc(), h);
      }
      return;
    }
    if (c.getSrcType().getRank() == 5 &&
        r == SmallVector<ReassociationIndices>{{0, 1, 2}, {3}, {4}} && traceRepeat(c.getSrc(), h))
      return;
  }
  h.base = v3;
  h.unbatched = true;
}

/// An operand of attention's products back to its stored heads, before any widening.
Heads heads::traceHeads(Value v3) {
  Heads h;
  traceHeads3(v3, h);
  if (Operation *r = h.base.getDefiningOp();
      isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(r))
    if (Value narrow = getWidenedFrom(r->getOperand(0))) {
      h.reshape = r;
      h.base = narrow;
    }
  return h;
}

/// The shape of the stored heads as attention reads them (before a leading unit batch).
static ArrayRef<int64_t> storedShape(const Heads &h) {
  Value v = h.reshape ? h.reshape->getResult(0) : h.base;
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// The stored heads of one operand, as coda.attention reads them (rank 4).
Value heads::headsOperand(OpBuilder &b, Location loc, const Heads &h) {
  Type element = getElementTypeOrSelf(h.base.getType());
  Value v = h.base;
  if (auto e = dyn_cast_or_null<tensor::ExpandShapeOp>(h.reshape))
    v = tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(storedShape(h), element), v,
                                      e.getReassociationIndices());
  else if (auto c = dyn_cast_or_null<tensor::CollapseShapeOp>(h.reshape))
    v = tensor::CollapseShapeOp::create(b, loc, RankedTensorType::get(storedShape(h), element), v,
                                        c.getReassociationIndices());
  if (!h.unbatched)
    return v;
  SmallVector<int64_t> shape{1};
  llvm::append_range(shape, storedShape(h));
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, element), v,
                                       SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
}

/// Dimension sizes [B, H] of stored heads; nullopt when they are not heads of rank 4 (3
/// unbatched).
std::optional<std::pair<int64_t, int64_t>> heads::batchAndHeads(const Heads &h) {
  ArrayRef<int64_t> shape = storedShape(h);
  if (shape.size() != (h.unbatched ? 3u : 4u))
    return std::nullopt;
  if (h.unbatched)
    return std::make_pair(int64_t(1), shape[h.layout == AttentionLayout::BHSD ? 0 : 1]);
  return std::make_pair(shape[0], shape[h.layout == AttentionLayout::BHSD ? 1 : 2]);
}
