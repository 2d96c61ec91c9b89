//===- FuseGated.cpp - gate/up projections -> pairwise(contract) ----------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSEGATED
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// A fused projection usable as one branch of a gated activation: one stored result read only
/// by `combine`, per-element operands only as scalars or rows (they do not depend on the
/// column, so pairing columns does not change what they see).
static bool isBranch(GemmOp g, Operation *combine) {
  if (g.getNumResults() != 1 || !g.getMode(0).isStore() || g.getPairwise() || g.isBatched() ||
      !g->getResult(0).hasOneUse() || *g->getResult(0).getUsers().begin() != combine)
    return false;
  for (unsigned i = 0, e = g.getExtras().size(); i < e; ++i)
    if (g.getRole(i) != OperandRole::Scalar && g.getRole(i) != OperandRole::Row)
      return false;
  return true;
}

/// The weight-preparation function interleaving two weights: for B = [K, N] columns, for
/// transposed B = [N, K] rows, so that index 2j comes from `gate` and 2j + 1 from `up`.
static func::FuncOp getOrCreateInterleave(ModuleOp module, RankedTensorType type,
                                          bool transposed) {
  std::string name = "coda_interleave_" + std::to_string(type.getDimSize(0)) + "x" +
                     std::to_string(type.getDimSize(1)) + (transposed ? "_rows" : "_cols");
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  int64_t d0 = type.getDimSize(0), d1 = type.getDimSize(1);
  // transposed: [N, K] -> [N, 2, K] -> [2N, K]; else [K, N] -> [K, N, 2] -> [K, 2N].
  SmallVector<int64_t> pairShape = transposed ? SmallVector<int64_t>{d0, 2, d1}
                                              : SmallVector<int64_t>{d0, d1, 2};
  SmallVector<int64_t> outShape = transposed ? SmallVector<int64_t>{2 * d0, d1}
                                             : SmallVector<int64_t>{d0, 2 * d1};
  auto outType = RankedTensorType::get(outShape, type.getElementType());
  auto func = func::FuncOp::create(b, loc, name, b.getFunctionType({type, type}, {outType}));
  func.setPrivate();
  func->setAttr(CodaDialect::getWeightPrepAttrName(), b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  MLIRContext *ctx = b.getContext();
  AffineExpr x = getAffineDimExpr(0, ctx), y = getAffineDimExpr(1, ctx),
             z = getAffineDimExpr(2, ctx);
  AffineMap in = transposed ? AffineMap::get(3, 0, {x, z}, ctx) : AffineMap::get(3, 0, {x, y}, ctx);
  AffineMap out = AffineMap::getMultiDimIdentityMap(3, ctx);
  unsigned pairDim = transposed ? 1 : 2;
  Value empty = tensor::EmptyOp::create(b, loc, pairShape, type.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, empty.getType(), ValueRange{entry->getArgument(0), entry->getArgument(1)},
      ValueRange{empty}, ArrayRef<AffineMap>{in, in, out},
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value t = linalg::IndexOp::create(nb, l, pairDim);
        Value zero = arith::ConstantIndexOp::create(nb, l, 0);
        Value isGate = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, t, zero);
        linalg::YieldOp::create(nb, l, ValueRange{arith::SelectOp::create(nb, l, isGate, args[0], args[1])});
      });
  SmallVector<ReassociationIndices> reassoc =
      transposed ? SmallVector<ReassociationIndices>{{0, 1}, {2}}
                 : SmallVector<ReassociationIndices>{{0}, {1, 2}};
  Value collapsed = tensor::CollapseShapeOp::create(b, loc, outType, generic.getResult(0), reassoc);
  func::ReturnOp::create(b, loc, collapsed);
  return func;
}

