//===- InlineMatrixOperands.cpp - a normalization into its reader ---------===//
//
// A post-norm (BERT's LayerNorm after each residual, Gemma-2's sandwich norms) normalizes a
// kernel's output `h` with row statistics the kernel returned, and the normalized tensor is the
// next kernel's residual: `y = acc + (h − μ) ⊙ r ⊙ γ + β`. The normalization is elementwise over
// `[M, N]` with per-row (μ, r), per-column (γ, β) and matrix (h) inputs, so the reading kernel
// can compute it itself: it reads h, μ, r, γ, β instead of the normalized tensor, and the pass
// that wrote that tensor disappears.
//
//===----------------------------------------------------------------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAINLINEMATRIXOPERANDS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
/// The elementwise generic computing a matrix operand of `gemm` that nothing else reads, with
/// the roles its inputs take in the gemm.
struct MatrixProducer {
  linalg::GenericOp op;
  SmallVector<Value> inputs;
  SmallVector<OperandRole> roles;
};
} // namespace

static std::optional<MatrixProducer> matrixProducer(GemmOp gemm, Value operand,
                                                    RewriterBase &rewriter) {
  auto g = operand.getDefiningOp<linalg::GenericOp>();
  if (!g || !operand.hasOneUse() || g->getNumResults() != 1 || g.getNumLoops() != 2 ||
      g.getNumReductionLoops() != 0 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
    return std::nullopt;
  Block *body = g.getBody();
  for (Operation &op : body->without_terminator()) {
    if (isa<linalg::IndexOp>(op) || op.getNumRegions() || !isMemoryEffectFree(&op))
      return std::nullopt;
    for (Value o : op.getOperands())
      if (o.getParentBlock() != body && !matchPattern(o, m_Constant()))
        return std::nullopt;
  }
  MatrixProducer p{g, {}, {}};
  for (OpOperand *in : g.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    std::optional<SmallVector<unsigned>> dims =
        type ? getReadDims(g.getMatchingIndexingMap(in), type) : std::nullopt;
    if (!dims || !type.hasStaticShape() || !isa<FloatType>(type.getElementType()))
      return std::nullopt;
    OperandRole role;
    if (*dims == ArrayRef<unsigned>{0, 1})
      role = OperandRole::Matrix;
    else if (*dims == ArrayRef<unsigned>{0})
      role = OperandRole::Row;
    else if (*dims == ArrayRef<unsigned>{1})
      role = OperandRole::Col;
    else if (dims->empty() && type.getRank() == 0)
      role = OperandRole::Scalar;
    else
      return std::nullopt;
    // Vectors read through keepdim unit dimensions become the [M] / [N] vectors roles take.
    Value v = in->get();
    if (role == OperandRole::Row || role == OperandRole::Col)
      v = toVector(rewriter, gemm.getLoc(), v);
    if (role == OperandRole::Matrix && type.getRank() != 2)
      return std::nullopt;
    p.inputs.push_back(v);
    p.roles.push_back(role);
  }
  return p;
}

namespace {
struct CodaInlineMatrixOperandsPass
    : coda::impl::CodaInlineMatrixOperandsBase<CodaInlineMatrixOperandsPass> {
  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation().walk([&](GemmOp op) { gemms.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (GemmOp gemm : gemms) {
      // Pairwise kernels read a matrix operand per column of a pair: not one region argument.
      if (gemm.isBatched() || gemm.getPairwise())
        continue;
      bool changed = true;
      while (changed) {
        changed = false;
        for (unsigned i = 0, e = gemm.getExtras().size(); i < e; ++i) {
          if (gemm.getRole(i) != OperandRole::Matrix)
            continue;
          rewriter.setInsertionPoint(gemm);
          std::optional<MatrixProducer> p = matrixProducer(gemm, gemm.getExtras()[i], rewriter);
          if (!p)
            continue;
          gemm = inlineOperandProducer(gemm, i, p->op, p->inputs, p->roles, rewriter);
          changed = true;
          break;
        }
      }
    }
  }
};
} // namespace
