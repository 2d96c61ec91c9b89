//===- FuseLeftovers.cpp - fewer passes over memory between kernels -------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSELEFTOVERS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// A kernel that stores one value both narrow (bf16/f16) and, as the widening of that narrow
/// value, in f32 (torch code that upcasts a result for what follows): the f32 result is
/// exactly the widening of the narrow one. Its readers widen the narrow result themselves (an
/// elementwise op the fusion below merges into them) and the kernel stops writing it.
static bool dropWideCopy(GemmOp gemm, RewriterBase &rewriter) {
  if (gemm.getPairwise())
    return false;
  auto yield = cast<YieldOp>(gemm.getEpilogue().front().getTerminator());
  auto elementOf = [&](unsigned r) {
    return cast<ShapedType>(gemm->getResult(r).getType()).getElementType();
  };
  for (unsigned wide = 0, e = gemm->getNumResults(); wide < e; ++wide) {
    auto ext = yield.getValues()[wide].getDefiningOp<arith::ExtFOp>();
    if (!gemm.getMode(wide).isStore() || !elementOf(wide).isF32() || !ext)
      continue;
    for (unsigned narrow = 0; narrow < e; ++narrow) {
      if (narrow == wide || !gemm.getMode(narrow).isStore() ||
          elementOf(narrow) != ext.getIn().getType() ||
          yield.getValues()[narrow] != yield.getValues()[wide])
        continue;
      // The kernel without the wide result.
      rewriter.setInsertionPoint(gemm);
      Location loc = gemm.getLoc();
      SmallVector<Type> types;
      SmallVector<ResultModeAttr> modes;
      SmallVector<OperandRole> roles;
      for (unsigned r = 0; r < e; ++r)
        if (r != wide) {
          types.push_back(gemm->getResult(r).getType());
          modes.push_back(gemm.getMode(r));
        }
      for (unsigned i = 0, n = gemm.getExtras().size(); i < n; ++i)
        roles.push_back(gemm.getRole(i));
      auto narrower = GemmOp::create(
          rewriter, loc, types, gemm.getA(), gemm.getB(), gemm.getExtras(), roles,
          gemm.getInits(), modes, gemm.getTransposeA(), gemm.getTransposeB(), std::nullopt,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Block &old = gemm.getEpilogue().front();
            IRMapping mapping;
            mapping.map(old.getArguments(), args);
            for (Operation &op : old.without_terminator())
              b.clone(op, mapping);
            SmallVector<Value> values;
            for (unsigned r = 0; r < e; ++r)
              if (r != wide)
                values.push_back(mapping.lookup(yield.getValues()[r]));
            YieldOp::create(b, l, values);
          });
      if (Attribute bytes = gemm->getAttr(kUnfusedBytesAttr))
        narrower->setAttr(kUnfusedBytesAttr, bytes);
      unsigned newNarrow = narrow - (narrow > wide);
      Value narrowResult = narrower->getResult(newNarrow);
      auto wideType = cast<RankedTensorType>(gemm->getResult(wide).getType());
      AffineMap id = rewriter.getMultiDimIdentityMap(wideType.getRank());
      Value widened =
          linalg::GenericOp::create(
              rewriter, loc, wideType, ValueRange{narrowResult},
              ValueRange{tensor::EmptyOp::create(rewriter, loc, wideType.getShape(),
                                                 wideType.getElementType())},
              ArrayRef<AffineMap>{id, id},
              SmallVector<utils::IteratorType>(wideType.getRank(), utils::IteratorType::parallel),
              [](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(b, l, castFloatTo(b, l, args[0], b.getF32Type()));
              })
              ->getResult(0);
      for (unsigned r = 0, k = 0; r < e; ++r)
        rewriter.replaceAllUsesWith(gemm->getResult(r),
                                    r == wide ? widened : narrower->getResult(k++));
      rewriter.eraseOp(gemm);
      return true;
    }
  }
  return false;
}

/// A value that an elementwise generic makes by widening one float tensor (arith.extf alone).
static bool isWidening(Value v) {
  auto generic = v.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 || generic->getNumResults() != 1 ||
      generic.getNumReductionLoops() != 0)
    return false;
  Block &body = *generic.getBlock();
  auto ext = dyn_cast<arith::ExtFOp>(&body.front());
  return ext && ext->getNextNode() == body.getTerminator() &&
         ext.getIn() == body.getArgument(0) &&
         body.getTerminator()->getOperand(0) == ext.getResult();
}

/// Whether `g` reads a kernel's result (as an operand or through tensor.extract, past
/// reshapes): such a generic is planned around that kernel (its row pass, say) and stays alone.
static bool readsKernelResult(linalg::GenericOp g) {
  auto fromKernel = [](Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (isa<GemmOp>(def))
        return true;
      if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
        return false;
      v = def->getOperand(0);
    }
    return false;
  };
  if (llvm::any_of(g->getOperands(), fromKernel))
    return true;
  return g.walk([&](tensor::ExtractOp e) {
            return fromKernel(e.getTensor()) ? WalkResult::interrupt() : WalkResult::advance();
          })
      .wasInterrupted();
}

