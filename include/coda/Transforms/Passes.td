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

def CodaVerifyShapes : Pass<"coda-verify-shapes", "::mlir::func::FuncOp"> {
  let summary = "Check that the static shapes of every linalg op agree on its loop sizes, and "
                "that static slices stay inside their tensors";
  let description = [{
    The fusion passes read a product's or a generic's loop sizes from one operand and trust
    the others to match. Upstream's verifier does not compare a dimension of size 0 with the
    loop it indexes, so `linalg.matmul ins(tensor<16x8xf32>, …) outs(tensor<0x4xf32>)` parses;
    fused, it would become a `coda.gemm` whose result has the wrong shape. Upstream's bound
    check of `tensor.extract_slice` and `tensor.insert_slice` computes the last index in 64
    bits, so a huge stride wraps around and the slice reads or writes outside its buffer once
    it runs. This pass, the first of `--coda-fuse` and of `coda-run`, reports such an op as an
    error at its location and stops the pipeline. It changes nothing.

    ```
    error: 'linalg.matmul' op operand #2 has size 0 in dimension #0, which indexes loop d0 of size 16 (dimension #0 of operand #0)
    error: 'tensor.extract_slice' op reaches outside its tensor in dimension #1: offset 4, 12 elements with stride 4611686018427387904 in a dimension of size 16
    ```
  }];
}

