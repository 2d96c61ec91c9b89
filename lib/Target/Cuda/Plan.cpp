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
  return config;
}

KernelConfigAttr cuda::toKernelConfigAttr(MLIRContext *context, const KernelConfig &config,
                                          ArrayRef<ResultSink> stores,
                                          ArrayRef<int64_t> tmaTables, bool wholeWaves) {
  RasterOrder raster = config.raster == KernelConfig::Raster::AlongM   ? RasterOrder::AlongM
                       : config.raster == KernelConfig::Raster::AlongN ? RasterOrder::AlongN
                                                                       : RasterOrder::Heuristic;
  return KernelConfigAttr::get(
      context, config.tileM, config.tileN, config.tileK, config.clusterM, config.clusterN,
      config.pingpong ? KernelSchedule::Pingpong : KernelSchedule::Cooperative, raster,
      config.swizzle, config.epilogueN, config.fullDivision ? Division::Full : Division::Ieee,
      wholeWaves ? GridSize::WholeWaves : GridSize::AllSms, stores, tmaTables);
}
