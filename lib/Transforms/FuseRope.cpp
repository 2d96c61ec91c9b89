//===- FuseRope.cpp - rotate-half RoPE as a pairwise(rotate) epilogue -----===//
//
// torch-mlir writes `rope(x) = x * cos + cat(-x[..., HD/2:], x[..., :HD/2]) * sin` on the
// [H, M, HD] view (expand + transpose) of a projection's columns. In head-local terms:
//
//   out[d]        = x[d] cos[d]               - x[d + HD/2] sin[d]
//   out[d + HD/2] = x[d + HD/2] cos[d + HD/2] + x[d] sin[d + HD/2]        (d < HD/2)
//
// so (d, d + HD/2) is a rotated pair. Permuting each head's weight columns to put the pair at
// columns (2d, 2d + 1) makes it a pairwise(rotate) epilogue; cos and sin, permuted alike, are
// `tiled` operands with period HD. Heads that only meet in q·kᵀ may stay permuted; otherwise
// the kernel writes each pair back into its head's halves (`pairwise(rotate, halves HD)`).
//
// Partial rotary (GPT-NeoX, Phi: rotate the first R columns of each head, pass the rest
// through) slices [0, R) and [R, HD) off each head and concatenates the rotated slice with the
// rest. Its pairs are (d, d + R/2), d < R/2: those are permuted next to each other, the other
// columns stay in place, and the epilogue rotates only the first R columns of each head.
//
//===----------------------------------------------------------------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

#include <set>

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSEROPE
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
/// One rotated column range [c0, c0 + width) of a gemm result, in heads of `hd` columns.
struct RopeRange {
  int64_t c0, width, heads, hd;
  Value cos, sin; // [M, HD] (rotate-half) or [M, HD/2] (interleaved)
  SmallVector<Operation *> ops; // the matched ops, consumers first
  Value rotated;  // the [H, M, HD] (or [M, H, HD]) result of the rotation
  bool interleaved = false; // pairs (2d, 2d + 1): adjacent already, nothing to permute
  /// Heads first ([H, M, HD], after a transpose, as attention reads them) or tokens first
  /// ([M, H, HD], a view of the columns).
  bool headsFirst = true;
  /// A partial rotary's rotated columns [off, off + rot) of each group of `hd` columns: all of
  /// them (off 0, rot hd), the first of a head (Phi), or of q's and k's heads where q, k and v
  /// are interleaved per head (GPT-NeoX: groups of 3 HD, q at 0, k at HD).
  int64_t off = 0, rot = 0;
  /// Reshapes and transposes that both products of the rotation pass through before their sum
  /// (torch-mlir moves them there from [B, H, S, HD] programs); those of the cos side, in order.
  SmallVector<Operation *> layoutAfter;
};
} // namespace


static Operation *singleUser(Value v) {
  return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
}

/// `x op other` elementwise over 3 loops with `x` read by identity and `other` by `otherMap`
/// (null: identity too). Returns the other operand.
template <typename Op>
static Value matchBinary(Operation *user, Value x, std::optional<AffineMap> otherMap) {
  auto g = dyn_cast_or_null<linalg::GenericOp>(user);
  if (!g || g.getNumLoops() != 3 || g.getNumReductionLoops() || g.getNumDpsInputs() != 2 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() || !isa_and_nonnull<Op>(getSoleBodyOp(g)))
    return nullptr;
  OpOperand *a = g.getDpsInputOperand(0), *b = g.getDpsInputOperand(1);
  if (b->get() == x)
    std::swap(a, b);
  if (a->get() != x || !g.getMatchingIndexingMap(a).isIdentity())
    return nullptr;
  AffineMap expected = otherMap ? *otherMap : g.getMatchingIndexingMap(a);
  return g.getMatchingIndexingMap(b) == expected ? b->get() : nullptr;
}

