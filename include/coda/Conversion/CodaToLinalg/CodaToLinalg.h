//===- CodaToLinalg.h - coda to linalg expansion ----------------*- C++ -*-===//

#ifndef CODA_CONVERSION_CODATOLINALG_CODATOLINALG_H
#define CODA_CONVERSION_CODATOLINALG_CODATOLINALG_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::coda {

class AppendOp;
class AttentionOp;
class GemmOp;

#define GEN_PASS_DECL_CODAEXPAND
#include "coda/Conversion/Passes.h.inc"

/// Rewrites one coda.gemm into linalg/tensor/arith/math ops and replaces it.
LogicalResult expandGemmOp(RewriterBase &rewriter, GemmOp op);

/// Rewrites one coda.attention into linalg/tensor/arith/math ops and replaces it.
LogicalResult expandAttentionOp(RewriterBase &rewriter, AttentionOp op);

/// Rewrites one coda.append into a linalg.generic over the cache and replaces it.
LogicalResult expandAppendOp(RewriterBase &rewriter, AppendOp op);

/// Adds the patterns that expand coda.gemm, coda.attention and coda.append ops.
void populateCodaExpandPatterns(RewritePatternSet &patterns);

} // namespace mlir::coda

#endif // CODA_CONVERSION_CODATOLINALG_CODATOLINALG_H
