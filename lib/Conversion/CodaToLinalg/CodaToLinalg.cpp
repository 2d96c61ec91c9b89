//===- CodaToLinalg.cpp - coda ops as linalg (their meaning) ----*- C++ -*-===//
//
// The definition of what a coda.gemm computes, written as linalg on tensors:
//
//   1. acc = A · B in fp32                      (linalg.generic, a contraction)
//   2. the epilogue region at every (i, g)      (linalg.generic over the output; in rotate and
//      and, where two columns are written,       expand mode a trailing dimension t of size 2
//      every t in {0, 1}                          picks the even or odd yielded value)
//   3. store / accumulate conversions           (inside the same linalg.generic)
//   4. a reduction per reduce result            (linalg.generic with a reduction iterator)
//
// Clarity wins over speed here: this is what coda-run executes to check rewrites.
//
//===----------------------------------------------------------------------===//

#include "coda/Conversion/CodaToLinalg/CodaToLinalg.h"
#include "coda/Dialect/Coda/IR/CodaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

namespace mlir::coda {
#define GEN_PASS_DEF_CODAEXPAND
#include "coda/Conversion/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

//===----------------------------------------------------------------------===//
// Small builders
//===----------------------------------------------------------------------===//

static Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type elementType) {
  return tensor::EmptyOp::create(b, loc, shape, elementType);
}

static Value filledF32Tensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, double value) {
  Value init = emptyTensor(b, loc, shape, b.getF32Type());
  Value cst = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  return linalg::FillOp::create(b, loc, cst, init).getResult(0);
}

/// Converts a float scalar between float types (round to nearest even when narrowing).
static Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() > cast<FloatType>(to).getWidth())
    return arith::TruncFOp::create(b, loc, to, v);
  return arith::ExtFOp::create(b, loc, to, v);
}

/// [..., N] -> [..., N/2, 2]: the two columns of each pair become a trailing dimension.
static Value splitLastDim(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t last = shape.back();
  shape.back() = last / 2;
  shape.push_back(2);
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t d = 0; d + 1 < type.getRank(); ++d)
    reassoc.push_back({d});
  reassoc.push_back({type.getRank() - 1, type.getRank()});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, reassoc);
}

/// [..., G, 2] -> [..., 2G]: the inverse of splitLastDim.
static Value mergeLastTwoDims(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t d = 0; d + 2 < type.getRank(); ++d)
    reassoc.push_back({d});
  reassoc.push_back({type.getRank() - 2, type.getRank() - 1});
  return tensor::CollapseShapeOp::create(b, loc, v, reassoc);
}

//===----------------------------------------------------------------------===//
// 1. The contraction
//===----------------------------------------------------------------------===//

static Value buildContraction(OpBuilder &b, Location loc, GemmOp op) {
  MLIRContext *ctx = b.getContext();
  unsigned nb = op.isBatched() ? 1 : 0;
  // Loops: (batch?, m, n, k).
  AffineExpr bd = getAffineDimExpr(0, ctx);
  AffineExpr m = getAffineDimExpr(nb, ctx), n = getAffineDimExpr(nb + 1, ctx),
             k = getAffineDimExpr(nb + 2, ctx);
  auto withBatch = [&](std::initializer_list<AffineExpr> exprs) {
    SmallVector<AffineExpr> all;
    if (nb)
      all.push_back(bd);
    all.append(exprs);
    return AffineMap::get(nb + 3, 0, all, ctx);
  };
  AffineMap aMap = op.getTransposeA() ? withBatch({k, m}) : withBatch({m, k});
  AffineMap bMap = op.getTransposeB() ? withBatch({n, k}) : withBatch({k, n});
  AffineMap cMap = withBatch({m, n});

  SmallVector<int64_t> shape;
  if (nb)
    shape.push_back(op.getBatchSize());
  shape.append({op.getM(), op.getN()});
  Value init = filledF32Tensor(b, loc, shape, 0.0);

  SmallVector<utils::IteratorType> iterators(nb + 2, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto contraction = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{op.getA(), op.getB()}, ValueRange{init},
      ArrayRef<AffineMap>{aMap, bMap, cMap}, iterators,
      [](OpBuilder &nb, Location loc, ValueRange args) {
        Type f32 = nb.getF32Type();
        Value prod = arith::MulFOp::create(nb, loc, castFloat(nb, loc, args[0], f32),
                                           castFloat(nb, loc, args[1], f32));
        Value sum = arith::AddFOp::create(nb, loc, args[2], prod);
        linalg::YieldOp::create(nb, loc, sum);
      });
  return contraction.getResult(0);
}

