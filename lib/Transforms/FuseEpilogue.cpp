//===- FuseEpilogue.cpp - matmul + consumer chain -> coda.gemm ------------===//
//
// Starting from a linalg.matmul / linalg.batch_matmul with a weight operand, absorbs the chain
// of elementwise linalg.generic consumers (bias and row/column scales, residual adds,
// activations, soft-capping, ...) and row/column reductions of chain values into one
// coda.gemm. Chain values used outside the chain become stored results; absorbed reductions
// become reduce results. Transposes feeding the contraction become transpose_a/transpose_b.
//
// What is not absorbed stays exactly as it was; whyContractionIsNotFused tells the fuse report
// why a contraction was left alone.
//
//===----------------------------------------------------------------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSEEPILOGUE
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {

/// An operand of the epilogue, with the reshape that brings it to its role's shape.
struct Extra {
  Value value;
  OperandRole role;
  /// The kernel reads `value` in bf16/f16 and widens it to f32 in the epilogue (the program
  /// widened it in a pass of its own: a bf16 layer's bias).
  bool widen = false;
  /// In a batched product: the same values for every batch (no batch dimension).
  bool shared = false;
};

/// A reduction absorbed into the gemm.
struct Reduction {
  linalg::GenericOp op;
  Value input; // the chain value reduced
  ReduceDim dim;
  Combiner combiner;
  int aliasOf = -1; // an earlier reduction computing the same thing: reuse its result
};

class ChainFuser {
public:
  /// `batchedProducts`: also batched products of two activations (those attention left).
  ChainFuser(linalg::LinalgOp contraction, DominanceInfo &dom, bool batchedProducts)
      : contraction(contraction), dom(dom), batched(isa<linalg::BatchMatmulOp>(contraction)),
        batchedProducts(batchedProducts) {}

  /// Collects the chain; returns false (with `reason`) when the contraction is not fusable.
  bool analyze(std::string &reason);
  /// Replaces the contraction and its absorbed consumers by one coda.gemm.
  void rewrite(RewriterBase &rewriter);
  bool absorbedAnything() const { return !absorbed.empty() || transposeA || transposeB; }
  /// Another weight product reads the same A (gate/up, q/k/v): as a coda.gemm this one can be
  /// merged with it.
  bool hasSibling() {
    for (Operation *user : contraction.getDpsInputs()[0].getUsers())
      if (user != contraction.getOperation() && isa<linalg::MatmulOp, GemmOp>(user))
        return true;
    return false;
  }

private:
  bool tryAbsorb(Operation *user);
  bool tryAbsorbElementwise(linalg::GenericOp op);
  bool tryAbsorbReduction(linalg::GenericOp op);
  std::optional<unsigned> addExtra(Value value, AffineMap map);
  bool isSiblingContractionValue(Value value);

  linalg::LinalgOp contraction;
  DominanceInfo &dom;
  bool batched;
  bool batchedProducts;
  Value a, b;
  bool transposeA = false, transposeB = false;
  Value nonZeroInit; // a matmul init that is not a zero fill: added in the epilogue

  llvm::SetVector<Value> chain;            // tensors computed by the epilogue
  llvm::SetVector<Operation *> absorbed;   // in the order they were absorbed
  SmallVector<Extra> extras;
  DenseMap<std::pair<Value, unsigned>, unsigned> extraIndex; // (value, role) -> index
  DenseMap<OpOperand *, unsigned> operandExtra;             // absorbed op operand -> extra
  SmallVector<Reduction> reductions;
};

} // namespace

static bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && (matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
                  matchPattern(fill.getInputs()[0], m_Zero()));
}

static bool isGemmFloat(Type t) { return t.isBF16() || t.isF16() || t.isF32(); }