/// Two generics over the same iteration space become one generic with the outputs of both:
///   - two reductions that read a tensor in common (LayerNorm's row sums of x and x²): one pass
///     over that tensor;
///   - two elementwise generics that read no kernel's result (RoPE's cos and sin tables,
///     permuted for the kernel): one launch instead of two.
/// The merged op takes the later one's place; neither may read the other, and nothing between
/// them may read the earlier one.
static bool mergeSiblings(linalg::GenericOp first, linalg::GenericOp second,
                          RewriterBase &rewriter) {
  if (first == second || first->getBlock() != second->getBlock() ||
      !first->isBeforeInBlock(second) || !first.hasPureTensorSemantics() ||
      !second.hasPureTensorSemantics() ||
      first.getIteratorTypesArray() != second.getIteratorTypesArray() ||
      first.getStaticLoopRanges() != second.getStaticLoopRanges())
    return false;
  bool elementwise = first.getNumReductionLoops() == 0;
  if (elementwise && (readsKernelResult(first) || readsKernelResult(second)))
    return false;
  auto reads = [](linalg::GenericOp g, Value v) {
    return llvm::is_contained(g->getOperands(), v);
  };
  Block *block = first->getBlock();
  for (Value r : first->getResults())
    for (Operation *user : r.getUsers())
      if (Operation *at = block->findAncestorOpInBlock(*user); !at || !second->isBeforeInBlock(at))
        return false;
  for (Value r : second->getResults())
    if (reads(first, r))
      return false;
  bool shared = false;
  for (OpOperand *a : first.getDpsInputOperands())
    for (OpOperand *b : second.getDpsInputOperands())
      shared |= a->get() == b->get() &&
                first.getMatchingIndexingMap(a) == second.getMatchingIndexingMap(b);
  if (!shared && !elementwise)
    return false;

  // Inputs of both, each (tensor, map) once; then the outputs of both.
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps;
  SmallVector<std::pair<BlockArgument, unsigned>> argOf; // old block argument -> new index
  for (linalg::GenericOp g : {first, second})
    for (OpOperand *in : g.getDpsInputOperands()) {
      AffineMap map = g.getMatchingIndexingMap(in);
      unsigned index = inputs.size();
      for (unsigned i = 0; i < inputs.size(); ++i)
        if (inputs[i] == in->get() && maps[i] == map)
          index = i;
      if (index == inputs.size()) {
        inputs.push_back(in->get());
        maps.push_back(map);
      }
      argOf.push_back({g.getMatchingBlockArgument(in), index});
    }
  unsigned numInputs = inputs.size();
  for (linalg::GenericOp g : {first, second})
    for (OpOperand &init : g.getDpsInitsMutable()) {
      argOf.push_back({g.getMatchingBlockArgument(&init), numInputs + unsigned(inits.size())});
      inits.push_back(init.get());
      maps.push_back(g.getMatchingIndexingMap(&init));
    }
  SmallVector<Type> types(first->getResultTypes());
  llvm::append_range(types, second->getResultTypes());
  rewriter.setInsertionPoint(second);
  auto merged = linalg::GenericOp::create(
      rewriter, second.getLoc(), types, inputs, inits, maps, first.getIteratorTypesArray(),
      [&](OpBuilder &b, Location, ValueRange args) {
        IRMapping mapping;
        for (auto [old, index] : argOf)
          mapping.map(old, args[index]);
        SmallVector<Value> yielded;
        for (linalg::GenericOp g : {first, second}) {
          for (Operation &op : g.getBlock()->without_terminator())
            b.clone(op, mapping);
          for (Value v : g.getBlock()->getTerminator()->getOperands())
            yielded.push_back(mapping.lookupOrDefault(v));
        }
        linalg::YieldOp::create(b, second.getLoc(), yielded);
      });
  unsigned numFirst = first->getNumResults();
  rewriter.replaceOp(first, merged->getResults().take_front(numFirst));
  rewriter.replaceOp(second, merged->getResults().drop_front(numFirst));
  return true;
}

namespace {
struct CodaFuseLeftoversPass : coda::impl::CodaFuseLeftoversBase<CodaFuseLeftoversPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.walk([](GemmOp) { return WalkResult::interrupt(); }).wasInterrupted() == false)
      return;
    IRRewriter rewriter(&getContext());
    SmallVector<GemmOp> gemms;
    func.walk([&](GemmOp op) { gemms.push_back(op); });
    for (GemmOp gemm : gemms)
      dropWideCopy(gemm, rewriter);
    RewritePatternSet patterns(&getContext());
    // Only producers with a single user, or plain widenings: fusing another producer with
    // several users would recompute it, a widening costs a convert where its copy costs a pass
    // over memory (LayerNorm's f32 x, read by the row sums of x and x²).
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *fused) {
      return fused->get().hasOneUse() || isWidening(fused->get());
    });
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
    for (bool changed = true; changed;) {
      changed = false;
      SmallVector<linalg::GenericOp> generics;
      func.walk([&](linalg::GenericOp g) { generics.push_back(g); });
      for (linalg::GenericOp a : generics) {
        for (linalg::GenericOp b : generics)
          if ((changed = mergeSiblings(a, b, rewriter)))
            break;
        if (changed)
          break;
      }
    }
  }
};
} // namespace