/// The interleaved convention on heads `heads` ([H, M, HD]):
///   x1 = x[..., 0::2], x2 = x[..., 1::2]
///   out = stack(x1 cos - x2 sin, x1 sin + x2 cos, -1).flatten(-2)      (cos, sin: [M, HD/2])
static std::optional<RopeRange> matchInterleaved(Value heads, RopeRange r) {
  MLIRContext *ctx = heads.getContext();
  int64_t h = r.heads, hd = r.hd;
  auto headType = cast<RankedTensorType>(heads.getType());
  int64_t m = headType.getDimSize(1);
  AffineMap table = AffineMap::get(3, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
  tensor::ExtractSliceOp even, odd;
  for (Operation *user : heads.getUsers()) {
    auto s = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!s || s.getStaticSizes() != ArrayRef<int64_t>{h, m, hd / 2} ||
        s.getStaticStrides() != ArrayRef<int64_t>{1, 1, 2})
      return std::nullopt;
    ArrayRef<int64_t> off = s.getStaticOffsets();
    if (off == ArrayRef<int64_t>{0, 0, 0})
      even = s;
    else if (off == ArrayRef<int64_t>{0, 0, 1})
      odd = s;
    else
      return std::nullopt;
  }
  if (!even || !odd)
    return std::nullopt;
  // Two products of each half with a table, combined by a subtraction and an addition.
  auto products = [&](Value half, SmallVector<std::pair<Operation *, Value>> &out) {
    for (Operation *user : half.getUsers()) {
      Value t = matchBinary<arith::MulFOp>(user, half, table);
      if (!t || !user->hasOneUse())
        return false;
      out.push_back({user, t});
    }
    return out.size() == 2;
  };
  SmallVector<std::pair<Operation *, Value>> evenProducts, oddProducts;
  if (!products(even.getResult(), evenProducts) || !products(odd.getResult(), oddProducts))
    return std::nullopt;
  Operation *sub = nullptr, *add = nullptr;
  Value cos, sin;
  for (auto [e, te] : evenProducts)
    for (auto [o, to] : oddProducts) {
      Operation *combine = singleUser(e->getResult(0));
      if (!combine || combine != singleUser(o->getResult(0)))
        continue;
      if (matchBinary<arith::SubFOp>(combine, e->getResult(0), std::nullopt) &&
          cast<linalg::GenericOp>(combine).getDpsInputs()[0] == e->getResult(0)) {
        sub = combine; // x1 cos - x2 sin
        cos = te;
        sin = to;
      } else if (matchBinary<arith::AddFOp>(combine, e->getResult(0), std::nullopt)) {
        add = combine; // x1 sin + x2 cos
        if (te != sin && sin)
          return std::nullopt;
      }
    }
  if (!sub || !add || !cos || !sin)
    return std::nullopt;
  // The addition pairs x1 with sin and x2 with cos.
  for (auto [e, te] : evenProducts)
    if (singleUser(e->getResult(0)) == add && te != sin)
      return std::nullopt;
  for (auto [o, to] : oddProducts)
    if (singleUser(o->getResult(0)) == add && to != cos)
      return std::nullopt;
  // stack(..., -1).flatten(-2): expand both to [.., 1], concat on the last dim, collapse.
  auto e1 = dyn_cast_or_null<tensor::ExpandShapeOp>(singleUser(sub->getResult(0)));
  auto e2 = dyn_cast_or_null<tensor::ExpandShapeOp>(singleUser(add->getResult(0)));
  if (!e1 || !e2)
    return std::nullopt;
  auto concat = dyn_cast_or_null<tensor::ConcatOp>(singleUser(e1.getResult()));
  if (!concat || concat.getDim() != 3 || concat.getInputs().size() != 2 ||
      concat.getInputs()[0] != e1.getResult() || concat.getInputs()[1] != e2.getResult())
    return std::nullopt;
  auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(singleUser(concat.getResult()));
  if (!collapse || collapse.getResultType() != headType)
    return std::nullopt;
  if (cast<RankedTensorType>(cos.getType()).getShape() != ArrayRef<int64_t>{m, hd / 2} ||
      cos.getType() != sin.getType())
    return std::nullopt;
  r.interleaved = true;
  r.cos = cos;
  r.sin = sin;
  r.rotated = collapse.getResult();
  SmallVector<Operation *> ops{collapse, concat, e1, e2, sub, add};
  for (auto [op, t] : evenProducts)
    ops.push_back(op);
  for (auto [op, t] : oddProducts)
    ops.push_back(op);
  ops.append({even, odd});
  r.ops.insert(r.ops.begin(), ops.begin(), ops.end());
  return r;
}

/// A product of `x` with a table read through `table`, or through `view` ([M, 1, HD], an
/// expand_shape of the [M, HD] table); returns the [M, HD] table, and collects single-use views.
static Value matchTableProduct(Operation *user, Value x, AffineMap table,
                               std::optional<AffineMap> view, SmallVectorImpl<Operation *> &views) {
  if (Value t = matchBinary<arith::MulFOp>(user, x, table))
    return t;
  Value viewed = view ? matchBinary<arith::MulFOp>(user, x, *view) : nullptr;
  auto e = viewed ? viewed.getDefiningOp<tensor::ExpandShapeOp>() : nullptr;
  if (!e || e.getReassociationIndices() != SmallVector<ReassociationIndices>{{0}, {1, 2}})
    return nullptr;
  if (e->hasOneUse())
    views.push_back(e);
  return e.getSrc();
}

/// The reshapes and transposes `v` alone passes through, in order; `v` becomes their result.
static SmallVector<Operation *> followLayout(Value &v) {
  SmallVector<Operation *> chain;
  while (Operation *user = singleUser(v)) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, linalg::TransposeOp>(user))
      break;
    chain.push_back(user);
    v = user->getResult(0);
  }
  return chain;
}

/// Whether two layout ops move elements alike.
static bool sameLayout(Operation *a, Operation *b) {
  if (a->getName() != b->getName() || a->getResultTypes() != b->getResultTypes())
    return false;
  if (auto t = dyn_cast<linalg::TransposeOp>(a))
    return t.getPermutation() == cast<linalg::TransposeOp>(b).getPermutation();
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(a))
    return e.getReassociationIndices() == cast<tensor::ExpandShapeOp>(b).getReassociationIndices();
  return cast<tensor::CollapseShapeOp>(a).getReassociationIndices() ==
         cast<tensor::CollapseShapeOp>(b).getReassociationIndices();
}

