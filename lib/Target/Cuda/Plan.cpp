//===- Plan.cpp - queries of the CUDA plan, shared with the emitters ------===//

#include "coda/Target/Cuda/Plan.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

std::optional<SmallVector<WarpCombine>> cuda::warpReduction(linalg::GenericOp generic) {
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (iterators.empty() || iterators.back() != utils::IteratorType::reduction ||
      llvm::count(iterators, utils::IteratorType::reduction) != 1 || ranges.back() < 64)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(generic.getBlock()->getTerminator());
  SmallVector<WarpCombine> folds;
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    BlockArgument out = generic.getMatchingBlockArgument(&init);
    Value yielded = yield.getValues()[init.getOperandNumber() - generic.getNumDpsInputs()];
    Operation *op = yielded.getDefiningOp();
    if (!(out.getType().isF32() || out.getType().isInteger(64) || out.getType().isInteger(32)) ||
        !out.hasOneUse() || !op || !yielded.hasOneUse() ||
        op->getBlock() != generic.getBlock() || op->getNumOperands() != 2 ||
        (op->getOperand(0) != out && op->getOperand(1) != out) ||
        op->getOperand(0) == op->getOperand(1))
      return std::nullopt;
    Value value = op->getOperand(0) == out ? op->getOperand(1) : op->getOperand(0);
    if (value.getParentBlock() != generic.getBlock())
      return std::nullopt; // a value from above: rare, left to the sequential loop
    std::optional<WarpCombine> fold =
        llvm::TypeSwitch<Operation *, std::optional<WarpCombine>>(op)
            .Case([&](arith::AddFOp) { return WarpCombine{op, value, "", "+", "0.f"}; })
            .Case([&](arith::AddIOp) { return WarpCombine{op, value, "", "+", "0"}; })
            .Case([&](arith::MulFOp) { return WarpCombine{op, value, "", "*", "1.f"}; })
            .Case<arith::MaximumFOp, arith::MaxNumFOp>(
                [&](auto) { return WarpCombine{op, value, "fmaxf", "", "-INFINITY"}; })
            .Case<arith::MinimumFOp, arith::MinNumFOp>(
                [&](auto) { return WarpCombine{op, value, "fminf", "", "INFINITY"}; })
            .Default([](Operation *) { return std::nullopt; });
    if (!fold)
      return std::nullopt;
    folds.push_back(*fold);
  }
  return folds;
}

GemmOp cuda::rowsConsumer(linalg::GenericOp generic) {
  if (!warpReduction(generic))
    return {};
  int64_t points = 1;
  for (auto [range, iterator] :
       llvm::zip(generic.getStaticLoopRanges(), generic.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel)
      points *= range;
  GemmOp consumer;
  SmallVector<Value> values(generic->getResults());
  while (!values.empty()) {
    for (OpOperand &use : values.pop_back_val().getUses()) {
      Operation *user = use.getOwner();
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user)) {
        values.push_back(user->getResult(0));
        continue;
      }
      auto gemm = dyn_cast<GemmOp>(user);
      if (!gemm || (consumer && gemm != consumer) || gemm.isBatched() || gemm.getM() != points)
        return {};
      unsigned first = gemm.getExtras().getBeginOperandIndex();
      unsigned extra = use.getOperandNumber() - first;
      if (use.getOperandNumber() < first || extra >= gemm.getExtras().size() ||
          gemm.getRole(extra) != OperandRole::Row)
        return {};
      consumer = gemm;
    }
  }
  return consumer;
}

SmallVector<Operation *> cuda::separablePreparations(func::FuncOp func) {
  SmallVector<Operation *> ops;
  DenseSet<Value> available(func.getArguments().begin(), func.getArguments().end());
  auto isPrepCall = [&](Operation *op) {
    auto call = dyn_cast<func::CallOp>(op);
    auto callee = call ? dyn_cast_or_null<func::FuncOp>(
                             SymbolTable::lookupNearestSymbolFrom(func, call.getCalleeAttr()))
                       : nullptr;
    return callee && callee->hasAttr("coda.weight_prep");
  };
  for (Operation &op : func.getBody().front()) {
    if (isPrepCall(&op)) {
      if (!llvm::all_of(op.getOperands(), [&](Value v) { return available.contains(v); }))
        return {};
      ops.push_back(&op);
      available.insert(op.getResults().begin(), op.getResults().end());
    } else if (isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op) &&
               available.contains(op.getOperand(0)) && !op.getResult(0).use_empty() &&
               llvm::all_of(op.getResult(0).getUsers(), isPrepCall)) {
      ops.push_back(&op);
      available.insert(op.getResult(0));
    }
  }
  if (llvm::none_of(ops, isPrepCall))
    return {};
  return ops;
}

