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

def Coda_KernelSchedule : I32EnumAttr<"KernelSchedule",
    "the warp-specialized schedule of a CUTLASS sm90 kernel", [
      I32EnumAttrCase<"Cooperative", 0, "cooperative">,
      I32EnumAttrCase<"Pingpong", 1, "pingpong">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

def Coda_RasterOrder : I32EnumAttr<"RasterOrder",
    "the order in which the persistent tile scheduler visits output tiles", [
      I32EnumAttrCase<"Heuristic", 0, "heuristic">,
      I32EnumAttrCase<"AlongM", 1, "along_m">,
      I32EnumAttrCase<"AlongN", 2, "along_n">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

def Coda_Division : I32EnumAttr<"Division", "how the epilogue divides in fp32", [
      I32EnumAttrCase<"Ieee", 0, "ieee">,
      I32EnumAttrCase<"Full", 1, "full">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

def Coda_GridSize : I32EnumAttr<"GridSize", "how many CTAs a persistent kernel runs on", [
      I32EnumAttrCase<"AllSms", 0, "all_sms">,
      I32EnumAttrCase<"WholeWaves", 1, "whole_waves">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

def Coda_ResultSink : I32EnumAttr<"ResultSink", "how a coda.gemm result leaves the epilogue", [
      I32EnumAttrCase<"Tma", 0, "tma">,
      I32EnumAttrCase<"Direct", 1, "direct">,
      I32EnumAttrCase<"Halves", 2, "halves">,
      I32EnumAttrCase<"Contract", 3, "contract">,
      I32EnumAttrCase<"Partials", 4, "partials">,
      I32EnumAttrCase<"Staged", 5, "staged">]> {
  let cppNamespace = "::mlir::coda";
  let genSpecializedAttr = 0;
}

def Coda_AttentionLayout : I32EnumAttr<"AttentionLayout",
    "where the head dimension sits in coda.attention's operands", [
      I32EnumAttrCase<"BHSD", 0, "bhsd">,
      I32EnumAttrCase<"BSHD", 1, "bshd">]> {
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

// A list parameter written in brackets, `[a, b]` (upstream's bare list would run into the
// commas of a `struct` format); may be empty.
class Coda_ListParameter<string elem> : ArrayRefParameter<elem> {
  let parser = "::mlir::coda::parseBracketList<" # elem # ">($_parser)";
  let printer = "::mlir::coda::printBracketList($_printer, $_self)";
}
class Coda_OptionalListParameter<string elem> : Coda_ListParameter<elem> {
  let defaultValue = cppStorageType # "()";
  let comparator = cppType # "($_lhs) == " # cppType # "($_rhs)";
}

def Coda_KernelConfigAttr : Coda_Attr<"KernelConfig", "kernel"> {
  let summary = "how the CUDA back end runs one coda.gemm: its CUTLASS configuration and sinks";
  let description = [{
    Written by `--coda-plan-kernel-configs` on every `coda.gemm` (as the discardable attribute
    `coda.kernel`) and read by `coda-translate --coda-to-cuda`, which prints what it says:

    * `tileM`, `tileN`, `tileK`: the CTA tile; `clusterM`, `clusterN`: the thread-block
      cluster;
    * `schedule`: `cooperative` (two warp groups on one tile) or `pingpong` (one tile each,
      one group's epilogue under the other's mainloop);
    * `raster` (`heuristic`, `along_m`, `along_n`) and `swizzle` (1, 2, 4 or 8): the order of
      the persistent tile scheduler;
    * `epilogueN`: the epilogue subtile's width (0: CUTLASS's choice);
    * `division`: `full` sends the epilogue's fp32 divisions through `div.full.f32`;
    * `splits` (1, 2, 4, 8 or 16; cooperative only): each tile's K loop divided among that
      many CTAs, whose fp32 partial tiles are added in split order before the epilogue
      (CUTLASS's stream-K scheduler in split-K mode, not persistent: `grid` does not apply);
    * `grid`: `whole_waves` runs a persistent kernel on the fewest CTAs that take as many waves
      as one per SM would, `all_sms` on one CTA per SM;
    * `stores`: per result, how it leaves the epilogue: `tma` (the collective's TMA store),
      `halves` (a rotation written into its heads' halves by TMA), `staged` (the same rotation
      staged side by side, then copied), `contract` (a pairwise contract's N/2 columns by TMA),
      `direct` (per-thread stores), `partials` (a reduction's per-tile partials);
    * `tmaTables`: the tiled operands read through TMA into shared memory;
    * `exactFp32` (fp32 inputs only): the product runs as three TF32 products over copies of
      A and B split into high and low parts (`hi·hi + hi·lo + lo·hi`, about fp32's accuracy
      for three times the tensor-core work) instead of one TF32 product.

    ```mlir
    coda.gemm ... {coda.kernel = #coda.kernel<tileM = 128, tileN = 256, tileK = 64,
        clusterM = 2, schedule = cooperative, stores = [tma]>}
    ```
  }];
  let parameters = (ins
    "int64_t":$tileM, "int64_t":$tileN, "int64_t":$tileK,
    DefaultValuedParameter<"int64_t", "1">:$clusterM,
    DefaultValuedParameter<"int64_t", "1">:$clusterN,
    EnumParameter<Coda_KernelSchedule>:$schedule,
    DefaultValuedParameter<"::mlir::coda::RasterOrder",
                           "::mlir::coda::RasterOrder::Heuristic">:$raster,
    DefaultValuedParameter<"int64_t", "8">:$swizzle,
    DefaultValuedParameter<"int64_t", "0">:$epilogueN,
    DefaultValuedParameter<"::mlir::coda::Division", "::mlir::coda::Division::Ieee">:$division,
    DefaultValuedParameter<"int64_t", "1">:$splits,
    DefaultValuedParameter<"::mlir::coda::GridSize",
                           "::mlir::coda::GridSize::WholeWaves">:$grid,
    Coda_ListParameter<"::mlir::coda::ResultSink">:$stores,
    Coda_OptionalListParameter<"int64_t">:$tmaTables,
    DefaultValuedParameter<"bool", "false">:$exactFp32);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isPingpong() const { return getSchedule() == KernelSchedule::Pingpong; }
    /// The discardable attribute name that holds it on a coda.gemm.
    static ::llvm::StringRef getAttrName() { return "coda.kernel"; }
  }];
}

def Coda_AttentionLayoutAttr : EnumAttr<Coda_Dialect, Coda_AttentionLayout, "layout"> {
  let summary = "operand layout of coda.attention: `bhsd` ([B, H, S, d]) or `bshd` "
                "([B, S, H, d], the token-major rows a QKV product writes, reshaped for free)";
  let assemblyFormat = "`<` $value `>`";
}

def Coda_MaskAttr : Coda_Attr<"Mask", "mask"> {
  let summary = "which keys each query of coda.attention sees, as a function of positions";
  let description = [{
    Query row `i` sits at position `r = i + Sk - Sq` (bottom-right alignment: the last query
    is the last key; `r = i` when per-sequence lengths are given). Key `j` is visible when

    ```
    (band(r, j) || j < sinks && (!causal || j <= r) || j < global || r < global)
    ```

    where `band` holds when every part that is set holds:

    * `causal`: `j <= r`;
    * `left = L` (sliding window): `j >= r - L`; `right = R`: `j <= r + R`;
    * `dilation = d`: `(r - j) mod d == 0` (dilated attention);
    * `chunk = C`: `floor(j / C) == floor(r / C)` (chunked local attention).

    `sinks = S` keeps the first S keys visible (attention sinks) and `global = G` makes the
    first G positions global (Longformer): they see every key and every query sees them.
    Parameters left out do not restrict: `#coda.mask<>` is dense attention.

    ```mlir
    #coda.mask<causal = true>                       // causal
    #coda.mask<causal = true, left = 1023>          // sliding window of 1024 keys
    #coda.mask<left = 256, right = 256, global = 16> // Longformer
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"bool", "false">:$causal,
    DefaultValuedParameter<"int64_t", "-1">:$left,
    DefaultValuedParameter<"int64_t", "-1">:$right,
    DefaultValuedParameter<"int64_t", "1">:$dilation,
    DefaultValuedParameter<"int64_t", "0">:$chunk,
    DefaultValuedParameter<"int64_t", "0">:$sinks,
    DefaultValuedParameter<"int64_t", "0">:$global);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether every key is visible to every query.
    bool isDense() const {
      return !getCausal() && getLeft() < 0 && getRight() < 0 && getDilation() == 1 &&
             getChunk() == 0;
    }
  }];
}

def Coda_RoleArrayAttr : TypedArrayAttrBase<Coda_OperandRoleAttr, "array of operand roles">;
def Coda_ResultModeArrayAttr
    : TypedArrayAttrBase<Coda_ResultModeAttr, "array of result modes">;

#endif // CODA_DIALECT_CODA_IR_CODAATTRS_TD
