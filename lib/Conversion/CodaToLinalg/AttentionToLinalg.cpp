//===- AttentionToLinalg.cpp - coda.attention as linalg ---------*- C++ -*-===//
//
// The definition of what a coda.attention computes, written as linalg on tensors over the
// head-major score space [B, Hq, Sq, Sk], whatever the operands' layout:
//
//   1. s = Q · Kᵀ in fp32, K's head h·Hkv/Hq       (linalg.generic, a contraction)
//   2. s = visible ? score(scale · s, b, h, i, j)   (elementwise: the score region inlined,
//          : -inf                                    the mask as index arithmetic, a runtime
//                                                    mask read from its blocks and bits)
//   3. m = max_j s, p = exp(s - m), l = Σ_j p       (a row with no visible key: m = -inf, p = 0)
//   4. O = (p · V) / l in Q's layout, lse = m + log l (0 and -inf for rows that see nothing)
//
// Clarity wins over speed here: this is what coda-run executes to check rewrites.
//
//===----------------------------------------------------------------------===//

#include "coda/Conversion/CodaToLinalg/CodaToLinalg.h"
#include "coda/Dialect/Coda/IR/CodaOps.h"

#include "mlir/IR/IRMapping.h"

#include <limits>

using namespace mlir;
using namespace mlir::coda;

namespace {
using utils::IteratorType;

/// Builds the generics of one coda.attention.
class AttentionBuilder {
public:
  AttentionBuilder(OpBuilder &b, AttentionOp op)
      : b(b), op(op), loc(op.getLoc()), ctx(b.getContext()), f32(b.getF32Type()) {}

  SmallVector<Value> build() {
    k = op.getPages() ? gatherPages(op.getK()) : op.getK();
    v = op.getPages() ? gatherPages(op.getV()) : op.getV();
    Value scores = contractQK();
    Value masked = scoreAndMask(scores);
    Value rowMax = reduceRows(masked, -std::numeric_limits<double>::infinity(), /*max=*/true);
    Value probs = exponentiate(masked, rowMax);
    Value rowSum = reduceRows(probs, 0.0, /*max=*/false);
    Value weighted = contractPV(probs);
    SmallVector<Value> results{normalize(weighted, rowSum)};
    if (op.getLse())
      results.push_back(logSumExp(rowMax, rowSum));
    return results;
  }

private:
  OpBuilder &b;
  AttentionOp op;
  Location loc;
  MLIRContext *ctx;
  Type f32;
  Value k, v; // the keys and values, a paged cache's gathered per sequence

