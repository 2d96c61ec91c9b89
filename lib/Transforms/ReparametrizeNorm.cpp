//===- ReparametrizeNorm.cpp - normalizations through the next matmul -----===//
//
//   RMSNorm:    (r ⊙ h ⊙ γ)·W         = r ⊙ (h·W')                       W' = diag(γ)·W
//   LayerNorm:  ((h − μ) ⊙ r ⊙ γ + β)·W = r ⊙ (h·W' − μ ⊗ c) + d        c = 1ᵀ·W', d = βᵀ·W
//
//===----------------------------------------------------------------------===//

#include "coda/Dialect/Coda/IR/CodaDialect.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAREPARAMETRIZENORM
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
/// A vector the matmul's left operand is combined with elementwise.
struct Factor {
  Value value;
  AffineMap map; // how the elementwise op read it over (i, k)
  bool perRow;   // true: depends on i only; false: on k only
};

/// `a = ((base - mu) ⊙ factors) + beta`, as found above a matmul's left operand (mu per row,
/// innermost; beta per column, outermost; both optional).
struct NormalizedOperand {
  Value base;
  std::optional<Factor> shift;
  SmallVector<Factor> factors;
  std::optional<Factor> bias;
};
} // namespace

/// Classifies a map over (i, k) reading a vector: per row, per column, or neither.
static std::optional<bool> isPerRow(AffineMap map, ShapedType type) {
  std::optional<SmallVector<unsigned>> dims = getReadDims(map, type);
  if (!dims || dims->size() != 1)
    return std::nullopt;
  return dims->front() == 0;
}

/// The input of `v` when `v` is an elementwise float cast (arith.truncf or arith.extf, per
/// `Cast`) of it, else nullptr.
template <typename Cast> static Value castInput(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumDpsInputs() != 1 || g.getNumReductionLoops() != 0 ||
      !llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }) ||
      !isa_and_nonnull<Cast>(getSoleBodyOp(g)))
    return nullptr;
  return g.getDpsInputs()[0];
}

