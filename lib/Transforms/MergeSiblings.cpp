//===- MergeSiblings.cpp - q/k/v projections -> one coda.gemm -------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAMERGESIBLINGS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

static bool isMergeable(GemmOp g) {
  if (g.getPairwise() || g.isBatched() || g->getNumResults() != 1 || !g.getMode(0).isStore())
    return false;
  for (unsigned i = 0, e = g.getExtras().size(); i < e; ++i)
    if (g.getRole(i) == OperandRole::Matrix || g.getRole(i) == OperandRole::Tiled)
      return false;
  return true;
}

static bool isWeightPrepCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  return callee && callee->hasAttr(CodaDialect::getWeightPrepAttrName());
}

/// Moves the side-effect-free ops (and weight-preparation calls) computing `v` before `point`
/// when they come after it; false when they cannot move.
static bool hoistBefore(Value v, Operation *point, DominanceInfo &dom) {
  if (dom.properlyDominates(v, point))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != point->getBlock() ||
      !(isMemoryEffectFree(def) || isWeightPrepCall(def)))
    return false;
  for (Value o : def->getOperands())
    if (!hoistBefore(o, point, dom))
      return false;
  def->moveBefore(point);
  return true;
}

/// Concatenates tensors along `dim` with insert_slice into an empty tensor.
static Value concat(OpBuilder &b, Location loc, ArrayRef<Value> parts, unsigned dim) {
  auto first = cast<RankedTensorType>(parts.front().getType());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (Value p : parts)
    shape[dim] += cast<RankedTensorType>(p.getType()).getDimSize(dim);
  Value result = tensor::EmptyOp::create(b, loc, shape, first.getElementType());
  int64_t offset = 0;
  for (Value p : parts) {
    auto type = cast<RankedTensorType>(p.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)), sizes, strides(
        type.getRank(), b.getIndexAttr(1));
    offsets[dim] = b.getIndexAttr(offset);
    for (int64_t s : type.getShape())
      sizes.push_back(b.getIndexAttr(s));
    result = tensor::InsertSliceOp::create(b, loc, p, result, offsets, sizes, strides);
    offset += type.getDimSize(dim);
  }
  return result;
}

/// The weight-preparation function concatenating weights along N.
static func::FuncOp getOrCreateConcat(ModuleOp module, ArrayRef<Type> types, unsigned dim) {
  std::string name = "coda_concat_weights";
  for (Type t : types) {
    auto r = cast<RankedTensorType>(t);
    name += "_" + std::to_string(r.getDimSize(0)) + "x" + std::to_string(r.getDimSize(1));
  }
  name += dim == 0 ? "_rows" : "_cols";
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = module.getLoc();
  auto func = func::FuncOp::create(b, loc, name, b.getFunctionType(types, {}));
  func.setPrivate();
  func->setAttr(CodaDialect::getWeightPrepAttrName(), b.getUnitAttr());
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  SmallVector<Value> parts(entry->getArguments());
  Value result = concat(b, loc, parts, dim);
  func::ReturnOp::create(b, loc, result);
  func.setFunctionType(b.getFunctionType(types, {result.getType()}));
  return func;
}