  /// A paged cache as contiguous sequences in the op's layout ([B, Hkv, Sk, d] or
  /// [B, Sk, Hkv, d]): key j of sequence b from row j mod page of page table[b, j / page].
  Value gatherPages(Value pool) {
    auto poolType = cast<RankedTensorType>(pool.getType());
    unsigned seq = op.getSeqDim(), heads = op.getHeadDim();
    SmallVector<int64_t> shape(poolType.getShape());
    shape[0] = op.getBatchSize();
    shape[seq] = op.getKeyLen();
    int64_t page = op.getPageSize();
    Value init = tensor::EmptyOp::create(b, loc, shape, poolType.getElementType());
    SmallVector<AffineMap> maps{
        AffineMap::get(4, 0, {dim(0), dim(seq).floorDiv(page)}, ctx),
        AffineMap::getMultiDimIdentityMap(4, ctx)};
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{op.getPages()}, ValueRange{init}, maps,
               SmallVector<IteratorType>(4, IteratorType::parallel),
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 SmallVector<Value> at(4);
                 at[0] = arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[0]);
                 Value j = linalg::IndexOp::create(nb, l, seq);
                 at[seq] = arith::RemUIOp::create(nb, l, j,
                                                  arith::ConstantIndexOp::create(nb, l, page));
                 at[heads] = linalg::IndexOp::create(nb, l, heads);
                 at[3] = linalg::IndexOp::create(nb, l, 3);
                 linalg::YieldOp::create(nb, l, tensor::ExtractOp::create(nb, l, pool, at).getResult());
               })
        .getResult(0);
  }

  AffineExpr dim(unsigned i) { return getAffineDimExpr(i, ctx); }

  /// An operand's indexing in its layout, from the head-major indices (b, h, s, c); h is the
  /// query head, mapped to its KV head for K and V.
  AffineMap operandMap(unsigned numLoops, unsigned bd, unsigned hd, unsigned sd, unsigned cd,
                       bool kv) {
    AffineExpr h = dim(hd);
    if (kv)
      h = h.floorDiv(op.getNumHeads() / op.getNumKvHeads());
    SmallVector<AffineExpr> exprs{dim(bd), h, dim(sd), dim(cd)};
    if (!op.isHeadMajor())
      std::swap(exprs[1], exprs[2]);
    return AffineMap::get(numLoops, 0, exprs, ctx);
  }

  Value filled(ArrayRef<int64_t> shape, double value) {
    Value init = tensor::EmptyOp::create(b, loc, shape, f32);
    Value cst = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
    return linalg::FillOp::create(b, loc, cst, init).getResult(0);
  }

  Value widen(OpBuilder &nb, Value v) {
    return v.getType() == f32 ? v : arith::ExtFOp::create(nb, loc, f32, v).getResult();
  }

  SmallVector<int64_t> scoreShape() {
    return {op.getBatchSize(), op.getNumHeads(), op.getQueryLen(), op.getKeyLen()};
  }
  SmallVector<int64_t> rowShape() {
    return {op.getBatchSize(), op.getNumHeads(), op.getQueryLen()};
  }

  /// Loops (b, h, i, j, c): s[b, h, i, j] += Q[b, h, i, c] · K[b, g, j, c].
  Value contractQK() {
    Value init = filled(scoreShape(), 0.0);
    SmallVector<AffineMap> maps{operandMap(5, 0, 1, 2, 4, false), operandMap(5, 0, 1, 3, 4, true),
                                AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)};
    SmallVector<IteratorType> iterators(4, IteratorType::parallel);
    iterators.push_back(IteratorType::reduction);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{op.getQ(), k}, ValueRange{init}, maps,
               iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value prod = arith::MulFOp::create(nb, l, widen(nb, args[0]), widen(nb, args[1]));
                 linalg::YieldOp::create(nb, l, arith::AddFOp::create(nb, l, args[2], prod).getResult());
               })
        .getResult(0);
  }

  /// Whether key j is visible to query i of sequence b (see #coda.mask), as index arithmetic.
  Value visible(OpBuilder &nb, Value i, Value j, Value len) {
    MaskAttr mask = op.getMaskOrDense();
    auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(nb, loc, v).getResult(); };
    auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
      return arith::CmpIOp::create(nb, loc, p, x, y).getResult();
    };
    // Null stands for "true" until a part restricts.
    auto both = [&](Value x, Value y) {
      return x ? arith::AndIOp::create(nb, loc, x, y).getResult() : y;
    };
    auto either = [&](Value x, Value y) { return arith::OrIOp::create(nb, loc, x, y).getResult(); };
    using P = arith::CmpIPredicate;
    // The query's position among the keys: bottom-right aligned (at the cache's length with a
    // cache), or top-left with padded lengths.
    Value n = len ? arith::IndexCastOp::create(nb, loc, nb.getIndexType(), len).getResult() : Value();
    Value r = op.getLens() ? i
              : op.getCacheLens()
                  ? arith::AddIOp::create(nb, loc, i,
                                          arith::SubIOp::create(nb, loc, n, cst(op.getQueryLen())))
                        .getResult()
                  : arith::AddIOp::create(nb, loc, i, cst(op.getKeyLen() - op.getQueryLen()))
                        .getResult();
    Value band;
    Value causal = mask.getCausal() ? cmp(P::sle, j, r) : Value();
    if (causal)
      band = both(band, causal);
    if (mask.getLeft() >= 0)
      band = both(band, cmp(P::sge, j, arith::SubIOp::create(nb, loc, r, cst(mask.getLeft()))));
    if (mask.getRight() >= 0)
      band = both(band, cmp(P::sle, j, arith::AddIOp::create(nb, loc, r, cst(mask.getRight()))));
    if (mask.getDilation() > 1) {
      Value distance = arith::SubIOp::create(nb, loc, r, j);
      Value rem = arith::RemSIOp::create(nb, loc, distance, cst(mask.getDilation()));
      band = both(band, cmp(P::eq, rem, cst(0)));
    }
    if (mask.getChunk() > 0) {
      Value c = cst(mask.getChunk());
      band = both(band, cmp(P::eq, arith::FloorDivSIOp::create(nb, loc, j, c),
                            arith::FloorDivSIOp::create(nb, loc, r, c)));
    }
    Value seen = band ? band : arith::ConstantIntOp::create(nb, loc, 1, 1).getResult();
    if (mask.getSinks() > 0) {
      Value sink = cmp(P::slt, j, cst(mask.getSinks()));
      seen = either(seen, causal ? both(sink, causal) : sink);
    }
    if (mask.getGlobal() > 0)
      seen = either(seen, either(cmp(P::slt, j, cst(mask.getGlobal())),
                                 cmp(P::slt, r, cst(mask.getGlobal()))));
    if (op.getLens())
      seen = both(seen, both(cmp(P::slt, j, n), cmp(P::slt, i, n)));
    if (op.getCacheLens())
      seen = both(seen, both(cmp(P::slt, j, n), cmp(P::sge, r, cst(0))));
    return seen;
  }

  /// A runtime mask at key j: its tile's class is 1, or 2 with bit j mod 32 of `word` set.
  Value runtimeVisible(OpBuilder &nb, Value cls, Value word, Value j) {
    auto i8 = [&](int64_t v) { return arith::ConstantIntOp::create(nb, loc, v, 8).getResult(); };
    auto i32 = [&](int64_t v) { return arith::ConstantIntOp::create(nb, loc, v, 32).getResult(); };
    using P = arith::CmpIPredicate;
    Value full = arith::CmpIOp::create(nb, loc, P::eq, cls, i8(1));
    Value partial = arith::CmpIOp::create(nb, loc, P::eq, cls, i8(2));
    Value shift = arith::RemUIOp::create(
        nb, loc, arith::IndexCastOp::create(nb, loc, nb.getI32Type(), j), i32(32));
    Value bit = arith::AndIOp::create(nb, loc, arith::ShRUIOp::create(nb, loc, word, shift), i32(1));
    Value set = arith::CmpIOp::create(nb, loc, P::ne, bit, i32(0));
    return arith::OrIOp::create(nb, loc, full, arith::AndIOp::create(nb, loc, partial, set));
  }

  /// Loops (b, h, i, j): the scaled score through the score region, -inf where masked.
  Value scoreAndMask(Value scores) {
    SmallVector<Value> inputs{scores};
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    SmallVector<AffineMap> maps{id};
    if (Value lens = op.getSequenceLens()) {
      inputs.push_back(lens);
      maps.push_back(AffineMap::get(4, 0, {dim(0)}, ctx));
    }
    // A runtime mask: the class of (i, j)'s tile and the word of bits holding key j.
    if (Value blocks = op.getBlocks()) {
      auto type = cast<RankedTensorType>(blocks.getType());
      AffineExpr mb = type.getDimSize(0) == 1 ? getAffineConstantExpr(0, ctx) : dim(0);
      AffineExpr mh = type.getDimSize(1) == 1 ? getAffineConstantExpr(0, ctx) : dim(1);
      int64_t tile = AttentionOp::kMaskTile;
      inputs.append({blocks, op.getBits()});
      maps.push_back(AffineMap::get(4, 0, {mb, mh, dim(2).floorDiv(tile), dim(3).floorDiv(tile)}, ctx));
      maps.push_back(AffineMap::get(4, 0, {mb, mh, dim(2), dim(3).floorDiv(32)}, ctx));
    }
    maps.push_back(id);
    Value init = tensor::EmptyOp::create(b, loc, scoreShape(), f32);
    SmallVector<IteratorType> iterators(4, IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 SmallVector<Value> idx;
                 for (unsigned d = 0; d < 4; ++d)
                   idx.push_back(linalg::IndexOp::create(nb, l, d));
                 Value scale = arith::ConstantOp::create(nb, l, op.getScaleAttr());
                 Value s = arith::MulFOp::create(nb, l, args[0], scale);
                 if (!op.getScore().empty()) {
                   Block &body = op.getScore().front();
                   IRMapping mapping;
                   mapping.map(body.getArgument(0), s);
                   for (unsigned d = 0; d < 4; ++d)
                     mapping.map(body.getArgument(d + 1), idx[d]);
                   for (Operation &inner : body.without_terminator())
                     nb.clone(inner, mapping);
                   s = mapping.lookup(cast<YieldOp>(body.getTerminator()).getValues()[0]);
                 }
                 Value seen =
                     visible(nb, idx[2], idx[3], op.getSequenceLens() ? args[1] : Value());
                 if (op.getBlocks()) {
                   unsigned at = op.getSequenceLens() ? 2 : 1;
                   seen = arith::AndIOp::create(nb, l, seen,
                                                runtimeVisible(nb, args[at], args[at + 1], idx[3]));
                 }
                 Value minusInf = arith::ConstantOp::create(
                     nb, l, nb.getF32FloatAttr(-std::numeric_limits<double>::infinity()));
                 linalg::YieldOp::create(nb, l,
                                         arith::SelectOp::create(nb, l, seen, s, minusInf).getResult());
                 // Indices neither the mask nor the score region reads.
                 for (Value index : idx)
                   if (index.use_empty())
                     index.getDefiningOp()->erase();
               })
        .getResult(0);
  }

  /// Loops (b, h, i, j) with j reduced: the row maximum or the row sum.
  Value reduceRows(Value values, double initValue, bool max) {
    Value init = filled(rowShape(), initValue);
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(4, ctx),
                                AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx)};
    SmallVector<IteratorType> iterators(3, IteratorType::parallel);
    iterators.push_back(IteratorType::reduction);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{values}, ValueRange{init}, maps, iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value r = max ? arith::MaximumFOp::create(nb, l, args[0], args[1]).getResult()
                               : arith::AddFOp::create(nb, l, args[0], args[1]).getResult();
                 linalg::YieldOp::create(nb, l, r);
               })
        .getResult(0);
  }

  Value isMinusInf(OpBuilder &nb, Value m) {
    Value minusInf = arith::ConstantOp::create(
        nb, loc, nb.getF32FloatAttr(-std::numeric_limits<double>::infinity()));
    return arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::OEQ, m, minusInf);
  }

  /// p = exp(s - m), and 0 in a row that sees no key (m = -inf).
  Value exponentiate(Value masked, Value rowMax) {
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    SmallVector<AffineMap> maps{id, AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx), id};
    Value init = tensor::EmptyOp::create(b, loc, scoreShape(), f32);
    SmallVector<IteratorType> iterators(4, IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{masked, rowMax}, ValueRange{init}, maps,
               iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value e = math::ExpOp::create(nb, l, arith::SubFOp::create(nb, l, args[0], args[1]));
                 Value zero = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0.0));
                 linalg::YieldOp::create(
                     nb, l, arith::SelectOp::create(nb, l, isMinusInf(nb, args[1]), zero, e).getResult());
               })
        .getResult(0);
  }

  /// Loops (b, h, i, e, j): o[b, h, i, e] += p[b, h, i, j] · V[b, g, j, e].
  Value contractPV(Value probs) {
    Value init = filled({op.getBatchSize(), op.getNumHeads(), op.getQueryLen(), op.getValueSize()},
                        0.0);
    SmallVector<AffineMap> maps{AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(4)}, ctx),
                                operandMap(5, 0, 1, 4, 3, true),
                                AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)};
    SmallVector<IteratorType> iterators(4, IteratorType::parallel);
    iterators.push_back(IteratorType::reduction);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{probs, v}, ValueRange{init}, maps,
               iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value prod = arith::MulFOp::create(nb, l, args[0], widen(nb, args[1]));
                 linalg::YieldOp::create(nb, l, arith::AddFOp::create(nb, l, args[2], prod).getResult());
               })
        .getResult(0);
  }

  /// Loops (b, h, i, e): O = o / l in Q's layout and element type; 0 where l = 0.
  Value normalize(Value weighted, Value rowSum) {
    RankedTensorType outType = op.getOut().getType();
    Value init = tensor::EmptyOp::create(b, loc, outType.getShape(), outType.getElementType());
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    SmallVector<AffineExpr> outExprs{dim(0), dim(1), dim(2), dim(3)};
    if (!op.isHeadMajor())
      std::swap(outExprs[1], outExprs[2]);
    SmallVector<AffineMap> maps{id, AffineMap::get(4, 0, {dim(0), dim(1), dim(2)}, ctx),
                                AffineMap::get(4, 0, outExprs, ctx)};
    SmallVector<IteratorType> iterators(4, IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, outType, ValueRange{weighted, rowSum}, ValueRange{init}, maps, iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value zero = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0.0));
                 Value empty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, args[1], zero);
                 Value o = arith::SelectOp::create(
                     nb, l, empty, zero, arith::DivFOp::create(nb, l, args[0], args[1]));
                 Type elem = outType.getElementType();
                 if (elem != f32)
                   o = arith::TruncFOp::create(nb, l, elem, o);
                 linalg::YieldOp::create(nb, l, o);
               })
        .getResult(0);
  }

  /// Loops (b, h, i): lse = m + log l, -inf in a row that sees no key.
  Value logSumExp(Value rowMax, Value rowSum) {
    AffineMap id = AffineMap::getMultiDimIdentityMap(3, ctx);
    Value init = tensor::EmptyOp::create(b, loc, rowShape(), f32);
    SmallVector<IteratorType> iterators(3, IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{rowMax, rowSum}, ValueRange{init},
               ArrayRef<AffineMap>{id, id, id}, iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value lse = arith::AddFOp::create(nb, l, args[0], math::LogOp::create(nb, l, args[1]));
                 linalg::YieldOp::create(
                     nb, l,
                     arith::SelectOp::create(nb, l, isMinusInf(nb, args[0]), args[0], lse).getResult());
               })
        .getResult(0);
  }
};
} // namespace

