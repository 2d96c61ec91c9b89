//===- CodaDialect.td - coda dialect definition ------------*- tablegen -*-===//

#ifndef CODA_DIALECT_CODA_IR_CODADIALECT_TD
#define CODA_DIALECT_CODA_IR_CODADIALECT_TD

include "mlir/IR/OpBase.td"

def Coda_Dialect : Dialect {
  let name = "coda";
  let cppNamespace = "::mlir::coda";
  let summary = "GEMM-plus-epilogue programs";
  let description = [{
    The `coda` dialect expresses a matrix product followed by an *epilogue*: scalar code that
    runs on every element of the fp32 accumulator while the output tile is still on chip. The
    epilogue is built from four primitive families:

    * **scale** — operands broadcast as a scalar, a per-row vector `[M]` or a per-column vector
      `[N]` (declared with the roles `scalar`, `row`, `col`), or read element-wise as a matrix
      `[M, N]` (role `matrix`, e.g. a residual);
    * **reduce** — a result may be a full row or column reduction (`sum`, `sumsq`, `max`,
      online log-sum-exp `lse`) of an epilogue value; how partials are split across tiles is a
      code-generation matter;
    * **pairwise** — columns `2p` and `2p+1` processed together: `contract` (2→1, gated
      activations), `rotate` (2→2, RoPE), `expand` (1→2);
    * **accumulate** — a result `O += r` into an init tensor.

    The meaning of every op is defined executably by the `--coda-expand` pass, which rewrites it
    into `linalg`, `tensor`, `arith` and `math` ops.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// Unit attribute on a func.func that marks run-once weight preparation: the weight
    /// transforms a reparametrization needs, called by the program and emitted by the backend
    /// as an entry point of its own.
    static ::llvm::StringRef getWeightPrepAttrName() { return "coda.weight_prep"; }
  }];
}

class Coda_Op<string mnemonic, list<Trait> traits = []>
    : Op<Coda_Dialect, mnemonic, traits>;

#endif // CODA_DIALECT_CODA_IR_CODADIALECT_TD