SmallVector<Value> cuda::preparedValues(ArrayRef<Operation *> preparation) {
  SmallVector<Value> prepared;
  for (Operation *op : preparation)
    if (isa<func::CallOp>(op))
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(),
                         [&](Operation *user) { return !llvm::is_contained(preparation, user); }))
          prepared.push_back(r);
  return prepared;
}

unsigned cuda::storageBits(Type t) { return t.isIndex() ? 64 : t.getIntOrFloatBitWidth(); }

int64_t cuda::numBytes(RankedTensorType t) {
  return t.getNumElements() * std::max<int64_t>(1, storageBits(t.getElementType()) / 8);
}

// A warp reduction reads each init once, when it folds its result in: an init filled with a
// constant is that constant, and neither the fill nor the copy into the output need to run.
linalg::FillOp cuda::foldedFill(linalg::GenericOp generic, OpOperand &init) {
  if (!warpReduction(generic))
    return {};
  return init.get().getDefiningOp<linalg::FillOp>();
}

// A fill that only the warp reductions reading it as their init use: it never runs.
bool cuda::fillFolded(linalg::FillOp fill) {
  return llvm::all_of(fill.result().getUses(), [](OpOperand &use) {
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    return generic && generic.isDpsInit(&use) && foldedFill(generic, use);
  });
}

Value cuda::writtenToResult(OpOperand &returned) {
  Value v = returned.get();
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(v.getDefiningOp()) &&
         v.getDefiningOp()->getOperand(0).hasOneUse())
    v = v.getDefiningOp()->getOperand(0);
  Operation *ret = returned.getOwner();
  if (v.getDefiningOp() &&
      isa<GemmOp, AttentionOp, AppendOp, linalg::GenericOp, func::CallOp,
          tensor::ExtractSliceOp>(v.getDefiningOp()) &&
      llvm::count(ret->getOperands(), returned.get()) == 1)
    return v;
  return {};
}

StringRef cuda::launcherKey(LauncherKind kind) {
  switch (kind) {
  case LauncherKind::Run:
    return "run";
  case LauncherKind::Prepare:
    return "prepare";
  case LauncherKind::RunPrepared:
    return "run_prepared";
  }
  llvm_unreachable("unknown launcher");
}

bool cuda::runsIn(Operation *op, LauncherKind kind) {
  bool preparation = op->hasAttr(kPreparesAttr);
  return !(kind == LauncherKind::Prepare && !preparation) &&
         !(kind == LauncherKind::RunPrepared && preparation);
}

Operation *cuda::nextLaunch(Operation *op, LauncherKind kind) {
  for (Operation *next = op->getNextNode(); next && !next->hasTrait<OpTrait::IsTerminator>();
       next = next->getNextNode())
    if (!isa<arith::ConstantOp, tensor::EmptyOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
            next) &&
        runsIn(next, kind))
      return next;
  return nullptr;
}

