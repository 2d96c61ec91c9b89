//===- KernelQueries.cpp - what a kernel is and what it moves -------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::coda;

static int64_t bytesOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  // An index is 64 bits on every target coda runs on (the CUDA backend stores it as long long).
  Type element = shaped.getElementType();
  int64_t bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  int64_t bytes = (bits + 7) / 8;
  for (int64_t size : shaped.getShape())
    if (llvm::MulOverflow(bytes, size, bytes))
      return std::numeric_limits<int64_t>::max(); // saturates, as Traffic's sums do
  return bytes;
}

bool mlir::coda::isKernel(Operation *op) {
  return isa<GemmOp, AttentionOp, linalg::LinalgOp>(op);
}

bool mlir::coda::isDataMovement(Operation *op) {
  if (isa<linalg::FillOp, linalg::CopyOp, linalg::TransposeOp, linalg::BroadcastOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic)
    return false;
  Block *body = generic.getBody();
  // A gather: index arithmetic and tensor.extract only.
  if (llvm::all_of(body->without_terminator(), [](Operation &inner) {
        return isa<tensor::ExtractOp, linalg::IndexOp, arith::ConstantOp, arith::AddIOp,
                   arith::SubIOp, arith::MulIOp, arith::DivUIOp, arith::RemUIOp, arith::CmpIOp,
                   arith::SelectOp, arith::AndIOp>(inner);
      }) &&
      llvm::any_of(body->without_terminator(),
                   [](Operation &inner) { return isa<tensor::ExtractOp>(inner); }))
    return true;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  return body->getOperations().size() == 1 &&
         llvm::all_of(yield.getValues(), [&](Value v) {
           auto arg = dyn_cast<BlockArgument>(v);
           return arg && arg.getOwner() == body;
         });
}

Traffic mlir::coda::kernelTraffic(Operation *op) {
  Traffic t;
  if (auto gemm = dyn_cast<GemmOp>(op)) {
    Traffic::add(t.read, bytesOf(gemm.getA().getType()));
    Traffic::add(t.read, bytesOf(gemm.getB().getType()));
    for (Value v : gemm.getExtras())
      Traffic::add(t.read, bytesOf(v.getType()));
    for (Value v : gemm.getInits())
      Traffic::add(t.read, bytesOf(v.getType()));
  } else if (isa<AttentionOp>(op)) {
    for (Value v : op->getOperands())
      Traffic::add(t.read, bytesOf(v.getType()));
  } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    for (OpOperand &operand : op->getOpOperands()) {
      // An init that is a fill is never read from memory (a product starting from zero, a
      // reduction from its identity).
      if (linalgOp.isDpsInit(&operand) && (!linalgOp.payloadUsesValueFromOperand(&operand) ||
                                          operand.get().getDefiningOp<linalg::FillOp>()))
        continue;
      Traffic::add(t.read, bytesOf(operand.get().getType()));
    }
  }
  for (Value result : op->getResults())
    Traffic::add(t.written, bytesOf(result.getType()));
  return t;
}

void mlir::coda::eraseDeadProducers(RewriterBase &rewriter, ArrayRef<Value> values,
                                    llvm::function_ref<void(Operation *)> onErase) {
  // Ops, not values, are queued: a value of an erased op must not be looked at again.
  SmallVector<Operation *> work;
  DenseSet<Operation *> erased;
  auto push = [&](Value v) {
    if (Operation *def = v.getDefiningOp())
      work.push_back(def);
  };
  llvm::for_each(values, push);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    // Operands, and values the op's regions capture from outside.
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (!op->isProperAncestor(operand.getParentBlock()->getParentOp()) &&
            operand.getParentBlock()->getParentOp() != op)
          push(operand);
    });
    if (onErase)
      onErase(op);
    erased.insert(op);
    rewriter.eraseOp(op);
  }
}

Operation *mlir::coda::getSoleBodyOp(linalg::GenericOp op) {
  if (!op)
    return nullptr;
  Block *body = op.getBody();
  if (body->getOperations().size() != 2)
    return nullptr;
  Operation *inner = &body->front();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  return yield.getValues().size() == 1 && yield.getValues()[0] == inner->getResult(0) ? inner
                                                                                       : nullptr;
}

std::optional<Reduction2D> mlir::coda::matchReduction2D(linalg::GenericOp op) {
  if (!op)
    return std::nullopt;
  for (unsigned r = 1; r < op->getNumResults(); ++r)
    if (!op->getResult(r).use_empty())
      return std::nullopt;
  return matchReductionResult2D(op, 0, /*normForms=*/false);
}