/// A weight: a function argument or a constant, possibly through weight-only transforms. The
/// products of two activations (attention scores and values) are left to the attention path.
static bool isWeight(Value v) {
  if (isa<BlockArgument>(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (matchPattern(v, m_Constant()))
    return true;
  // What a run-once weight-preparation function returns is a weight by definition.
  if (auto call = dyn_cast<func::CallOp>(def)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
    if (callee && callee->hasAttr(CodaDialect::getWeightPrepAttrName()))
      return true;
  }
  // Views and reshapes of a weight are weights (their init tensors do not matter).
  if (auto t = dyn_cast<linalg::TransposeOp>(def))
    return isWeight(t.getInput());
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ExtractSliceOp>(def))
    return isWeight(def->getOperand(0));
  if (isa<func::CallOp>(def))
    return llvm::all_of(def->getOperands(), [](Value o) { return isWeight(o); });
  return false;
}

bool ChainFuser::isSiblingContractionValue(Value value) {
  // A value produced (through elementwise ops) by another contraction reading the same A is a
  // sibling branch (gate/up, q/k/v): the gated-activation and merge passes combine those.
  SmallVector<Value> work{value};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def)
      continue;
    if (auto other = dyn_cast<linalg::LinalgOp>(def);
        other && isa<linalg::MatmulOp, linalg::BatchMatmulOp>(def))
      return other.getDpsInputs()[0] == contraction.getDpsInputs()[0];
    if (auto gemm = dyn_cast<GemmOp>(def))
      return gemm.getA() == a;
    if (isa<linalg::GenericOp>(def))
      for (Value in : cast<linalg::GenericOp>(def).getDpsInputs())
        work.push_back(in);
  }
  return false;
}

bool ChainFuser::analyze(std::string &reason) {
  a = contraction.getDpsInputs()[0];
  b = contraction.getDpsInputs()[1];
  if (batched && !batchedProducts) {
    reason = "batched product (attention): left for the attention path";
    return false;
  }
  if (auto matmul = dyn_cast<linalg::MatmulOp>(contraction.getOperation());
      matmul && matmul.hasUserDefinedMaps()) {
    reason = "matmul with custom indexing maps";
    return false;
  }
  if (auto bm = dyn_cast<linalg::BatchMatmulOp>(contraction.getOperation());
      bm && bm.hasUserDefinedMaps()) {
    reason = "batch_matmul with custom indexing maps";
    return false;
  }
  SmallVector<int64_t> swapLast =
      batched ? SmallVector<int64_t>{0, 2, 1} : SmallVector<int64_t>{1, 0};
  auto absorbTransposes = [&] {
    if (auto t = a.getDefiningOp<linalg::TransposeOp>();
        t && !transposeA && t.getPermutation() == ArrayRef(swapLast)) {
      a = t.getInput();
      transposeA = true;
    }
    if (auto t = b.getDefiningOp<linalg::TransposeOp>();
        t && !transposeB && t.getPermutation() == ArrayRef(swapLast)) {
      b = t.getInput();
      transposeB = true;
    }
  };
  absorbTransposes();
  // bf16/f16 operands that the program upcasts to f32 before the product (torch-mlir does for
  // addmm): the gemm reads them as they are; the product is the same, accumulated in fp32.
  Value narrowA = getWidenedFrom(a), narrowB = getWidenedFrom(b);
  if (narrowA && narrowB &&
      getElementTypeOrSelf(narrowA.getType()) == getElementTypeOrSelf(narrowB.getType())) {
    a = narrowA;
    b = narrowB;
    absorbTransposes();
  }
  if (!isWeight(b) && !batched) {
    reason = "product of two activations (attention): left for the attention path";
    return false;
  }
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(b.getType());
  auto outType = cast<RankedTensorType>(contraction->getResult(0).getType());
  if (!aType.hasStaticShape() || !bType.hasStaticShape() || !outType.hasStaticShape()) {
    reason = "dynamic shapes";
    return false;
  }
  if (!isGemmFloat(aType.getElementType()) || aType.getElementType() != bType.getElementType() ||
      !isGemmFloat(outType.getElementType())) {
    reason = "element types other than bf16, f16 or f32";
    return false;
  }
  Value init = contraction.getDpsInits()[0];
  if (!isZeroFill(init)) {
    if (!dom.properlyDominates(init, contraction)) {
      reason = "init computed after the product";
      return false;
    }
    nonZeroInit = init;
  }

  chain.insert(contraction->getResult(0));
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned c = 0; c < chain.size(); ++c) {
      for (Operation *user : chain[c].getUsers()) {
        if (absorbed.contains(user) || !tryAbsorb(user))
          continue;
        changed = true;
      }
    }
  }
  // A widening to f32 that nothing absorbed reads and no reduction reads (the program upcasting
  // a result for attention, or for the next product) stays outside: the kernel stores the
  // narrow value, at half the bytes, and the readers widen it as they read it. Statistics of
  // the widened value (a softmax's, a norm's) keep it: later passes fuse them on the f32 result.
  // (Readers come after what they read in `absorbed`: walk it backwards.)
  SmallVector<Operation *> all = absorbed.takeVector(), kept;
  auto isReduction = [](Operation *u) {
    auto g = dyn_cast<linalg::GenericOp>(u);
    return g && g.getNumReductionLoops();
  };
  for (Operation *op : llvm::reverse(all)) {
    Value widened = op->getResult(0);
    bool terminal = getWidenedFrom(widened) && llvm::none_of(widened.getUsers(), [&](Operation *u) {
                      return llvm::is_contained(kept, u) || isReduction(u);
                    });
    if (terminal)
      chain.remove(widened);
    else
      kept.push_back(op);
  }
  for (Operation *op : llvm::reverse(kept))
    absorbed.insert(op);
  return true;
}