/// The rotate-half core on `x` (heads of `r.rot` columns):
///   x * cos + cat(-x[..., R/2:], x[..., :R/2]) * sin
/// Sets r.cos, r.sin, r.rotated and r.ops (the matched ops, consumers first).
static bool matchRotateHalf(Value x, function_ref<Value(Operation *, Value)> matchTable,
                            RopeRange &r) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rot = r.rot;
  SmallVector<int64_t> halfSizes(type.getShape());
  halfSizes[2] = rot / 2;
  linalg::GenericOp mulCos;
  tensor::ExtractSliceOp lo, hi;
  for (Operation *user : x.getUsers()) {
    if (auto s = dyn_cast<tensor::ExtractSliceOp>(user)) {
      if (!s.hasUnitStride() || s.getStaticSizes() != ArrayRef<int64_t>(halfSizes))
        return false;
      ArrayRef<int64_t> off = s.getStaticOffsets();
      if (off == ArrayRef<int64_t>{0, 0, 0} && !lo)
        lo = s;
      else if (off == ArrayRef<int64_t>{0, 0, rot / 2} && !hi)
        hi = s;
      else
        return false;
    } else if (Value cos = matchTable(user, x); cos && !mulCos) {
      mulCos = cast<linalg::GenericOp>(user);
      r.cos = cos;
    } else {
      return false;
    }
  }
  if (!mulCos || !lo || !hi || !hi->hasOneUse() || !lo->hasOneUse() || !mulCos->hasOneUse())
    return false;
  auto neg = dyn_cast_or_null<linalg::GenericOp>(singleUser(hi.getResult()));
  if (!neg || neg.getNumDpsInputs() != 1 || !isa_and_nonnull<arith::NegFOp>(getSoleBodyOp(neg)) ||
      !neg.getMatchingIndexingMap(neg.getDpsInputOperand(0)).isIdentity())
    return false;
  auto concat = dyn_cast_or_null<tensor::ConcatOp>(singleUser(neg->getResult(0)));
  if (!concat || concat.getDim() != 2 || concat.getInputs().size() != 2 ||
      concat.getInputs()[0] != neg->getResult(0) || concat.getInputs()[1] != lo.getResult() ||
      !concat->hasOneUse())
    return false;
  Operation *sinUser = singleUser(concat.getResult());
  r.sin = matchTable(sinUser, concat.getResult());
  if (!r.sin || !sinUser->hasOneUse())
    return false;
  Value cosSide = mulCos->getResult(0), sinSide = sinUser->getResult(0);
  SmallVector<Operation *> cosLayout = followLayout(cosSide), sinLayout = followLayout(sinSide);
  if (cosLayout.size() != sinLayout.size() ||
      !llvm::all_of(llvm::zip(cosLayout, sinLayout),
                    [](auto pair) { return sameLayout(std::get<0>(pair), std::get<1>(pair)); }))
    return false;
  Operation *addUser = singleUser(cosSide);
  if (!addUser || addUser != singleUser(sinSide) ||
      !matchBinary<arith::AddFOp>(addUser, cosSide, std::nullopt))
    return false;
  if (r.cos.getType() != r.sin.getType() ||
      cast<RankedTensorType>(r.cos.getType()).getShape() !=
          ArrayRef<int64_t>{r.headsFirst ? type.getDimSize(1) : type.getDimSize(0), rot})
    return false;
  r.rotated = addUser->getResult(0);
  r.ops = {addUser};
  r.ops.append(cosLayout.rbegin(), cosLayout.rend());
  r.ops.append(sinLayout.rbegin(), sinLayout.rend());
  r.ops.append({sinUser, concat, neg, hi, lo, mulCos});
  r.layoutAfter = cosLayout;
  return true;
}

/// Whether `s` slices only the last of three dimensions, with unit strides.
static bool isWithinLastDim(tensor::ExtractSliceOp s) {
  auto source = cast<RankedTensorType>(s.getSourceType());
  return s.hasUnitStride() && s.getStaticOffsets()[0] == 0 && s.getStaticOffsets()[1] == 0 &&
         s.getStaticSizes()[0] == source.getDimSize(0) &&
         s.getStaticSizes()[1] == source.getDimSize(1) &&
         !ShapedType::isDynamic(s.getStaticOffsets()[2]);
}

/// Partial rotary on `head` ([.., .., HD]): cat(rotate(head[..., :R]), head[..., R:]), with
/// `r.off` the head's first column in its group. Sets rot, cos, sin, rotated (the concat) and
/// the ops it matched.
static std::optional<RopeRange> matchPartial(Value head, RopeRange r,
                                             function_ref<Value(Operation *, Value)> matchTable) {
  int64_t hd = cast<RankedTensorType>(head.getType()).getDimSize(2);
  // Exactly the two slices: another reader of the head would see its permuted columns.
  tensor::ExtractSliceOp rotSlice, passSlice;
  for (Operation *user : head.getUsers()) {
    auto s = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!s || !isWithinLastDim(s))
      return std::nullopt;
    tensor::ExtractSliceOp &slot = s.getStaticOffsets()[2] == 0 ? rotSlice : passSlice;
    if (slot)
      return std::nullopt;
    slot = s;
  }
  if (!rotSlice || !passSlice || !passSlice->hasOneUse())
    return std::nullopt;
  int64_t rot = rotSlice.getStaticSizes()[2];
  if (rot % 2 || r.off % 2 || rot >= hd || passSlice.getStaticOffsets()[2] != rot ||
      passSlice.getStaticSizes()[2] != hd - rot)
    return std::nullopt;
  r.rot = rot;
  if (!matchRotateHalf(rotSlice.getResult(), matchTable, r) || !r.layoutAfter.empty())
    return std::nullopt;
  auto concat = dyn_cast_or_null<tensor::ConcatOp>(singleUser(r.rotated));
  if (!concat || concat.getDim() != 2 || concat.getInputs().size() != 2 ||
      concat.getInputs()[0] != r.rotated || concat.getInputs()[1] != passSlice.getResult())
    return std::nullopt;
  r.rotated = concat.getResult();
  r.ops.insert(r.ops.begin(), concat);
  r.ops.append({rotSlice, passSlice});
  return r;
}

