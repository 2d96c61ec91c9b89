//===- FuseReport.cpp - what was fused, what stayed outside, and why ------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSEREPORT
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// Whether `v` is computed (through any ops) from a batched product: attention's scores and
/// values.
static bool comesFromAttention(Value v, DenseMap<Value, bool> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  memo[v] = false;
  Operation *def = v.getDefiningOp();
  bool result = false;
  // Weight products end the search: what follows the o-projection is no longer attention.
  if (def && !isa<GemmOp, linalg::MatmulOp>(def)) {
    result = isa<linalg::BatchMatmulOp>(def) ||
             llvm::any_of(def->getOperands(),
                          [&](Value o) { return comesFromAttention(o, memo); });
  }
  memo[v] = result;
  return result;
}

/// Whether `v` (through any ops) only ends up in attention: a batched product, before any
/// weight product (the attention mask, for instance).
static bool feedsAttention(Value v, DenseMap<Value, bool> &memo,
                           DenseMap<Value, bool> &backward) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  memo[v] = false;
  bool result = !v.use_empty();
  for (Operation *user : v.getUsers()) {
    // Joining the attention data flow (the mask added to the scores) is feeding attention.
    if (isa<linalg::BatchMatmulOp>(user) ||
        llvm::any_of(user->getOperands(), [&](Value o) { return comesFromAttention(o, backward); }))
      continue;
    if (isa<GemmOp, linalg::MatmulOp, func::ReturnOp>(user) || user->getNumResults() == 0) {
      result = false;
      break;
    }
    result &= llvm::all_of(user->getResults(),
                           [&](Value r) { return feedsAttention(r, memo, backward); });
  }
  memo[v] = result;
  return result;
}

namespace {
/// How a value derives from a kernel's result through views and elementwise ops.
enum class FromKernel { No, Yes, ThroughStridedSlices };
} // namespace

static FromKernel fromKernel(Value v, DenseMap<Value, FromKernel> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  memo[v] = FromKernel::No;
  Operation *def = v.getDefiningOp();
  FromKernel result = FromKernel::No;
  auto max = [&](Value o) { result = std::max(result, fromKernel(o, memo)); };
  if (isa_and_nonnull<GemmOp>(def)) {
    result = FromKernel::Yes;
  } else if (auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(def)) {
    max(slice.getSource());
    if (result != FromKernel::No && !slice.hasUnitStride())
      result = FromKernel::ThroughStridedSlices;
  } else if (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp, linalg::TransposeOp>(
                 def)) {
    max(def->getOperand(0));
  } else if (auto concat = dyn_cast_or_null<tensor::ConcatOp>(def)) {
    llvm::for_each(concat.getInputs(), max);
  } else if (auto g = dyn_cast_or_null<linalg::GenericOp>(def); g && !g.getNumReductionLoops()) {
    llvm::for_each(g.getDpsInputs(), max);
  }
  memo[v] = result;
  return result;
}

