//===- FuseInterleavedPairs.cpp - gated epilogues on interleaved columns --===//
//
// Some models store a gated projection with gate and up interleaved: column 2j is the gate of
// output j, column 2j + 1 its up (gpt-oss: `gu[..., ::2]`, `gu[..., 1::2]`, each clamped, then
// `(up + 1) * gate * sigmoid(α gate)`). Those pairs are what a `pairwise(contract)` kernel reads
// already, with no weight permutation: the product's kernel runs its epilogue on both columns of
// each pair and then the combination, and writes one column per pair. The [M, N] product and
// its two strided slices never reach memory.
//
//===----------------------------------------------------------------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAFUSEINTERLEAVEDPAIRS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// `r[:, offset::2]` over all rows, or null.
static tensor::ExtractSliceOp matchStridedHalf(Operation *op, Value r, int64_t offset) {
  auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
  auto type = cast<RankedTensorType>(r.getType());
  if (!slice || slice.getSource() != r || slice.getResultType().getRank() != 2)
    return nullptr;
  int64_t m = type.getDimSize(0), n = type.getDimSize(1);
  bool half = slice.getStaticOffsets() == ArrayRef<int64_t>{0, offset} &&
              slice.getStaticSizes() == ArrayRef<int64_t>{m, n / 2} &&
              slice.getStaticStrides() == ArrayRef<int64_t>{1, 2};
  return half ? slice : nullptr;
}

/// Region arguments an operand of `role` has in contract mode.
static unsigned contractArgs(OperandRole role) {
  return role == OperandRole::Col || role == OperandRole::Matrix || role == OperandRole::Tiled
             ? 2
             : 1;
}

