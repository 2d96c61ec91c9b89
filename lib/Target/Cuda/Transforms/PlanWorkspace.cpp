//===- PlanWorkspace.cpp - each function launcher's workspace layout ------===//
//
// A function launcher keeps its intermediates at static offsets of one workspace, each rounded
// up to 256 bytes, in launch order; arguments, prepared weights and values returned once live in
// the caller's buffers, reshapes in their operand's. Per launcher (run; with a separable weight
// preparation, prepare and run_prepared) this pass writes each op's result offsets
// (coda.workspace), the counts a row hand-off needs (coda.rows_done) and the total
// (coda.workspace_bytes); it marks the preparation's ops coda.prepares.
//
//===----------------------------------------------------------------------===//

#include "coda/Target/Cuda/Plan.h"
#include "coda/Target/Cuda/Transforms/Passes.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAPLANWORKSPACE
#include "coda/Target/Cuda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

static int64_t roundUp(int64_t bytes) { return (bytes + 255) / 256 * 256; }

static int64_t bytesOf(Value v) { return numBytes(cast<RankedTensorType>(v.getType())); }

namespace {
/// The layout of one launcher, found in the order its printer asks for buffers.
struct Layout {
  DenseMap<Value, int64_t> offset;
  DenseMap<Operation *, int64_t> done;
  int64_t bytes = 0;
};
} // namespace

static FailureOr<Layout> layoutLauncher(func::FuncOp func, LauncherKind kind,
                                        ArrayRef<Operation *> preparations) {
  Layout layout;
  DenseSet<Value> placed; // values with a buffer: in the workspace or the caller's
  auto allocate = [&](Value v) {
    layout.offset[v] = layout.bytes;
    layout.bytes += roundUp(bytesOf(v));
    placed.insert(v);
  };
  // A tensor.empty gets memory only if something reads or writes its buffer.
  auto use = [&](Value v) {
    if (!placed.contains(v) && v.getDefiningOp<tensor::EmptyOp>())
      allocate(v);
  };
  Block &block = func.getBody().front();
  placed.insert(block.args_begin(), block.args_end());
  if (kind != LauncherKind::Run)
    for (Value v : preparedValues(preparations))
      placed.insert(v);
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  if (kind != LauncherKind::Prepare)
    for (OpOperand &returned : ret->getOpOperands())
      if (Value v = writtenToResult(returned))
        placed.insert(v);
  for (Operation &op : block.without_terminator()) {
    if (isa<arith::ConstantOp, tensor::EmptyOp>(op) || !runsIn(&op, kind))
      continue;
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
      use(op.getOperand(0)); // dense row-major: the same bytes
      placed.insert(op.getResult(0));
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op); fill && fillFolded(fill))
      continue;
    // Heads that attention reads in place from the tensor they are sliced from.
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op); slice && readInPlace(slice)) {
      use(slice.getSource());
      placed.insert(slice.getResult());
      continue;
    }
    for (Value r : op.getResults())
      if (!placed.contains(r) && isa<RankedTensorType>(r.getType()))
        allocate(r);
    if (isa<GemmOp, AttentionOp, AppendOp>(op)) {
      for (Value v : op.getOperands())
        use(v);
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      for (Value v : call.getOperands())
        use(v);
    } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      for (Value v : generic.getDpsInputs())
        use(v);
      GemmOp consumer = generic->hasAttr(kHandsRowsAttr) ? rowsConsumer(generic) : GemmOp();
      if (consumer && nextLaunch(&op, kind) == consumer.getOperation()) {
        // One count per row block of the kernel's tile M: its configuration comes first.
        if (!getKernelConfig(consumer))
          return generic.emitError("hands its rows to a kernel without a 'coda.kernel' "
                                   "configuration (--coda-plan-kernel-configs runs before "
                                   "--coda-plan-workspace)");
        layout.done[&op] = layout.bytes;
        layout.bytes += roundUp(awaitedRowBlocks(consumer) * 4);
      }
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      use(insert.getDest());
      use(insert.getSource());
    } else if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
      for (Value v : concat.getInputs())
        use(v);
    } else if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
      use(extract.getSource());
    }
  }
  if (kind != LauncherKind::Prepare)
    for (Value v : ret.getOperands())
      use(v);
  return layout;
}

namespace {
struct PlanWorkspacePass : public coda::impl::CodaPlanWorkspaceBase<PlanWorkspacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || func->hasAttr(kWorkspaceBytesAttr))
      return;
    // Only tensors of static shape can be laid out; anything else has no launcher.
    auto laidOut = [](Type t) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return !isa<TensorType>(t) ||
             (tensor && tensor.hasStaticShape() && tensor.getElementType().isIntOrIndexOrFloat());
    };
    WalkResult dynamic = func.walk([&](Operation *op) {
      for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
        if (!laidOut(t))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return;
    Builder b(func.getContext());
    SmallVector<Operation *> preparations = separablePreparations(func);
    for (Operation *op : preparations)
      op->setAttr(kPreparesAttr, b.getUnitAttr());
    SmallVector<LauncherKind> kinds{LauncherKind::Run};
    if (!preparations.empty())
      kinds.append({LauncherKind::Prepare, LauncherKind::RunPrepared});
    DenseMap<Operation *, SmallVector<NamedAttribute>> offsets, done;
    SmallVector<NamedAttribute> bytes;
    for (LauncherKind kind : kinds) {
      FailureOr<Layout> laidOut = layoutLauncher(func, kind, preparations);
      if (failed(laidOut))
        return signalPassFailure();
      Layout &layout = *laidOut;
      StringRef key = launcherKey(kind);
      bytes.push_back(b.getNamedAttr(key, b.getI64IntegerAttr(layout.bytes)));
      func.walk([&](Operation *op) {
        if (op->getNumResults() == 0 || op->getParentOp() != func)
          return;
        SmallVector<int64_t> at;
        for (Value r : op->getResults())
          at.push_back(layout.offset.lookup_or(r, -1));
        if (llvm::any_of(at, [](int64_t o) { return o >= 0; }))
          offsets[op].push_back(b.getNamedAttr(key, b.getDenseI64ArrayAttr(at)));
      });
      for (auto [op, offset] : layout.done)
        done[op].push_back(b.getNamedAttr(key, b.getI64IntegerAttr(offset)));
    }
    for (auto &[op, entries] : offsets)
      op->setAttr(kWorkspaceAttr, b.getDictionaryAttr(entries));
    for (auto &[op, entries] : done)
      op->setAttr(kRowsDoneAttr, b.getDictionaryAttr(entries));
    func->setAttr(kWorkspaceBytesAttr, b.getDictionaryAttr(bytes));
  }
};
} // namespace
