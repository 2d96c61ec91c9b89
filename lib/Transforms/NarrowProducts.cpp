//===- NarrowProducts.cpp - products of widened bf16/f16 operands ---------===//
//
// torch-mlir writes a biased bf16 `F.linear` as `truncf(matmul(extf(x), extf(Wᵀ)) + b)`: both
// operands are widened to f32 before the product. Products of bf16 (or f16) values are exact
// in f32, so `matmul(extf(x), extf(Wᵀ))` accumulating in f32 equals `matmul(x, Wᵀ)` with an
// f32 result, the form torch-mlir writes for the unbiased linear. Rewriting to it lets the
// norm reparametrization and chain fusion treat both alike, and the widened copies of x and W
// disappear when nothing else reads them.
//
//===----------------------------------------------------------------------===//

#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODANARROWPRODUCTS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
struct CodaNarrowProductsPass : coda::impl::CodaNarrowProductsBase<CodaNarrowProductsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::MatmulOp> products;
    getOperation().walk([&](linalg::MatmulOp op) { products.push_back(op); });
    for (linalg::MatmulOp op : products) {
      if (op.hasUserDefinedMaps() || !op.hasPureTensorSemantics())
        continue;
      Value a = getWidenedFrom(op.getDpsInputs()[0]), b = getWidenedFrom(op.getDpsInputs()[1]);
      if (!a || !b || getElementTypeOrSelf(a.getType()) != getElementTypeOrSelf(b.getType()))
        continue;
      SmallVector<Value> widened(op.getDpsInputs());
      rewriter.setInsertionPoint(op);
      rewriter.replaceOpWithNewOp<linalg::MatmulOp>(op, op->getResultTypes(), ValueRange{a, b},
                                                    op.getDpsInits());
      eraseDeadProducers(rewriter, widened);
    }
  }
};
} // namespace