static std::string reasonFor(Operation *op, DenseMap<Value, bool> &memo,
                             DenseMap<Value, bool> &forward,
                             DenseMap<Value, FromKernel> &derived) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return whyContractionIsNotFused(cast<linalg::LinalgOp>(op));
  if (llvm::any_of(op->getOperands(), [&](Value o) { return comesFromAttention(o, memo); }))
    return "attention (scores, masking, softmax, values): left for the attention path";
  if (llvm::all_of(op->getResults(), [&](Value r) { return feedsAttention(r, forward, memo); })) {
    // A rotation of q or k on its way from a projection: a sign flip, a product with a table
    // broadcast over the heads, or heads put back together (a widening of q or k, or the
    // softmax scale, is attention's own).
    auto generic = dyn_cast<linalg::GenericOp>(op);
    auto fromProjection = [&](Value o) { return fromKernel(o, derived) != FromKernel::No; };
    auto rotates = [&] {
      if (llvm::any_of(generic.getBody()->getOperations(),
                       [](Operation &inner) { return isa<arith::NegFOp>(inner); }))
        return true;
      for (OpOperand *input : generic.getDpsInputOperands())
        if (input->get().getDefiningOp<tensor::ConcatOp>() ||
            !generic.getMatchingIndexingMap(input).isPermutation())
          return true;
      return false;
    };
    if (generic && llvm::any_of(op->getOperands(), fromProjection) && rotates())
      return "elementwise op between a projection and attention that no epilogue absorbed "
             "(a rotation of q or k in a layout coda-fuse-rope does not match)";
    return "attention (scores, masking, softmax, values): left for the attention path";
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  bool readsGemm = llvm::any_of(op->getOperands(), [](Value o) {
    return o.getDefiningOp<GemmOp>() != nullptr;
  });
  if (linalgOp && linalgOp.getNumReductionLoops() > 0)
    return readsGemm ? "reduction of a kernel result that its epilogue could not absorb"
                     : "reduction of a value no GEMM produces (the documented fallback: a "
                       "separate reduction step)";
  for (Value r : op->getResults()) {
    auto type = dyn_cast<ShapedType>(r.getType());
    if (type && type.getRank() >= 1 &&
        (type.getRank() == 1 || llvm::is_contained(type.getShape(), 1)))
      return "per-row or per-column statistics: O(M + N) work outside the kernels";
  }
  FromKernel from = FromKernel::No;
  for (Value o : op->getOperands())
    from = std::max(from, fromKernel(o, derived));
  if (from == FromKernel::ThroughStridedSlices)
    return "elementwise op on a kernel result read through strided column slices (interleaved "
           "pairs): no pairwise(contract) fusion matches this combination";
  if (readsGemm || from == FromKernel::Yes)
    return "elementwise op on kernel results that no single kernel could absorb";
  // x² feeding the fallback row sum of a norm's statistics.
  if (!op->use_empty() && llvm::all_of(op->getUsers(), [](Operation *user) {
        auto reduction = dyn_cast<linalg::LinalgOp>(user);
        return reduction && reduction.getNumReductionLoops() > 0;
      }))
    return "feeds a reduction of a value no GEMM produces (part of the documented fallback)";
  return "elementwise op on values no GEMM produces";
}

namespace {
struct CodaFuseReportPass : coda::impl::CodaFuseReportBase<CodaFuseReportPass> {
  void runOnOperation() override {
    raw_ostream &os = llvm::outs();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      bool weightPrep = func->hasAttr(CodaDialect::getWeightPrepAttrName());
      SmallVector<GemmOp> kernels;
      SmallVector<AttentionOp> attentions;
      SmallVector<Operation *> outside;
      unsigned appends = 0;
      func.walk([&](Operation *op) {
        if (auto gemm = dyn_cast<GemmOp>(op))
          kernels.push_back(gemm);
        else if (auto attention = dyn_cast<AttentionOp>(op))
          attentions.push_back(attention);
        else if (isa<AppendOp>(op))
          ++appends;
        else if (isKernel(op) && !isDataMovement(op))
          outside.push_back(op);
      });
      if (kernels.empty() && attentions.empty() && !appends && outside.empty())
        continue;
      os << "@" << func.getSymName()
         << (weightPrep ? " (run-once weight preparation)" : "") << ": " << kernels.size()
         << " fused kernel" << (kernels.size() == 1 ? "" : "s") << ", ";
      if (!attentions.empty())
        os << attentions.size() << " attention" << (attentions.size() == 1 ? "" : "s") << ", ";
      if (appends)
        os << appends << " cache append" << (appends == 1 ? "" : "s") << ", ";
      os << outside.size() << " op" << (outside.size() == 1 ? "" : "s") << " outside\n";
      if (weightPrep && kernels.empty()) {
        os << "  (transforms weights once, at load time; not part of the per-call work)\n";
        continue;
      }
      AsmState state(func);
      for (auto [index, gemm] : llvm::enumerate(kernels))
        printKernelSummary(os, gemm, index, state);
      for (auto [index, attention] : llvm::enumerate(attentions))
        printAttentionSummary(os, attention, index);
      DenseMap<Value, bool> memo, forward;
      DenseMap<Value, FromKernel> derived;
      for (Operation *op : outside) {
        os << "  outside: " << op->getName();
        if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
          os << " (line " << loc.getLine() << ")";
        os << ": " << reasonFor(op, memo, forward, derived) << "\n";
      }
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
