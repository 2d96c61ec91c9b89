//===- FoldRowStatistics.cpp - norm statistics of A from the kernel -------===//
//
// After the norm reparametrization, RMSNorm → GEMM and LayerNorm → GEMM kernels read per-row
// statistics of their own A (Σx², and Σx for LayerNorm) that a reduction over A computes
// before the kernel: a whole pass over A in memory. Such an operand becomes a `row_sum` /
// `row_sumsq` operand of A, which the kernel computes from the A tiles it streams anyway; the
// reduction goes once nothing else reads it.
//
//===----------------------------------------------------------------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/Fusion.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFOLDROWSTATISTICS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// x·x or x^2 of `v`, or nullptr.
static Value squaredValue(Value v) {
  if (auto mul = v.getDefiningOp<arith::MulFOp>())
    return mul.getLhs() == mul.getRhs() ? mul.getLhs() : nullptr;
  if (auto pow = v.getDefiningOp<math::FPowIOp>()) {
    APInt exponent;
    if (matchPattern(pow.getRhs(), m_ConstantInt(&exponent)) && exponent == 2)
      return pow.getLhs();
  }
  return nullptr;
}

/// Whether `v` is the generic's first block argument (an element of A), widened or not.
static bool isElementOfA(Value v, Block *body) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    v = ext.getIn();
  return v == body->getArgument(0);
}

/// The statistic of A that `operand` holds: the full sum (of squares) over each row of `a`
/// ([M, K]), reduced from zero by a linalg.generic and reshaped to [M]; else nothing.
static std::optional<OperandRole> rowStatisticOf(Value operand, Value a) {
  Value v = operand;
  if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>())
    v = collapse.getSrc();
  auto result = dyn_cast<OpResult>(v);
  auto g = result ? dyn_cast<linalg::GenericOp>(result.getOwner()) : nullptr;
  if (!g || g.getNumDpsInputs() != 1 || g.getDpsInputs()[0] != a || g.getNumLoops() != 2 ||
      g.getNumReductionLoops() != 1 ||
      g.getIteratorTypesArray()[1] != utils::IteratorType::reduction ||
      !g.getMatchingIndexingMap(g.getDpsInputOperand(0)).isIdentity())
    return std::nullopt;
  OpOperand *init = g.getDpsInitOperand(result.getResultNumber());
  AffineMap out = g.getMatchingIndexingMap(init);
  MLIRContext *ctx = g.getContext();
  if (out != AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx) &&
      out != AffineMap::get(2, 0, {getAffineDimExpr(0, ctx), getAffineConstantExpr(0, ctx)}, ctx))
    return std::nullopt;
  auto fill = init->get().getDefiningOp<linalg::FillOp>();
  FloatAttr zero;
  if (!fill || !matchPattern(fill.value(), m_Constant(&zero)) || !zero.getValue().isZero())
    return std::nullopt;
  // The yield: acc + term or term + acc, the term x or x².
  Block *body = g.getBody();
  Value yielded = cast<linalg::YieldOp>(body->getTerminator()).getValues()[result.getResultNumber()];
  auto add = yielded.getDefiningOp<arith::AddFOp>();
  BlockArgument acc = g.getMatchingBlockArgument(init);
  if (!add || (add.getLhs() != acc && add.getRhs() != acc))
    return std::nullopt;
  Value term = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (!term.getType().isF32())
    return std::nullopt;
  if (isElementOfA(term, body))
    return OperandRole::RowSum;
  if (Value x = squaredValue(term); x && isElementOfA(x, body))
    return OperandRole::RowSumSq;
  return std::nullopt;
}

namespace {
struct CodaFoldRowStatisticsPass
    : coda::impl::CodaFoldRowStatisticsBase<CodaFoldRowStatisticsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](GemmOp gemm) {
      Type element = gemm.getA().getType().getElementType();
      if (gemm.isBatched() || gemm.getTransposeA() || !(element.isBF16() || element.isF16()))
        return;
      SmallVector<Attribute> roles(gemm.getRoles().begin(), gemm.getRoles().end());
      SmallVector<Value> replaced;
      for (unsigned i = 0, e = gemm.getExtras().size(); i < e; ++i) {
        if (gemm.getRole(i) != OperandRole::Row)
          continue;
        std::optional<OperandRole> stat = rowStatisticOf(gemm.getExtras()[i], gemm.getA());
        if (!stat)
          continue;
        replaced.push_back(gemm.getExtras()[i]);
        // The region argument stays an f32 per row: only where it comes from changes.
        rewriter.modifyOpInPlace(gemm, [&] {
          gemm.getExtrasMutable()[i].set(gemm.getA());
          roles[i] = OperandRoleAttr::get(&getContext(), *stat);
          gemm.setRolesAttr(rewriter.getArrayAttr(roles));
        });
      }
      eraseDeadProducers(rewriter, replaced);
    });
  }
};
} // namespace