LogicalResult mlir::coda::expandAttentionOp(RewriterBase &rewriter, AttentionOp op) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  rewriter.replaceOp(op, AttentionBuilder(rewriter, op).build());
  return success();
}

/// A paged append: loops over the pool's pages (n, row, h, c) and, reduced, over the new rows
/// (b, t): the element takes new row t of sequence b where that row's position pos[b] + t
/// (inside the capacity) lies at this row of this page, and keeps its value elsewhere.
static void expandPagedAppend(RewriterBase &rewriter, AppendOp op) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  unsigned seq = op.getSeqDim(), heads = op.getHeadDim();
  // Loops: d0..d3 over the pool, d4 = b, d5 = t; new rows [B, H, Sn, d] or [B, Sn, H, d].
  SmallVector<AffineExpr> rowsExprs{d(4), d(heads), d(5), d(3)};
  if (!op.isHeadMajor())
    std::swap(rowsExprs[1], rowsExprs[2]);
  AffineExpr posExpr = op.hasSharedPosition() ? getAffineConstantExpr(0, ctx) : d(4);
  SmallVector<AffineMap> maps{AffineMap::get(6, 0, rowsExprs, ctx), AffineMap::get(6, 0, {posExpr}, ctx),
                              AffineMap::get(6, 0, {d(0), d(1), d(2), d(3)}, ctx)};
  SmallVector<IteratorType> iterators(4, IteratorType::parallel);
  iterators.append(2, IteratorType::reduction);
  int64_t page = op.getCache().getType().getDimSize(seq), capacity = op.getCapacity();
  Value table = op.getPages();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, op.getCache().getType(), ValueRange{op.getNewRows(), op.getPos()},
      ValueRange{op.getCache()}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        using P = arith::CmpIPredicate;
        auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(nb, l, v).getResult(); };
        Value b = linalg::IndexOp::create(nb, l, 4), t = linalg::IndexOp::create(nb, l, 5);
        Value p = arith::AddIOp::create(
            nb, l, arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[1]), t);
        Value inside = arith::AndIOp::create(nb, l, arith::CmpIOp::create(nb, l, P::sge, p, cst(0)),
                                             arith::CmpIOp::create(nb, l, P::slt, p, cst(capacity)));
        Value clamped = arith::MinSIOp::create(nb, l, arith::MaxSIOp::create(nb, l, p, cst(0)),
                                               cst(capacity - 1));
        Value slot = tensor::ExtractOp::create(
            nb, l, table, ValueRange{b, arith::DivUIOp::create(nb, l, clamped, cst(page))});
        Value onPage = arith::CmpIOp::create(
            nb, l, P::eq, arith::IndexCastOp::create(nb, l, nb.getIndexType(), slot),
            linalg::IndexOp::create(nb, l, 0));
        Value onRow = arith::CmpIOp::create(nb, l, P::eq, arith::RemUIOp::create(nb, l, clamped, cst(page)),
                                            linalg::IndexOp::create(nb, l, seq));
        Value here = arith::AndIOp::create(nb, l, inside, arith::AndIOp::create(nb, l, onPage, onRow));
        linalg::YieldOp::create(nb, l, arith::SelectOp::create(nb, l, here, args[0], args[2]).getResult());
      });
  rewriter.replaceOp(op, generic.getResult(0));
}