/// Fuses `combine(r[:, 0::2], r[:, 1::2])` into the kernel producing r; returns whether it did.
static bool fusePairs(GemmOp gemm, RewriterBase &rewriter) {
  if (gemm.isBatched() || gemm.getPairwise() || gemm->getNumResults() != 1 ||
      !gemm.getMode(0).isStore() || !gemm.getInits().empty())
    return false;
  Value r = gemm->getResult(0);
  auto type = cast<RankedTensorType>(r.getType());
  if (type.getDimSize(1) % 2 || !llvm::hasNItems(r.getUsers(), 2))
    return false;
  tensor::ExtractSliceOp even, odd;
  for (Operation *user : r.getUsers()) {
    if (auto s = matchStridedHalf(user, r, 0))
      even = s;
    else if (auto s = matchStridedHalf(user, r, 1))
      odd = s;
  }
  if (!even || !odd || !even->hasOneUse() || !odd->hasOneUse())
    return false;
  auto combine = dyn_cast<linalg::GenericOp>(*even->getUsers().begin());
  if (!combine || combine != *odd->getUsers().begin() || combine->getNumResults() != 1 ||
      combine.getNumLoops() != 2 || combine.getNumReductionLoops() ||
      !combine.getMatchingIndexingMap(combine.getDpsInitOperand(0)).isIdentity() ||
      combine.payloadUsesValueFromOperand(combine.getDpsInitOperand(0)))
    return false;
  // The combination's other inputs: per-row vectors and scalars.
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<Value> extras(gemm.getExtras());
  SmallVector<OperandRole> roles;
  for (unsigned i = 0, e = extras.size(); i < e; ++i)
    roles.push_back(gemm.getRole(i));
  unsigned firstOther = extras.size();
  rewriter.setInsertionPoint(gemm);
  for (OpOperand *in : combine.getDpsInputOperands()) {
    AffineMap map = combine.getMatchingIndexingMap(in);
    if (in->get() == even.getResult() || in->get() == odd.getResult()) {
      if (!map.isIdentity())
        return false;
      continue;
    }
    auto inType = dyn_cast<RankedTensorType>(in->get().getType());
    std::optional<SmallVector<unsigned>> dims =
        inType ? getReadDims(map, inType) : std::nullopt;
    if (!dims || !inType.hasStaticShape())
      return false;
    if (dims->empty() && inType.getRank() == 0) {
      extras.push_back(in->get());
      roles.push_back(OperandRole::Scalar);
    } else if (*dims == ArrayRef<unsigned>{0}) {
      extras.push_back(toVector(rewriter, gemm.getLoc(), in->get()));
      roles.push_back(OperandRole::Row);
    } else {
      return false;
    }
  }
  Block *body = combine.getBody();
  for (Operation &op : body->without_terminator()) {
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      return false;
    for (Value o : op.getOperands())
      if (o.getParentBlock() != body && !matchPattern(o, m_Constant()))
        return false;
  }

  Location loc = gemm.getLoc();
  Type stored = type.getElementType();
  auto fused = GemmOp::create(
      rewriter, loc, TypeRange{combine->getResult(0).getType()}, gemm.getA(), gemm.getB(),
      extras, roles, ValueRange{}, {ResultModeAttr::get(ctx, ResultKind::Store)},
      gemm.getTransposeA(), gemm.getTransposeB(), PairwiseMode::Contract,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value row = args[args.size() - 2], pair = args[args.size() - 1];
        // Region arguments of each operand: after the two accumulators, in operand order.
        SmallVector<ValueRange> operandArgs;
        unsigned next = 2;
        for (OperandRole role : roles) {
          operandArgs.push_back(args.slice(next, contractArgs(role)));
          next += contractArgs(role);
        }
        Value two = arith::ConstantIndexOp::create(b, l, 2);
        Value evenColumn = arith::MulIOp::create(b, l, pair, two);
        Value oddColumn =
            arith::AddIOp::create(b, l, evenColumn, arith::ConstantIndexOp::create(b, l, 1));
        // The product's epilogue on one column of the pair, rounded as it was stored.
        auto column = [&](unsigned which, Value col) {
          Block &old = gemm.getEpilogue().front();
          IRMapping mapping;
          mapping.map(old.getArgument(0), args[which]);
          for (unsigned i = 0; i < firstOther; ++i) {
            ValueRange now = operandArgs[i];
            mapping.map(gemm.getExtraArgs(i).front(), now.size() == 2 ? now[which] : now[0]);
          }
          mapping.map(gemm.getRowIndexArg(), row);
          mapping.map(gemm.getColIndexArg(), col);
          for (Operation &op : old.without_terminator())
            b.clone(op, mapping);
          Value v = mapping.lookup(cast<YieldOp>(old.getTerminator()).getValues()[0]);
          return castFloatTo(b, l, v, stored);
        };
        Value evenValue = column(0, evenColumn), oddValue = column(1, oddColumn);
        IRMapping mapping;
        unsigned nextOther = firstOther;
        for (OpOperand *in : combine.getDpsInputOperands()) {
          BlockArgument arg = body->getArgument(in->getOperandNumber());
          if (in->get() == even.getResult())
            mapping.map(arg, evenValue);
          else if (in->get() == odd.getResult())
            mapping.map(arg, oddValue);
          else
            mapping.map(arg, operandArgs[nextOther++][0]);
        }
        Value out = cloneElementwiseBody(b, combine, mapping, row, pair);
        YieldOp::create(b, l, ValueRange{castFloatTo(b, l, out, b.getF32Type())});
      });
  if (auto before = gemm->getAttrOfType<DenseI64ArrayAttr>(kUnfusedBytesAttr)) {
    Traffic unfused{before[0], before[1]};
    unfused += kernelTraffic(combine);
    fused->setAttr(kUnfusedBytesAttr,
                   rewriter.getDenseI64ArrayAttr({unfused.read, unfused.written}));
  }
  rewriter.replaceOp(combine, fused->getResults());
  rewriter.eraseOp(even);
  rewriter.eraseOp(odd);
  rewriter.eraseOp(gemm);
  return true;
}

namespace {
struct CodaFuseInterleavedPairsPass
    : coda::impl::CodaFuseInterleavedPairsBase<CodaFuseInterleavedPairsPass> {
  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation().walk([&](GemmOp op) { gemms.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (GemmOp gemm : gemms)
      fusePairs(gemm, rewriter);
  }
};
} // namespace