/// Matches the rotation on `columns` ([M, width], a gemm result or a slice of one).
static SmallVector<RopeRange> matchRope(Value columns, int64_t c0) {
  MLIRContext *ctx = columns.getContext();
  auto type = cast<RankedTensorType>(columns.getType());
  auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(singleUser(columns));
  if (!expand || expand.getResultType().getRank() != 3 ||
      expand.getReassociationIndices() != SmallVector<ReassociationIndices>{{0}, {1, 2}})
    return {};
  auto transpose = dyn_cast_or_null<linalg::TransposeOp>(singleUser(expand.getResult()));
  if (transpose && transpose.getPermutation() != ArrayRef<int64_t>{1, 0, 2})
    return {};
  bool headsFirst = transpose != nullptr;
  Value heads = headsFirst ? Value(transpose->getResult(0)) : Value(expand.getResult());
  auto headType = cast<RankedTensorType>(heads.getType());
  int64_t h = headType.getDimSize(headsFirst ? 0 : 1), m = headType.getDimSize(headsFirst ? 1 : 0),
          hd = headType.getDimSize(2);
  if (hd % 2 || c0 % hd || m != type.getDimSize(0))
    return {};
  // The tables are [M, HD], read per token and head dimension; tokens-first programs read
  // them through a [M, 1, HD] view.
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx);
  AffineMap table = AffineMap::get(3, 0, {headsFirst ? d1 : d0, d2}, ctx);
  AffineMap tableView = AffineMap::get(3, 0, {d0, getAffineConstantExpr(0, ctx), d2}, ctx);
  SmallVector<Operation *> tableViews;
  auto matchTable = [&](Operation *user, Value x) -> Value {
    return matchTableProduct(user, x, table, headsFirst ? std::nullopt : std::optional(tableView),
                             tableViews);
  };
  SmallVector<Operation *> layoutOps{expand};
  if (headsFirst)
    layoutOps.insert(layoutOps.begin(), transpose);

  RopeRange r{c0, type.getDimSize(1), h, hd, nullptr, nullptr, layoutOps, nullptr};
  r.headsFirst = headsFirst;
  r.rot = hd;
  if (headsFirst)
    if (std::optional<RopeRange> interleaved = matchInterleaved(heads, r))
      return {*interleaved};
  // The matched ranges own the table views and the layout ops too.
  auto tail = [&](SmallVector<RopeRange> found) {
    for (RopeRange &range : found) {
      range.ops.append(tableViews.begin(), tableViews.end());
      range.ops.append(layoutOps.begin(), layoutOps.end());
    }
    return found;
  };
  r.ops.clear();
  if (matchRotateHalf(heads, matchTable, r))
    return tail({r});
  // Partial rotary: cat(rotate(x[..., :R]), x[..., R:]) on each group of HD columns, or on
  // heads sliced out of each group.
  tableViews.clear();
  if (std::optional<RopeRange> partial = matchPartial(heads, r, matchTable))
    return tail({*partial});
  SmallVector<RopeRange> found;
  SmallVector<tensor::ExtractSliceOp> plain;
  for (Operation *user : heads.getUsers()) {
    auto head = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!head || !isWithinLastDim(head))
      return {};
    r.off = head.getStaticOffsets()[2];
    if (std::optional<RopeRange> partial = matchPartial(head.getResult(), r, matchTable)) {
      partial->ops.push_back(head);
      found.push_back(*partial);
    } else {
      plain.push_back(head);
    }
  }
  // Heads read as they are (v) must not hold rotated columns, which the kernel permutes.
  for (tensor::ExtractSliceOp head : plain)
    for (const RopeRange &range : found)
      if (head.getStaticOffsets()[2] < range.off + range.rot &&
          range.off < head.getStaticOffsets()[2] + head.getStaticSizes()[2])
        return {};
  return tail(found);
}

/// Whether column `col` (of the gemm result) is one a range rotates: inside [c0, c0 + width)
/// and, for a partial rotary, among the rotated columns [off, off + rot) of its group.
static Value isRotatedColumn(OpBuilder &b, Location loc, Value col, const RopeRange &r) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  auto cmp = [&](arith::CmpIPredicate p, Value x, int64_t v) {
    return arith::CmpIOp::create(b, loc, p, x, cst(v)).getResult();
  };
  Value inside = arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::uge, col, r.c0),
                                       cmp(arith::CmpIPredicate::ult, col, r.c0 + r.width));
  if (r.rot == r.hd)
    return inside;
  Value within = arith::RemUIOp::create(b, loc, arith::SubIOp::create(b, loc, col, cst(r.c0)),
                                        cst(r.hd));
  inside = arith::AndIOp::create(b, loc, inside, cmp(arith::CmpIPredicate::ult, within, r.off + r.rot));
  return r.off ? arith::AndIOp::create(b, loc, inside, cmp(arith::CmpIPredicate::uge, within, r.off))
               : inside;
}

