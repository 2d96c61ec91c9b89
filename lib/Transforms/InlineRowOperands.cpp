//===- InlineRowOperands.cpp - per-row statistics into the epilogue -------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAINLINEROWOPERANDS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// `[M]` or `[M, 1]`: a per-row vector as torch-mlir's keepdim reductions produce it.
static bool isRowShaped(RankedTensorType type, int64_t m) {
  return (type.getRank() == 1 && type.getDimSize(0) == m) ||
         (type.getRank() == 2 && type.getDimSize(0) == m && type.getDimSize(1) == 1);
}

/// The elementwise generic computing a row operand from row and scalar inputs, or null.
static linalg::GenericOp rowProducer(Value operand, OperandRole role, int64_t m) {
  Value v = operand;
  if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>())
    v = collapse.getSrc();
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g->getNumResults() != 1 || g.getNumReductionLoops() != 0 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
    return nullptr;
  auto outType = cast<RankedTensorType>(g->getResult(0).getType());
  if (role == OperandRole::Row ? !isRowShaped(outType, m) : outType.getRank() != 0)
    return nullptr;
  for (OpOperand *in : g.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    AffineMap map = g.getMatchingIndexingMap(in);
    bool scalar = type && type.getRank() == 0 && map.getNumResults() == 0;
    bool row = type && type == outType && map.isIdentity();
    if (!scalar && !row)
      return nullptr;
  }
  Block *body = g.getBody();
  for (Operation &op : body->without_terminator()) {
    if (isa<linalg::IndexOp>(op) || op.getNumRegions() || !isMemoryEffectFree(&op))
      return nullptr;
    for (Value o : op.getOperands())
      if (o.getParentBlock() != body && !matchPattern(o, m_Constant()))
        return nullptr;
  }
  return g;
}

namespace {
struct CodaInlineRowOperandsPass
    : coda::impl::CodaInlineRowOperandsBase<CodaInlineRowOperandsPass> {
  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation().walk([&](GemmOp op) { gemms.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (GemmOp gemm : gemms) {
      if (gemm.isBatched())
        continue;
      bool changed = true;
      while (changed) {
        changed = false;
        for (unsigned i = 0, e = gemm.getExtras().size(); i < e; ++i) {
          OperandRole role = gemm.getRole(i);
          if (role != OperandRole::Row && role != OperandRole::Scalar)
            continue;
          if (linalg::GenericOp producer = rowProducer(gemm.getExtras()[i], role, gemm.getM())) {
            rewriter.setInsertionPoint(gemm);
            SmallVector<Value> inputs;
            SmallVector<OperandRole> roles;
            for (Value in : producer.getDpsInputs()) {
              bool scalar = cast<RankedTensorType>(in.getType()).getRank() == 0;
              inputs.push_back(scalar ? in : toVector(rewriter, gemm.getLoc(), in));
              roles.push_back(scalar ? OperandRole::Scalar : OperandRole::Row);
            }
            gemm = inlineOperandProducer(gemm, i, producer, inputs, roles, rewriter);
            changed = true;
            break;
          }
        }
      }
    }
  }
};
} // namespace
