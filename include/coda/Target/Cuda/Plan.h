//===- Plan.h - what the CUDA plan passes decide, as IR ---------*- C++ -*-===//
//
// The plan passes (include/coda/Target/Cuda/Transforms/Passes.td) write their decisions into
// the IR as attributes; the emitters of coda-translate --coda-to-cuda read them. This header
// names those attributes and holds the queries both sides ask of an op.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_TARGET_CUDA_PLAN_H
#define CODA_TARGET_CUDA_PLAN_H

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Target/Cuda/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

namespace mlir::coda::cuda {

/// On a row reduction that hands its rows to the kernel that awaits them (unit).
constexpr StringLiteral kHandsRowsAttr = "coda.hands_rows";
/// On a coda.gemm whose tiles wait for the rows a reduction beside it publishes (unit).
constexpr StringLiteral kAwaitsRowsAttr = "coda.awaits_rows";
/// On every op a function launcher runs as kernels: their names (array of strings).
constexpr StringLiteral kKernelsAttr = "coda.kernels";
/// On the ops of a function's separable weight preparation (unit): its `_prepare` launcher
/// runs them once, `_run_prepared` reads what they made.
constexpr StringLiteral kPreparesAttr = "coda.prepares";
/// On an op: per launcher (`run`, `prepare`, `run_prepared`), the byte offset in the
/// launcher's workspace of each result (-1: not there). On a row reduction that hands its rows
/// on, `coda.rows_done`: where its per-block counts live. On a function,
/// `coda.workspace_bytes`: per launcher, the bytes of its intermediates (before the scratch
/// the kernels and callees share).
constexpr StringLiteral kWorkspaceAttr = "coda.workspace";
constexpr StringLiteral kRowsDoneAttr = "coda.rows_done";
constexpr StringLiteral kWorkspaceBytesAttr = "coda.workspace_bytes";
/// On a coda.attention the plan runs on the row-wise kernel (unit; the block-wise kernels
/// otherwise).
constexpr StringLiteral kRowWiseAttr = "coda.row_wise";

/// The value a launcher writes straight into the caller's result buffer for `returned` (an
/// operand of func.return): one returned once and made by a kernel, a generic, a call or a
/// slice copy, through reshapes of a value used only by them (the same bytes); else null.
Value writtenToResult(OpOperand &returned);

/// The launchers of a function: all of it; its weight preparation alone; the rest.
enum class LauncherKind { Run, Prepare, RunPrepared };
StringRef launcherKey(LauncherKind kind);
/// Whether the `kind` launcher runs `op`: the prepare launcher only the preparation's ops
/// (coda.prepares), the prepared run all but those.
bool runsIn(Operation *op, LauncherKind kind);
/// The op after `op` in its block that the `kind` launcher launches (views, constants and
/// empty tensors are no launches), or null.
Operation *nextLaunch(Operation *op, LauncherKind kind);
/// Whether --coda-schedule-launches named `func`'s kernels (its plan is kept as it is).
bool isScheduled(func::FuncOp func);
/// The row blocks (of its planned tile M) whose rows a kernel that awaits them counts.
int64_t awaitedRowBlocks(GemmOp consumer);

/// On a coda.gemm: how its configuration was chosen (dictionary; comments in the .cu file).
constexpr StringLiteral kTuningAttr = "coda.tuning";
/// On a coda.gemm: the configurations its launcher picks from by M, ascending ranges (array of
/// {max_m (absent for the last range), planned_m, kernel = #coda.kernel<...>}).
constexpr StringLiteral kDispatchAttr = "coda.dispatch";

/// How one output of a reduction generic folds in a value: out = combine(value, out).
struct WarpCombine {
  Operation *op;     // the combining op, which the warp version replaces
  Value value;       // what it folds into the output
  const char *fn;    // the combine as a call (fmaxf, fminf), or empty
  const char *sym;   // else as an infix operator (+, *)
  const char *identity;
};

/// A generic that reduces its innermost loop dimension into f32 (or integer: counts) outputs,
/// each by a plain fold out = combine(f(inputs), out), runs one warp per output point: lanes
/// stride along the reduced dimension (coalesced for row-major inputs), then combine by
/// shuffles in a fixed order (deterministic). Returns the folds, or nothing when the generic
/// is not of that form.
std::optional<SmallVector<WarpCombine>> warpReduction(linalg::GenericOp generic);

/// The coda.gemm that reads every result of `generic`, a row reduction with a warp per row,
/// only as row operands (through reshapes), one row per GEMM row: the reduction can hand its
/// rows to that GEMM a row block at a time while it runs. Null otherwise.
GemmOp rowsConsumer(linalg::GenericOp generic);

/// The weight preparation of `func` when it reads only the function's arguments (directly, or
/// through slices and reshapes used by nothing else) and its own results, so that it can run on
/// its own, once: those calls and views, in order; else nothing.
SmallVector<Operation *> separablePreparations(func::FuncOp func);
/// What the preparation hands to the rest of the function: its call results read elsewhere.
SmallVector<Value> preparedValues(ArrayRef<Operation *> preparation);

/// Bits an element of type `t` takes in memory (index: 64), and a static tensor's bytes.
unsigned storageBits(Type t);
int64_t numBytes(RankedTensorType t);

/// Whether coda.attention `op` runs as the block-wise attention kernel (coda/Runtime/
/// Attention.cuh): bf16 or f16 heads of a size d that is a multiple of 16 up to 128, the same
/// for V, and a score region of arith and math ops (over a KV cache: the decode kernel of
/// coda/Runtime/Decode.cuh, without a runtime mask). Otherwise the plan runs its
/// --coda-expand form as generics.
bool hasAttentionKernel(AttentionOp op);
/// The residue classes the attention kernel splits a dilated mask into (1: not split). With
/// dilation d, query r and key j meet only when r ≡ j (mod d), so rows c, c + d, c + 2d, ...
/// of Q, K and V form an attention of their own whose blocks are dense. The kernel reads
/// each class as a strided view (no copy). It applies when every visible key lies in the
/// query's class (no sinks, global tokens or runtime mask) and d divides Sq and Sk.
int64_t attentionResidueClasses(AttentionOp op);
/// Whether `op` runs faster on the row-wise kernel (a warp per query row, CUDA cores) than on
/// a block-wise one (tiles of 64 or 128 query rows, tensor cores) on `gpu`, by the analytic
/// model: each kernel's time is the larger of its arithmetic (the block-wise kernel pays for
/// whole row tiles) and its K/V reads (the row-wise kernel reads each KV head once for its
/// whole group, a block-wise one once per query head and row tile), at the rate its CTAs can
/// reach when fewer than the SMs. The row-wise kernel takes at most 4096 query rows per head;
/// attention over a KV cache runs on the decode kernel.
bool attentionRowWise(AttentionOp op, const GpuTarget &gpu);
/// The column block of a wider [tokens, C] tensor (the QKV kernel's output, sliced into q, k
/// and v) that token-major operand `heads` of `op` views as [B, S, H, d], read in place with
/// rows C apart; null where the operand is read as its own dense tensor. K and V are read in
/// place together or not at all (they share one row stride).
tensor::ExtractSliceOp attentionSliceOf(AttentionOp op, Value heads);
/// The distance in elements between consecutive tokens (rows of one head) of `heads`.
int64_t attentionRowStride(AttentionOp op, Value heads);
/// Whether every reader of `slice` is an attention that reads it in place: it is never copied.
bool readInPlace(tensor::ExtractSliceOp slice);
/// A warp reduction reads each init once, when it folds its result in: an init filled with a
/// constant is that constant (the fill, else null).
linalg::FillOp foldedFill(linalg::GenericOp generic, OpOperand &init);
/// A fill that only the warp reductions reading it as their init use: it never runs.
bool fillFolded(linalg::FillOp fill);

/// The period of tiled operand #i (its last dimension).
int64_t periodOf(GemmOp op, unsigned i);
/// Whether a tanh runs as the hardware's tanh.approx (bf16/f16, or afn).
bool approximateTanh(math::TanhOp t);
/// Whether `d` may divide through div.full.f32 (2 ulp): an fp32 division in an epilogue whose
/// results are all stored 16-bit, whose rounding (2^-9) is far coarser.
bool mayDivideFull(arith::DivFOp d);

/// The extra operand that rides the collective's C (a TMA load pipelined with the mainloop):
/// where no result accumulates, the first [M, N] operand typed like the result the collective
/// stores (a residual, say); -1 if none.
int sourceOperand(GemmOp op, ArrayRef<ResultSink> sinks);

/// The plan's configuration of `op`, or null where it has none.
KernelConfigAttr getKernelConfig(GemmOp op);
/// The configuration as the model's record, and back (with the kernel's sinks and tables, and
/// whether fp32 inputs run as three TF32 products).
KernelConfig toKernelConfig(KernelConfigAttr attr);
KernelConfigAttr toKernelConfigAttr(MLIRContext *context, const KernelConfig &config,
                                    ArrayRef<ResultSink> stores, ArrayRef<int64_t> tmaTables,
                                    bool wholeWaves, bool exactFp32 = false);

} // namespace mlir::coda::cuda

#endif // CODA_TARGET_CUDA_PLAN_H