bool cuda::isScheduled(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        return op->hasAttr(kKernelsAttr) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

int64_t cuda::awaitedRowBlocks(GemmOp consumer) {
  int64_t tileM = getKernelConfig(consumer).getTileM();
  return (consumer.getM() + tileM - 1) / tileM;
}

int64_t cuda::periodOf(GemmOp op, unsigned i) {
  return cast<ShapedType>(op.getExtras()[i].getType()).getShape().back();
}

bool cuda::approximateTanh(math::TanhOp t) {
  return isa<BFloat16Type, Float16Type>(t.getType()) ||
         arith::bitEnumContainsAll(t.getFastmath(), arith::FastMathFlags::afn);
}

// Elsewhere (reduction partials, fp32 results, generics outside the kernels) division stays
// IEEE.
bool cuda::mayDivideFull(arith::DivFOp d) {
  auto gemm = d->getParentOfType<GemmOp>();
  if (!gemm || !d.getType().isF32())
    return false;
  for (unsigned r = 0, e = gemm->getNumResults(); r < e; ++r)
    if (!gemm.getMode(r).isStore() ||
        !isa<BFloat16Type, Float16Type>(
            cast<ShapedType>(gemm->getResult(r).getType()).getElementType()))
      return false;
  return true;
}

int cuda::sourceOperand(GemmOp op, ArrayRef<ResultSink> sinks) {
  const ResultSink *d = llvm::find_if(
      sinks, [](ResultSink s) { return s == ResultSink::Tma || s == ResultSink::Staged; });
  if (d == sinks.end())
    return -1;
  unsigned r = d - sinks.begin();
  if (op.getMode(r).isAccumulate())
    return -1;
  Type element = cast<ShapedType>(op->getResult(r).getType()).getElementType();
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    if (op.getRole(i) == OperandRole::Matrix &&
        cast<ShapedType>(op.getExtras()[i].getType()).getElementType() == element)
      return i;
  return -1;
}

KernelConfigAttr cuda::getKernelConfig(GemmOp op) {
  return op->getAttrOfType<KernelConfigAttr>(KernelConfigAttr::getAttrName());
}

KernelConfig cuda::toKernelConfig(KernelConfigAttr attr) {
  KernelConfig config;
  config.tileM = attr.getTileM();
  config.tileN = attr.getTileN();
  config.tileK = attr.getTileK();
  config.clusterM = attr.getClusterM();
  config.clusterN = attr.getClusterN();
  config.pingpong = attr.isPingpong();
  config.raster = attr.getRaster() == RasterOrder::AlongM   ? KernelConfig::Raster::AlongM
                  : attr.getRaster() == RasterOrder::AlongN ? KernelConfig::Raster::AlongN
                                                            : KernelConfig::Raster::Heuristic;
  config.swizzle = attr.getSwizzle();
  config.epilogueN = attr.getEpilogueN();
  config.fullDivision = attr.getDivision() == Division::Full;
  config.splits = attr.getSplits();
  return config;
}

KernelConfigAttr cuda::toKernelConfigAttr(MLIRContext *context, const KernelConfig &config,
                                          ArrayRef<ResultSink> stores,
                                          ArrayRef<int64_t> tmaTables, bool wholeWaves,
                                          bool exactFp32) {
  RasterOrder raster = config.raster == KernelConfig::Raster::AlongM   ? RasterOrder::AlongM
                       : config.raster == KernelConfig::Raster::AlongN ? RasterOrder::AlongN
                                                                       : RasterOrder::Heuristic;
  return KernelConfigAttr::get(
      context, config.tileM, config.tileN, config.tileK, config.clusterM, config.clusterN,
      config.pingpong ? KernelSchedule::Pingpong : KernelSchedule::Cooperative, raster,
      config.swizzle, config.epilogueN, config.fullDivision ? Division::Full : Division::Ieee,
      config.splits, wholeWaves ? GridSize::WholeWaves : GridSize::AllSms, stores, tmaTables,
      exactFp32);
}

bool cuda::hasAttentionKernel(AttentionOp op) {
  Type element = op.getQ().getType().getElementType();
  int64_t d = op.getHeadSize();
  if (!(element.isBF16() || element.isF16()) || d % 16 != 0 || d > 128 ||
      op.getValueSize() != d || (op.getCacheLens() && op.getBlocks()))
    return false;
  if (op.getScore().empty())
    return true;
  return llvm::all_of(op.getScore().front().without_terminator(), [](Operation &inner) {
    return isa<arith::ArithDialect, math::MathDialect>(inner.getDialect());
  });
}

int64_t cuda::attentionResidueClasses(AttentionOp op) {
  MaskAttr mask = op.getMaskOrDense();
  int64_t d = mask.getDilation();
  if (d == 1 || mask.getSinks() > 0 || mask.getGlobal() > 0 || op.getBlocks() || op.getCacheLens() ||
      op.getQueryLen() % d != 0 || op.getKeyLen() % d != 0)
    return 1;
  return d;
}

/// The column block [0, c0] + [R, w] of a rank-2 [R, C] tensor that `heads` ([B, S, H, d],
/// B·S = R, H·d = w) reshapes, aligned for 16-byte accesses; null otherwise.
static tensor::ExtractSliceOp columnBlockOf(Value heads) {
  auto expand = heads.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || expand.getSrcType().getRank() != 2 || expand.getResultType().getRank() != 4 ||
      expand.getReassociationIndices() != SmallVector<ReassociationIndices>{{0, 1}, {2, 3}})
    return {};
  auto slice = expand.getSrc().getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || slice.getSourceType().getRank() != 2 || !slice.hasUnitStride() ||
      !slice.getSourceType().hasStaticShape() || !slice.getType().hasStaticShape())
    return {};
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  int64_t rows = slice.getSourceType().getDimSize(0), width = slice.getSourceType().getDimSize(1);
  if (ShapedType::isDynamic(offsets[0]) || ShapedType::isDynamic(offsets[1]) ||
      offsets[0] != 0 || slice.getType().getDimSize(0) != rows || offsets[1] % 8 != 0 ||
      width % 8 != 0)
    return {};
  return slice;
}