//===----------------------------------------------------------------------===//
// 2-3. The epilogue over every output element
//===----------------------------------------------------------------------===//

namespace {
/// Iteration space of the epilogue: (batch?, i, g[, t]) where g is the column (or column-pair)
/// index and t, present when two output columns are written per invocation, selects one.
struct EpilogueSpace {
  unsigned nb;     // 1 with a batch dimension
  bool hasT;       // two output columns per invocation
  unsigned numLoops;
  MLIRContext *ctx;

  AffineExpr dim(unsigned d) const { return getAffineDimExpr(d, ctx); }
  AffineExpr batch() const { return dim(0); }
  AffineExpr row() const { return dim(nb); }
  AffineExpr group() const { return dim(nb + 1); }
  AffineExpr t() const { return dim(nb + 2); }

  AffineMap map(ArrayRef<AffineExpr> exprs, bool withBatch) const {
    SmallVector<AffineExpr> all;
    if (withBatch && nb)
      all.push_back(batch());
    all.append(exprs.begin(), exprs.end());
    return AffineMap::get(numLoops, 0, all, ctx);
  }
};
} // namespace

/// Adds the epilogue inputs that feed `count` region arguments reading `tensor`: with count 2
/// the tensor's last dimension is split into pairs and the region arguments read column 2g and
/// 2g+1; otherwise element g (or the row or scalar, through `exprs`).
static void addPairedInput(OpBuilder &b, Location loc, const EpilogueSpace &space, Value tensor,
                           ArrayRef<AffineExpr> exprs, unsigned count,
                           SmallVectorImpl<Value> &inputs, SmallVectorImpl<AffineMap> &maps) {
  // A batched product's operand without a batch dimension is read by every batch.
  bool withBatch = cast<ShapedType>(tensor.getType()).getRank() > static_cast<int64_t>(exprs.size());
  if (count == 1) {
    inputs.push_back(tensor);
    maps.push_back(space.map(exprs, withBatch));
    return;
  }
  Value split = splitLastDim(b, loc, tensor);
  for (int64_t column = 0; column < 2; ++column) {
    SmallVector<AffineExpr> withColumn(exprs.begin(), exprs.end());
    withColumn.push_back(getAffineConstantExpr(column, b.getContext()));
    inputs.push_back(split);
    maps.push_back(space.map(withColumn, withBatch));
  }
}