static bool mergeGroup(MutableArrayRef<GemmOp> group, ModuleOp module, RewriterBase &rewriter) {
  GemmOp first = group.front();
  DominanceInfo dom(first->getParentOp());
  for (GemmOp g : group.drop_front()) {
    for (Value v : g->getOperands())
      if (!hoistBefore(v, first, dom))
        return false;
  }
  Location loc = first.getLoc();
  rewriter.setInsertionPoint(first);
  bool transposedB = first.getTransposeB();
  unsigned nDim = transposedB ? 0 : 1;
  SmallVector<Value> weights;
  SmallVector<Type> weightTypes;
  for (GemmOp g : group) {
    weights.push_back(g.getB());
    weightTypes.push_back(g.getB().getType());
  }
  func::FuncOp prep = getOrCreateConcat(module, weightTypes, nDim);
  Value weight = func::CallOp::create(rewriter, loc, prep, weights).getResult(0);

  // Operands: rows and scalars shared, columns concatenated (their other siblings' part is
  // never selected, so zeros stand in for the siblings that have none).
  EpilogueOperands operands;
  SmallVector<Value> &extras = operands.values;
  SmallVector<OperandRole> &roles = operands.roles;
  SmallVector<SmallVector<unsigned>> argIndex(group.size());
  SmallVector<int64_t> offsets;
  int64_t total = 0;
  for (GemmOp g : group) {
    offsets.push_back(total);
    total += g.getN();
  }
  for (auto [s, g] : llvm::enumerate(group)) {
    for (unsigned i = 0, e = g.getExtras().size(); i < e; ++i) {
      Value v = g.getExtras()[i];
      OperandRole role = g.getRole(i);
      if (role == OperandRole::Col) {
        // [N_s] placed at its offset in a zero [N_total] vector.
        auto type = cast<RankedTensorType>(v.getType());
        SmallVector<Value> parts;
        for (auto [t, other] : llvm::enumerate(group)) {
          if (t == s) {
            parts.push_back(v);
            continue;
          }
          Value zero = arith::ConstantOp::create(
              rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
          Value empty = tensor::EmptyOp::create(rewriter, loc, {other.getN()}, type.getElementType());
          parts.push_back(linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0));
        }
        v = concat(rewriter, loc, parts, 0);
      }
      argIndex[s].push_back(operands.add(v, role));
    }
  }

  Type element = cast<ShapedType>(first->getResult(0).getType()).getElementType();
  auto resultType = RankedTensorType::get({first.getM(), total}, element);
  auto merged = GemmOp::create(
      rewriter, loc, TypeRange{resultType}, first.getA(), weight, extras, roles, ValueRange{},
      {ResultModeAttr::get(rewriter.getContext(), ResultKind::Store)}, first.getTransposeA(),
      transposedB, std::nullopt, [&](OpBuilder &b, Location l, ValueRange args) {
        ValueRange extraArgs = args.slice(1, extras.size());
        Value row = args[args.size() - 2], col = args[args.size() - 1];
        SmallVector<Value> values;
        for (auto [s, g] : llvm::enumerate(group)) {
          Block &body = g.getEpilogue().front();
          IRMapping mapping;
          mapping.map(body.getArgument(0), args[0]);
          for (unsigned i = 0, e = g.getExtras().size(); i < e; ++i)
            mapping.map(g.getExtraArgs(i).front(), extraArgs[argIndex[s][i]]);
          mapping.map(g.getRowIndexArg(), row);
          Value offset = arith::ConstantIndexOp::create(b, l, offsets[s]);
          mapping.map(g.getColIndexArg(), arith::SubIOp::create(b, l, col, offset));
          for (Operation &op : body.without_terminator())
            b.clone(op, mapping);
          values.push_back(mapping.lookup(cast<YieldOp>(body.getTerminator()).getValues()[0]));
        }
        // Column j belongs to the last sibling whose range starts at or before j.
        Value result = values.back();
        for (int s = static_cast<int>(group.size()) - 2; s >= 0; --s) {
          Value end = arith::ConstantIndexOp::create(b, l, offsets[s + 1]);
          Value inRange = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, col, end);
          result = arith::SelectOp::create(b, l, inRange, values[s], result);
        }
        YieldOp::create(b, l, result);
      });
  Traffic before;
  bool known = true;
  for (GemmOp g : group) {
    auto bytes = g->getAttrOfType<DenseI64ArrayAttr>(kUnfusedBytesAttr);
    known &= static_cast<bool>(bytes);
    if (bytes)
      before += Traffic{bytes[0], bytes[1]};
  }
  if (known)
    merged->setAttr(kUnfusedBytesAttr, rewriter.getDenseI64ArrayAttr({before.read, before.written}));

  for (auto [s, g] : llvm::enumerate(group)) {
    SmallVector<OpFoldResult> offs{rewriter.getIndexAttr(0), rewriter.getIndexAttr(offsets[s])};
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(g.getM()), rewriter.getIndexAttr(g.getN())};
    SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
    Value slice = tensor::ExtractSliceOp::create(rewriter, loc,
                                                 cast<RankedTensorType>(g->getResult(0).getType()),
                                                 merged->getResult(0), offs, sizes, strides);
    rewriter.replaceOp(g, slice);
  }
  return true;
}

namespace {
struct CodaMergeSiblingsPass : coda::impl::CodaMergeSiblingsBase<CodaMergeSiblingsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Groups of mergeable gemms by (A, transposes, B element type, result element type).
    llvm::MapVector<Value, SmallVector<GemmOp>> byInput;
    module.walk([&](GemmOp g) {
      if (isMergeable(g))
        byInput[g.getA()].push_back(g);
    });
    IRRewriter rewriter(&getContext());
    for (auto &[a, gemms] : byInput) {
      SmallVector<GemmOp> group;
      for (GemmOp g : gemms) {
        GemmOp f = gemms.front();
        if (g->getBlock() == f->getBlock() && g.getTransposeA() == f.getTransposeA() &&
            g.getTransposeB() == f.getTransposeB() &&
            g.getB().getType().getElementType() == f.getB().getType().getElementType() &&
            g.getK() == f.getK() &&
            cast<ShapedType>(g->getResult(0).getType()).getElementType() ==
                cast<ShapedType>(f->getResult(0).getType()).getElementType())
          group.push_back(g);
      }
      if (group.size() < 2)
        continue;
      llvm::sort(group, [](GemmOp x, GemmOp y) { return x->isBeforeInBlock(y); });
      mergeGroup(group, module, rewriter);
    }
  }
};
} // namespace
