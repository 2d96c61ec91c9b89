//===- AttentionMasks.cpp - masks on positions as #coda.mask --------------===//
//
// A mask computed from positions is read as a small expression over the query index i and the
// key index j, with a summary of how it depends on them: through the distance j − i (any
// arithmetic: causal, windows, (i − j) mod r), through thresholds on i or j alone (sinks,
// global tokens), or through chunks (⌊i / C⌋ = ⌊j / C⌋, which torch-mlir writes as a float
// division and a floor). Such a condition is constant on each class of (distance, interval of
// i between thresholds, interval of j, i mod C), and so is every #coda.mask, so comparing the
// two on one representative per class proves them equal on all Sq × Sk pairs.
//
//===----------------------------------------------------------------------===//

#include "AttentionMasks.h"
#include "AttentionHeads.h"

#include "coda/Transforms/KernelQueries.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::masks;

/// The iota generic behind a position tensor, and the loops of `g` its operand's dimensions
/// are read along.
static std::optional<SmallVector<unsigned>> iotaReadDims(linalg::GenericOp g,
                                                         OpOperand &operand) {
  linalg::GenericOp iota = heads::producerGeneric(operand.get());
  if (!iota || iota.getNumDpsInputs() != 0 || iota.getNumLoops() != 1)
    return std::nullopt;
  Value y = cast<linalg::YieldOp>(iota.getBody()->getTerminator()).getOperand(0);
  if (auto cast = y.getDefiningOp<arith::IndexCastOp>())
    y = cast.getIn();
  auto index = y.getDefiningOp<linalg::IndexOp>();
  if (!index || index.getDim() != 0)
    return std::nullopt;
  return getReadDims(g.getMatchingIndexingMap(&operand), cast<ShapedType>(operand.get().getType()));
}

std::optional<unsigned> masks::positionLoop(linalg::GenericOp g, OpOperand &operand) {
  std::optional<SmallVector<unsigned>> dims = iotaReadDims(g, operand);
  unsigned key = g.getNumLoops() - 1;
  if (!dims || dims->size() != 1 || ((*dims)[0] != key - 1 && (*dims)[0] != key))
    return std::nullopt;
  return (*dims)[0];
}

std::optional<unsigned> masks::iotaLoop(linalg::GenericOp g, OpOperand &operand) {
  std::optional<SmallVector<unsigned>> dims = iotaReadDims(g, operand);
  if (!dims)
    return std::nullopt;
  // The one loop it varies along (unit dimensions, as a broadcast writes them, vary along none).
  auto type = cast<ShapedType>(operand.get().getType());
  std::optional<unsigned> loop;
  for (auto [index, dim] : llvm::enumerate(*dims)) {
    if (type.getDimSize(index) == 1)
      continue;
    if (loop)
      return std::nullopt;
    loop = dim;
  }
  return loop;
}

