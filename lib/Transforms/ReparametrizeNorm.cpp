//===- ReparametrizeNorm.cpp - (r ⊙ h ⊙ γ)·W = r ⊙ (h·(diag(γ)·W)) --------===//

#include "coda/Dialect/Coda/IR/CodaDialect.h"
#include "coda/Transforms/Fusion.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAREPARAMETRIZENORM
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
/// A factor multiplying the matmul's left operand elementwise.
struct Factor {
  Value value;
  AffineMap map; // how the multiplication read it over (i, k)
  bool perRow;   // true: depends on i only; false: on k only
};

/// `a = h ⊙ factors`, as found above a matmul's left operand.
struct ScaledOperand {
  Value base;
  SmallVector<Factor> factors;
  SmallVector<Operation *> ops; // the multiplications, outermost first
};
} // namespace

/// Classifies a map over (i, k) reading a vector: per row, per column, or neither.
static std::optional<bool> isPerRow(AffineMap map, ShapedType type) {
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
  if (dims.size() != 1)
    return std::nullopt;
  return dims[0] == 0;
}

/// Walks up elementwise multiplications `x * f` from `a`.
static ScaledOperand findFactors(Value a) {
  ScaledOperand s{a, {}, {}};
  while (auto g = s.base.getDefiningOp<linalg::GenericOp>()) {
    if (g.getNumLoops() != 2 || g.getNumReductionLoops() != 0 || g.getNumDpsInputs() != 2 ||
        g->getNumResults() != 1 ||
        !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
      break;
    Block *body = g.getBody();
    if (body->getOperations().size() != 2)
      break;
    auto mul = dyn_cast<arith::MulFOp>(body->front());
    if (!mul || cast<linalg::YieldOp>(body->getTerminator()).getValues()[0] != mul.getResult() ||
        !((mul.getLhs() == body->getArgument(0) && mul.getRhs() == body->getArgument(1)) ||
          (mul.getLhs() == body->getArgument(1) && mul.getRhs() == body->getArgument(0))))
      break;
    OpOperand *chain = nullptr, *factor = nullptr;
    for (OpOperand *operand : g.getDpsInputOperands()) {
      if (g.getMatchingIndexingMap(operand).isIdentity() && !chain)
        chain = operand;
      else
        factor = operand;
    }
    if (!chain || !factor)
      break;
    AffineMap map = g.getMatchingIndexingMap(factor);
    std::optional<bool> perRow = isPerRow(map, cast<ShapedType>(factor->get().getType()));
    if (!perRow)
      break;
    s.factors.push_back({factor->get(), map, *perRow});
    s.ops.push_back(g);
    s.base = chain->get();
  }
  return s;
}

/// A vector `[K]` from a per-column factor (`[K]` or `[1, K]`).
static Value asVector(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() == 1)
    return v;
  return tensor::CollapseShapeOp::create(b, loc, v, SmallVector<ReassociationIndices>{{0, 1}});
}