LogicalResult mlir::coda::expandAppendOp(RewriterBase &rewriter, AppendOp op) {
  // Loops over the cache: row j of sequence b takes new row t = j - pos[b] where 0 <= t < Sn,
  // and keeps the cache's row elsewhere.
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  if (op.getPages()) {
    expandPagedAppend(rewriter, op);
    return success();
  }
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  RankedTensorType type = op.getCache().getType();
  AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
  AffineExpr posExpr =
      op.hasSharedPosition() ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(0, ctx);
  SmallVector<AffineMap> maps{id, AffineMap::get(4, 0, {posExpr}, ctx), id};
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
  unsigned seq = op.getSeqDim();
  int64_t rows = op.getNumNewRows();
  Value newRows = op.getNewRows();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, type, ValueRange{op.getCache(), op.getPos()}, ValueRange{init}, maps,
      SmallVector<IteratorType>(4, IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> idx;
        for (unsigned d = 0; d < 4; ++d)
          idx.push_back(linalg::IndexOp::create(nb, l, d));
        Value pos = arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[1]);
        Value t = arith::SubIOp::create(nb, l, idx[seq], pos);
        Value zero = arith::ConstantIndexOp::create(nb, l, 0);
        Value last = arith::ConstantIndexOp::create(nb, l, rows - 1);
        using P = arith::CmpIPredicate;
        Value inside = arith::AndIOp::create(
            nb, l, arith::CmpIOp::create(nb, l, P::sge, t, zero),
            arith::CmpIOp::create(nb, l, P::sle, t, last));
        // Read a clamped row (always in bounds), keep it only inside the new rows.
        SmallVector<Value> at(idx);
        at[seq] = arith::MinSIOp::create(nb, l, arith::MaxSIOp::create(nb, l, t, zero), last);
        Value fresh = tensor::ExtractOp::create(nb, l, newRows, at);
        linalg::YieldOp::create(nb, l, arith::SelectOp::create(nb, l, inside, fresh, args[0]).getResult());
      });
  rewriter.replaceOp(op, generic.getResult(0));
  return success();
}