bool ChainFuser::tryAbsorb(Operation *user) {
  if (user->getBlock() != contraction->getBlock())
    return false;
  auto generic = dyn_cast<linalg::GenericOp>(user);
  if (!generic || !generic.hasPureTensorSemantics())
    return false;
  for (Operation &op : generic.getBody()->without_terminator()) {
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      return false;
    // Values captured from outside the body are cloned into the isolated epilogue: only
    // constants can be.
    for (Value operand : op.getOperands())
      if (operand.getParentBlock() != generic.getBody() && !matchPattern(operand, m_Constant()))
        return false;
    if (auto index = dyn_cast<linalg::IndexOp>(op); index && batched && index.getDim() == 0)
      return false; // the epilogue sees row and column indices, not the batch index
  }
  return tryAbsorbElementwise(generic) || tryAbsorbReduction(generic);
}

/// Classifies an operand read through `map` (loops: batch?, i, j) and registers it as an
/// extra. Unit dimensions read at index 0 are collapsed away at rewrite time.
/// A linalg.generic or linalg.broadcast that only replicates its input: returns the input and
/// the map it is read with over the output's loops.
static std::optional<std::pair<Value, AffineMap>> lookThroughBroadcast(Value value) {
  if (auto bcast = value.getDefiningOp<linalg::BroadcastOp>()) {
    auto map = bcast.getMatchingIndexingMap(bcast.getDpsInputOperand(0));
    return std::make_pair(bcast.getInput(), map);
  }
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  Block *body = generic.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (body->getOperations().size() != 1 || yield.getValues()[0] != body->getArgument(0))
    return std::nullopt;
  OpOperand *input = generic.getDpsInputOperand(0);
  return std::make_pair(input->get(), generic.getMatchingIndexingMap(input));
}

std::optional<unsigned> ChainFuser::addExtra(Value value, AffineMap map) {
  // A broadcast read elementwise is its input read through the broadcast's map: the [M, N]
  // copy of a bias is never materialized.
  if (map.isIdentity())
    if (auto through = lookThroughBroadcast(value))
      return addExtra(through->first, through->second);
  // A bf16/f16 vector the program widens to f32 is read narrow and widened in the epilogue:
  // the widening pass over it goes.
  bool widen = false;
  if (Value narrow = getWidenedFrom(value);
      narrow && cast<RankedTensorType>(value.getType()).getRank() <= 1) {
    value = narrow;
    widen = true;
  }
  if (!dom.properlyDominates(value, contraction) || isSiblingContractionValue(value))
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  unsigned nb = batched ? 1 : 0;
  bool shared = false;
  std::optional<SmallVector<unsigned>> readDims = getReadDims(map, type);
  if (!readDims)
    return std::nullopt;
  SmallVector<unsigned> dims = *readDims;
  OperandRole role;
  if (dims.empty() && map.getNumResults() == 0) {
    role = OperandRole::Scalar;
  } else {
    ArrayRef<unsigned> kept(dims);
    if (nb && !kept.empty() && kept.front() == 0)
      kept = kept.drop_front();
    else if (nb)
      shared = true; // every batch reads the same values
    if (kept == ArrayRef<unsigned>{nb, nb + 1})
      role = OperandRole::Matrix;
    else if (kept == ArrayRef<unsigned>{nb})
      role = OperandRole::Row;
    else if (kept == ArrayRef<unsigned>{nb + 1})
      role = OperandRole::Col;
    else if (kept.empty() && (!nb || shared)) // (a value per batch has no role)
      role = OperandRole::Scalar;
    else
      return std::nullopt;
  }
  if (!isa<FloatType, IntegerType>(type.getElementType()))
    return std::nullopt;
  auto key = std::make_pair(value, static_cast<unsigned>(role) * 2 + widen);
  auto it = extraIndex.find(key);
  if (it != extraIndex.end())
    return it->second;
  extras.push_back({value, role, widen, shared && role != OperandRole::Scalar});
  extraIndex[key] = extras.size() - 1;
  return extras.size() - 1;
}