/// Walks up the elementwise ops above `a` that combine it with per-row or per-column vectors.
/// In bf16 programs the chain runs in fp32 between a widening of the activations and a rounding
/// of the normalized result (before the weight's scale or after it); the base is then the activations as they were (the product reads
/// them unrounded by the norm: `round(x̂)·W` becomes `r ⊙ (x·round(diag(γ)·W))`).
static NormalizedOperand findNormalization(Value a) {
  NormalizedOperand n{a, std::nullopt, {}, std::nullopt};
  Value rounded = castInput<arith::TruncFOp>(a);
  if (rounded)
    n.base = rounded;
  bool outermost = true;
  while (auto g = n.base.getDefiningOp<linalg::GenericOp>()) {
    // The rounding may also sit inside the chain: transformers' `w * x̂.to(bf16)` rounds the
    // normalized value and scales it by the weight in bf16.
    if (Value narrowed = rounded ? nullptr : castInput<arith::TruncFOp>(n.base)) {
      rounded = narrowed;
      n.base = narrowed;
      continue;
    }
    if (g.getNumLoops() != 2 || g.getNumReductionLoops() != 0 || g.getNumDpsInputs() != 2 ||
        g->getNumResults() != 1 ||
        !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
      break;
    // One op on the chain and the vector; bf16 vectors are widened in the body first.
    Block *body = g.getBody();
    Operation *widen = nullptr;
    if (body->getOperations().size() == 3 && isa<arith::ExtFOp>(body->front()))
      widen = &body->front();
    else if (body->getOperations().size() != 2)
      break;
    Operation *op = widen ? widen->getNextNode() : &body->front();
    if (cast<linalg::YieldOp>(body->getTerminator()).getValues()[0] != op->getResult(0))
      break;
    OpOperand *chain = nullptr, *other = nullptr;
    for (OpOperand *operand : g.getDpsInputOperands()) {
      if (g.getMatchingIndexingMap(operand).isIdentity() && !chain)
        chain = operand;
      else
        other = operand;
    }
    if (!chain || !other || op->getNumOperands() != 2)
      break;
    Value chainArg = body->getArgument(chain->getOperandNumber());
    Value otherArg = body->getArgument(other->getOperandNumber());
    if (widen) {
      if (widen->getOperand(0) != otherArg)
        break;
      otherArg = widen->getResult(0);
    }
    AffineMap map = g.getMatchingIndexingMap(other);
    std::optional<bool> perRow = isPerRow(map, cast<ShapedType>(other->get().getType()));
    bool uses = (op->getOperand(0) == chainArg && op->getOperand(1) == otherArg) ||
                (op->getOperand(0) == otherArg && op->getOperand(1) == chainArg);
    if (!perRow || !uses)
      break;
    Factor f{other->get(), map, *perRow};
    if (isa<arith::AddFOp>(op) && outermost && !*perRow) {
      n.bias = f;
    } else if (isa<arith::MulFOp>(op)) {
      n.factors.push_back(f);
    } else if (isa<arith::SubFOp>(op) && *perRow && op->getOperand(0) == chainArg) {
      n.shift = f;
      n.base = chain->get();
      break;
    } else {
      break;
    }
    outermost = false;
    n.base = chain->get();
  }
  if (rounded) {
    Value widened = castInput<arith::ExtFOp>(n.base);
    if (n.factors.empty() || !widened || widened.getType() != a.getType())
      return NormalizedOperand{a, std::nullopt, {}, std::nullopt};
    n.base = widened;
  }
  return n;
}

/// The run-once weight preparation of a normalization folded into a matmul, for a weight
/// stored `[K, N]` (or `[N, K]` with `kLast`): returns `W' = diag(γ1 ⊙ γ2 ...)·W`, then, when
/// asked, `c = 1ᵀ·W'` (for the mean correction) and `d = βᵀ·W` (for the bias), both fp32 `[N]`.
static func::FuncOp getOrCreateNormWeights(ModuleOp module, RankedTensorType weightType,
                                           Type vectorElement, unsigned numScales,
                                           bool withColumnSums, bool withBias, bool kLast) {
  std::string name = "coda_norm_weights_" + std::to_string(weightType.getDimSize(0)) + "x" +
                     std::to_string(weightType.getDimSize(1)) + (kLast ? "_nk" : "_kn") +
                     "_scale" + std::to_string(numScales) + (withColumnSums ? "_mean" : "") +
                     (withBias ? "_bias" : "");
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  MLIRContext *ctx = b.getContext();
  unsigned kDim = kLast ? 1 : 0, nDim = kLast ? 0 : 1;
  int64_t k = weightType.getDimSize(kDim), n = weightType.getDimSize(nDim);
  auto vectorType = RankedTensorType::get({k}, vectorElement);
  auto columnType = RankedTensorType::get({n}, b.getF32Type());
  SmallVector<Type> inputs{weightType}, outputs{weightType};
  inputs.append(numScales + (withBias ? 1 : 0), vectorType);
  if (withColumnSums)
    outputs.push_back(columnType);
  if (withBias)
    outputs.push_back(columnType);
  auto func = func::FuncOp::create(b, loc, name, b.getFunctionType(inputs, outputs));
  func.setPrivate();
  func->setAttr(CodaDialect::getWeightPrepAttrName(), b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);

  AffineMap id = b.getMultiDimIdentityMap(2);
  AffineMap alongK = AffineMap::get(2, 0, {getAffineDimExpr(kDim, ctx)}, ctx);
  AffineMap alongN = AffineMap::get(2, 0, {getAffineDimExpr(nDim, ctx)}, ctx);
  Value weight = entry->getArgument(0);
  Type wElement = weightType.getElementType();
  SmallVector<Value> results;

  Value scaled = weight;
  if (numScales) {
    SmallVector<AffineMap> maps{id};
    maps.append(numScales, alongK);
    maps.push_back(id);
    Value empty = tensor::EmptyOp::create(b, loc, weightType.getShape(), wElement);
    scaled = linalg::GenericOp::create(
                 b, loc, weightType, entry->getArguments().take_front(1 + numScales),
                 ValueRange{empty}, maps,
                 SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   Value w = args[0];
                   for (unsigned i = 1; i <= numScales; ++i)
                     w = arith::MulFOp::create(nb, l, w, castFloatTo(nb, l, args[i], wElement));
                   linalg::YieldOp::create(nb, l, w);
                 })
                 ->getResult(0);
  }
  results.push_back(scaled);

  // Sums over K into fp32 [N]: of W' (column sums), or of β ⊙ W (the bias term).
  auto sumOverK = [&](ValueRange ins, ArrayRef<AffineMap> inMaps) {
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    Value init = linalg::FillOp::create(
                     b, loc, zero, tensor::EmptyOp::create(b, loc, columnType.getShape(), b.getF32Type()).getResult())
                     .getResult(0);
    SmallVector<AffineMap> maps(inMaps);
    maps.push_back(alongN);
    SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
    iterators[kDim] = utils::IteratorType::reduction;
    return linalg::GenericOp::create(
               b, loc, columnType, ins, ValueRange{init}, maps, iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value term = castFloatTo(nb, l, args[0], nb.getF32Type());
                 if (ins.size() == 2)
                   term = arith::MulFOp::create(nb, l, term,
                                                castFloatTo(nb, l, args[1], nb.getF32Type()));
                 linalg::YieldOp::create(
                     nb, l, ValueRange{arith::AddFOp::create(nb, l, args.back(), term)});
               })
        ->getResult(0);
  };
  if (withColumnSums)
    results.push_back(sumOverK(ValueRange{scaled}, {id}));
  if (withBias)
    results.push_back(sumOverK(ValueRange{weight, entry->getArguments().back()}, {id, alongK}));
  func::ReturnOp::create(b, loc, results);
  return func;
}