/// Builds the elementwise linalg.generic. Returns, per coda result, the full [.., M, N_out]
/// tensor: the final value for store and accumulate results, the fp32 values to reduce for
/// reduce results.
static SmallVector<Value> buildEpilogue(OpBuilder &b, Location loc, GemmOp op, Value acc) {
  MLIRContext *ctx = b.getContext();
  unsigned inArity = op.getInArity(), outArity = op.getOutArity();
  EpilogueSpace space;
  space.nb = op.isBatched() ? 1 : 0;
  space.hasT = outArity == 2;
  space.numLoops = space.nb + 2 + (space.hasT ? 1 : 0);
  space.ctx = ctx;

  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  addPairedInput(b, loc, space, acc, {space.row(), space.group()}, inArity, inputs, maps);
  for (auto [index, extra] : llvm::enumerate(op.getExtras())) {
    OperandRole role = op.getRole(index);
    unsigned count = op.getNumRegionArgsForRole(role);
    switch (role) {
    case OperandRole::Scalar:
      inputs.push_back(extra);
      maps.push_back(AffineMap::get(space.numLoops, 0, {}, ctx));
      break;
    case OperandRole::Row:
      addPairedInput(b, loc, space, extra, {space.row()}, count, inputs, maps);
      break;
    case OperandRole::Col:
      addPairedInput(b, loc, space, extra, {space.group()}, count, inputs, maps);
      break;
    case OperandRole::Matrix:
      addPairedInput(b, loc, space, extra, {space.row(), space.group()}, count, inputs, maps);
      break;
    case OperandRole::Tiled: {
      // Column j reads column j mod T; with pairs, pair g reads pair g mod T/2.
      int64_t period = cast<ShapedType>(extra.getType()).getShape().back() / count;
      addPairedInput(b, loc, space, extra, {space.row(), space.group() % period}, count, inputs,
                     maps);
      break;
    }
    }
  }
  unsigned numInputs = inputs.size();

  // One output per result, shaped [.., M, G(, 2)].
  SmallVector<int64_t> outShape;
  if (space.nb)
    outShape.push_back(op.getBatchSize());
  outShape.append({op.getM(), op.getN() / inArity});
  if (space.hasT)
    outShape.push_back(2);
  SmallVector<AffineExpr> outExprs{space.row(), space.group()};
  if (space.hasT)
    outExprs.push_back(space.t());
  AffineMap outMap = space.map(outExprs, /*withBatch=*/true);

  SmallVector<Value> outputs;
  SmallVector<Type> outputTypes;
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r) {
    ResultModeAttr mode = op.getMode(r);
    Value out;
    if (mode.isAccumulate())
      out = space.hasT ? splitLastDim(b, loc, op.getInitFor(r)) : op.getInitFor(r);
    else if (mode.isStore())
      out = emptyTensor(b, loc, outShape,
                        cast<ShapedType>(op.getResult(r).getType()).getElementType());
    else
      out = emptyTensor(b, loc, outShape, b.getF32Type());
    outputs.push_back(out);
    outputTypes.push_back(out.getType());
    maps.push_back(outMap);
  }

  SmallVector<utils::IteratorType> iterators(space.numLoops, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, outputTypes, inputs, outputs, maps, iterators,
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        // Region arguments of the coda op: the generic's inputs in order, then i and g.
        Block &epilogue = op.getEpilogue().front();
        IRMapping mapping;
        for (unsigned a = 0; a < numInputs; ++a)
          mapping.map(epilogue.getArgument(a), args[a]);
        if (!op.getRowIndexArg().use_empty())
          mapping.map(op.getRowIndexArg(), linalg::IndexOp::create(nb, loc, space.nb));
        if (!op.getColIndexArg().use_empty())
          mapping.map(op.getColIndexArg(), linalg::IndexOp::create(nb, loc, space.nb + 1));
        for (Operation &inner : epilogue.without_terminator())
          nb.clone(inner, mapping);

        auto yield = cast<YieldOp>(epilogue.getTerminator());
        Value isEven;
        if (space.hasT) {
          Value t = linalg::IndexOp::create(nb, loc, space.nb + 2);
          Value zero = arith::ConstantIndexOp::create(nb, loc, 0);
          isEven = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq, t, zero);
        }
        SmallVector<Value> results;
        for (unsigned r = 0, e = op.getNumResults(); r < e; ++r) {
          Value v = mapping.lookup(yield.getValues()[r * outArity]);
          if (space.hasT)
            v = arith::SelectOp::create(nb, loc, isEven, v,
                                        mapping.lookup(yield.getValues()[r * outArity + 1]));
          Value current = args[numInputs + r];
          ResultModeAttr mode = op.getMode(r);
          if (mode.isAccumulate()) {
            Value sum = arith::AddFOp::create(
                nb, loc, castFloat(nb, loc, current, nb.getF32Type()), v);
            v = castFloat(nb, loc, sum, current.getType());
          } else if (mode.isStore()) {
            v = castFloat(nb, loc, v, current.getType());
          }
          results.push_back(v);
        }
        linalg::YieldOp::create(nb, loc, results);
      });

  SmallVector<Value> full;
  for (Value result : generic.getResults())
    full.push_back(space.hasT ? mergeLastTwoDims(b, loc, result) : result);
  return full;
}

