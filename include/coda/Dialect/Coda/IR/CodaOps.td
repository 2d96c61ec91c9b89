//===- CodaOps.td - coda operations ------------------------*- tablegen -*-===//

#ifndef CODA_DIALECT_CODA_IR_CODAOPS_TD
#define CODA_DIALECT_CODA_IR_CODAOPS_TD

include "coda/Dialect/Coda/IR/CodaDialect.td"
include "coda/Dialect/Coda/IR/CodaAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferIntRangeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Coda_GemmOp : Coda_Op<"gemm", [
    AttrSizedOperandSegments, IsolatedFromAbove, RecursiveMemoryEffects,
    SingleBlock, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "matrix product followed by an fp32 epilogue";
  let description = [{
    Computes the fp32 accumulator `acc = A · B` (optionally batched, with transposed operands;
    bf16, f16 or f32 inputs, fp32 accumulation) and runs the `epilogue` region on it. Every
    result is defined by what the region yields and by its mode.

    ```mlir
    %h, %ss = coda.gemm %x, %w transpose_b : tensor<16x32xbf16>, tensor<64x32xbf16>
        with(%res as matrix : tensor<16x64xbf16>)
        -> (store tensor<16x64xbf16>, reduce<row, sumsq> tensor<16xf32>)
        epilogue(%acc: f32, %r: bf16, %i: index, %j: index) {
      %rf = arith.extf %r : bf16 to f32
      %s = arith.addf %acc, %rf : f32
      coda.yield %s, %s : f32, f32
    }
    ```

    **Shapes.** `A` is `[M, K]` (`[K, M]` with `transpose_a`), `B` is `[K, N]` (`[N, K]` with
    `transpose_b`); with a leading batch dimension on both, every result carries it too, and
    every operand except scalars carries it or is shared by all batches (a bias `[N]` over a
    batch of `[M, N]` products). Shapes are static.

    **Operands** (`with(...)`) each have a role: `scalar` (rank 0), `row` (`[M]`), `col`
    (`[N]`), `matrix` (`[M, N]`) or `tiled` (`[M, T]`, read at column `j mod T`: a per-row
    table repeated across column blocks, such as RoPE's cos/sin per position and head
    dimension; T need not divide N, as when heads of T columns are followed by other columns); element types are floats or integers (e.g. labels).

    **Pairwise mode.** Without `pairwise`, the region runs once per accumulator element
    `(i, j)`. With `pairwise(contract)` and `pairwise(rotate)` it runs once per column pair
    `(i, p)` on the columns `2p` and `2p+1` (N must be even); with `pairwise(expand)` once per
    element, producing two output columns `2j` and `2j+1`. The output has `N_out = N/2`, `N` or
    `2N` columns for contract, rotate and expand.

    **Rotate into halves.** `pairwise(rotate, halves T)` writes the two output columns of pair
    `p = h·T/2 + d` (`d < T/2`) at columns `h·T + d` and `h·T + T/2 + d` instead of `2p` and
    `2p+1`: the rotate-half layout of heads of `T` columns (RoPE), so that a kernel whose
    weights were permuted to make the rotated pairs adjacent still returns the heads in their
    original order. `T` is even and divides N; every result is `store` or `reduce<row, ...>`.

    **Region arguments**, in order: the accumulator (two fp32 values `acc[2p]`, `acc[2p+1]` for
    contract and rotate, else one); one value per operand (two, for the columns of the pair,
    for `col` and `matrix` operands in contract and rotate mode); the row index `i` and the
    column index `j` (the pair index `p` for contract and rotate). The region is isolated from
    above and holds only side-effect-free scalar ops.

    **Results.** The region yields fp32 values: one per result, or two per result (the even and
    odd output column) for rotate and expand. A result's mode is `store` (converted to the
    result's element type, `[M, N_out]`), `accumulate(%init)` (`init + value` computed in fp32,
    same type as `%init`), or `reduce<row|col, sum|sumsq|max|lse>` (fp32, `[M]` or `[N_out]`:
    the full reduction of the value over the other index).
  }];

  let arguments = (ins
    AnyRankedTensor:$a,
    AnyRankedTensor:$b,
    Variadic<AnyRankedTensor>:$extras,
    Variadic<AnyRankedTensor>:$inits,
    Coda_RoleArrayAttr:$roles,
    Coda_ResultModeArrayAttr:$modes,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    OptionalAttr<Coda_PairwiseModeAttr>:$pairwise,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$halves
  );
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$epilogue);

  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$a, "::mlir::Value":$b,
      "::mlir::ValueRange":$extras, "::llvm::ArrayRef<OperandRole>":$roles,
      "::mlir::ValueRange":$inits, "::llvm::ArrayRef<ResultModeAttr>":$modes,
      "bool":$transposeA, "bool":$transposeB,
      "std::optional<PairwiseMode>":$pairwise,
      CArg<"::llvm::function_ref<void(::mlir::OpBuilder &, ::mlir::Location, ::mlir::ValueRange)>",
           "nullptr">:$bodyBuilder)>
  ];

  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;

  let extraClassDeclaration = [{
    bool isBatched() { return getA().getType().getRank() == 3; }
    int64_t getBatchSize();
    /// Whether epilogue operand `index` carries the batch dimension of a batched product
    /// (false for scalars, and for operands every batch reads the same values of).
    bool hasOwnBatch(unsigned index);
    int64_t getM();
    int64_t getN();
    int64_t getK();
    /// Accumulator columns read per region invocation (2 for contract and rotate).
    unsigned getInArity();
    /// Output columns written per region invocation and result (2 for rotate and expand).
    unsigned getOutArity();
    /// Columns of a stored or accumulated result.
    int64_t getNumOutputColumns();
    OperandRole getRole(unsigned extraIndex);
    ResultModeAttr getMode(unsigned resultIndex);
    /// Number of region arguments the operand with this role takes.
    unsigned getNumRegionArgsForRole(OperandRole role);
    /// The region's expected argument types, derived from the operands and the mode.
    ::llvm::SmallVector<::mlir::Type> getExpectedRegionArgTypes();
    /// The result types this op expects for its operands, modes and inits (used by builders
    /// and the verifier alike).
    ::mlir::Type getExpectedResultType(unsigned resultIndex);
    /// The init operand of an accumulate result (nullptr for other modes).
    ::mlir::Value getInitFor(unsigned resultIndex);
    /// Region argument helpers.
    ::mlir::Block::BlockArgListType getAccumulatorArgs();
    ::mlir::Block::BlockArgListType getExtraArgs(unsigned extraIndex);
    ::mlir::BlockArgument getRowIndexArg();
    ::mlir::BlockArgument getColIndexArg();
  }];
}