/// The original column of new column `n`: inside a rotated range, new column off + 2p + odd of
/// a group holds the group's column off + p + odd * R/2 (R = HD, or the rotated columns of a
/// partial rotary); the group's other columns stay in place.
static Value originalColumn(OpBuilder &b, Location loc, Value n, ArrayRef<RopeRange> ranges) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  Value result = n;
  for (const RopeRange &r : ranges) {
    if (r.interleaved)
      continue; // pairs already adjacent
    Value local = arith::SubIOp::create(b, loc, n, cst(r.c0));
    Value group = arith::DivUIOp::create(b, loc, local, cst(r.hd));
    Value within = arith::RemUIOp::create(b, loc, local, cst(r.hd));
    if (r.off)
      within = arith::SubIOp::create(b, loc, within, cst(r.off));
    Value pair = arith::DivUIOp::create(b, loc, within, cst(2));
    Value odd = arith::RemUIOp::create(b, loc, within, cst(2));
    Value paired = arith::AddIOp::create(b, loc, pair,
                                         arith::MulIOp::create(b, loc, odd, cst(r.rot / 2)));
    Value orig = arith::AddIOp::create(
        b, loc, cst(r.c0 + r.off),
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, group, cst(r.hd)), paired));
    result = arith::SelectOp::create(b, loc, isRotatedColumn(b, loc, n, r), orig, result);
  }
  return result;
}

/// A gather `out[..., n, ...] = in[..., perm(n), ...]` along `dim` as a linalg.generic.
static Value gatherAlong(OpBuilder &b, Location loc, Value in, unsigned dim,
                         function_ref<Value(OpBuilder &, Location, Value)> perm,
                         int64_t outSize = ShapedType::kDynamic) {
  auto inType = cast<RankedTensorType>(in.getType());
  SmallVector<int64_t> shape(inType.getShape());
  if (!ShapedType::isDynamic(outSize))
    shape[dim] = outSize;
  auto type = RankedTensorType::get(shape, inType.getElementType());
  unsigned rank = type.getRank();
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{}, ValueRange{empty},
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange) {
               SmallVector<Value> indices;
               for (unsigned d = 0; d < rank; ++d)
                 indices.push_back(linalg::IndexOp::create(nb, l, d));
               indices[dim] = perm(nb, l, indices[dim]);
               linalg::YieldOp::create(nb, l, tensor::ExtractOp::create(nb, l, in, indices).getResult());
             })
      ->getResult(0);
}