//===----------------------------------------------------------------------===//
// 4. Reductions
//===----------------------------------------------------------------------===//

/// Reduces `values` ([.., M, N_out], f32) along the dimension `dim` does not keep. `extra`,
/// when given, is a tensor shaped like the result read at the kept index (the row maximum, for
/// lse). `body` combines (element, accumulated[, extra]) into the new accumulated value.
static Value buildReduction(
    OpBuilder &b, Location loc, Value values, ReduceDim dim, double initValue, Value extra,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> body) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(values.getType());
  unsigned nb = type.getRank() == 3 ? 1 : 0;
  unsigned keptDim = dim == ReduceDim::Row ? nb : nb + 1;
  unsigned reducedDim = dim == ReduceDim::Row ? nb + 1 : nb;
  unsigned numLoops = nb + 2;

  SmallVector<AffineExpr> keptExprs;
  SmallVector<int64_t> shape;
  if (nb) {
    keptExprs.push_back(getAffineDimExpr(0, ctx));
    shape.push_back(type.getDimSize(0));
  }
  keptExprs.push_back(getAffineDimExpr(keptDim, ctx));
  shape.push_back(type.getDimSize(keptDim));
  AffineMap keptMap = AffineMap::get(numLoops, 0, keptExprs, ctx);

  SmallVector<Value> inputs{values};
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(numLoops, ctx)};
  if (extra) {
    inputs.push_back(extra);
    maps.push_back(keptMap);
  }
  maps.push_back(keptMap);
  SmallVector<utils::IteratorType> iterators(numLoops, utils::IteratorType::parallel);
  iterators[reducedDim] = utils::IteratorType::reduction;

  Value init = filledF32Tensor(b, loc, shape, initValue);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        Value extraArg = extra ? args[1] : Value();
        linalg::YieldOp::create(nb, loc, body(nb, loc, args[0], args.back(), extraArg));
      });
  return generic.getResult(0);
}

/// Elementwise map over two tensors of the same shape.
static Value buildElementwise(OpBuilder &b, Location loc, Value x, Value y,
                              function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  auto type = cast<RankedTensorType>(x.getType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{x, y},
      ValueRange{emptyTensor(b, loc, type.getShape(), type.getElementType())},
      ArrayRef<AffineMap>{id, id, id}, iterators,
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        linalg::YieldOp::create(nb, loc, body(nb, loc, args[0], args[1]));
      });
  return generic.getResult(0);
}

static Value buildReduceResult(OpBuilder &b, Location loc, Value values, ResultModeAttr mode) {
  const double negInf = -std::numeric_limits<double>::infinity();
  ReduceDim dim = mode.getDim();
  auto maxOf = [&]() {
    return buildReduction(b, loc, values, dim, negInf, nullptr,
                          [](OpBuilder &nb, Location loc, Value v, Value accum, Value) -> Value {
                            return arith::MaximumFOp::create(nb, loc, accum, v);
                          });
  };
  switch (mode.getCombiner()) {
  case Combiner::Sum:
    return buildReduction(b, loc, values, dim, 0.0, nullptr,
                          [](OpBuilder &nb, Location loc, Value v, Value accum, Value) -> Value {
                            return arith::AddFOp::create(nb, loc, accum, v);
                          });
  case Combiner::SumSq:
    return buildReduction(b, loc, values, dim, 0.0, nullptr,
                          [](OpBuilder &nb, Location loc, Value v, Value accum, Value) -> Value {
                            Value sq = arith::MulFOp::create(nb, loc, v, v);
                            return arith::AddFOp::create(nb, loc, accum, sq);
                          });
  case Combiner::Max:
    return maxOf();
  case Combiner::LogSumExp: {
    // lse(v) = m + log(sum(exp(v - m))) with m the maximum; an all -inf line shifts by 0 so
    // that it yields -inf rather than NaN.
    auto safeShift = [negInf](OpBuilder &nb, Location loc, Value m) -> Value {
      Value ninf = arith::ConstantOp::create(nb, loc, nb.getF32FloatAttr(negInf));
      Value zero = arith::ConstantOp::create(nb, loc, nb.getF32FloatAttr(0.0));
      Value isNegInf = arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::OEQ, m, ninf);
      return arith::SelectOp::create(nb, loc, isNegInf, zero, m);
    };
    Value max = maxOf();
    Value sum = buildReduction(
        b, loc, values, dim, 0.0, max,
        [&](OpBuilder &nb, Location loc, Value v, Value accum, Value m) -> Value {
          Value shifted = arith::SubFOp::create(nb, loc, v, safeShift(nb, loc, m));
          Value e = math::ExpOp::create(nb, loc, shifted);
          return arith::AddFOp::create(nb, loc, accum, e);
        });
    return buildElementwise(b, loc, max, sum,
                            [&](OpBuilder &nb, Location loc, Value m, Value s) -> Value {
                              Value log = math::LogOp::create(nb, loc, s);
                              return arith::AddFOp::create(nb, loc, log, safeShift(nb, loc, m));
                            });
  }
  }
  llvm_unreachable("unknown combiner");
}