namespace {

/// A value of the expression: an integer (also i1) or a float.
struct Num {
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;
  double real() const { return isFloat ? f : double(i); }
};
using Eval = std::function<std::optional<Num>(int64_t, int64_t)>;

/// How an expression depends on the positions.
enum class Kind { Const, Distance, IOnly, JOnly, Bool };

struct Expr {
  Eval eval;
  Kind kind = Kind::Const;
  /// Exactly a·i + b·j + c (integers), where known.
  std::optional<std::array<int64_t, 3>> linear;
  /// Exactly ⌊i / C⌋ (⌊j / C⌋), where it is; i / C (j / C) as a float before the floor.
  int64_t floorDivI = 0, floorDivJ = 0, realDivI = 0, realDivJ = 0;
  /// For booleans: what they depend on beyond the distance.
  Dependence deps;
};

Num integer(int64_t v) { return Num{false, v, 0}; }
Num real(double v) { return Num{true, 0, v}; }

Kind kindOfLinear(const std::array<int64_t, 3> &l) {
  if (l[0] == 0 && l[1] == 0)
    return Kind::Const;
  if (l[0] == -l[1])
    return Kind::Distance;
  if (l[1] == 0)
    return Kind::IOnly;
  if (l[0] == 0)
    return Kind::JOnly;
  return Kind::Bool; // mixed: refused where it is used
}

/// The kind of an arithmetic result from its operands': one family of dependence, or none.
std::optional<Kind> joinKinds(ArrayRef<const Expr *> operands) {
  Kind kind = Kind::Const;
  for (const Expr *e : operands) {
    if (e->kind == Kind::Const)
      continue;
    if (e->kind == Kind::Bool || (e->linear && kindOfLinear(*e->linear) == Kind::Bool))
      return std::nullopt;
    if (kind != Kind::Const && kind != e->kind)
      return std::nullopt;
    kind = e->kind;
  }
  return kind;
}

bool mergeDeps(Dependence &into, const Dependence &from) {
  into.iThresholds.insert(from.iThresholds.begin(), from.iThresholds.end());
  into.jThresholds.insert(from.jThresholds.begin(), from.jThresholds.end());
  if (from.chunk && into.chunk && from.chunk != into.chunk)
    return false;
  into.chunk = into.chunk ? into.chunk : from.chunk;
  return true;
}

/// What arithmetic or logic op `op` computes from its operands' values (the second ignored by
/// unary ops), chosen once where the expression is built rather than each time it is
/// evaluated; null for any other op.
using Apply = std::optional<Num> (*)(const Num &, const Num &);
bool traps(int64_t a, int64_t b) {
  return b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min());
}
Apply applyOf(Operation *op) {
  using R = std::optional<Num>;
  return llvm::TypeSwitch<Operation *, Apply>(op)
      .Case([](arith::AddIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R { return integer(a.i + b.i); };
      })
      .Case([](arith::SubIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R { return integer(a.i - b.i); };
      })
      .Case([](arith::MulIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R { return integer(a.i * b.i); };
      })
      .Case([](arith::MaxSIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R { return integer(std::max(a.i, b.i)); };
      })
      .Case([](arith::MinSIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R { return integer(std::min(a.i, b.i)); };
      })
      .Case([](math::AbsIOp) -> Apply {
        return [](const Num &a, const Num &) -> R { return integer(a.i < 0 ? -a.i : a.i); };
      })
      // A division that traps is no mask coda says.
      .Case([](arith::RemSIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R {
          return traps(a.i, b.i) ? R() : R(integer(a.i % b.i));
        };
      })
      .Case([](arith::DivSIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R {
          return traps(a.i, b.i) ? R() : R(integer(a.i / b.i));
        };
      })
      .Case([](arith::FloorDivSIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R {
          return traps(a.i, b.i) ? R() : R(integer(llvm::divideFloorSigned(a.i, b.i)));
        };
      })
      .Case([](arith::DivFOp) -> Apply {
        return [](const Num &a, const Num &b) -> R {
          return b.real() == 0 ? R() : R(real(a.real() / b.real()));
        };
      })
      .Case([](math::FloorOp) -> Apply {
        return [](const Num &a, const Num &) -> R { return real(std::floor(a.real())); };
      })
      .Case([](arith::AndIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R { return integer(a.i && b.i); };
      })
      .Case([](arith::OrIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R { return integer(a.i || b.i); };
      })
      .Case([](arith::XOrIOp) -> Apply {
        return [](const Num &a, const Num &b) -> R { return integer((a.i != 0) != (b.i != 0)); };
      })
      .Default([](Operation *) -> Apply { return nullptr; });
}

bool compare(arith::CmpIPredicate p, int64_t x, int64_t y) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::eq: return x == y;
  case P::ne: return x != y;
  case P::slt: return x < y;
  case P::sle: return x <= y;
  case P::sgt: return x > y;
  case P::sge: return x >= y;
  default: return false; // unsigned predicates are refused before
  }
}