bool ChainFuser::tryAbsorbElementwise(linalg::GenericOp op) {
  unsigned rank = batched ? 3 : 2;
  if (op.getNumLoops() != rank || op.getNumReductionLoops() != 0)
    return false;
  ArrayRef<int64_t> shape = cast<ShapedType>(contraction->getResult(0).getType()).getShape();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (!op.getMatchingIndexingMap(&init).isIdentity())
      return false;
    auto type = cast<ShapedType>(init.get().getType());
    if (type.getShape() != shape || !isGemmFloat(type.getElementType()))
      return false;
  }
  DenseMap<OpOperand *, unsigned> local;
  bool readsChain = false;
  for (OpOperand &operand : op->getOpOperands()) {
    bool isInit = op.isDpsInit(&operand);
    if (isInit && !op.payloadUsesValueFromOperand(&operand))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (chain.contains(operand.get())) {
      if (!map.isIdentity())
        return false;
      readsChain = true;
      continue;
    }
    std::optional<unsigned> extra = addExtra(operand.get(), map);
    if (!extra)
      return false;
    local[&operand] = *extra;
  }
  if (!readsChain)
    return false;
  for (auto &[operand, index] : local)
    operandExtra[operand] = index;
  absorbed.insert(op);
  for (Value result : op->getResults())
    chain.insert(result);
  return true;
}

/// Recognizes `out + in`, `out + in * in` and `max(out, in)` bodies.
bool ChainFuser::tryAbsorbReduction(linalg::GenericOp op) {
  // Row or column reductions of one chain value, unbatched, from the combiner's identity.
  std::optional<Reduction2D> r = matchReduction2D(op);
  if (batched || !r || op.getNumDpsInits() != 1 || !chain.contains(r->input) ||
      !cast<RankedTensorType>(op.getResult(0).getType()).getElementType().isF32() ||
      !r->startsFromIdentity())
    return false;
  absorbed.insert(op);
  int alias = -1;
  for (auto [index, other] : llvm::enumerate(reductions))
    if (other.aliasOf < 0 && other.input == r->input && other.dim == r->dim &&
        other.combiner == r->combiner)
      alias = index;
  reductions.push_back({op, r->input, r->dim, r->combiner, alias});
  return true;
}

/// Brings an extra to its role's shape by collapsing the unit dimensions it was read with.
static Value reshapeExtra(OpBuilder &b, Location loc, Value value, unsigned expectedRank) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == expectedRank)
    return value;
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> reassoc;
  ReassociationIndices pending;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    pending.push_back(d);
    if (type.getDimSize(d) != 1 || static_cast<int64_t>(shape.size()) + (type.getRank() - d) <=
                                       static_cast<int64_t>(expectedRank)) {
      shape.push_back(type.getDimSize(d));
      reassoc.push_back(pending);
      pending.clear();
    }
  }
  if (!pending.empty() && !reassoc.empty())
    reassoc.back().append(pending.begin(), pending.end());
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value, reassoc);
}

