//===- CodaAttrs.td - coda attributes and enums ------------*- tablegen -*-===//

#ifndef CODA_DIALECT_CODA_IR_CODAATTRS_TD
#define CODA_DIALECT_CODA_IR_CODAATTRS_TD

include "coda/Dialect/Coda/IR/CodaDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Coda_OperandRole : I32EnumAttr<"OperandRole",
    "how an epilogue operand is indexed by the output element (i, j)", [
      I32EnumAttrCase<"Scalar", 0, "scalar">,
      I32EnumAttrCase<"Row", 1, "row">,
      I32EnumAttrCase<"Col", 2, "col">,
      I32EnumAttrCase<"Matrix", 3, "matrix">,
      I32EnumAttrCase<"Tiled", 4, "tiled">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

def Coda_ResultKind : I32EnumAttr<"ResultKind", "what a gemm result does with its value", [
      I32EnumAttrCase<"Store", 0, "store">,
      I32EnumAttrCase<"Accumulate", 1, "accumulate">,
      I32EnumAttrCase<"Reduce", 2, "reduce">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

def Coda_ReduceDim : I32EnumAttr<"ReduceDim",
    "which index a reduction keeps: `row` gives one value per row ([M]), `col` one per column", [
      I32EnumAttrCase<"Row", 0, "row">,
      I32EnumAttrCase<"Col", 1, "col">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

def Coda_Combiner : I32EnumAttr<"Combiner", "reduction combiner", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"SumSq", 1, "sumsq">,
      I32EnumAttrCase<"Max", 2, "max">,
      I32EnumAttrCase<"LogSumExp", 3, "lse">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

def Coda_PairwiseMode : I32EnumAttr<"PairwiseMode",
    "how columns are paired: contract 2->1, rotate 2->2, expand 1->2", [
      I32EnumAttrCase<"Contract", 0, "contract">,
      I32EnumAttrCase<"Rotate", 1, "rotate">,
      I32EnumAttrCase<"Expand", 2, "expand">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Coda_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Coda_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Coda_OperandRoleAttr : EnumAttr<Coda_Dialect, Coda_OperandRole, "role"> {
  let summary = "role of an epilogue operand: scalar, row [M], col [N], matrix [M, N] or tiled "
                "[M, T] (read at column j mod T)";
  let assemblyFormat = "`<` $value `>`";
}

def Coda_PairwiseModeAttr : EnumAttr<Coda_Dialect, Coda_PairwiseMode, "pairwise"> {
  let summary = "pairwise column mode of a gemm epilogue";
  let assemblyFormat = "`<` $value `>`";
}

def Coda_ResultModeAttr : Coda_Attr<"ResultMode", "result"> {
  let summary = "what a coda.gemm result does with the value its epilogue yields";
  let description = [{
    * `#coda.result<store>`: the value, converted to the result's element type, is written.
    * `#coda.result<accumulate>`: `O += value` into the next init tensor (computed in fp32).
    * `#coda.result<reduce row sum>`: the full reduction of the value along each row (result
      `[M]`) or column (`col`, result `[N]`) with combiner `sum`, `sumsq`, `max` or `lse`
      (log-sum-exp). Reduction results are fp32.
  }];
  let parameters = (ins "ResultKind":$kind, "ReduceDim":$dim, "Combiner":$combiner);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "ResultKind":$kind), [{
      return $_get($_ctxt, kind, ReduceDim::Row, Combiner::Sum);
    }]>
  ];
  let extraClassDeclaration = [{
    bool isStore() const { return getKind() == ResultKind::Store; }
    bool isAccumulate() const { return getKind() == ResultKind::Accumulate; }
    bool isReduce() const { return getKind() == ResultKind::Reduce; }
    /// Prints the mode without the `#coda.result<...>` wrapper, as coda.gemm shows it.
    void printBody(::llvm::raw_ostream &os) const;
    /// Parses what printBody prints.
    static ResultModeAttr parseBody(::mlir::AsmParser &parser);
  }];
}

def Coda_RoleArrayAttr : TypedArrayAttrBase<Coda_OperandRoleAttr, "array of operand roles">;
def Coda_ResultModeArrayAttr
    : TypedArrayAttrBase<Coda_ResultModeAttr, "array of result modes">;

#endif // CODA_DIALECT_CODA_IR_CODAATTRS_TD