class ExprBuilder {
public:
  explicit ExprBuilder(linalg::GenericOp g) : g(g) {}

  std::optional<Expr> build(Value v) {
    if (auto it = cache.find(v); it != cache.end())
      return it->second;
    std::optional<Expr> e = compute(v);
    if (e)
      cache[v] = *e;
    return e;
  }

private:
  linalg::GenericOp g;
  DenseMap<Value, Expr> cache;

  static Expr constant(Num n) {
    Expr e;
    e.eval = [n](int64_t, int64_t) { return std::optional<Num>(n); };
    e.kind = Kind::Const;
    if (!n.isFloat)
      e.linear = std::array<int64_t, 3>{0, 0, n.i};
    return e;
  }

  std::optional<Expr> compute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return argument(arg);
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        return constant(integer(i.getType().isInteger(1) ? i.getValue().getBoolValue()
                                                         : i.getValue().getSExtValue()));
      if (auto f = dyn_cast<FloatAttr>(c.getValue()))
        return constant(real(f.getValueAsDouble()));
      return std::nullopt;
    }
    // Conversions keep the value (positions and their arithmetic are small integers).
    if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
            arith::FPToSIOp, arith::ExtFOp, arith::TruncFOp>(op)) {
      std::optional<Expr> x = build(op->getOperand(0));
      if (!x)
        return std::nullopt;
      Expr e = *x;
      bool toInt = isa<arith::FPToSIOp>(op), toFloat = isa<arith::ExtFOp, arith::TruncFOp>(op);
      e.eval = [f = x->eval, toInt, toFloat](int64_t i, int64_t j) -> std::optional<Num> {
        std::optional<Num> n = f(i, j);
        if (!n)
          return std::nullopt;
        if (toInt)
          return integer(static_cast<int64_t>(n->real()));
        return toFloat ? real(n->real()) : *n;
      };
      if (toInt || toFloat)
        e.linear.reset();
      return e;
    }
    if (auto s = dyn_cast<arith::SIToFPOp>(op)) {
      std::optional<Expr> x = build(s.getIn());
      if (!x)
        return std::nullopt;
      Expr e = *x;
      e.eval = [f = x->eval](int64_t i, int64_t j) -> std::optional<Num> {
        std::optional<Num> n = f(i, j);
        return n ? std::optional<Num>(real(n->real())) : std::nullopt;
      };
      return e; // the linear form stays: the float holds the same integer
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(op))
      return comparison(cmp);
    if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op) &&
        op->getResult(0).getType().isInteger(1))
      return logic(op);
    if (auto sel = dyn_cast<arith::SelectOp>(op))
      return select(sel);
    if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::RemSIOp, arith::DivSIOp,
            arith::FloorDivSIOp, arith::MaxSIOp, arith::MinSIOp, math::AbsIOp, arith::DivFOp,
            math::FloorOp>(op))
      return arithmetic(op);
    return std::nullopt;
  }

  /// A position tensor (query or key index) or a constant tensor read by `g`.
  std::optional<Expr> argument(BlockArgument arg) {
    if (arg.getOwner() != g.getBody() || arg.getArgNumber() >= g.getNumDpsInputs())
      return std::nullopt;
    OpOperand *operand = g.getDpsInputOperand(arg.getArgNumber());
    if (auto c = operand->get().getDefiningOp<arith::ConstantOp>()) {
      auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
      if (!dense || !dense.isSplat())
        return std::nullopt;
      if (dense.getElementType().isIntOrIndex())
        return constant(integer(dense.getSplatValue<APInt>().getSExtValue()));
      if (isa<FloatType>(dense.getElementType()))
        return constant(real(dense.getSplatValue<APFloat>().convertToDouble()));
      return std::nullopt;
    }
    std::optional<unsigned> loop = positionLoop(g, *operand);
    if (!loop)
      return std::nullopt;
    bool key = *loop == g.getNumLoops() - 1;
    Expr e;
    e.kind = key ? Kind::JOnly : Kind::IOnly;
    e.linear = key ? std::array<int64_t, 3>{0, 1, 0} : std::array<int64_t, 3>{1, 0, 0};
    e.eval = [key](int64_t i, int64_t j) { return std::optional<Num>(integer(key ? j : i)); };
    return e;
  }

  std::optional<Expr> arithmetic(Operation *op) {
    SmallVector<Expr> xs;
    for (Value operand : op->getOperands()) {
      std::optional<Expr> x = build(operand);
      if (!x || x->kind == Kind::Bool)
        return std::nullopt;
      xs.push_back(*x);
    }
    SmallVector<const Expr *> ptrs;
    for (const Expr &x : xs)
      ptrs.push_back(&x);
    Expr e;
    std::optional<Kind> kind = joinKinds(ptrs);
    // Linear forms through sums, differences and products by constants.
    auto lin = [&](unsigned k) { return xs[k].linear; };
    // (A coefficient that overflows leaves the form unknown.)
    if (isa<arith::AddIOp, arith::SubIOp>(op) && lin(0) && lin(1)) {
      std::array<int64_t, 3> l = *lin(0), r = *lin(1), sum;
      bool overflow = false;
      for (int k = 0; k < 3; ++k)
        overflow |= isa<arith::SubIOp>(op) ? __builtin_sub_overflow(l[k], r[k], &sum[k])
                                           : __builtin_add_overflow(l[k], r[k], &sum[k]);
      if (!overflow)
        e.linear = sum;
    } else if (isa<arith::MulIOp>(op) && lin(0) && lin(1) &&
               (xs[0].kind == Kind::Const || xs[1].kind == Kind::Const)) {
      unsigned c = xs[0].kind == Kind::Const ? 0 : 1;
      int64_t k = (*lin(c))[2];
      std::array<int64_t, 3> l = *lin(1 - c), product;
      bool overflow = false;
      for (int m = 0; m < 3; ++m)
        overflow |= __builtin_mul_overflow(k, l[m], &product[m]);
      if (!overflow)
        e.linear = product;
    }
    if (e.linear)
      kind = kindOfLinear(*e.linear);
    if (!kind || *kind == Kind::Bool)
      return std::nullopt;
    e.kind = *kind;
    // ⌊i / C⌋, as an integer division of a position or as floor(float(i) / C).
    auto pure = [](const Expr &x, unsigned which) {
      return x.linear && (*x.linear)[which] == 1 && (*x.linear)[1 - which] == 0 &&
             (*x.linear)[2] == 0;
    };
    auto positiveConstant = [](const Expr &x) -> int64_t {
      if (x.kind != Kind::Const)
        return 0;
      std::optional<Num> n = x.eval(0, 0);
      if (!n || n->real() <= 0 || n->real() != std::floor(n->real()))
        return 0;
      return static_cast<int64_t>(n->real());
    };
    if (isa<arith::DivSIOp, arith::FloorDivSIOp>(op) && positiveConstant(xs[1])) {
      e.floorDivI = pure(xs[0], 0) ? positiveConstant(xs[1]) : 0;
      e.floorDivJ = pure(xs[0], 1) ? positiveConstant(xs[1]) : 0;
    } else if (isa<arith::DivFOp>(op) && positiveConstant(xs[1])) {
      e.realDivI = pure(xs[0], 0) ? positiveConstant(xs[1]) : 0;
      e.realDivJ = pure(xs[0], 1) ? positiveConstant(xs[1]) : 0;
    } else if (isa<math::FloorOp>(op)) {
      e.floorDivI = xs[0].realDivI;
      e.floorDivJ = xs[0].realDivJ;
    }
    std::vector<Eval> fs;
    for (const Expr &x : xs)
      fs.push_back(x.eval);
    e.eval = [fs, apply = applyOf(op)](int64_t i, int64_t j) -> std::optional<Num> {
      std::optional<Num> a = fs[0](i, j), b = fs.size() > 1 ? fs[1](i, j) : Num();
      if (!a || !b)
        return std::nullopt;
      return apply(*a, *b);
    };
    return e;
  }

  std::optional<Expr> comparison(arith::CmpIOp cmp) {
    using P = arith::CmpIPredicate;
    if (!llvm::is_contained({P::eq, P::ne, P::slt, P::sle, P::sgt, P::sge}, cmp.getPredicate()))
      return std::nullopt;
    std::optional<Expr> x = build(cmp.getLhs()), y = build(cmp.getRhs());
    if (!x || !y || x->kind == Kind::Bool || y->kind == Kind::Bool)
      return std::nullopt;
    Expr e;
    e.kind = Kind::Bool;
    P p = cmp.getPredicate();
    e.eval = [fx = x->eval, fy = y->eval, p](int64_t i, int64_t j) -> std::optional<Num> {
      std::optional<Num> a = fx(i, j), b = fy(i, j);
      if (!a || !b)
        return std::nullopt;
      return integer(compare(p, a->i, b->i));
    };
    // Linear sides: the sign of their difference a·i + b·j + c.
    if (x->linear && y->linear) {
      std::array<int64_t, 3> diff{(*x->linear)[0] - (*y->linear)[0],
                                  (*x->linear)[1] - (*y->linear)[1],
                                  (*x->linear)[2] - (*y->linear)[2]};
      Kind kind = kindOfLinear(diff);
      if (kind == Kind::Const || kind == Kind::Distance)
        return e;
      if (kind == Kind::Bool)
        return std::nullopt; // i and j with other weights
      // A threshold on i or on j: a·t + c changes sign between ⌊−c/a⌋ and the next integer.
      unsigned which = kind == Kind::IOnly ? 0 : 1;
      // Positions are below 2^31: a threshold past that range is clamped to its edge.
      constexpr int64_t kFar = int64_t(1) << 32;
      if (diff[2] == std::numeric_limits<int64_t>::min())
        return std::nullopt;
      int64_t t = std::clamp<int64_t>(llvm::divideFloorSigned(-diff[2], diff[which]), -kFar, kFar);
      std::set<int64_t> &thresholds = which == 0 ? e.deps.iThresholds : e.deps.jThresholds;
      thresholds.insert({t, t + 1, t + 2});
      return e;
    }
    std::optional<Kind> kind = joinKinds({&*x, &*y});
    if (kind == Kind::Const || kind == Kind::Distance)
      return e;
    // Chunks: ⌊i / C⌋ against ⌊j / C⌋.
    if (p == P::eq || p == P::ne) {
      int64_t ci = x->floorDivI ? x->floorDivI : y->floorDivI;
      int64_t cj = x->floorDivJ ? x->floorDivJ : y->floorDivJ;
      if (ci && ci == cj && (x->floorDivI ? y->floorDivJ : x->floorDivJ)) {
        e.deps.chunk = ci;
        return e;
      }
    }
    return std::nullopt;
  }

  std::optional<Expr> logic(Operation *op) {
    std::optional<Expr> x = build(op->getOperand(0)), y = build(op->getOperand(1));
    if (!x || !y)
      return std::nullopt;
    // i1 constants and comparisons only.
    for (const Expr *b : {&*x, &*y})
      if (b->kind != Kind::Bool && b->kind != Kind::Const)
        return std::nullopt;
    Expr e;
    e.kind = Kind::Bool;
    e.deps = x->deps;
    if (!mergeDeps(e.deps, y->deps))
      return std::nullopt;
    e.eval = [fx = x->eval, fy = y->eval, apply = applyOf(op)](int64_t i, int64_t j) {
      std::optional<Num> a = fx(i, j), b = fy(i, j);
      return a && b ? apply(*a, *b) : std::nullopt;
    };
    return e;
  }

  std::optional<Expr> select(arith::SelectOp sel) {
    std::optional<Expr> c = build(sel.getCondition()), x = build(sel.getTrueValue()),
                        y = build(sel.getFalseValue());
    if (!c || !x || !y)
      return std::nullopt;
    Expr e;
    e.eval = [fc = c->eval, fx = x->eval, fy = y->eval](int64_t i, int64_t j) {
      std::optional<Num> b = fc(i, j);
      if (!b)
        return std::optional<Num>();
      return b->i ? fx(i, j) : fy(i, j);
    };
    if (x->kind == Kind::Bool || y->kind == Kind::Bool) {
      // A boolean select is a logic op.
      e.kind = Kind::Bool;
      e.deps = c->deps;
      if (!mergeDeps(e.deps, x->deps) || !mergeDeps(e.deps, y->deps))
        return std::nullopt;
      return e;
    }
    // The values chosen by a condition on the distance (torch's remainder fix-up) stay
    // functions of the distance.
    bool distanceOnly = c->deps.iThresholds.empty() && c->deps.jThresholds.empty() && !c->deps.chunk;
    std::optional<Kind> kind = joinKinds({&*x, &*y});
    if (!distanceOnly || !kind || (*kind != Kind::Const && *kind != Kind::Distance))
      return std::nullopt;
    e.kind = Kind::Distance;
    return e;
  }
};