std::optional<Reduction2D> mlir::coda::matchReductionResult2D(linalg::GenericOp op,
                                                              unsigned result, bool normForms) {
  if (!op || op.getNumLoops() != 2 || op.getNumReductionLoops() != 1 ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() <= result)
    return std::nullopt;
  OpOperand *input = op.getDpsInputOperand(0);
  if (!op.getMatchingIndexingMap(input).isIdentity())
    return std::nullopt;
  ReduceDim dim = op.getIteratorTypesArray()[1] == utils::IteratorType::reduction
                      ? ReduceDim::Row
                      : ReduceDim::Col;
  OpOperand *init = op.getDpsInitOperand(result);
  std::optional<SmallVector<unsigned>> kept = getReadDims(
      op.getMatchingIndexingMap(init), cast<ShapedType>(init->get().getType()));
  if (!kept || *kept != SmallVector<unsigned>{dim == ReduceDim::Row ? 0u : 1u})
    return std::nullopt;

  // The result's combination of the input `in` and the running value `out`.
  Block *body = op.getBody();
  Value in = body->getArgument(0), out = op.getMatchingBlockArgument(init);
  Operation *def =
      cast<linalg::YieldOp>(body->getTerminator()).getValues()[result].getDefiningOp();
  auto isIn = [&](Value x) {
    if (auto ext = x.getDefiningOp<arith::ExtFOp>(); ext && normForms)
      x = ext.getIn();
    return x == in;
  };
  auto isSquareOfIn = [&](Value x) {
    if (auto mul = x.getDefiningOp<arith::MulFOp>())
      return mul.getLhs() == mul.getRhs() && isIn(mul.getLhs());
    APInt exponent;
    auto pow = x.getDefiningOp<math::FPowIOp>();
    return normForms && pow && matchPattern(pow.getRhs(), m_ConstantInt(&exponent)) &&
           exponent == 2 && isIn(pow.getLhs());
  };
  std::optional<Combiner> combiner;
  if (def && def->getNumOperands() == 2 && llvm::is_contained(def->getOperands(), out)) {
    Value other = def->getOperand(0) == out ? def->getOperand(1) : def->getOperand(0);
    if (isa<arith::MaximumFOp>(def) && isIn(other))
      combiner = Combiner::Max;
    else if (isa<arith::AddFOp>(def) && isIn(other))
      combiner = Combiner::Sum;
    else if (isa<arith::AddFOp>(def) && isSquareOfIn(other))
      combiner = Combiner::SumSq;
  }
  if (!combiner)
    return std::nullopt;
  return Reduction2D{input->get(), dim, *combiner, init->get()};
}

bool mlir::coda::Reduction2D::startsFromIdentity() const {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr value;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&value)))
    return false;
  double identity = combiner == Combiner::Max ? -std::numeric_limits<double>::infinity() : 0.0;
  return value.getValueAsDouble() == identity;
}

std::optional<SmallVector<unsigned>> mlir::coda::getReadDims(AffineMap map, ShapedType type) {
  SmallVector<unsigned> dims;
  for (auto [index, expr] : llvm::enumerate(map.getResults())) {
    if (auto cst = dyn_cast<AffineConstantExpr>(expr)) {
      if (cst.getValue() != 0 || type.getDimSize(index) != 1)
        return std::nullopt;
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return std::nullopt;
    dims.push_back(dim.getPosition());
  }
  return dims;
}

Value mlir::coda::getWidenedFrom(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  auto ext = dyn_cast_or_null<arith::ExtFOp>(getSoleBodyOp(g));
  if (!ext || g.getNumDpsInputs() != 1 || g.getNumReductionLoops() != 0 ||
      !llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }) ||
      !ext.getType().isF32())
    return nullptr;
  Value in = g.getDpsInputs()[0];
  Type e = getElementTypeOrSelf(in.getType());
  return e.isBF16() || e.isF16() ? in : nullptr;
}

Value mlir::coda::toVector(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 1)
    return v;
  return tensor::CollapseShapeOp::create(
      b, loc, v,
      SmallVector<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))});
}

Value mlir::coda::castFloatTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (cast<FloatType>(v.getType()).getWidth() > cast<FloatType>(type).getWidth())
    return arith::TruncFOp::create(b, loc, type, v);
  return arith::ExtFOp::create(b, loc, type, v);
}

GemmOp mlir::coda::inlineOperandProducer(GemmOp gemm, unsigned index, linalg::GenericOp producer,
                                         ArrayRef<Value> inputs, ArrayRef<OperandRole> inputRoles,
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
  extras.append(inputs.begin(), inputs.end());
  roles.append(inputRoles.begin(), inputRoles.end());
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
        // Each operand kept and each new one has one region argument (no pairwise matrix).
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

Value mlir::coda::cloneElementwiseBody(OpBuilder &b, linalg::GenericOp op, IRMapping &mapping,
                                       Value row, Value col) {
  Block *body = op.getBody();
  for (Operation &inner : body->without_terminator()) {
    for (Value o : inner.getOperands())
      if (o.getParentBlock() != body && !mapping.contains(o) && matchPattern(o, m_Constant()))
        mapping.map(o, b.clone(*o.getDefiningOp())->getResult(0));
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), index.getDim() == 0 ? row : col);
      continue;
    }
    b.clone(inner, mapping);
  }
  return mapping.lookupOrDefault(cast<linalg::YieldOp>(body->getTerminator()).getValues()[0]);
}
