//===- InlineRowOperands.cpp - per-row statistics into the epilogue -------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/Fusion.h"
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

static Value toRowVector(OpBuilder &b, Location loc, Value v) {
  if (cast<RankedTensorType>(v.getType()).getRank() == 1)
    return v;
  return tensor::CollapseShapeOp::create(b, loc, v, SmallVector<ReassociationIndices>{{0, 1}});
}

/// Replaces operand `index` of `gemm` by the inputs of its producer; returns the new gemm.
static GemmOp inlineOperand(GemmOp gemm, unsigned index, linalg::GenericOp producer,
                            RewriterBase &rewriter) {
  Location loc = gemm.getLoc();
  rewriter.setInsertionPoint(gemm);
  SmallVector<Value> extras;
  SmallVector<OperandRole> roles;
  for (unsigned i = 0, e = gemm.getExtras().size(); i < e; ++i)
    if (i != index) {
      extras.push_back(gemm.getExtras()[i]);
      roles.push_back(gemm.getRole(i));
    }
  unsigned firstNew = extras.size();
  for (Value in : producer.getDpsInputs()) {
    bool scalar = cast<RankedTensorType>(in.getType()).getRank() == 0;
    extras.push_back(scalar ? in : toRowVector(rewriter, loc, in));
    roles.push_back(scalar ? OperandRole::Scalar : OperandRole::Row);
  }
  SmallVector<ResultModeAttr> modes;
  for (unsigned r = 0, e = gemm->getNumResults(); r < e; ++r)
    modes.push_back(gemm.getMode(r));
  auto fused = GemmOp::create(
      rewriter, loc, gemm->getResultTypes(), gemm.getA(), gemm.getB(), extras, roles,
      gemm.getInits(), modes, gemm.getTransposeA(), gemm.getTransposeB(), gemm.getPairwise(),
      [&](OpBuilder &b, Location l, ValueRange args) {
        unsigned inArity = gemm.getInArity();
        ValueRange newExtraArgs = args.slice(inArity, args.size() - inArity - 2);
        IRMapping mapping;
        Block &old = gemm.getEpilogue().front();
        for (unsigned a = 0; a < inArity; ++a)
          mapping.map(old.getArgument(a), args[a]);
        mapping.map(gemm.getRowIndexArg(), args[args.size() - 2]);
        mapping.map(gemm.getColIndexArg(), args[args.size() - 1]);
        // Row and scalar operands have one region argument each.
        for (unsigned i = 0, kept = 0, e = gemm.getExtras().size(); i < e; ++i) {
          ValueRange oldArgs = gemm.getExtraArgs(i);
          if (i == index)
            continue;
          unsigned offset = 0;
          for (unsigned j = 0; j < kept; ++j)
            offset += gemm.getNumRegionArgsForRole(roles[j]);
          ValueRange newArgs = newExtraArgs.slice(offset, oldArgs.size());
          for (auto [o, n] : llvm::zip(oldArgs, newArgs))
            mapping.map(o, n);
          ++kept;
        }
        // The producer's body, on the new operands, gives the old operand's value.
        unsigned offset = 0;
        for (unsigned j = 0; j < firstNew; ++j)
          offset += gemm.getNumRegionArgsForRole(roles[j]);
        Block *body = producer.getBody();
        IRMapping inner;
        for (unsigned k = 0, e = producer.getNumDpsInputs(); k < e; ++k)
          inner.map(body->getArgument(k), newExtraArgs[offset + k]);
        for (Operation &op : body->without_terminator()) {
          for (Value o : op.getOperands())
            if (o.getParentBlock() != body && !inner.contains(o))
              inner.map(o, b.clone(*o.getDefiningOp())->getResult(0));
          b.clone(op, inner);
        }
        Value value = inner.lookupOrDefault(
            cast<linalg::YieldOp>(body->getTerminator()).getValues()[0]);
        mapping.map(gemm.getExtraArgs(index).front(), value);
        for (Operation &op : old)
          b.clone(op, mapping);
      });
  fused.setHalvesAttr(gemm.getHalvesAttr());
  for (NamedAttribute attr : gemm->getDiscardableAttrs())
    fused->setAttr(attr.getName(), attr.getValue());
  Value replaced = gemm.getExtras()[index];
  rewriter.replaceOp(gemm, fused->getResults());
  eraseDeadProducers(rewriter, {replaced});
  return fused;
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
            gemm = inlineOperand(gemm, i, producer, rewriter);
            changed = true;
            break;
          }
        }
      }
    }
  }
};
} // namespace