/// Whether key j is visible to the query at position r under `m` (null: dense).
bool maskShows(MaskAttr m, int64_t r, int64_t j) {
  if (!m)
    return true;
  bool band = (!m.getCausal() || j <= r) && (m.getLeft() < 0 || j >= r - m.getLeft()) &&
              (m.getRight() < 0 || j <= r + m.getRight()) &&
              (m.getDilation() <= 1 || (r - j) % m.getDilation() == 0) &&
              (m.getChunk() <= 0 || llvm::divideFloorSigned(j, m.getChunk()) ==
                                         llvm::divideFloorSigned(r, m.getChunk()));
  return band || (j < m.getSinks() && (!m.getCausal() || j <= r)) || j < m.getGlobal() ||
         r < m.getGlobal();
}

/// Interval bounds [0, n] cut at the points given (those inside).
SmallVector<int64_t> cuts(const std::set<int64_t> &points, int64_t n) {
  SmallVector<int64_t> b{0};
  for (int64_t p : points)
    if (p > 0 && p < n)
      b.push_back(p);
  b.push_back(n);
  return b;
}

/// Calls `fn(i, j)` once per class of (interval of i, interval of j, distance j − i, i mod C):
/// false as soon as `fn` is, or when there are more than `budget` classes.
bool forEachClass(const std::set<int64_t> &iPoints, const std::set<int64_t> &jPoints,
                  int64_t chunk, int64_t sq, int64_t sk, int64_t budget,
                  const std::function<bool(int64_t, int64_t)> &fn) {
  SmallVector<int64_t> is = cuts(iPoints, sq), js = cuts(jPoints, sk);
  // Queries are below sq: residues past it hold none.
  int64_t period = std::clamp<int64_t>(chunk, 1, sq), classes = 0;
  for (size_t a = 0; a + 1 < is.size(); ++a)
    for (size_t b = 0; b + 1 < js.size(); ++b) {
      int64_t more = (js[b + 1] - js[b] + is[a + 1] - is[a]) * period;
      if (more > budget - classes)
        return false;
      classes += more;
    }
  for (size_t a = 0; a + 1 < is.size(); ++a)
    for (size_t b = 0; b + 1 < js.size(); ++b) {
      int64_t i0 = is[a], i1 = is[a + 1] - 1, j0 = js[b], j1 = js[b + 1] - 1;
      for (int64_t d = j0 - i1; d <= j1 - i0; ++d) {
        int64_t lo = std::max(i0, j0 - d), hi = std::min(i1, j1 - d);
        for (int64_t m = 0; m < period && lo <= hi; ++m) {
          int64_t i = lo + ((m - lo) % period + period) % period;
          if (i <= hi && !fn(i, i + d))
            return false;
        }
      }
    }
  return true;
}