/// The weight-preparation function scaling the contraction dimension of a weight by the
/// product of `numFactors` vectors: rows of `[K, N]`, or columns of `[N, K]` (`kLast`).
static func::FuncOp getOrCreateScaleWeights(ModuleOp module, RankedTensorType weightType,
                                            Type factorElement, unsigned numFactors, bool kLast) {
  std::string name = "coda_scale_weights_" + std::to_string(weightType.getDimSize(0)) + "x" +
                     std::to_string(weightType.getDimSize(1)) + (kLast ? "_cols" : "_rows") +
                     "_by" + std::to_string(numFactors);
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  int64_t k = weightType.getDimSize(kLast ? 1 : 0);
  auto vectorType = RankedTensorType::get({k}, factorElement);
  SmallVector<Type> inputs{weightType};
  inputs.append(numFactors, vectorType);
  auto func = func::FuncOp::create(b, loc, name, b.getFunctionType(inputs, {weightType}));
  func.setPrivate();
  func->setAttr(CodaDialect::getWeightPrepAttrName(), b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  MLIRContext *ctx = b.getContext();
  AffineMap id = b.getMultiDimIdentityMap(2);
  AffineMap vec = AffineMap::get(2, 0, {getAffineDimExpr(kLast ? 1 : 0, ctx)}, ctx);
  SmallVector<AffineMap> maps{id};
  maps.append(numFactors, vec);
  maps.push_back(id);
  Value empty = tensor::EmptyOp::create(b, loc, weightType.getShape(), weightType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, weightType, entry->getArguments(), ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value w = args[0];
        Type f = w.getType();
        for (unsigned i = 1; i <= numFactors; ++i) {
          Value g = args[i];
          if (g.getType() != f)
            g = cast<FloatType>(g.getType()).getWidth() > cast<FloatType>(f).getWidth()
                    ? arith::TruncFOp::create(nb, l, f, g).getResult()
                    : arith::ExtFOp::create(nb, l, f, g).getResult();
          w = arith::MulFOp::create(nb, l, w, g);
        }
        linalg::YieldOp::create(nb, l, w);
      });
  func::ReturnOp::create(b, loc, generic.getResult(0));
  return func;
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
  ScaledOperand a = findFactors(matmul.getDpsInputs()[0]);
  SmallVector<Factor> rows, cols;
  for (Factor &f : a.factors)
    (f.perRow ? rows : cols).push_back(f);
  if (rows.empty() && (cols.empty() || !foldWeights))
    return false;
  // The new operands must be available where the matmul is.
  for (Factor &f : a.factors)
    if (Operation *def = f.value.getDefiningOp(); def && !def->isBeforeInBlock(matmul))
      return false;

  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  Value lhs = a.base;
  Value weight = matmul.getDpsInputs()[1];
  if (foldWeights && !cols.empty()) {
    // Scale the contraction dimension of the weight; keep a transposed weight transposed so
    // that the chain fusion still reads it with transpose_b.
    auto transpose = weight.getDefiningOp<linalg::TransposeOp>();
    bool kLast = transpose && transpose.getPermutation() == ArrayRef<int64_t>{1, 0};
    Value stored = kLast ? transpose.getInput() : weight;
    auto storedType = cast<RankedTensorType>(stored.getType());
    SmallVector<Value> args{stored};
    for (Factor &f : cols)
      args.push_back(asVector(rewriter, loc, f.value));
    func::FuncOp prep = getOrCreateScaleWeights(
        module, storedType, cast<ShapedType>(cols.front().value.getType()).getElementType(),
        cols.size(), kLast);
    if (llvm::any_of(cols, [&](Factor &f) {
          return cast<ShapedType>(f.value.getType()).getElementType() !=
                 cast<ShapedType>(cols.front().value.getType()).getElementType();
        }))
      return false;
    Value scaled = func::CallOp::create(rewriter, loc, prep, args).getResult(0);
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
                  linalg::YieldOp::create(b, l, ValueRange{arith::MulFOp::create(b, l, args[0], args[1])});
                })
                ->getResult(0);
    }
  }

  Value product = linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                           ValueRange{lhs, weight}, ValueRange{init})
                      ->getResult(0);
  // out = product ⊙ r1 ⊙ r2 ...: the row scale the consumer's epilogue applies.
  auto outType = cast<RankedTensorType>(product.getType());
  AffineMap id = rewriter.getMultiDimIdentityMap(2);
  SmallVector<Value> inputs{product};
  SmallVector<AffineMap> maps{id};
  for (Factor &f : rows) {
    inputs.push_back(f.value);
    maps.push_back(f.map);
  }
  maps.push_back(id);
  auto scaled = linalg::GenericOp::create(
      rewriter, loc, outType, inputs,
      ValueRange{tensor::EmptyOp::create(rewriter, loc, outType.getShape(),
                                         outType.getElementType())},
      maps, SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value v = args[0];
        for (unsigned i = 1; i < inputs.size(); ++i) {
          Value r = args[i];
          if (r.getType() != v.getType())
            r = cast<FloatType>(r.getType()).getWidth() > cast<FloatType>(v.getType()).getWidth()
                    ? arith::TruncFOp::create(b, l, v.getType(), r).getResult()
                    : arith::ExtFOp::create(b, l, v.getType(), r).getResult();
          v = arith::MulFOp::create(b, l, v, r);
        }
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
