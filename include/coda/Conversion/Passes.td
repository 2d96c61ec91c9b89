//===- Passes.td - coda conversion passes ------------------*- tablegen -*-===//

#ifndef CODA_CONVERSION_PASSES_TD
#define CODA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def CodaExpand : Pass<"coda-expand", "::mlir::ModuleOp"> {
  let summary = "Rewrite coda ops into linalg, tensor, arith and math (their meaning)";
  let description = [{
    Replaces every `coda.gemm` by the computation it denotes: an fp32 contraction as a
    `linalg.generic`, the epilogue region inlined into a `linalg.generic` over the output
    elements (column pairs in pairwise mode, with the output columns `2p`, `2p+1` as a trailing
    dimension of size two that is collapsed afterwards), conversions to the result element types,
    `init + value` for accumulate results, and a `linalg.generic` reduction per reduce result
    (`lse` as max, then the sum of shifted exponentials, then log).

    Replaces every `coda.attention` by its scores as an fp32 contraction, the score region and
    the mask inlined into an elementwise `linalg.generic` (masked scores become -inf), the row
    maximum and sum, the exponentials, the product with V and the division by the row sum, in
    the operands' layout (a row that sees no key gives 0, and `lse = -inf`).

    This pass is the executable definition of the dialect: `coda-run` runs it before lowering a
    program to the CPU.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // CODA_CONVERSION_PASSES_TD