//===----------------------------------------------------------------------===//
// 5. Rotate into halves
//===----------------------------------------------------------------------===//

/// [.., M, N] with pair p of each head of `period` columns at columns 2p, 2p+1 -> the same
/// heads with the pair at columns p and p + period/2: a reshape to [.., M, H, period/2, 2],
/// a transpose of the last two dimensions, and the reshape back.
static Value pairsToHalves(OpBuilder &b, Location loc, Value v, int64_t period) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape().drop_back());
  shape.append({type.getShape().back() / period, period / 2, 2});
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t d = 0; d + 1 < rank; ++d)
    reassoc.push_back({d});
  reassoc.push_back({rank - 1, rank, rank + 1});
  Value pairs = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, reassoc);
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank + 2));
  std::swap(perm[rank], perm[rank + 1]);
  std::swap(shape[rank], shape[rank + 1]);
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  Value halves = linalg::TransposeOp::create(b, loc, pairs, init, perm)->getResult(0);
  return tensor::CollapseShapeOp::create(b, loc, type, halves, reassoc);
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult mlir::coda::expandGemmOp(RewriterBase &rewriter, GemmOp op) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value acc = buildContraction(rewriter, loc, op);
  SmallVector<Value> full = buildEpilogue(rewriter, loc, op, acc);
  SmallVector<Value> replacements;
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r) {
    ResultModeAttr mode = op.getMode(r);
    // (Row reductions see the same values whatever the column order.)
    if (mode.isReduce())
      replacements.push_back(buildReduceResult(rewriter, loc, full[r], mode));
    else if (std::optional<uint64_t> halves = op.getHalves())
      replacements.push_back(pairsToHalves(rewriter, loc, full[r], *halves));
    else
      replacements.push_back(full[r]);
  }
  rewriter.replaceOp(op, replacements);
  return success();
}

namespace {
struct ExpandGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op, PatternRewriter &rewriter) const override {
    return expandGemmOp(rewriter, op);
  }
};

struct ExpandAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op, PatternRewriter &rewriter) const override {
    return expandAttentionOp(rewriter, op);
  }
};

struct ExpandAppend : OpRewritePattern<AppendOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AppendOp op, PatternRewriter &rewriter) const override {
    return expandAppendOp(rewriter, op);
  }
};

struct CodaExpandPass : coda::impl::CodaExpandBase<CodaExpandPass> {
  void runOnOperation() override {
    // A plain walk rather than the greedy driver: only coda ops change, everything else in
    // the program stays exactly as written (no folding, no dead-code removal).
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<GemmOp, AttentionOp, AppendOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      LogicalResult expanded =
          llvm::TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](GemmOp gemm) { return expandGemmOp(rewriter, gemm); })
              .Case([&](AttentionOp attention) { return expandAttentionOp(rewriter, attention); })
              .Case([&](AppendOp append) { return expandAppendOp(rewriter, append); });
      if (failed(expanded))
        return signalPassFailure();
    }
  }
};
} // namespace

void mlir::coda::populateCodaExpandPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandGemm, ExpandAttention, ExpandAppend>(patterns.getContext());
}