constexpr int64_t kBudget = int64_t(1) << 24;

} // namespace

std::optional<PositionCondition> masks::matchPositionCondition(linalg::GenericOp g,
                                                               Value cond) {
  ExprBuilder builder(g);
  std::optional<Expr> e = builder.build(cond);
  if (!e || !cond.getType().isInteger(1) || (e->kind != Kind::Bool && e->kind != Kind::Const))
    return std::nullopt;
  Eval eval = e->eval;
  return PositionCondition{[eval](int64_t i, int64_t j) -> std::optional<bool> {
                             std::optional<Num> n = eval(i, j);
                             return n ? std::optional<bool>(n->i != 0) : std::nullopt;
                           },
                           e->deps, cond, g};
}

Value masks::materializeVisible(OpBuilder &b, Location loc, ArrayRef<HiddenTerm> hidden,
                                int64_t sq, int64_t sk) {
  auto type = RankedTensorType::get({sq, sk}, b.getI1Type());
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  AffineMap id = b.getMultiDimIdentityMap(2);
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{}, ValueRange{init}, ArrayRef<AffineMap>{id},
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange) {
        Value position[2] = {linalg::IndexOp::create(nb, l, 0), linalg::IndexOp::create(nb, l, 1)};
        Value visible = arith::ConstantIntOp::create(nb, l, 1, 1);
        for (const HiddenTerm &term : hidden) {
          linalg::GenericOp g = term.cond.owner;
          Block *body = g.getBody();
          unsigned key = g.getNumLoops() - 1;
          // The condition's ops in the body, and the block arguments they read.
          SetVector<Operation *> slice, outer;
          DenseSet<Value> read;
          SmallVector<Value> work{term.cond.value};
          while (!work.empty()) {
            Value v = work.pop_back_val();
            if (isa<BlockArgument>(v))
              read.insert(v);
            Operation *op = v.getDefiningOp();
            if (op && op->getBlock() != body && isa<arith::ConstantOp>(op))
              outer.insert(op);
            if (!op || op->getBlock() != body || !slice.insert(op))
              continue;
            llvm::append_range(work, op->getOperands());
          }
          // Constants from outside the body, position tensors read at this point, splat
          // constants as scalars.
          IRMapping map;
          for (Operation *c : outer)
            nb.clone(*c, map);
          for (OpOperand *in : g.getDpsInputOperands()) {
            BlockArgument arg = g.getMatchingBlockArgument(in);
            if (!read.contains(arg))
              continue;
            if (std::optional<unsigned> loop = positionLoop(g, *in)) {
              Value at = position[*loop == key ? 1 : 0];
              map.map(arg, arg.getType().isIndex()
                               ? at
                               : arith::IndexCastOp::create(nb, l, arg.getType(), at).getResult());
            } else if (auto c = in->get().getDefiningOp<arith::ConstantOp>()) {
              auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
              if (dense && dense.isSplat())
                map.map(arg, arith::ConstantOp::create(nb, l, dense.getSplatValue<TypedAttr>()));
            }
          }
          for (Operation &op : body->without_terminator())
            if (slice.contains(&op))
              nb.clone(op, map);
          Value shown = map.lookupOrDefault(term.cond.value);
          if (term.hidesWhen)
            shown = arith::XOrIOp::create(nb, l, shown,
                                          arith::ConstantIntOp::create(nb, l, 1, 1));
          visible = arith::AndIOp::create(nb, l, visible, shown);
        }
        linalg::YieldOp::create(nb, l, visible);
      });
  return generic.getResult(0);
}

