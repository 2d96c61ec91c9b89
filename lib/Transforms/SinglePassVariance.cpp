//===- SinglePassVariance.cpp - var = E[x²] - E[x]² in fp32 ---------------===//

#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODASINGLEPASSVARIANCE
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;


/// `v = input / k` elementwise with a constant k (captured or inline); returns the input.
static Value matchDivByConstant(Value v, double &k) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  auto div = dyn_cast_or_null<arith::DivFOp>(getSoleBodyOp(g));
  if (!div || g.getNumDpsInputs() != 1 || div.getLhs() != g.getBody()->getArgument(0))
    return nullptr;
  FloatAttr attr;
  if (!matchPattern(div.getRhs(), m_Constant(&attr)))
    return nullptr;
  k = attr.getValueAsDouble();
  return g.getDpsInputs()[0];
}

/// A row sum from zero of a [M, K] value; returns the value.
static Value matchRowSum(Value v) {
  std::optional<Reduction2D> r = matchReduction2D(v.getDefiningOp<linalg::GenericOp>());
  return r && r->dim == ReduceDim::Row && r->combiner == Combiner::Sum && r->startsFromIdentity()
             ? r->input
             : nullptr;
}

/// Builds a row sum of `f(x)` over [M, K] into `outType`, [M, 1] or [M] f32.
static Value buildRowSum(OpBuilder &b, Location loc, Value x, bool squared,
                         RankedTensorType outType) {
  MLIRContext *ctx = b.getContext();
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  Value init = linalg::FillOp::create(
                   b, loc, zero, tensor::EmptyOp::create(b, loc, outType.getShape(), b.getF32Type()).getResult())
                   .getResult(0);
  SmallVector<AffineExpr> row{getAffineDimExpr(0, ctx)};
  if (outType.getRank() == 2)
    row.push_back(getAffineConstantExpr(0, ctx));
  AffineMap rowMap = AffineMap::get(2, 0, row, ctx);
  return linalg::GenericOp::create(
             b, loc, outType, ValueRange{x}, ValueRange{init},
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(2), rowMap},
             {utils::IteratorType::parallel, utils::IteratorType::reduction},
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value v = args[0];
               if (squared)
                 v = arith::MulFOp::create(nb, l, v, v);
               linalg::YieldOp::create(nb, l, ValueRange{arith::AddFOp::create(nb, l, v, args[1])});
             })
      ->getResult(0);
}

/// Rewrites `truncf(sum((x64 - sum(x64)/K)²)/K)` with x64 = extf(x); returns whether it did.
static bool rewriteVariance(linalg::GenericOp trunc, OpBuilder &b) {
  auto truncOp = dyn_cast_or_null<arith::TruncFOp>(getSoleBodyOp(trunc));
  if (!truncOp || trunc.getNumDpsInputs() != 1 ||
      !cast<ShapedType>(trunc->getResult(0).getType()).getElementType().isF32())
    return false;
  double k1, k2;
  Value sumSq = matchDivByConstant(trunc.getDpsInputs()[0], k1);
  Value squares = sumSq ? matchRowSum(sumSq) : nullptr;
  auto sq = squares ? squares.getDefiningOp<linalg::GenericOp>() : linalg::GenericOp();
  auto mul = dyn_cast_or_null<arith::MulFOp>(getSoleBodyOp(sq));
  if (!mul || sq.getNumDpsInputs() != 2 || sq.getDpsInputs()[0] != sq.getDpsInputs()[1])
    return false;
  auto centered = sq.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  auto sub = dyn_cast_or_null<arith::SubFOp>(getSoleBodyOp(centered));
  if (!sub || centered.getNumDpsInputs() != 2)
    return false;
  Value x64 = centered.getDpsInputs()[0];
  Value mean = matchDivByConstant(centered.getDpsInputs()[1], k2);
  if (!mean || matchRowSum(mean) != x64 || k1 != k2)
    return false;
  auto ext = x64.getDefiningOp<linalg::GenericOp>();
  auto extOp = dyn_cast_or_null<arith::ExtFOp>(getSoleBodyOp(ext));
  if (!extOp || ext.getNumDpsInputs() != 1)
    return false;
  Value x = ext.getDpsInputs()[0];
  auto xType = cast<RankedTensorType>(x.getType());
  if (!xType.getElementType().isF32() || xType.getRank() != 2)
    return false;

  // The statistics keep the shape the program gives them: [M, 1] (keepdim) or [M].
  auto outType = cast<RankedTensorType>(trunc->getResult(0).getType());
  if (outType.getDimSize(0) != xType.getDimSize(0) ||
      (outType.getRank() == 2 && outType.getDimSize(1) != 1) || outType.getRank() > 2)
    return false;
  b.setInsertionPoint(trunc);
  Location loc = trunc.getLoc();
  Value sum = buildRowSum(b, loc, x, /*squared=*/false, outType);
  Value sumOfSquares = buildRowSum(b, loc, x, /*squared=*/true, outType);
  AffineMap id = b.getMultiDimIdentityMap(outType.getRank());
  Value var = linalg::GenericOp::create(
                  b, loc, outType, ValueRange{sum, sumOfSquares},
                  ValueRange{tensor::EmptyOp::create(b, loc, outType.getShape(), b.getF32Type())},
                  ArrayRef<AffineMap>{id, id, id},
                  SmallVector<utils::IteratorType>(outType.getRank(),
                                                   utils::IteratorType::parallel),
                  [&](OpBuilder &nb, Location l, ValueRange args) {
                    Value k = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(k1));
                    Value m = arith::DivFOp::create(nb, l, args[0], k);
                    Value m2 = arith::DivFOp::create(nb, l, args[1], k);
                    Value v = arith::SubFOp::create(nb, l, m2, arith::MulFOp::create(nb, l, m, m));
                    linalg::YieldOp::create(nb, l, v);
                  })
                  ->getResult(0);
  trunc->getResult(0).replaceAllUsesWith(var);
  trunc->erase();
  return true;
}

namespace {
struct CodaSinglePassVariancePass
    : coda::impl::CodaSinglePassVarianceBase<CodaSinglePassVariancePass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp g) {
      if (isa_and_nonnull<arith::TruncFOp>(getSoleBodyOp(g)))
        candidates.push_back(g);
    });
    OpBuilder b(&getContext());
    for (linalg::GenericOp g : candidates)
      rewriteVariance(g, b);
    // The f64 two-pass chain is dead now: remove it, consumers first.
    for (Block &block : getOperation().getBody())
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
        if (isa<linalg::LinalgOp, tensor::EmptyOp>(op) && isOpTriviallyDead(&op))
          op.erase();
  }
};
} // namespace