void ChainFuser::rewrite(RewriterBase &rewriter) {
  Location loc = contraction.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(contraction);
  auto outType = cast<RankedTensorType>(contraction->getResult(0).getType());
  if (nonZeroInit)
    extras.push_back({nonZeroInit, OperandRole::Matrix});

  // Results: chain values used outside the chain (stored), then the reductions.
  SmallVector<Value> stored;
  for (Value v : chain) {
    bool usedOutside = llvm::any_of(v.getUsers(), [&](Operation *u) { return !absorbed.contains(u); });
    if (usedOutside)
      stored.push_back(v);
  }
  SmallVector<Type> resultTypes;
  SmallVector<ResultModeAttr> modes;
  for (Value v : stored) {
    resultTypes.push_back(v.getType());
    modes.push_back(ResultModeAttr::get(ctx, ResultKind::Store));
  }
  unsigned nb = batched ? 1 : 0;
  for (Reduction &r : reductions) {
    if (r.aliasOf >= 0)
      continue;
    int64_t size = r.dim == ReduceDim::Row ? outType.getDimSize(nb) : outType.getDimSize(nb + 1);
    resultTypes.push_back(RankedTensorType::get({size}, rewriter.getF32Type()));
    modes.push_back(ResultModeAttr::get(ctx, ResultKind::Reduce, r.dim, r.combiner));
  }

  SmallVector<Value> extraValues;
  SmallVector<OperandRole> roles;
  for (Extra &e : extras) {
    unsigned batchDim = e.shared ? 0 : nb;
    unsigned rank = e.role == OperandRole::Scalar ? 0
                    : e.role == OperandRole::Matrix ? batchDim + 2
                                                    : batchDim + 1;
    extraValues.push_back(reshapeExtra(rewriter, loc, e.value, rank));
    roles.push_back(e.role);
  }

  auto gemm = GemmOp::create(
      rewriter, loc, resultTypes, a, b, extraValues, roles, ValueRange{}, modes, transposeA,
      transposeB, std::nullopt, [&](OpBuilder &nb2, Location l, ValueRange args) {
        Value acc = args[0];
        ValueRange extraArgs = args.slice(1, extras.size());
        Value row = args[args.size() - 2], col = args[args.size() - 1];
        // The scalar each chain value has at (i, j), in its element type.
        DenseMap<Value, Value> scalar;
        Value accValue = acc;
        if (nonZeroInit) {
          Value init = extraArgs.back();
          Value initF32 = init.getType().isF32()
                              ? init
                              : arith::ExtFOp::create(nb2, l, nb2.getF32Type(), init).getResult();
          accValue = arith::AddFOp::create(nb2, l, accValue, initF32);
        }
        if (!outType.getElementType().isF32())
          accValue = arith::TruncFOp::create(nb2, l, outType.getElementType(), accValue);
        scalar[contraction->getResult(0)] = accValue;
        for (Operation *op : absorbed) {
          auto generic = cast<linalg::GenericOp>(op);
          if (llvm::any_of(reductions, [&](Reduction &r) { return r.op == generic; }))
            continue;
          IRMapping mapping;
          Block *body = generic.getBody();
          for (OpOperand &operand : generic->getOpOperands()) {
            BlockArgument arg = body->getArgument(operand.getOperandNumber());
            if (auto it = operandExtra.find(&operand); it != operandExtra.end())
              mapping.map(arg, extras[it->second].widen
                                   ? castFloatTo(nb2, l, extraArgs[it->second], arg.getType())
                                   : extraArgs[it->second]);
            else if (scalar.count(operand.get()))
              mapping.map(arg, scalar[operand.get()]);
          }
          for (Operation &inner : body->without_terminator()) {
            for (Value operand : inner.getOperands())
              if (operand.getParentBlock() != body && !mapping.contains(operand))
                mapping.map(operand, nb2.clone(*operand.getDefiningOp())->getResult(0));
            if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
              mapping.map(index.getResult(), index.getDim() == nb ? row : col);
              continue;
            }
            nb2.clone(inner, mapping);
          }
          auto yield = cast<linalg::YieldOp>(body->getTerminator());
          for (auto [result, value] : llvm::zip(generic->getResults(), yield.getValues()))
            scalar[result] = mapping.lookupOrDefault(value);
        }
        auto toF32 = [&](Value v) -> Value {
          return v.getType().isF32() ? v : arith::ExtFOp::create(nb2, l, nb2.getF32Type(), v);
        };
        SmallVector<Value> yields;
        for (Value v : stored)
          yields.push_back(toF32(scalar[v]));
        for (Reduction &r : reductions)
          if (r.aliasOf < 0)
            yields.push_back(toF32(scalar[r.input]));
        YieldOp::create(nb2, l, yields);
      });

  // Replace: stored values, then reductions (re-expanded to [M, 1] / [1, N] where needed).
  for (auto [index, v] : llvm::enumerate(stored))
    rewriter.replaceUsesWithIf(v, gemm.getResult(index), [&](OpOperand &use) {
      return !absorbed.contains(use.getOwner());
    });
  SmallVector<unsigned> resultOf;
  unsigned next = stored.size();
  for (Reduction &r : reductions)
    resultOf.push_back(r.aliasOf >= 0 ? resultOf[r.aliasOf] : next++);
  for (auto [index, r] : llvm::enumerate(reductions)) {
    Value result = gemm.getResult(resultOf[index]);
    auto type = cast<RankedTensorType>(r.op.getResult(0).getType());
    if (type.getRank() != 1) {
      rewriter.setInsertionPointAfter(gemm);
      result = tensor::ExpandShapeOp::create(rewriter, loc, type, result,
                                             SmallVector<ReassociationIndices>{{0, 1}});
    }
    rewriter.replaceAllUsesWith(r.op.getResult(0), result);
  }
  // The traffic of everything this kernel replaces: the product, the absorbed ops, and the
  // computations that only fed them (counted below as they are erased). Data movement that
  // only fed them (weight transposes, fills, materialized broadcasts) is not counted: any GEMM
  // reads a transposed operand or a broadcast bias without it, so removing it is no fusion.
  Traffic unfused = kernelTraffic(contraction);
  for (Operation *op : absorbed)
    unfused += kernelTraffic(op);

  // Erase the fused ops, then what only fed them (transposes, materialized broadcasts,
  // fills, empty tensors) and is now dead.
  SmallVector<Value> fed;
  auto eraseFused = [&](Operation *op) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def != contraction.getOperation() && !absorbed.contains(def))
        fed.push_back(operand);
    }
    rewriter.eraseOp(op);
  };
  for (Operation *op : llvm::reverse(absorbed))
    eraseFused(op);
  eraseFused(contraction);
  eraseDeadProducers(rewriter, fed, [&](Operation *op) {
    if (isKernel(op) && !isDataMovement(op))
      unfused += kernelTraffic(op);
  });
  gemm->setAttr(kUnfusedBytesAttr, rewriter.getDenseI64ArrayAttr({unfused.read, unfused.written}));
}