def Coda_AttentionOp : Coda_Op<"attention", [IsolatedFromAbove, RecursiveMemoryEffects,
                                             AttrSizedOperandSegments]> {
  let summary = "softmax(Q·Kᵀ·scale + mask)·V over heads, with GQA, masks and score edits";
  let description = [{
    Scaled dot-product attention. With `layout = bhsd` (the default) Q is `[B, Hq, Sq, d]`
    and K, V are `[B, Hkv, Sk, d]` and `[B, Hkv, Sk, dv]`; with `layout = bshd` the head and
    sequence dimensions swap (`[B, S, H, d]`: the token-major `[B·S, H·d]` rows a QKV
    product writes, expanded without a copy). The output has Q's layout and element type, with
    `dv` columns.

    ```mlir
    %o, %lse = coda.attention %q, %k, %v scale 0.125 mask <causal = true>
        : tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>
        -> tensor<2x8x128x64xbf16>, tensor<2x8x128xf32>
    ```

    **Meaning** (in fp32, inputs widened): for batch `b`, query head `h` and its KV head
    `g = floor(h · Hkv / Hq)` (Hq is a multiple of Hkv: grouped-query attention),

    ```
    s[i, j] = score(scale · Σ_c Q[b, h, i, c] · K[b, g, j, c], b, h, i, j)   (visible keys)
    m[i] = max_j s[i, j],  l[i] = Σ_j exp(s[i, j] - m[i])
    O[b, h, i, :] = Σ_j exp(s[i, j] - m[i]) / l[i] · V[b, g, j, :]
    lse[b, h, i] = m[i] + log(l[i])
    ```

    where `score` is the optional `score` region (identity without it: soft-capping, ALiBi
    and relative biases are written there) and the sums run over the keys the `mask`
    attribute leaves visible (`#coda.mask`; dense without it). A query row that sees no key
    has output 0 and `lse = -inf`.

    **Per-sequence lengths.** With `lens(%len : tensor<Bxi32>)` (or i64), sequence `b` holds
    `len[b]` queries and as many keys (Sq = Sk is required): keys `j >= len[b]` are invisible,
    rows `i >= len[b]` are fully masked, and the mask is aligned at the top-left (`r = i`).

    **KV caches.** With `cache(%len : tensor<Bxi32>)` (or i64), K and V are caches of
    capacity Sk and sequence `b` holds `len[b]` keys, its rows `j < len[b]`; the Sq queries are
    that sequence's last tokens, query `i` at position `r = len[b] - Sq + i` (the mask aligns
    at each sequence's own end: a causal mask over Sq > 1 queries is a speculative step). Keys
    `j >= len[b]` are invisible, and rows at a position `r < 0` (a sequence shorter than Sq)
    see nothing. `lens` and `cache` exclude each other. A decode step appends the new keys
    with `coda.append` and attends over the result with `len[b]` counting them.

    **Paged caches.** With `cache(...)` and `pages(%table : tensor<BxPxi32>)`, K and V are
    pools of pages, `[N, page, Hkv, d]` for `bshd` (vLLM's and FlashInfer's layout) and
    `[N, Hkv, page, d]` for `bhsd`, and key `j` of sequence `b` is row `j mod page` of page
    `table[b, j / page]`: the cache's capacity Sk is `P · page`. Pages of 16 to 256 rows are
    usual; any size works.

    **Runtime masks.** With `blocks(%blocks, %bits : tensor<MbxMhxQBxKBxi8>,
    tensor<MbxMhxSqxWxi32>)` a mask given as data narrows the visible keys further, in two
    levels over tiles of 128 queries × 128 keys (QB = ⌈Sq/128⌉, KB = ⌈Sk/128⌉, W = ⌈Sk/32⌉; Mb
    is 1 or B and Mh is 1 or Hq, broadcast over the others): `blocks` classes each tile (0: no
    key visible, 1: every key visible, 2: read `bits`), and for tiles of class 2 bit `j mod 32`
    of `bits[b, h, i, j / 32]` says whether key j is visible to query i. Tiles of class 0 are
    never loaded and tiles of class 1 skip the mask's arithmetic. `coda.attention.prepare_mask`
    (python/coda/attention.py) builds both from a boolean mask, once.

    **The `score` region** takes the scaled score (f32) and the indices `b, h, i, j`, holds
    side-effect-free scalar ops and yields one f32 with `coda.yield`.

    `--coda-expand` writes this meaning as linalg; online softmax, block skipping and GQA
    packing are code-generation choices.
  }];

  let arguments = (ins
    AnyRankedTensor:$q,
    AnyRankedTensor:$k,
    AnyRankedTensor:$v,
    Optional<AnyRankedTensor>:$lens,
    Optional<AnyRankedTensor>:$cache_lens,
    Optional<AnyRankedTensor>:$pages,
    Optional<AnyRankedTensor>:$blocks,
    Optional<AnyRankedTensor>:$bits,
    F32Attr:$scale,
    OptionalAttr<Coda_MaskAttr>:$mask,
    DefaultValuedAttr<Coda_AttentionLayoutAttr, "::mlir::coda::AttentionLayout::BHSD">:$layout
  );
  let results = (outs AnyRankedTensor:$out, Optional<AnyRankedTensor>:$lse);
  let regions = (region AnyRegion:$score);

  let assemblyFormat = [{
    $q `,` $k `,` $v (`lens` `(` $lens^ `:` type($lens) `)`)?
    (`cache` `(` $cache_lens^ `:` type($cache_lens) `)`)?
    (`pages` `(` $pages^ `:` type($pages) `)`)?
    (`blocks` `(` $blocks^ `,` $bits `:` type($blocks) `,` type($bits) `)`)? `scale` $scale
    (`mask` $mask^)? (`layout` $layout^)? attr-dict-with-keyword
    `:` type($q) `,` type($k) `,` type($v) `->` type($out) (`,` type($lse)^)?
    (`score` $score^)?
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;

  let extraClassDeclaration = [{
    /// The tile of queries × keys that a runtime mask's `blocks` classes.
    static constexpr int64_t kMaskTile = 128;
    /// A runtime mask's tiles over `n` positions, and its 32-bit words of bits over `n` keys
    /// (no overflow for any size).
    static int64_t getMaskTiles(int64_t n) { return n / kMaskTile + (n % kMaskTile != 0); }
    static int64_t getMaskWords(int64_t n) { return n / 32 + (n % 32 != 0); }
    bool isHeadMajor() { return getLayout() == AttentionLayout::BHSD; }
    /// Q's dimension index of heads and of sequence positions (1 and 2 for bhsd).
    unsigned getHeadDim() { return isHeadMajor() ? 1 : 2; }
    unsigned getSeqDim() { return isHeadMajor() ? 2 : 1; }
    int64_t getBatchSize() { return getQ().getType().getDimSize(0); }
    int64_t getNumHeads() { return getQ().getType().getDimSize(getHeadDim()); }
    int64_t getNumKvHeads() { return getK().getType().getDimSize(getHeadDim()); }
    int64_t getQueryLen() { return getQ().getType().getDimSize(getSeqDim()); }
    /// Sk: K's rows, or a paged cache's capacity (pages per sequence × page size).
    int64_t getKeyLen() {
      int64_t rows = getK().getType().getDimSize(getSeqDim());
      if (Value pages = getPages())
        return rows * ::llvm::cast<RankedTensorType>(pages.getType()).getDimSize(1);
      return rows;
    }
    /// Rows of one page of a paged cache.
    int64_t getPageSize() { return getK().getType().getDimSize(getSeqDim()); }
    int64_t getHeadSize() { return getQ().getType().getDimSize(3); }
    int64_t getValueSize() { return getV().getType().getDimSize(3); }
    /// The mask, `#coda.mask<>` (dense) when the op has none.
    /// The per-sequence lengths of either form (varlen `lens` or a cache's `len`), or null.
    Value getSequenceLens() { return getLens() ? getLens() : getCacheLens(); }
    MaskAttr getMaskOrDense() {
      if (MaskAttr mask = getMaskAttr())
        return mask;
      return MaskAttr::get(getContext(), false, -1, -1, 1, 0, 0, 0);
    }
  }];
}

def Coda_AppendOp : Coda_Op<"append", [Pure, AllTypesMatch<["cache", "result"]>]> {
  let summary = "writes new keys or values into a KV cache at each sequence's length";
  let description = [{
    The cache after a decode step's append: `new` holds Sn rows per (sequence, head), and
    they replace the cache's rows `pos[b]`, …, `pos[b] + Sn - 1` of sequence `b`:

    ```
    result[b, h, pos[b] + t, :] = new[b, h, t, :]   (0 <= t < Sn, 0 <= pos[b] + t < capacity)
    result[b, h, j, :]          = cache[b, h, j, :] (every other row)
    ```

    in the `bhsd` layout (`[B, H, capacity, d]`; `bshd` swaps heads and rows, as for
    `coda.attention`). Rows past the capacity are dropped. `pos` holds one position per
    sequence (`tensor<Bxi32>` or i64), or one for all (`tensor<1xi64>`: transformers'
    `cache_position`). With `pages(%table :
    tensor<BxPxi32>)` the cache is a pool of pages as for `coda.attention` (`[N, page, H, d]`
    for `bshd`, `[N, H, page, d]` for `bhsd`), and row `j` of sequence `b` is row
    `j mod page` of page `table[b, j / page]`.

    ```mlir
    %k1 = coda.append %k_new into %k_cache at %pos
        : tensor<4x8x1x128xbf16> into tensor<4x8x4096x128xbf16> at tensor<4xi32>
    ```

    On the GPU the append writes O(Sn·d) elements per head in place when the launcher is given
    the cache's buffer as the result too (the torch binding does so for a cache that the
    function returns); given another buffer, it copies the cache there first.
  }];

  let arguments = (ins
    AnyRankedTensor:$new_rows,
    AnyRankedTensor:$cache,
    AnyRankedTensor:$pos,
    Optional<AnyRankedTensor>:$pages,
    DefaultValuedAttr<Coda_AttentionLayoutAttr, "::mlir::coda::AttentionLayout::BHSD">:$layout
  );
  let results = (outs AnyRankedTensor:$result);

  let assemblyFormat = [{
    $new_rows `into` $cache `at` $pos (`pages` `(` $pages^ `:` type($pages) `)`)?
    (`layout` $layout^)? attr-dict
    `:` type($new_rows) `into` type($cache) `at` type($pos)
  }];

  let hasVerifier = 1;

  let extraClassDeclaration = [{
    bool isHeadMajor() { return getLayout() == AttentionLayout::BHSD; }
    unsigned getSeqDim() { return isHeadMajor() ? 2 : 1; }
    unsigned getHeadDim() { return isHeadMajor() ? 1 : 2; }
    /// Rows per sequence: the cache's, or a paged cache's pages per sequence × page size.
    int64_t getCapacity() {
      int64_t rows = getCache().getType().getDimSize(getSeqDim());
      if (Value pages = getPages())
        return rows * ::llvm::cast<RankedTensorType>(pages.getType()).getDimSize(1);
      return rows;
    }
    int64_t getBatchSize() { return getNewRows().getType().getDimSize(0); }
    /// Whether every sequence appends at one position (`pos` of one element).
    bool hasSharedPosition() {
      return ::llvm::cast<RankedTensorType>(getPos().getType()).getDimSize(0) == 1 &&
             getBatchSize() != 1;
    }
    int64_t getNumNewRows() { return getNewRows().getType().getDimSize(getSeqDim()); }
  }];
}

def Coda_YieldOp : Coda_Op<"yield", [Pure, ReturnLike, Terminator,
                                     ParentOneOf<["GemmOp", "AttentionOp"]>]> {
  let summary = "yields the epilogue values of a coda.gemm or the score of a coda.attention";
  let description = [{
    Ends a `coda.gemm` epilogue, yielding one fp32 value per result (two per result in
    `rotate` and `expand` mode: the even and the odd output column), or a `coda.attention`
    score region, yielding the edited score.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // CODA_DIALECT_CODA_IR_CODAOPS_TD