std::optional<MaskAttr> masks::fitMask(MLIRContext *ctx, ArrayRef<HiddenTerm> hidden,
                                       int64_t sq, int64_t sk) {
  if (hidden.empty())
    return MaskAttr();
  if (sq < 1 || sk < 1 || sq >= (int64_t(1) << 31) || sk >= (int64_t(1) << 31))
    return std::nullopt;
  Dependence deps;
  for (const HiddenTerm &t : hidden)
    if (!mergeDeps(deps, t.cond.deps))
      return std::nullopt;
  int64_t shift = sk - sq;
  bool failed = false;
  auto visible = [&](int64_t i, int64_t j) {
    for (const HiddenTerm &t : hidden) {
      std::optional<bool> c = t.cond.eval(i, j);
      if (!c) {
        failed = true;
        return false;
      }
      if (*c == t.hidesWhen)
        return false;
    }
    return true;
  };

  // The band, read where no threshold reaches: past the last threshold on i and on j.
  int64_t iFrom = 0, jFrom = 0;
  for (int64_t t : deps.iThresholds)
    iFrom = std::max(iFrom, std::min(t, sq - 1));
  for (int64_t t : deps.jThresholds)
    jFrom = std::max(jFrom, std::min(t, sk - 1));
  std::optional<int64_t> lo, hi;
  int64_t step = 0;
  if (!forEachClass({iFrom}, {jFrom}, deps.chunk, sq, sk, kBudget, [&](int64_t i, int64_t j) {
        if (i >= iFrom && j >= jFrom && visible(i, j)) {
          int64_t d = j - (i + shift); // from the query's position
          lo = lo ? std::min(*lo, d) : d;
          hi = hi ? std::max(*hi, d) : d;
          step = std::gcd(step, d < 0 ? -d : d);
        }
        return true;
      }) ||
      failed || !lo || *lo > 0 || *hi < 0)
    return std::nullopt;
  // Distances the interior can hold at all: a band reaching them is no bound.
  int64_t dMin = jFrom - (sq - 1 + shift), dMax = (sk - 1) - (iFrom + shift);
  bool causal = *hi == 0 && dMax > 0;
  int64_t left = *lo > dMin ? -*lo : -1, right = causal || *hi >= dMax ? -1 : *hi;
  int64_t dilation = step > 1 ? step : 1;

  // Sinks and global tokens from the thresholds; the first that proves equal is the mask.
  SmallVector<int64_t> globals{0}, sinks{0};
  for (int64_t t : deps.iThresholds)
    if (t + shift > 0)
      globals.push_back(t + shift);
  for (int64_t t : deps.jThresholds)
    if (t > 0) {
      globals.push_back(t);
      sinks.push_back(t);
    }
  // Bounds that the dilation or the chunks already imply are left out: the simplest mask first.
  SmallVector<std::pair<int64_t, int64_t>> bounds;
  for (auto b : {std::make_pair(int64_t(-1), int64_t(-1)), std::make_pair(left, int64_t(-1)),
                 std::make_pair(int64_t(-1), right), std::make_pair(left, right)})
    if (!llvm::is_contained(bounds, b))
      bounds.push_back(b);
  for (int64_t global : globals)
    for (int64_t sink : sinks)
      for (auto [l, r] : bounds) {
        auto mask = MaskAttr::getChecked([] { return InFlightDiagnostic(); }, ctx, causal, l,
                                         r, dilation, deps.chunk, sink, global);
        if (!mask)
          continue;
        std::set<int64_t> iPoints = deps.iThresholds, jPoints = deps.jThresholds;
        iPoints.insert(global - shift);
        jPoints.insert({global, sink});
        bool equal = forEachClass(iPoints, jPoints, deps.chunk, sq, sk, kBudget,
                                  [&](int64_t i, int64_t j) {
                                    return visible(i, j) == maskShows(mask, i + shift, j);
                                  });
        if (failed)
          return std::nullopt;
        if (equal)
          return mask.isDense() && !sink && !global ? MaskAttr() : mask;
      }
  return std::nullopt;
}