tensor::ExtractSliceOp cuda::attentionSliceOf(AttentionOp op, Value heads) {
  if (op.isHeadMajor() || !hasAttentionKernel(op))
    return {};
  if (heads == op.getQ())
    return columnBlockOf(heads);
  tensor::ExtractSliceOp k = columnBlockOf(op.getK()), v = columnBlockOf(op.getV());
  if (!k || !v || k.getSourceType().getDimSize(1) != v.getSourceType().getDimSize(1))
    return {};
  return heads == op.getK() ? k : v;
}

int64_t cuda::attentionRowStride(AttentionOp op, Value heads) {
  if (tensor::ExtractSliceOp slice = attentionSliceOf(op, heads))
    return slice.getSourceType().getDimSize(1);
  auto type = cast<RankedTensorType>(heads.getType());
  return op.isHeadMajor() ? type.getDimSize(3) : type.getDimSize(2) * type.getDimSize(3);
}

bool cuda::readInPlace(tensor::ExtractSliceOp slice) {
  return !slice->use_empty() && llvm::all_of(slice->getUsers(), [&](Operation *user) {
    auto expand = dyn_cast<tensor::ExpandShapeOp>(user);
    return expand && !expand->use_empty() &&
           llvm::all_of(expand->getUses(), [&](OpOperand &use) {
             auto attention = dyn_cast<AttentionOp>(use.getOwner());
             return attention && use.getOperandNumber() < 3 &&
                    attentionSliceOf(attention, use.get()) == slice;
           });
  });
}

bool cuda::attentionRowWise(AttentionOp op, const GpuTarget &gpu) {
  if (!hasAttentionKernel(op) || op.getCacheLens() || op.getQueryLen() > 4096)
    return false;
  double b = op.getBatchSize(), hq = op.getNumHeads(), hkv = op.getNumKvHeads();
  double sq = op.getQueryLen(), sk = op.getKeyLen(), d = op.getHeadSize();
  // Rates the kernels reach: the block-wise kernel about 60 % of the tensor cores' peak, the
  // row-wise one half of the CUDA cores' fp32 FMA rate (128 per clock and SM); HBM for K/V.
  double tensor = 0.6 * gpu.peakFlops, fp32 = 0.5 * 2 * 128 * gpu.sms * gpu.clock;
  double kvBytes = sk * 2 * d * 2; // one KV head's K and V, 16-bit
  auto time = [&](double flops, double bytes, double ctas, double rate) {
    double busy = std::min(1.0, ctas / gpu.sms);
    return std::max(flops / (rate * busy), bytes / (gpu.memoryBandwidth * busy));
  };
  int64_t blockRows = op.getHeadSize() == 64 || op.getHeadSize() == 128 ? 128 : 64;
  double tiles = std::ceil(sq / blockRows);
  double block = time(b * hq * tiles * blockRows * sk * 4 * d, b * hq * tiles * kvBytes,
                      b * hq * tiles, tensor);
  double ctas = b * hkv * std::ceil(sq * (hq / hkv) / 32);
  double rows = time(b * hq * sq * sk * 4 * d, ctas * kvBytes, ctas, fp32);
  return rows < block;
}
