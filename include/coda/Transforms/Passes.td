//===- Passes.td - coda transforms -------------------------*- tablegen -*-===//

#ifndef CODA_TRANSFORMS_PASSES_TD
#define CODA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CodaPrintKernels : Pass<"coda-print-kernels", "::mlir::ModuleOp"> {
  let summary = "Print, per function, each coda.gemm kernel and the epilogue it fuses";
  let description = [{
    An analysis that leaves the IR unchanged. For every function it prints the `coda.gemm`
    kernels in program order: the GEMM shape and element type, the operands of the epilogue
    with their roles (the scale / matrix primitives), the pairwise mode, the scalar ops fused
    into the epilogue, and each result with its mode (store, accumulate, reduce). It also lists
    the functions marked `coda.weight_prep` (run-once weight preparation).

    ```
    $ coda-opt --coda-print-kernels examples/swiglu_mlp.mlir -o /dev/null
    ```
  }];
}

#endif // CODA_TRANSFORMS_PASSES_TD
