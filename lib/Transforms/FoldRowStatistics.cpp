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

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFOLDROWSTATISTICS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// The statistic of A that `operand` holds: the f32 sum (of squares) over each row of `a`,
/// reduced from zero by a linalg.generic (possibly one result of several) and reshaped to [M].
static std::optional<OperandRole> rowStatisticOf(Value operand, Value a) {
  Value v = operand;
  if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>())
    v = collapse.getSrc();
  auto result = dyn_cast<OpResult>(v);
  if (!result || !cast<ShapedType>(v.getType()).getElementType().isF32())
    return std::nullopt;
  std::optional<Reduction2D> r =
      matchReductionResult2D(dyn_cast<linalg::GenericOp>(result.getOwner()),
                             result.getResultNumber(), /*normForms=*/true);
  if (!r || r->input != a || r->dim != ReduceDim::Row || !r->startsFromIdentity())
    return std::nullopt;
  if (r->combiner == Combiner::Sum)
    return OperandRole::RowSum;
  if (r->combiner == Combiner::SumSq)
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
