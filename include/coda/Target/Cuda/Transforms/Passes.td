//===- Passes.td - the CUDA back end's plan passes ---------*- tablegen -*-===//

#ifndef CODA_TARGET_CUDA_TRANSFORMS_PASSES_TD
#define CODA_TARGET_CUDA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CodaGeneralizeOutsideKernels
    : Pass<"coda-generalize-outside-kernels", "::mlir::func::FuncOp"> {
  let summary = "Run the linalg ops outside coda.gemm kernels as generics and slice copies";
  let description = [{
    A function launcher runs `coda.gemm` kernels, `linalg.generic`s, fills and slice copies.
    What torch-mlir writes beside the fused kernels is rewritten into those, so that the
    function gets a launcher: a named linalg op on tensors (`linalg.transpose` of attention's
    heads, `linalg.broadcast`, `linalg.copy`, the `linalg.batch_matmul`s of attention until
    `coda.attention` takes them) becomes its `linalg.generic`, and a `tensor.pad` (a causal
    LM's shifted labels) a `linalg.fill` and a `tensor.insert_slice`. A `coda.attention` that
    the attention kernel does not run (f32 heads, head sizes that are not a multiple of 16 up
    to 128) becomes its `--coda-expand` form. `linalg.fill` stays.
    The meaning does not change (`coda-run --against`).

    ```mlir
    %t = linalg.transpose ins(%x : tensor<2x8x4xbf16>) outs(%e : tensor<2x4x8xbf16>) permutation = [0, 2, 1]
    // becomes
    %t = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d2, d1), (d0, d1, d2) -> (d0, d1, d2)], ...}
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def CodaPlanRowHandoffs : Pass<"coda-plan-row-handoffs", "::mlir::func::FuncOp"> {
  let summary = "Mark the row reductions that hand their rows to the next kernel as it runs";
  let description = [{
    A row reduction (a generic with one warp per row) whose results only one `coda.gemm` reads,
    as row operands with one row per GEMM row, can run beside that kernel: it publishes each
    block of rows as it finishes, and the kernel's tiles wait for their rows
    (`coda/Runtime/Overlap.cuh`). This pass marks the reduction `coda.hands_rows` and the
    kernel `coda.awaits_rows`. The kernel-configuration model then takes the tile order that
    lets the two overlap, and `--coda-schedule-launches` puts the reduction right before the
    kernel. Functions that already have a launch schedule (`coda.kernels`) are left as they are.

    ```mlir
    %stats = linalg.generic ... {coda.hands_rows} ...
    %y = coda.gemm ... {coda.awaits_rows} ...
    ```
  }];
}

def CodaPlanKernelConfigs : Pass<"coda-plan-kernel-configs", "::mlir::ModuleOp"> {
  let summary = "Choose each coda.gemm's CUTLASS configuration and how its results are stored, "
                "and each coda.attention's kernel";
  let description = [{
    Writes on every `coda.gemm` without one a `coda.kernel` attribute
    (`#coda.kernel<...>`, see the dialect's attributes) that `coda-translate --coda-to-cuda`
    prints as it is: CTA tile, cluster, cooperative or ping-pong schedule, raster order and
    swizzle, epilogue subtile, division, grid size, the sink of each result and the tables read
    through TMA. The configuration is the tuning database's entry for the kernel's key where
    `tuning-db` names one that has it, else the best of the analytic model for the `target` GPU
    (`include/coda/Target/Cuda/GpuTargets.def`). A `coda.tuning` dictionary beside it records
    the key, where the choice came from, the model's inputs and the candidates that
    `bench/tune.py` times.

    Kernels the CUDA back end cannot run (batched products with reductions, pairwise epilogues
    or tiled operands, inputs other than bf16/f16/f32, results it cannot store) get an error
    here, at the op.

    fp32 inputs run on TF32 tensor cores (10-bit mantissas, as PyTorch's matmul with TF32
    allowed). With `fp32=3xtf32` their kernels get `exactFp32`: three TF32 products over A and B
    split into high and low parts, about fp32's accuracy for three times the tensor-core work
    (the model ranks them at 3K).

    A `coda.attention` that the analytic model runs faster on the row-wise kernel (a warp per
    query row: a few query rows, as in decoding) than on a block-wise one gets `coda.row_wise`
    (`cuda::attentionRowWise`).

    With `dispatch` (bounds of M, e.g. `dispatch=64,1024`), a kernel's launcher carries one
    configuration per range of M and picks by the M it is called with: `coda.dispatch` lists
    each range's bound (`max_m`, none for the last) and configuration, planned at the range's
    largest M (the last at 8192, or twice the last bound if that is larger), the kernel's own
    range at its own M. It is written where some range's configuration differs from the
    kernel's own, and not on a kernel that awaits a row reduction's rows (the hand-off follows
    the configuration's tile order).

    `without` turns default paths off for A/B runs: `tma-halves` (a rotation into halves is
    staged and copied), `tma-contract` (a contracted result is stored by each thread),
    `tma-tables` (tables are loaded by each thread), `whole-waves` (one CTA per SM).

    ```
    $ coda-opt --coda-plan-kernel-configs="target=h100-sxm" fused.mlir
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"h200\"",
           "The GPU the analytic model ranks configurations for: h200 or h100-sxm">,
    Option<"tuningDb", "tuning-db", "std::string", /*default=*/"\"\"",
           "A JSON tuning database (bench/tune.py) whose measured configurations replace "
           "the model's (data/tuning/tuning-<gpu>.json)">,
    ListOption<"without", "without", "std::string",
               "Default paths to leave out, for A/B runs: tma-halves, tma-contract, "
               "tma-tables, whole-waves">,
    Option<"fp32", "fp32", "std::string", /*default=*/"\"tf32\"",
           "How fp32 inputs are multiplied: tf32 (one TF32 product) or 3xtf32 (three, about "
           "fp32's accuracy)">,
    ListOption<"dispatch", "dispatch", "int64_t",
               "Bounds of M (ascending) at which each kernel's launcher switches configuration "
               "(coda.dispatch): one configuration per range, planned for its largest M "
               "(8192 or twice the last bound for the open range; the kernel's own M in its "
               "range)">,
  ];
}

def CodaScheduleLaunches : Pass<"coda-schedule-launches", "::mlir::func::FuncOp"> {
  let summary = "Name every kernel of a function and put its ops in launch order";
  let description = [{
    Gives every op that the function's launcher runs as kernels a `coda.kernels` list of
    kernel names: `<function>_k<i>` for the i-th `coda.gemm`, `<function>_g<i>` for coda's
    own kernels (generics, fills, slices, one per piece of a concat), numbered in the order the
    ops had before scheduling. Then it moves each reduction marked `coda.hands_rows` to just
    before the kernel that awaits its rows, after every op between them that does not depend
    on it, so that the kernel starts beside the reduction. The CUDA launcher runs the ops in
    the order of the block. A function that has names already is left as it is.
  }];
}

def CodaPlanWorkspace : Pass<"coda-plan-workspace", "::mlir::func::FuncOp"> {
  let summary = "Lay out each function launcher's intermediates in its workspace";
  let description = [{
    A function runs on the device through a launcher that keeps its intermediates at static
    offsets of one workspace, in launch order (run it after `--coda-schedule-launches`), each
    rounded up to 256 bytes; arguments, prepared weights and the values returned once live in
    the caller's buffers, and reshapes in their operand's. Where the function's weight
    preparation reads only its arguments, its ops are marked `coda.prepares`: it gets a
    launcher of its own (`prepare`) and the rest another (`run_prepared`), beside `run`.

    Per launcher it writes on every op with results in the workspace
    `coda.workspace = {run = array<i64: offset, ...>}` (one offset per result, -1 where the
    result lives elsewhere), on a row reduction that hands its rows to the next launch the
    offset of its per-block counts (`coda.rows_done`), and on the function the bytes of its
    intermediates (`coda.workspace_bytes`), before the scratch that its kernels and callees
    share. A function laid out already is left as it is.
  }];
}

#endif // CODA_TARGET_CUDA_TRANSFORMS_PASSES_TD
