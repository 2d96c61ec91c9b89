//===- FusePipeline.cpp - the --coda-fuse pipeline ------------------------===//

#include "coda/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mlir::coda::buildCodaFusePipeline(OpPassManager &pm, const CodaFuseOptions &options) {
  // Products read through column slices split first (each slice's product is then a plain
  // matmul the norm reparametrization sees), then the reparametrizations (linalg to linalg,
  // exposing row scales the chain fusion then absorbs), then chain fusion, then the passes that
  // rewrite or merge fused kernels.
  // Every pass trusts the operands of an op to agree on its loop sizes.
  pm.nest<func::FuncOp>().addPass(createCodaVerifyShapes());
  // A KV cache's update as coda.append, before any pass merges its selects with others.
  pm.nest<func::FuncOp>().addPass(createCodaFuseCacheAppend());
  // [B, S, D] programs as [tokens, D] first: every later pass matches over one M dimension.
  pm.nest<func::FuncOp>().addPass(createCodaCollapseTokens());
  // Biased bf16 products read their narrow operands, as unbiased ones do.
  pm.nest<func::FuncOp>().addPass(createCodaNarrowProducts());
  pm.nest<func::FuncOp>().addPass(createCodaSplitSlicedMatmul());
  CodaReparametrizeNormOptions norm;
  norm.foldWeights = !options.training;
  pm.addPass(createCodaReparametrizeNorm(norm));
  OpPassManager &func = pm.nest<func::FuncOp>();
  if (!options.twoPassVariance)
    func.addPass(createCodaSinglePassVariance());
  func.addPass(createCodaFuseEpilogue());
  func.addPass(createCodaFuseCrossEntropy());
  // Identical operands (one row statistic reshaped for several kernels) become one value
  // before kernels are merged.
  func.addPass(createCodaCleanupFused());
  pm.addPass(createCodaFuseGated());
  pm.addPass(createCodaMergeSiblings());
  pm.addPass(createCodaFuseRope());
  // After RoPE has followed q·kᵀ through attention's products (heads stay permuted), and
  // before the leftovers are merged: attention is matched on torch-mlir's own chains.
  pm.nest<func::FuncOp>().addPass(createCodaFuseAttention());
  // Batched products that are not attention: one batched kernel each.
  pm.nest<func::FuncOp>().addPass(createCodaFuseEpilogue({/*batched=*/true}));
  pm.nest<func::FuncOp>().addPass(createCodaInlineRowOperands());
  pm.nest<func::FuncOp>().addPass(createCodaFuseLeftovers());
  // After FuseLeftovers has made a post-norm, or a gated combination of interleaved columns,
  // one elementwise op.
  pm.nest<func::FuncOp>().addPass(createCodaInlineMatrixOperands());
  pm.nest<func::FuncOp>().addPass(createCodaFuseInterleavedPairs());
  if (options.fp32Epilogues)
    pm.nest<func::FuncOp>().addPass(createCodaFp32Epilogues());
  // Bounds checks the index ranges decide go before the last cleanup folds what they guarded.
  pm.nest<func::FuncOp>().addPass(createCodaFoldIndexRanges());
  pm.nest<func::FuncOp>().addPass(createCodaCleanupFused());
}

void mlir::coda::registerCodaFusePipeline() {
  PassPipelineRegistration<CodaFuseOptions>(
      "coda-fuse",
      "Find every GEMM-epilogue opportunity: reparametrize, fuse chains into coda.gemm "
      "kernels, merge them, then canonicalize what changed; ops that cannot be fused stay as "
      "they are",
      buildCodaFusePipeline);
}