def CodaCollapseTokens : Pass<"coda-collapse-tokens", "::mlir::func::FuncOp"> {
  let summary = "Run [B, S, ...] activations as [B·S, ...]: the leading dimensions as one token dimension";
  let description = [{
    torch-mlir writes a model's `[B, S, D]` activations as the model has them: each
    `F.linear` as `collapse_shape → linalg.matmul → expand_shape`, norms, activations and
    residuals as rank-3 generics, attention's heads as `[B, S, H, HD]` views transposed to
    `[B, H, S, HD]`. The fusion passes work on a token dimension M. This pass rewrites the
    program into that form without changing its meaning:

    * a reshape that splits both the tokens and the heads (`[B·S, H·HD] → [B, S, H, HD]`)
      becomes a head view followed by a token view;
    * the heads' transposes (rank 3 and more) sink below elementwise ops, slices and
      concatenations, which then run in token order;
    * a view that only adds unit dimensions to an input of a generic (a position table's
      `cos.unsqueeze(1)`) is folded into the generic's indexing map;
    * token reshapes (leading dimensions merged, the others kept) move through elementwise
      ops, reductions, slices and concatenations (upstream linalg reshape propagation by
      collapsing), until they reach the function's arguments and results or ops that need the
      batch (attention's batched products).

    A function with no `[B, S, D] ↔ [B·S, D]` reshape (a `[tokens, D]` program) is left exactly
    as it is.

    ```mlir
    // before: %y = expand(matmul(collapse(%x3))) ; rank-3 generics on %y
    // after:  matmul on collapse(%x3), rank-2 generics, one expand_shape before the return
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def CodaNarrowProducts : Pass<"coda-narrow-products", "::mlir::func::FuncOp"> {
  let summary = "A matmul of bf16/f16 operands widened to f32 reads the narrow operands";
  let description = [{
    torch-mlir writes a biased bf16 `F.linear` as `truncf(matmul(extf(x), extf(Wᵀ)) + b)`, the
    unbiased one as `truncf(matmul(x, Wᵀ))` with an f32 result. Products of bf16 (or f16)
    values are exact in f32, so the first product equals `matmul(x, Wᵀ)` accumulating in f32:
    this pass rewrites it so (both operands widened from the same narrow type), and the
    widened copies disappear when nothing else reads them. The norm reparametrization and the
    chain fusion then see biased and unbiased layers alike.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CodaSplitSlicedMatmul : Pass<"coda-split-sliced-matmul", "::mlir::func::FuncOp"> {
  let summary = "A matmul read only through column slices becomes one matmul per slice";
  let description = [{
    `(x @ W.T).chunk(2, -1)` (gate and up projections stored as one concatenated weight)
    reaches linalg as one `linalg.matmul` whose result is only read through column slices. Each
    slice becomes its own product over the matching rows (or columns) of the weight, a slice of
    the weight (transposed again where the weight was transposed, so that the chain fusion
    still reads it with `transpose_b`). Each product then gets its own epilogue chain, and the
    gated-activation fusion can pair them.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def CodaSinglePassVariance : Pass<"coda-single-pass-variance", "::mlir::func::FuncOp"> {
  let summary = "Rewrite LayerNorm's centered two-pass variance as E[x²] − E[x]² in fp32";
  let description = [{
    torch-mlir computes `layer_norm`'s variance in two passes in f64: the row mean of `x`, then
    the row mean of `(x − mean)²`, truncated to f32. A GEMM epilogue cannot produce the second
    pass (it needs the mean first), so this pass rewrites the variance as
    `sum(x²)/K − (sum(x)/K)²` in fp32: two row sums of `x` that the GEMM producing `x` returns
    from its epilogue (`reduce<row, sum>` and `reduce<row, sumsq>`), and O(M) work that the
    consumer finishes. Single-pass fp32 statistics are what fused LayerNorm kernels use; they
    lose precision when |mean| is much larger than the standard deviation.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CodaFuseEpilogue : Pass<"coda-fuse-epilogue", "::mlir::func::FuncOp"> {
  let summary = "Fuse each matmul with its chain of elementwise consumers and reductions";
  let description = [{
    For every `linalg.matmul` and `linalg.batch_matmul` whose right operand is a weight (a
    function argument or a constant, possibly transposed), absorbs into one `coda.gemm`:

    * `linalg.transpose` producers of either operand (as `transpose_a` / `transpose_b`);
    * a non-zero init `C` of the product (added in the epilogue);
    * every `linalg.generic` consumer that is elementwise over the output and reads the chain
      at the same element, with its other operands classified by their indexing maps into
      roles: `()` scalar, `(i)` row, `(j)` column, `(i, j)` matrix (unit dimensions read at
      index 0, as torch-mlir's keepdim tensors are, are collapsed);
    * row and column reductions (`sum`, sum of squares, `max`, from the combiner's identity)
      of chain values, as `reduce` results.

    Chain values used outside the chain become stored results; everything else stays as it
    was. Products of two activations (attention) and products with nothing to fuse are left
    unchanged.

    With `batched=true` (run after `--coda-fuse-attention`), only `linalg.batch_matmul`s are
    taken, of any two operands: the batched products that attention left. Each becomes a
    batched `coda.gemm`, with or without a chain to absorb; operands read without the batch
    index (a bias) are shared by every batch.
  }];
  let options = [
    Option<"batched", "batched", "bool", "false",
           "Fuse only batched products, of any operands (those attention did not take)">,
  ];
  let dependentDialects = ["::mlir::coda::CodaDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def CodaReparametrizeNorm : Pass<"coda-reparametrize-norm", "::mlir::ModuleOp"> {
  let summary = "Move normalization scales through the next matmul (RMSNorm reparametrization)";
  let description = [{
    For a `linalg.matmul` whose left operand is `h` multiplied elementwise by per-row factors
    `r` (`[M]` or `[M, 1]`, e.g. RMSNorm's `rsqrt(mean(h²) + ε)`) and per-column factors `γ`
    (`[K]` or `[1, K]`, the norm weight, also the `1 + w` form), uses
    `(r ⊙ h ⊙ γ) · W = r ⊙ (h · (diag(γ) · W))`:

    * the product becomes `h · W'`, followed by an elementwise multiplication by `r` (which
      `--coda-fuse-epilogue` then applies as a row scale in the product's epilogue);
    * with `fold-weights` (the default, inference) `W' = diag(γ) · W` is computed by a
      run-once weight-preparation function (`coda.weight_prep`) that the program calls;
      without it (training, where `γ` has a gradient) `γ` stays applied to `h`, where the
      producer of `h` can apply it in its epilogue.

    The normalized tensor is no longer materialized when nothing else reads it.
  }];
  let options = [
    Option<"foldWeights", "fold-weights", "bool", /*default=*/"true",
           "Fold per-column norm weights into the matmul's weights (inference); false keeps "
           "them on the activations (training)">
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect"];
}

def CodaFuseGated : Pass<"coda-fuse-gated", "::mlir::ModuleOp"> {
  let summary = "Merge gate and up projections into one pairwise(contract) coda.gemm";
  let description = [{
    Gated activations (SwiGLU `silu(x Wg) * (x Wu)`, GeGLU `gelu(x Wg) * (x Wu)`, any
    elementwise combination of two fused projections of the same input): two `coda.gemm`
    kernels reading the same A, each stored only for one elementwise `linalg.generic` that
    combines them, become one `coda.gemm` over the interleaved weight (column `2j` from the
    gate, `2j + 1` from the up projection) in `pairwise(contract)` mode, whose epilogue runs
    both epilogues and the combination. The interleaving is a run-once weight-preparation
    function (`coda.weight_prep`) that the program calls. Half the output is written and the
    two intermediate tensors disappear.
  }];
  let dependentDialects = ["::mlir::coda::CodaDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect"];
}

def CodaFuseCrossEntropy : Pass<"coda-fuse-cross-entropy", "::mlir::func::FuncOp"> {
  let summary = "LM head + cross-entropy: online log-sum-exp and target logit in the epilogue";
  let description = [{
    Matches the log-softmax that torch-mlir writes for `F.cross_entropy(x @ W.T, labels)`
    over the logits of a fused `coda.gemm` (row max, subtract, exp, row sum, log, subtract)
    followed by a gather of each row's label (`tensor.extract` at `(i, label_i)`), and
    rewrites it: the gemm takes the labels as a row operand and returns two row reductions,
    `reduce<row, lse>` of the logits and `reduce<row, sum>` of the logit selected where the
    column index equals the label; the gathered log-probability becomes `target - lse`. The
    logits are no longer stored unless something else in the program reads them. The
    bounds assertions torch-mlir puts around the gather are dropped: an out-of-range label
    selects no column (target 0) instead of failing.
  }];
  let dependentDialects = ["::mlir::coda::CodaDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect"];
}

def CodaMergeSiblings : Pass<"coda-merge-siblings", "::mlir::ModuleOp"> {
  let summary = "Merge projections of the same input (q, k, v) into one coda.gemm";
  let description = [{
    `coda.gemm` kernels that read the same A (with the same transposes), each with one stored
    result of the same element type, no pairwise mode and operands only per row, per column or
    scalar, become one kernel over the weights concatenated along N (a run-once
    weight-preparation function). Its epilogue runs each original epilogue on its column range
    (with the column index shifted back) and selects by column; the original results are
    slices of the merged one. One kernel reads A once instead of once per projection.
  }];
  let dependentDialects = ["::mlir::coda::CodaDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect"];
}

def CodaFuseRope : Pass<"coda-fuse-rope", "::mlir::ModuleOp"> {
  let summary = "RoPE after a q/k projection as a pairwise(rotate) epilogue";
  let description = [{
    Matches rotate-half rotary embeddings as torch-mlir writes them on heads of a fused
    projection (`x * cos + cat(-x2, x1) * sin` on the `[H, M, HD]` view of a column range of a
    `coda.gemm` result, with `cos`/`sin` given per position and head dimension `[M, HD]`) and
    moves them into the projection's epilogue:

    * the weight columns of each head are permuted (run-once weight preparation) so that the
      rotated pairs `(d, d + HD/2)` become adjacent columns `(2d, 2d + 1)`;
    * the gemm runs in `pairwise(rotate)` mode: on pairs inside a rotated range it applies the
      rotation with `cos`/`sin` permuted alike and read as `tiled` operands (period `HD`); other
      pairs (v, or anything not rotated) pass through unchanged;
    * the interleaved convention (`stack(x1 cos - x2 sin, x1 sin + x2 cos).flatten()` on
      `x1 = x[..., 0::2]`, `x2 = x[..., 1::2]`, tables `[M, HD/2]`) needs no permutation: its
      pairs are adjacent columns already and each pair reads its table entry;
    * the consumers read rotate-half heads in the permuted order. When they only use them
      through a product contracting the head dimension with another head tensor permuted the
      same way (attention's `q · kᵀ`), nothing else is needed: `(q P)(k P)ᵀ = q P Pᵀ kᵀ = q kᵀ`
      for a permutation matrix `P`. Otherwise the kernel writes each rotated pair back into
      its head's halves (`pairwise(rotate, halves HD)`, every head of the product permuted):
      the result comes out in the original order, with nothing after the kernel. Products
      whose columns are not whole heads are left alone.
  }];
  let dependentDialects = ["::mlir::coda::CodaDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def CodaFuseCacheAppend : Pass<"coda-fuse-cache-append", "::mlir::func::FuncOp"> {
  let summary = "A KV cache's update at one position as coda.append";
  let description = [{
    transformers' `StaticCache.update` writes a decode step's keys and values with
    `index_copy_(dim, cache_position, new)` (or `cache[:, :, cache_position] = new`, an
    `index_put` along one dimension); exported with coda's decompositions
    (`python/coda/exporting.py`, which keep it linalg) it is a select over the whole cache,
    `iota(C) == cache_position[0] ? new : cache` with `new` one row broadcast along the
    cache's rows. That select becomes `coda.append %new into %cache at %cache_position`
    (`layout <bshd>` for a cache `[B, C, H, d]`): the GPU writes the row in place, in O(d)
    per head, instead of reading and writing the cache. In `--coda-fuse` it runs first.
  }];
  let dependentDialects = ["::mlir::coda::CodaDialect"];
}

def CodaFuseAttention : Pass<"coda-fuse-attention", "::mlir::func::FuncOp"> {
  let summary = "Attention as torch-mlir writes it, as one coda.attention";
  let description = [{
    Matches `softmax(q·kᵀ·scale [+ causal mask]) · v` on the `[B·H, S, d]` views torch-mlir
    writes for an explicit softmax and for `F.scaled_dot_product_attention` (its guard that
    gives 0 on rows where every score is -inf included) and replaces the products, the mask,
    the softmax and the views with one `coda.attention`:

    * the views are followed back through transposes, reshapes, widenings and constant
      factors to the stored heads: `[B, S, H, d]` heads (a projection's columns) are read in
      place with `layout <bshd>`, `[B, H, S, d]` ones with `bhsd`;
    * a broadcast of each KV head over its group of query heads (`repeat_kv`,
      `repeat_interleave`) becomes grouped-query attention;
    * constant factors on q, on k and on the scores multiply into `scale`; from a `tanh` on
      (soft-capping), the steps on the score become the op's score region, masks after it;
    * a mask computed from position vectors (an additive `select(cond, 0, -inf)`, or
      `select(cond, s, -inf)` as `masked_fill` writes it) becomes the `#coda.mask` equal to
      it (causal, windows, dilation, chunks, sinks, global tokens) where it depends on the
      positions through the distance `j - i`, thresholds on i or on j and chunks
      `floor(i / C) == floor(j / C)`: candidates from the program's constants are proved
      equal on one pair per class of those; a mask on positions that no `#coda.mask` says
      becomes a runtime mask, its positions computed by a run-once function
      (`coda_attention_positions_<Sq>x<Sk>`, `coda.weight_prep`);
    * a boolean mask read as data (SDPA's `attn_mask`, a `masked_fill` condition), `[Sq, Sk]`
      or `[Mb, Mh, Sq, Sk]` with Mb 1 or B and Mh 1 or H, becomes the op's runtime mask: a
      run-once preparation function (`coda.weight_prep`) computes its blocks and bits;
    * the output is written in the layout its users read: a token-major result that the
      program transposes back to `[B, S, H, d]` replaces that transpose.

    Where the elementwise steps of the softmax come as separate generics (the decomposition
    of `F.scaled_dot_product_attention` in a program with nothing else to fuse), chains of
    them are fused first (never into a product or a reduction). Attention with any other mask
    or score edit is left as it is. In `--coda-fuse` it runs after `--coda-fuse-rope` and
    before the leftovers between kernels are merged.
  }];
  let dependentDialects = ["::mlir::coda::CodaDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def CodaInlineRowOperands : Pass<"coda-inline-row-operands", "::mlir::func::FuncOp"> {
  let summary = "Finish per-row statistics inside the consumer's epilogue";
  let description = [{
    A `row` or `scalar` operand of a `coda.gemm` that an elementwise `linalg.generic` computes
    from other per-row or scalar values (RMSNorm's `rsqrt(ss / D + ε)` from the row sum of
    squares `ss` that the producer kernel returned) is replaced by those inputs, and the
    computation is cloned into the epilogue. The O(M) step between two kernels disappears; the
    consumer recomputes a few scalar ops per element, which costs nothing next to the GEMM.
    Applied until no such operand is left.
  }];
  let dependentDialects = ["::mlir::coda::CodaDialect", "::mlir::tensor::TensorDialect"];
}

def CodaInlineMatrixOperands : Pass<"coda-inline-matrix-operands", "::mlir::func::FuncOp"> {
  let summary = "Compute an elementwise producer of a matrix operand inside the reading kernel";
  let description = [{
    A `matrix` operand of a `coda.gemm` that only this kernel reads and that an elementwise
    `linalg.generic` computes from matrix, per-row, per-column and scalar inputs is replaced by
    those inputs, and the computation is cloned into the epilogue. Post-norms are the case:
    BERT's LayerNorm after a residual, `(h − μ) ⊙ r ⊙ γ + β`, is the next kernel's residual, so
    that kernel reads h, its row statistics and the norm weights instead of the normalized
    tensor, and the pass over memory that wrote it is gone. Kernels in pairwise mode are left
    alone.
  }];
  let dependentDialects = ["::mlir::coda::CodaDialect", "::mlir::tensor::TensorDialect"];
}

def CodaFuseInterleavedPairs : Pass<"coda-fuse-interleaved-pairs", "::mlir::func::FuncOp"> {
  let summary = "A gated combination of interleaved columns as a pairwise(contract) epilogue";
  let description = [{
    A `coda.gemm` result read only through its even and odd columns (`r[:, 0::2]`,
    `r[:, 1::2]`), both read by one elementwise `linalg.generic` (gpt-oss's clamped SwiGLU
    stores gate and up interleaved: `(clamp(up) + 1) * g * sigmoid(α g)` with
    `g = clamp(gate)`), becomes one kernel in `pairwise(contract)` mode: the pairs are adjacent
    columns already, so no weight is permuted. Its epilogue runs the product's epilogue on both
    columns of a pair (rounded as the product was stored), then the combination, whose other
    inputs may be per-row vectors or scalars. The `[M, N]` product and its slices are gone.
  }];
  let dependentDialects = ["::mlir::coda::CodaDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CodaFp32Epilogues : Pass<"coda-fp32-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Compute the bf16/f16 arithmetic of coda.gemm epilogues in fp32, rounding once";
  let description = [{
    torch-mlir writes a bf16 program one op at a time, each op rounding its result to bf16, and
    the fused epilogues keep every one of those roundings (two instructions each on the GPU,
    more than the op itself). This pass computes the epilogue's narrow float arithmetic in fp32
    instead: a narrow op becomes its fp32 form on the fp32 values of its operands, a rounding
    followed by a widening disappears, and a value is rounded only where a result stores it.
    The results are at least as accurate, and no longer bit-identical to the op-by-op program:
    this is how torch.compile computes bf16 elementwise chains. Part of `--coda-fuse` by default
    (on the H200 every anchor case ran faster with it and closer to fp32);
    `--coda-fuse=fp32-epilogues=false` keeps the op-by-op roundings.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def CodaFoldIndexRanges : Pass<"coda-fold-index-ranges", "::mlir::func::FuncOp"> {
  let summary = "Replace the integer values of kernel epilogues that the index ranges decide";
  let description = [{
    A `coda.gemm` epilogue sees each element's row `i` in [0, M) and column `j` in [0, N) (the
    pair `p` in [0, N/2) in contract and rotate mode): the op tells the integer range analysis
    so (`InferIntRangeInterface`). Bounds checks that torch-mlir's lowerings leave in what
    fusion absorbs — RoPE's `0 <= 2p < N` around its rotation — are then decided for every
    element, and this pass replaces each integer (or `i1`) value of an epilogue whose range is
    one value by that constant; the canonicalizer (`--coda-fuse` runs it next) folds the selects
    and drops what nothing reads, so the kernel computes neither.

    ```mlir
    // before                                  // after --coda-fold-index-ranges, canonicalize
    %p2 = arith.muli %p, %c2 : index
    %lt = arith.cmpi ult, %p2, %c5120 : index
    %ge = arith.cmpi uge, %p2, %c0 : index
    %in = arith.andi %ge, %lt : i1
    %y = arith.select %in, %rot, %acc : f32  // (%rot yielded directly)
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def CodaCleanupFused : Pass<"coda-cleanup-fused", "::mlir::func::FuncOp"> {
  let summary = "Canonicalize and CSE the functions that fusion changed, and only those";
  let description = [{
    Runs the canonicalizer and CSE on every function that contains a `coda.gemm` or calls a
    weight-preparation function. Functions fusion did not touch stay exactly as they were, so a
    program with no fusion opportunity comes out of `--coda-fuse` unchanged.
  }];
}

def CodaFuseLeftovers : Pass<"coda-fuse-leftovers", "::mlir::func::FuncOp"> {
  let summary = "Merge the elementwise ops left between kernels into fewer passes over memory";
  let description = [{
    In a function with `coda.gemm` kernels, what stays outside them (the normalization of a
    materialized output, statistics of an input no kernel produces) is still a chain of
    `linalg.generic`s that torch-mlir wrote one op at a time; every one of them is a pass over
    memory once the function runs on the device. This pass fuses elementwise producers into
    their consumers (upstream linalg elementwise fusion) where the producer has no other user,
    so nothing is computed twice, or where it only widens a tensor (LayerNorm's f32 copy of x,
    read by the row sums of x and x²): a convert in each reader costs less than a copy in
    memory. Before that, a kernel that stores one value both in bf16/f16
    and, widened, in f32 (torch code upcasting a result for what follows) stops writing the f32
    copy: its readers widen the narrow result themselves, inside their fused loop. Last, two
    reductions over the same loops that read a tensor in common (LayerNorm's row sums of x and
    x²) become one generic with both outputs: one pass over that tensor; and two elementwise
    generics over the same loops that read no kernel's result (RoPE's cos and sin tables,
    permuted for the kernel) become one: one launch. Functions without kernels stay as they
    are.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CodaFuseReport : Pass<"coda-fuse-report", "::mlir::ModuleOp"> {
  let summary = "Print which chains were fused into which kernel and what stayed outside, and why";
  let description = [{
    An analysis that leaves the IR unchanged; run it after `--coda-fuse`. For every function it
    lists the `coda.gemm` kernels with the epilogue each one fuses, then every compute op left
    outside the kernels (linalg products, elementwise ops and reductions; data movement such as
    fills, reshapes, transposes and broadcasts is not listed) with the reason it stayed there.
    Run-once weight preparation functions are listed apart.
  }];
}

def CodaReportTraffic : Pass<"coda-report-traffic", "::mlir::ModuleOp"> {
  let summary = "Print global-memory bytes each kernel reads and writes, before and after fusion";
  let description = [{
    Counts, from the static shapes, the bytes each kernel reads and writes in global memory
    (every operand read once, every result written once; the MoA-style lower bound for a
    kernel that streams its operands). A kernel is a `coda.gemm` or a compute op left outside
    one. For a `coda.gemm` made by `--coda-fuse-epilogue`, "before" is the sum over the ops it
    replaced (recorded in its `coda.unfused_bytes` attribute: read, written); otherwise before
    and after are equal. Prints per function one line per kernel and the totals.
  }];
}

#endif // CODA_TRANSFORMS_PASSES_TD
