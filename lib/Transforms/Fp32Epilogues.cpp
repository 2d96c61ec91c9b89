//===- Fp32Epilogues.cpp - narrow epilogue arithmetic in fp32 -------------===//
//
// In every coda.gemm epilogue, each arith/math op on bf16 or f16 floats is recomputed in fp32
// from the fp32 values of its operands: the value a narrow value stands for is the f32 one it
// was rounded from (arith.truncf), or its widening otherwise. Widenings of narrow values then
// read those fp32 values, and the narrow chain, unused, is erased. The region yields fp32
// already, so a value is rounded once, where a result stores it. Math functions of narrow
// values get fastmath `afn`: their result needed only the narrow type's accuracy.
//
//===----------------------------------------------------------------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFP32EPILOGUES
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

static bool isNarrowFloat(Type t) { return t.isBF16() || t.isF16(); }

/// An elementwise arith/math op on narrow floats that has an fp32 form of the same name:
/// float operands and results all narrow (an i1 result for comparisons; other non-float
/// operands, such as a select's condition or fpowi's exponent, pass through).
static bool isPromotable(Operation &op) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) || op.getNumRegions() ||
      op.getNumResults() != 1 || isa<arith::TruncFOp, arith::ExtFOp, arith::ConstantOp>(op))
    return false;
  bool narrow = false;
  for (Value v : op.getOperands()) {
    if (isa<FloatType>(v.getType()) && !isNarrowFloat(v.getType()))
      return false;
    narrow |= isNarrowFloat(v.getType());
  }
  Type result = op.getResult(0).getType();
  return narrow && (isNarrowFloat(result) || (result.isInteger(1) && isa<arith::CmpFOp>(op)));
}

static void promoteEpilogue(GemmOp gemm) {
  Block &body = gemm.getEpilogue().front();
  OpBuilder b(gemm.getContext());
  Type f32 = b.getF32Type();
  DenseMap<Value, Value> wide; // narrow value -> the fp32 value it stands for
  auto wideOf = [&](Value v, Location loc) -> Value {
    if (Value w = wide.lookup(v))
      return w;
    // A narrow argument or constant: its widening (an f32 constant of the same value), made
    // once, right after it is defined.
    OpBuilder::InsertionGuard guard(b);
    if (auto arg = dyn_cast<BlockArgument>(v))
      b.setInsertionPointToStart(&body);
    else
      b.setInsertionPointAfter(v.getDefiningOp());
    FloatAttr constant;
    Value w = matchPattern(v, m_Constant(&constant))
                  ? arith::ConstantOp::create(
                        b, loc, b.getF32FloatAttr(constant.getValue().convertToFloat()))
                        .getResult()
                  : arith::ExtFOp::create(b, loc, f32, v).getResult();
    wide[v] = w;
    return w;
  };
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
      if (trunc.getIn().getType().isF32() && isNarrowFloat(trunc.getType()))
        wide[trunc.getResult()] = trunc.getIn();
      continue;
    }
    if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
      if (!ext.getType().isF32() || !isNarrowFloat(ext.getIn().getType()))
        continue;
      if (Value w = wide.lookup(ext.getIn())) {
        ext.getResult().replaceAllUsesWith(w);
        ext.erase();
      } else {
        wide[ext.getIn()] = ext.getResult(); // a widening of an argument: the value itself
      }
      continue;
    }
    if (!isPromotable(op))
      continue;
    b.setInsertionPoint(&op);
    SmallVector<Value> operands;
    for (Value v : op.getOperands())
      operands.push_back(isNarrowFloat(v.getType()) ? wideOf(v, op.getLoc()) : v);
    Type result = op.getResult(0).getType();
    OperationState state(op.getLoc(), op.getName(), operands,
                         TypeRange{isNarrowFloat(result) ? f32 : result}, op.getAttrs());
    Operation *promoted = b.create(state);
    // A function of a narrow value needs no more than the narrow result's accuracy.
    if (auto fastmath = dyn_cast<arith::ArithFastMathInterface>(promoted);
        fastmath && isa<math::MathDialect>(promoted->getDialect()))
      promoted->setAttr(fastmath.getFastMathAttrName(),
                        arith::FastMathFlagsAttr::get(
                            b.getContext(), fastmath.getFastMathFlagsAttr().getValue() |
                                                arith::FastMathFlags::afn));
    if (isNarrowFloat(result))
      wide[op.getResult(0)] = promoted->getResult(0);
    else
      op.getResult(0).replaceAllUsesWith(promoted->getResult(0));
  }
  // The narrow chain nothing reads any more, from the end.
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isMemoryEffectFree(op))
      op->erase();
}

namespace {
struct CodaFp32EpiloguesPass : coda::impl::CodaFp32EpiloguesBase<CodaFp32EpiloguesPass> {
  void runOnOperation() override {
    getOperation().walk([](GemmOp gemm) { promoteEpilogue(gemm); });
  }
};
} // namespace