/// The weight-preparation function permuting the weight's N dimension.
static func::FuncOp createPermuteWeights(ModuleOp module, RankedTensorType type, unsigned nDim,
                                         ArrayRef<RopeRange> ranges) {
  std::string name = "coda_rope_permute_" + std::to_string(type.getDimSize(0)) + "x" +
                     std::to_string(type.getDimSize(1));
  for (const RopeRange &r : ranges)
  {
    name += "_c" + std::to_string(r.c0) + "w" + std::to_string(r.width) + "d" + std::to_string(r.hd);
    if (r.rot < r.hd)
      name += "o" + std::to_string(r.off) + "r" + std::to_string(r.rot);
  }
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  auto func = func::FuncOp::create(b, loc, name, b.getFunctionType({type}, {type}));
  func.setPrivate();
  func->setAttr(CodaDialect::getWeightPrepAttrName(), b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Value permuted = gatherAlong(b, loc, entry->getArgument(0), nDim,
                               [&](OpBuilder &nb, Location l, Value n) {
                                 return originalColumn(nb, l, n, ranges);
                               });
  func::ReturnOp::create(b, loc, permuted);
  return func;
}

/// Follows `v` ([H, M, HD] heads) through ops that keep the head dimension d intact (copies
/// that broadcast other dimensions, as GQA's repeat_interleave does; elementwise maps that do
/// not depend on the position, as the softmax scale of q; reshapes of the other dimensions, as
/// a [B, S] batch is split off and folded into the heads; transposes) to a linalg.batch_matmul
/// that contracts d. Returns the product and whether v is its left operand; null when v is used
/// any other way.
static std::pair<linalg::BatchMatmulOp, bool> contractedOverHeadDim(Value v) {
  unsigned dPos = 2; // where d is in the current value
  while (true) {
    Operation *user = singleUser(v);
    if (!user)
      return {nullptr, false};
    unsigned rank = cast<RankedTensorType>(v.getType()).getRank();
    if (auto mm = dyn_cast<linalg::BatchMatmulOp>(user)) {
      if (mm.hasUserDefinedMaps())
        return {nullptr, false};
      bool lhs = mm.getDpsInputs()[0] == v;
      // A [B, M, K] x [B, K, N]: K is dim 2 of the left operand and dim 1 of the right one.
      bool contracted = rank == 3 && (lhs ? dPos == 2 : (mm.getDpsInputs()[1] == v && dPos == 1));
      return contracted ? std::make_pair(mm, lhs) : std::make_pair(linalg::BatchMatmulOp(), false);
    }
    if (auto t = dyn_cast<linalg::TransposeOp>(user)) {
      ArrayRef<int64_t> perm = t.getPermutation();
      unsigned next = llvm::find(perm, static_cast<int64_t>(dPos)) - perm.begin();
      dPos = next;
      v = t->getResult(0);
      continue;
    }
    if (auto c = dyn_cast<tensor::CollapseShapeOp>(user)) {
      // d must be a group of its own; it keeps its position among the groups.
      unsigned group = 0;
      bool alone = false;
      for (auto [index, assoc] : llvm::enumerate(c.getReassociationIndices()))
        if (llvm::is_contained(assoc, static_cast<int64_t>(dPos))) {
          group = index;
          alone = assoc.size() == 1;
        }
      if (!alone)
        return {nullptr, false};
      dPos = group;
      v = c.getResult();
      continue;
    }
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(user)) {
      ReassociationIndices group = e.getReassociationIndices()[dPos];
      if (group.size() != 1)
        return {nullptr, false};
      dPos = group.front();
      v = e.getResult();
      continue;
    }
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (!g || g.getNumDpsInputs() != 1 || g->getNumResults() != 1 || g.getNumReductionLoops() ||
        !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
      return {nullptr, false};
    // A copy, or a map of each element alone (no linalg.index): either commutes with any order
    // of d.
    Block *body = g.getBody();
    if (body->getNumArguments() != 2 || !body->getArgument(1).use_empty() ||
        llvm::any_of(body->getOperations(), [](Operation &op) {
          return isa<linalg::IndexOp>(op) || op.getNumRegions() != 0;
        }))
      return {nullptr, false};
    // A broadcast: d is read as some loop dimension, which is where it ends up.
    AffineMap in = g.getMatchingIndexingMap(g.getDpsInputOperand(0));
    auto dim = dyn_cast<AffineDimExpr>(in.getResult(dPos));
    if (!dim)
      return {nullptr, false};
    dPos = dim.getPosition();
    v = g->getResult(0);
  }
}

static bool fuseRope(GemmOp gemm, ModuleOp module, RewriterBase &rewriter) {
  if (gemm.getPairwise() || gemm.isBatched() || gemm->getNumResults() != 1 ||
      !gemm.getMode(0).isStore() || gemm.getN() % 2)
    return false;
  for (unsigned i = 0, e = gemm.getExtras().size(); i < e; ++i)
    if (gemm.getRole(i) == OperandRole::Matrix || gemm.getRole(i) == OperandRole::Tiled)
      return false;
  Value result = gemm->getResult(0);
  int64_t n = gemm.getN();

  // Every reader is a column slice (or the rotation itself on all columns).
  SmallVector<RopeRange> ranges;
  SmallVector<std::pair<int64_t, int64_t>> plainSlices;
  for (Operation *user : result.getUsers()) {
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user)) {
      if (!slice.hasUnitStride() || slice.getStaticOffsets()[0] != 0 ||
          slice.getStaticSizes()[0] != gemm.getM() || ShapedType::isDynamic(slice.getStaticOffsets()[1]))
        return false;
      int64_t c0 = slice.getStaticOffsets()[1];
      SmallVector<RopeRange> found = matchRope(slice.getResult(), c0);
      if (found.empty())
        plainSlices.push_back({c0, slice.getStaticSizes()[1]});
      for (RopeRange &r : found) {
        r.ops.push_back(slice);
        ranges.push_back(r);
      }
      continue;
    }
    SmallVector<RopeRange> found = matchRope(result, 0);
    if (found.empty() || !result.hasOneUse())
      return false;
    ranges.append(found);
  }
  if (ranges.empty())
    return false;
  for (const RopeRange &r : ranges) {
    if (r.cos != ranges.front().cos || r.sin != ranges.front().sin ||
        r.hd != ranges.front().hd || r.rot != ranges.front().rot ||
        r.interleaved != ranges.front().interleaved)
      return false;
    for (auto [c0, width] : plainSlices)
      if (c0 < r.c0 + r.width && r.c0 < c0 + width)
        return false; // something reads rotated columns without the rotation
  }
  for (Value table : {ranges.front().cos, ranges.front().sin})
    if (Operation *def = table.getDefiningOp(); def && !def->isBeforeInBlock(gemm))
      return false;
  // The tables become operands tiled with period HD (or HD/2 for interleaved pairs).

  // Ranges whose rotated heads meet only in a product contracting the head dimension, one as
  // the left and one as the right operand, keep the permuted order: with P the permutation,
  // (q P)(k P)ᵀ = q P Pᵀ kᵀ = q kᵀ since P Pᵀ = I. The others get the original order back.
  DenseSet<unsigned> keepPermuted;
  for (unsigned a = 0; a < ranges.size(); ++a) {
    auto [mmA, lhsA] = contractedOverHeadDim(ranges[a].rotated);
    if (!mmA || !lhsA)
      continue;
    for (unsigned b = 0; b < ranges.size(); ++b) {
      auto [mmB, lhsB] = contractedOverHeadDim(ranges[b].rotated);
      if (b != a && mmB == mmA && !lhsB) {
        keepPermuted.insert(a);
        keepPermuted.insert(b);
      }
    }
  }

  // When some heads must come back in their original order, the kernel writes each rotated
  // pair into its head's halves itself (`halves`): then every head of the product is permuted,
  // rotated or not, which needs ranges of whole heads.
  int64_t hd = ranges.front().hd, rot = ranges.front().rot;
  bool interleaved = ranges.front().interleaved;
  bool halves = false;
  for (unsigned i = 0; i < ranges.size(); ++i)
    halves |= !interleaved && !keepPermuted.contains(i);
  if (halves && llvm::any_of(ranges, [&](const RopeRange &r) { return r.c0 % hd != 0; }))
    return false;
  // The halves layout holds pairs (d, d + HD/2) of whole heads: not those of a partial rotary.
  if (halves && (rot < hd || n % hd != 0))
    return false;
  SmallVector<RopeRange> permuted(ranges);
  if (halves) {
    RopeRange all = ranges.front();
    all.c0 = 0;
    all.width = n;
    permuted.assign({all});
  }

  Location loc = gemm.getLoc();
  rewriter.setInsertionPoint(gemm);
  auto permute = [&](OpBuilder &b, Location l, Value col) {
    return originalColumn(b, l, col, permuted);
  };

  // Rotate-half: weights (run once) and column operands (per call, O(N)) permuted, and the
  // tables permuted within a head: new column 2p + odd holds column p + odd * R/2. A partial
  // rotary's tables ([M, R]) are widened to [M, HD], the columns it passes through reading
  // any table column (the epilogue does not rotate them).
  // Interleaved: nothing moves; the per-pair tables [M, HD/2] are read by both columns of a
  // pair, new column c holding pair c / 2.
  Value weight = gemm.getB();
  if (!interleaved) {
    unsigned nDim = gemm.getTransposeB() ? 0 : 1;
    func::FuncOp prep = createPermuteWeights(
        module, cast<RankedTensorType>(gemm.getB().getType()), nDim, permuted);
    weight = func::CallOp::create(rewriter, loc, prep, ValueRange{gemm.getB()}).getResult(0);
  }
  SmallVector<Value> extras;
  SmallVector<OperandRole> roles;
  for (unsigned i = 0, e = gemm.getExtras().size(); i < e; ++i) {
    Value v = gemm.getExtras()[i];
    if (gemm.getRole(i) == OperandRole::Col && !interleaved)
      v = gatherAlong(rewriter, loc, v, 0, permute);
    extras.push_back(v);
    roles.push_back(gemm.getRole(i));
  }
  std::set<int64_t> offsets;
  for (const RopeRange &r : ranges)
    if (r.off)
      offsets.insert(r.off);
  auto tableColumn = [&](OpBuilder &b, Location l, Value col) {
    auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v).getResult(); };
    if (interleaved)
      return arith::DivUIOp::create(b, l, col, cst(2)).getResult();
    // The column within its rotated columns (any table column for the others).
    for (int64_t off : offsets) {
      Value in = arith::AndIOp::create(
          b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, col, cst(off)),
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, col, cst(off + rot)));
      col = arith::SelectOp::create(b, l, in, arith::SubIOp::create(b, l, col, cst(off)), col);
    }
    Value pair = arith::DivUIOp::create(b, l, col, cst(2));
    if (rot < hd)
      pair = arith::RemUIOp::create(b, l, pair, cst(rot / 2));
    Value odd = arith::RemUIOp::create(b, l, col, cst(2));
    return arith::AddIOp::create(b, l, pair, arith::MulIOp::create(b, l, odd, cst(rot / 2)))
        .getResult();
  };
  for (Value table : {ranges.front().cos, ranges.front().sin}) {
    extras.push_back(gatherAlong(rewriter, loc, table, 1, tableColumn, hd));
    roles.push_back(OperandRole::Tiled);
  }

  auto rotated = GemmOp::create(
      rewriter, loc, TypeRange{result.getType()}, gemm.getA(), weight, extras, roles,
      ValueRange{}, {gemm.getMode(0)}, gemm.getTransposeA(), gemm.getTransposeB(),
      PairwiseMode::Rotate, [&](OpBuilder &b, Location l, ValueRange args) {
        Value row = args[args.size() - 2], pair = args[args.size() - 1];
        Value two = arith::ConstantIndexOp::create(b, l, 2);
        Value one = arith::ConstantIndexOp::create(b, l, 1);
        Value evenCol = arith::MulIOp::create(b, l, pair, two);
        Value oddCol = arith::AddIOp::create(b, l, evenCol, one);
        // The original epilogue on each column of the pair, at its original column index.
        auto original = [&](unsigned side, Value column) {
          Block &body = gemm.getEpilogue().front();
          IRMapping mapping;
          mapping.map(body.getArgument(0), args[side]);
          unsigned next = 2;
          for (unsigned i = 0, e = gemm.getExtras().size(); i < e; ++i) {
            unsigned count = roles[i] == OperandRole::Col ? 2 : 1;
            mapping.map(gemm.getExtraArgs(i).front(), args[next + (count == 2 ? side : 0)]);
            next += count;
          }
          mapping.map(gemm.getRowIndexArg(), row);
          mapping.map(gemm.getColIndexArg(), originalColumn(b, l, column, permuted));
          for (Operation &op : body.without_terminator())
            b.clone(op, mapping);
          return mapping.lookup(cast<YieldOp>(body.getTerminator()).getValues()[0]);
        };
        Value x0 = original(0, evenCol), x1 = original(1, oddCol);
        unsigned tables = args.size() - 6;
        // Tables may be bf16: the rotation is computed in fp32.
        auto f32 = [&](Value v) { return castFloatTo(b, l, v, b.getF32Type()); };
        Value cos0 = f32(args[tables]), cos1 = f32(args[tables + 1]),
              sin0 = f32(args[tables + 2]), sin1 = f32(args[tables + 3]);
        Value r0 = arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, x0, cos0),
                                         arith::MulFOp::create(b, l, x1, sin0));
        Value r1 = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, x1, cos1),
                                         arith::MulFOp::create(b, l, x0, sin1));
        Value inside = arith::ConstantIntOp::create(b, l, b.getI1Type(), 0);
        for (const RopeRange &r : ranges) {
          Value in = isRotatedColumn(b, l, evenCol, r);
          inside = arith::OrIOp::create(b, l, inside, in);
        }
        YieldOp::create(b, l, ValueRange{arith::SelectOp::create(b, l, inside, r0, x0),
                                         arith::SelectOp::create(b, l, inside, r1, x1)});
      });
  if (halves)
    rotated.setHalvesAttr(rewriter.getI64IntegerAttr(hd));
  if (auto bytes = gemm->getAttrOfType<DenseI64ArrayAttr>(kUnfusedBytesAttr)) {
    Traffic before{bytes[0], bytes[1]};
    for (const RopeRange &r : ranges)
      for (Operation *op : r.ops)
        if (isKernel(op))
          before += kernelTraffic(op);
    rotated->setAttr(kUnfusedBytesAttr, rewriter.getDenseI64ArrayAttr({before.read, before.written}));
  }

  // Readers of rotated heads get them from the new result; unless kept permuted or written
  // into halves, in the original head order: even columns hold the first half of a head, odd
  // columns the second.
  Value rotatedColumns = rotated->getResult(0);
  for (auto [index, r] : llvm::enumerate(ranges)) {
    rewriter.setInsertionPointAfter(r.rotated.getDefiningOp());
    Type element = cast<RankedTensorType>(r.rotated.getType()).getElementType();
    Value cols = rotatedColumns;
    if (r.width != n)
      cols = tensor::ExtractSliceOp::create(
          rewriter, loc, rotatedColumns, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), rewriter.getIndexAttr(r.c0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(gemm.getM()), rewriter.getIndexAttr(r.width)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)});
    auto expandedType = RankedTensorType::get({gemm.getM(), r.heads, r.hd}, element);
    Value expanded = tensor::ExpandShapeOp::create(rewriter, loc, expandedType, cols,
                                                   SmallVector<ReassociationIndices>{{0}, {1, 2}});
    Value heads = expanded;
    if (r.headsFirst)
      heads = linalg::TransposeOp::create(
                  rewriter, loc, expanded,
                  tensor::EmptyOp::create(rewriter, loc, {r.heads, gemm.getM(), r.hd}, element),
                  ArrayRef<int64_t>{1, 0, 2})
                  ->getResult(0);
    // A head sliced out of each group (q or k among q, k and v).
    if (int64_t width = cast<RankedTensorType>(r.rotated.getType()).getDimSize(2);
        r.layoutAfter.empty() && width != r.hd) {
      auto type = cast<RankedTensorType>(heads.getType());
      heads = tensor::ExtractSliceOp::create(
          rewriter, loc, heads,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), rewriter.getIndexAttr(0),
                                 rewriter.getIndexAttr(r.off)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(type.getDimSize(0)),
                                 rewriter.getIndexAttr(type.getDimSize(1)),
                                 rewriter.getIndexAttr(width)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1), rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(1)});
    }
    for (Operation *op : r.layoutAfter) {
      IRMapping mapping;
      mapping.map(op->getOperand(0), heads);
      heads = rewriter.clone(*op, mapping)->getResult(0);
    }
    rewriter.replaceAllUsesWith(r.rotated, heads);
  }
  // Ops several ranges share (the view of a projection whose heads hold q, k and v) go once
  // unused; those something else still reads (v) stay, reading the new result.
  llvm::SetVector<Operation *> matched;
  for (const RopeRange &r : ranges)
    matched.insert(r.ops.begin(), r.ops.end());
  SmallVector<Operation *> pending(matched.begin(), matched.end());
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : pending)
      if (op && op->use_empty()) {
        rewriter.eraseOp(op);
        op = nullptr;
        erased = true;
      }
  }
  rewriter.replaceAllUsesWith(result, rotatedColumns);
  rewriter.eraseOp(gemm);
  return true;
}

namespace {
struct CodaFuseRopePass : coda::impl::CodaFuseRopeBase<CodaFuseRopePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<GemmOp> gemms;
    module.walk([&](GemmOp op) { gemms.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (GemmOp gemm : gemms)
      fuseRope(gemm, module, rewriter);
  }
};
} // namespace