/// A norm weight computed from other vectors by an elementwise op (Gemma's `1 + w`) is weight
/// preparation too: the op moves into a run-once function that the program calls.
static Value outlineVectorPrep(RewriterBase &rewriter, ModuleOp module, Value vector) {
  auto g = vector.getDefiningOp<linalg::GenericOp>();
  if (!g || g->getNumResults() != 1 || g.getNumReductionLoops() != 0 || g.getNumLoops() != 1 ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)) || !vector.hasOneUse())
    return vector;
  for (Value in : g.getDpsInputs())
    if (!isa<BlockArgument>(in) || cast<RankedTensorType>(in.getType()).getRank() != 1)
      return vector;
  for (Operation &op : g.getBody()->without_terminator())
    if (!isMemoryEffectFree(&op))
      return vector;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = g.getLoc();
  SmallVector<Value> ins = g.getDpsInputs();
  SmallVector<Type> inputs = llvm::to_vector(ValueRange(ins).getTypes());
  std::string name = "coda_vector_prep";
  for (unsigned i = 0; module.lookupSymbol(name); ++i)
    name = "coda_vector_prep_" + std::to_string(i + 1);
  auto func = func::FuncOp::create(b, loc, name, b.getFunctionType(inputs, {vector.getType()}));
  func.setPrivate();
  func->setAttr(CodaDialect::getWeightPrepAttrName(), b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping mapping;
  for (auto [in, arg] : llvm::zip(g.getDpsInputs(), entry->getArguments()))
    mapping.map(in, arg);
  // The body's captured constants come along.
  g.getBody()->walk([&](Operation *op) {
    for (Value o : op->getOperands())
      if (!mapping.contains(o) && o.getParentBlock() != g.getBody())
        if (Operation *def = o.getDefiningOp())
          mapping.map(o, b.clone(*def, mapping)->getResult(0));
  });
  for (Value init : g.getDpsInits())
    if (Operation *def = init.getDefiningOp(); def && !mapping.contains(init))
      mapping.map(init, b.clone(*def, mapping)->getResult(0));
  Operation *clone = b.clone(*g, mapping);
  func::ReturnOp::create(b, loc, clone->getResults());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(g);
  Value result = func::CallOp::create(rewriter, loc, func, ValueRange(ins)).getResult(0);
  rewriter.replaceOp(g, result);
  return result;
}

