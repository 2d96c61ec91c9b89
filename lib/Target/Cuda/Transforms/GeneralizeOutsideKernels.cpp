//===- GeneralizeOutsideKernels.cpp - data movement as coda's own kernels -===//
//
// A function launcher runs coda.gemm kernels, generics, fills and slice copies. What torch-mlir
// writes beside them (head transposes, broadcasts, copies, the padding of shifted labels, the
// products of attention until coda.attention takes them) is rewritten into those: a named
// linalg op into its linalg.generic, a tensor.pad into a fill and an insert_slice, and a
// coda.attention without a kernel of its own into its linalg meaning.
//
//===----------------------------------------------------------------------===//

#include "coda/Target/Cuda/Transforms/Passes.h"

#include "coda/Conversion/CodaToLinalg/CodaToLinalg.h"
#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Target/Cuda/Plan.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAGENERALIZEOUTSIDEKERNELS
#include "coda/Target/Cuda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
/// A named linalg op on tensors as its generic; fills stay (the launcher folds or writes them).
struct GeneralizeNamedOp : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op, PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp, linalg::FillOp>(op) || !op.hasPureTensorSemantics() ||
        !isa<func::FuncOp>(op->getParentOp()))
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

/// A coda.attention that the attention kernel does not run: its --coda-expand form, as
/// generics.
struct ExpandAttentionWithoutKernel : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op, PatternRewriter &rewriter) const override {
    if (cuda::hasAttentionKernel(op))
      return failure();
    return expandAttentionOp(rewriter, op);
  }
};

struct GeneralizeOutsideKernelsPass
    : public coda::impl::CodaGeneralizeOutsideKernelsBase<GeneralizeOutsideKernelsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GeneralizeNamedOp, ExpandAttentionWithoutKernel>(&getContext());
    linalg::populateDecomposePadPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