std::string mlir::coda::whyContractionIsNotFused(linalg::LinalgOp contraction) {
  auto func = contraction->getParentOfType<func::FuncOp>();
  DominanceInfo dom(func);
  // (The report runs after the pipeline: a batched product left here was refused by both runs.)
  ChainFuser fuser(contraction, dom, /*batchedProducts=*/true);
  std::string reason;
  if (!fuser.analyze(reason))
    return reason;
  if (isa<linalg::BatchMatmulOp>(contraction))
    return "batched product: fusable (--coda-fuse runs --coda-fuse-epilogue=batched=true after "
           "attention)";
  if (!fuser.absorbedAnything() && !fuser.hasSibling())
    return "nothing to fuse: no epilogue, no transpose, no sibling product";
  return "fusable (run --coda-fuse-epilogue)";
}

namespace {
struct CodaFuseEpiloguePass : coda::impl::CodaFuseEpilogueBase<CodaFuseEpiloguePass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<linalg::LinalgOp> contractions;
    func.walk([&](Operation *op) {
      if (batched ? isa<linalg::BatchMatmulOp>(op) : isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        contractions.push_back(cast<linalg::LinalgOp>(op));
    });
    // A fused chain erases what only it read, another product among it (a dead one, or one
    // whose result fed only an operand the epilogue ignores): that one is not visited.
    struct ErasedOps : RewriterBase::Listener {
      DenseSet<Operation *> ops;
      void notifyOperationErased(Operation *op) override { ops.insert(op); }
    } erased;
    IRRewriter rewriter(&getContext(), &erased);
    for (linalg::LinalgOp contraction : contractions) {
      if (erased.ops.contains(contraction))
        continue;
      DominanceInfo dom(func);
      ChainFuser fuser(contraction, dom, batched);
      std::string reason;
      // A product with nothing to absorb and no sibling to merge with stays as written; a
      // batched one becomes a kernel all the same (the alternative is a generic loop nest).
      if (fuser.analyze(reason) &&
          (batched || fuser.absorbedAnything() || fuser.hasSibling()))
        fuser.rewrite(rewriter);
    }
  }
};
} // namespace