/// Rewrites one matmul; returns whether it changed.
static bool reparametrize(linalg::MatmulOp matmul, bool foldWeights, ModuleOp module,
                          RewriterBase &rewriter, DenseSet<Operation *> &erased) {
  if (matmul.hasUserDefinedMaps())
    return false;
  Value init = matmul.getDpsInits()[0];
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return false;
  NormalizedOperand a = findNormalization(matmul.getDpsInputs()[0]);
  SmallVector<Factor> rows, cols;
  for (Factor &f : a.factors)
    (f.perRow ? rows : cols).push_back(f);
  bool affine = a.shift || a.bias;
  // The mean correction and the bias need the prepared weights; training keeps LayerNorm as
  // written.
  if (affine && !foldWeights)
    return false;
  if (!affine && rows.empty() && (cols.empty() || !foldWeights))
    return false;
  SmallVector<Factor> all(a.factors);
  if (a.shift)
    all.push_back(*a.shift);
  if (a.bias)
    all.push_back(*a.bias);
  for (Factor &f : all)
    if (Operation *def = f.value.getDefiningOp(); def && !def->isBeforeInBlock(matmul))
      return false;
  if (foldWeights && (!cols.empty() || a.bias)) {
    Type element = cast<ShapedType>((a.bias ? *a.bias : cols.front()).value.getType()).getElementType();
    for (Factor &f : cols)
      if (cast<ShapedType>(f.value.getType()).getElementType() != element)
        return false;
  }

  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  Value lhs = a.base;
  Value weight = matmul.getDpsInputs()[1];
  Value columnSums, biasTerm;
  if (foldWeights && (!cols.empty() || affine)) {
    // Fold into the stored weight; a transposed weight stays transposed so that the chain
    // fusion still reads it with transpose_b.
    auto transpose = weight.getDefiningOp<linalg::TransposeOp>();
    bool kLast = transpose && transpose.getPermutation() == ArrayRef<int64_t>{1, 0};
    Value stored = kLast ? transpose.getInput() : weight;
    auto storedType = cast<RankedTensorType>(stored.getType());
    Type element = cols.empty() && !a.bias
                       ? storedType.getElementType()
                       : cast<ShapedType>((a.bias ? *a.bias : cols.front()).value.getType())
                             .getElementType();
    SmallVector<Value> args{stored};
    for (Factor &f : cols)
      args.push_back(outlineVectorPrep(rewriter, module, toVector(rewriter, loc, f.value)));
    if (a.bias)
      args.push_back(toVector(rewriter, loc, a.bias->value));
    func::FuncOp prep = getOrCreateNormWeights(module, storedType, element, cols.size(),
                                               a.shift.has_value(), a.bias.has_value(), kLast);
    auto call = func::CallOp::create(rewriter, loc, prep, args);
    Value scaled = call.getResult(0);
    unsigned next = 1;
    if (a.shift)
      columnSums = call.getResult(next++);
    if (a.bias)
      biasTerm = call.getResult(next++);
    if (kLast) {
      Value empty = tensor::EmptyOp::create(rewriter, loc,
                                            cast<ShapedType>(weight.getType()).getShape(),
                                            storedType.getElementType());
      scaled = linalg::TransposeOp::create(rewriter, loc, scaled, empty,
                                           ArrayRef<int64_t>{1, 0})
                   ->getResult(0);
    }
    weight = scaled;
  } else if (!cols.empty()) {
    // Training: γ stays on the activations (the producer of h can apply it).
    for (Factor &f : cols) {
      AffineMap id = rewriter.getMultiDimIdentityMap(2);
      auto type = cast<RankedTensorType>(lhs.getType());
      lhs = linalg::GenericOp::create(
                rewriter, loc, type, ValueRange{lhs, f.value},
                ValueRange{tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                   type.getElementType())},
                ArrayRef<AffineMap>{id, f.map, id},
                SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
                [](OpBuilder &b, Location l, ValueRange args) {
                  // γ may be wider than h (Gemma's `1 + w` computed in f32 for bf16 h).
                  Value gamma = castFloatTo(b, l, args[1], args[0].getType());
                  linalg::YieldOp::create(
                      b, l, ValueRange{arith::MulFOp::create(b, l, args[0], gamma)});
                })
                ->getResult(0);
    }
  }

  Value product = linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                           ValueRange{lhs, weight}, ValueRange{init})
                      ->getResult(0);
  // out = (product - mu ⊗ c) ⊙ r1 ⊙ r2 ... + d: what the consumer's epilogue applies.
  auto outType = cast<RankedTensorType>(product.getType());
  MLIRContext *ctx = rewriter.getContext();
  AffineMap id = rewriter.getMultiDimIdentityMap(2);
  AffineMap perColumn = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
  SmallVector<Value> inputs{product};
  SmallVector<AffineMap> maps{id};
  if (a.shift) {
    inputs.append({a.shift->value, columnSums});
    maps.append({a.shift->map, perColumn});
  }
  for (Factor &f : rows) {
    inputs.push_back(f.value);
    maps.push_back(f.map);
  }
  if (a.bias) {
    inputs.push_back(biasTerm);
    maps.push_back(perColumn);
  }
  maps.push_back(id);
  auto scaled = linalg::GenericOp::create(
      rewriter, loc, outType, inputs,
      ValueRange{tensor::EmptyOp::create(rewriter, loc, outType.getShape(),
                                         outType.getElementType())},
      maps, SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Type t = args[0].getType();
        Value v = args[0];
        unsigned next = 1;
        if (a.shift) {
          Value mu = castFloatTo(b, l, args[next++], t), c = castFloatTo(b, l, args[next++], t);
          v = arith::SubFOp::create(b, l, v, arith::MulFOp::create(b, l, mu, c));
        }
        for (unsigned i = 0; i < rows.size(); ++i)
          v = arith::MulFOp::create(b, l, v, castFloatTo(b, l, args[next++], t));
        if (a.bias)
          v = arith::AddFOp::create(b, l, v, castFloatTo(b, l, args[next++], t));
        linalg::YieldOp::create(b, l, v);
      });
  rewriter.replaceAllUsesWith(matmul->getResult(0), scaled->getResult(0));
  SmallVector<Value> fed(matmul->getOperands());
  erased.insert(matmul);
  rewriter.eraseOp(matmul);
  eraseDeadProducers(rewriter, fed, [&](Operation *op) { erased.insert(op); });
  return true;
}

namespace {
struct CodaReparametrizeNormPass
    : coda::impl::CodaReparametrizeNormBase<CodaReparametrizeNormPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp op) {
      if (!op->getParentOfType<func::FuncOp>()->hasAttr(CodaDialect::getWeightPrepAttrName()))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    DenseSet<Operation *> erased;
    for (linalg::MatmulOp op : matmuls)
      if (!erased.contains(op))
        reparametrize(op, foldWeights, module, rewriter, erased);
  }
};
} // namespace