/// Tries to merge the two branches read by `combine`.
static bool fuseGated(linalg::GenericOp combine, ModuleOp module) {
  if (combine.getNumLoops() != 2 || combine.getNumReductionLoops() != 0 ||
      combine->getNumResults() != 1 ||
      !combine.getMatchingIndexingMap(combine.getDpsInitOperand(0)).isIdentity() ||
      combine.payloadUsesValueFromOperand(combine.getDpsInitOperand(0)))
    return false;
  GemmOp gate, up;
  SmallVector<std::pair<OpOperand *, OperandRole>> others;
  for (OpOperand *operand : combine.getDpsInputOperands()) {
    AffineMap map = combine.getMatchingIndexingMap(operand);
    if (auto g = operand->get().getDefiningOp<GemmOp>(); g && map.isIdentity()) {
      if (!gate)
        gate = g;
      else if (!up && g != gate)
        up = g;
      else
        return false;
      continue;
    }
    // Other operands must not depend on the column: scalars and rows.
    if (map.getNumResults() == 0)
      others.push_back({operand, OperandRole::Scalar});
    else if (map.getNumResults() == 1 && map.getResult(0) == getAffineDimExpr(0, map.getContext()) &&
             cast<ShapedType>(operand->get().getType()).getRank() == 1)
      others.push_back({operand, OperandRole::Row});
    else
      return false;
  }
  if (!gate || !up || !isBranch(gate, combine) || !isBranch(up, combine) ||
      gate.getA() != up.getA() || gate.getTransposeA() != up.getTransposeA() ||
      gate.getTransposeB() != up.getTransposeB() || gate.getB().getType() != up.getB().getType())
    return false;
  for (auto &[operand, role] : others)
    if (Operation *def = operand->get().getDefiningOp();
        def && !def->isBeforeInBlock(gate) && !def->isBeforeInBlock(up))
      return false;

  OpBuilder b(combine);
  Location loc = combine.getLoc();
  func::FuncOp interleave = getOrCreateInterleave(
      module, cast<RankedTensorType>(gate.getB().getType()), gate.getTransposeB());
  Value weight = func::CallOp::create(b, loc, interleave, ValueRange{gate.getB(), up.getB()})
                     .getResult(0);

  // Operands of both branches and of the combination, each once.
  EpilogueOperands operands;
  SmallVector<unsigned> gateArgs, upArgs, otherArgs;
  for (unsigned i = 0, e = gate.getExtras().size(); i < e; ++i)
    gateArgs.push_back(operands.add(gate.getExtras()[i], gate.getRole(i)));
  for (unsigned i = 0, e = up.getExtras().size(); i < e; ++i)
    upArgs.push_back(operands.add(up.getExtras()[i], up.getRole(i)));
  for (auto &[operand, role] : others)
    otherArgs.push_back(operands.add(operand->get(), role));
  SmallVector<Value> &extras = operands.values;
  SmallVector<OperandRole> &roles = operands.roles;
  Type resultType = combine->getResult(0).getType();
  auto merged = GemmOp::create(
      b, loc, TypeRange{resultType}, gate.getA(), weight, extras, roles, ValueRange{},
      {ResultModeAttr::get(b.getContext(), ResultKind::Store)}, gate.getTransposeA(),
      gate.getTransposeB(), PairwiseMode::Contract,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value row = args[args.size() - 2], pair = args[args.size() - 1];
        ValueRange extraArgs = args.slice(2, extras.size());
        // Runs a branch's epilogue on its accumulator; returns its stored value.
        auto inlineBranch = [&](GemmOp g, Value acc, ArrayRef<unsigned> argIndex) {
          Block &body = g.getEpilogue().front();
          IRMapping mapping;
          mapping.map(body.getArgument(0), acc);
          for (unsigned i = 0, e = g.getExtras().size(); i < e; ++i)
            mapping.map(g.getExtraArgs(i).front(), extraArgs[argIndex[i]]);
          mapping.map(g.getRowIndexArg(), row);
          mapping.map(g.getColIndexArg(), pair);
          for (Operation &op : body.without_terminator())
            nb.clone(op, mapping);
          Value yielded = mapping.lookup(cast<YieldOp>(body.getTerminator()).getValues()[0]);
          // The branch stored its value in its result's element type: keep that rounding.
          Type stored = cast<ShapedType>(g->getResult(0).getType()).getElementType();
          return castFloatTo(nb, l, yielded, stored);
        };
        Value gateValue = inlineBranch(gate, args[0], gateArgs);
        Value upValue = inlineBranch(up, args[1], upArgs);
        unsigned nextOther = 0;
        IRMapping mapping;
        Block *body = combine.getBody();
        for (OpOperand *operand : combine.getDpsInputOperands()) {
          BlockArgument arg = body->getArgument(operand->getOperandNumber());
          if (operand->get().getDefiningOp() == gate.getOperation())
            mapping.map(arg, gateValue);
          else if (operand->get().getDefiningOp() == up.getOperation())
            mapping.map(arg, upValue);
          else
            mapping.map(arg, extraArgs[otherArgs[nextOther++]]);
        }
        Value out = cloneElementwiseBody(nb, combine, mapping, row, pair);
        YieldOp::create(nb, l, ValueRange{castFloatTo(nb, l, out, nb.getF32Type())});
      });
  if (auto g = gate->getAttrOfType<DenseI64ArrayAttr>(kUnfusedBytesAttr))
    if (auto u = up->getAttrOfType<DenseI64ArrayAttr>(kUnfusedBytesAttr)) {
      Traffic before{g[0] + u[0], g[1] + u[1]};
      before += kernelTraffic(combine);
      merged->setAttr(kUnfusedBytesAttr, b.getDenseI64ArrayAttr({before.read, before.written}));
    }
  combine->getResult(0).replaceAllUsesWith(merged->getResult(0));
  combine->erase();
  gate->erase();
  up->erase();
  return true;
}

namespace {
struct CodaFuseGatedPass : coda::impl::CodaFuseGatedBase<CodaFuseGatedPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::GenericOp> candidates;
    module.walk([&](linalg::GenericOp op) {
      if (!op->getParentOfType<func::FuncOp>()->hasAttr(CodaDialect::getWeightPrepAttrName()))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates)
      fuseGated(op, module);
  }
};
} // namespace
