//===- PrintKernels.cpp - list coda.gemm kernels and their epilogues ------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAPRINTKERNELS
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

/// "16x64" for a static shape.
static void printShape(raw_ostream &os, ArrayRef<int64_t> shape) {
  llvm::interleave(shape, os, "x");
}

static void printLocation(raw_ostream &os, Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":" << file.getColumn();
  else
    os << loc;
}

void mlir::coda::printKernelSummary(raw_ostream &os, GemmOp op, unsigned index,
                                    AsmState &state) {
  os << "  kernel " << index << " at ";
  printLocation(os, op.getLoc());
  os << "\n";
  os << "    gemm      ";
  if (op.isBatched())
    os << op.getBatchSize() << " x ";
  os << op.getM() << "x" << op.getK() << " · " << op.getK() << "x" << op.getN() << " ("
     << op.getA().getType().getElementType() << ", fp32 accumulation";
  if (op.getTransposeA())
    os << ", A transposed";
  if (op.getTransposeB())
    os << ", B transposed";
  os << ")\n";

  if (!op.getExtras().empty()) {
    os << "    operands  ";
    llvm::interleaveComma(llvm::enumerate(op.getExtras()), os, [&](auto it) {
      it.value().printAsOperand(os, state);
      os << " as " << stringifyOperandRole(op.getRole(it.index()));
      ArrayRef<int64_t> shape = cast<ShapedType>(it.value().getType()).getShape();
      if (!shape.empty()) {
        os << " ";
        printShape(os, shape);
      }
    });
    os << "\n";
  }
  if (std::optional<PairwiseMode> mode = op.getPairwise())
    os << "    pairwise  " << stringifyPairwiseMode(*mode) << " (" << op.getInArity()
       << " -> " << op.getOutArity() << " columns)\n";

  // The scalar ops fused into the epilogue, counted by name in order of first use.
  llvm::MapVector<StringRef, unsigned> fused;
  for (Operation &inner : op.getEpilogue().front().without_terminator())
    if (!isa<arith::ConstantOp>(inner))
      ++fused[inner.getName().getStringRef()];
  os << "    epilogue  ";
  if (fused.empty())
    os << "(accumulator only)";
  llvm::interleaveComma(fused, os, [&](auto &entry) {
    os << entry.first;
    if (entry.second > 1)
      os << " x" << entry.second;
  });
  os << "\n";

  os << "    results   ";
  llvm::interleaveComma(llvm::enumerate(op.getResults()), os, [&](auto it) {
    ResultModeAttr mode = op.getMode(it.index());
    mode.printBody(os);
    if (Value init = op.getInitFor(it.index())) {
      os << "(";
      init.printAsOperand(os, state);
      os << ")";
    }
    os << " " << it.value().getType();
  });
  os << "\n";
}


void mlir::coda::printAttentionSummary(raw_ostream &os, AttentionOp op, unsigned index) {
  os << "  attention " << index << " at ";
  printLocation(os, op.getLoc());
  os << "\n    heads     B " << op.getBatchSize() << ", Hq " << op.getNumHeads() << ", Hkv "
     << op.getNumKvHeads() << ", Sq " << op.getQueryLen() << ", Sk " << op.getKeyLen() << ", d "
     << op.getHeadSize() << ", dv " << op.getValueSize() << " ("
     << op.getQ().getType().getElementType() << ", layout "
     << stringifyAttentionLayout(op.getLayout()) << ")\n";
  MaskAttr mask = op.getMaskOrDense();
  os << "    scores    scale " << llvm::format("%g", op.getScale().convertToDouble())
     << (op.getPages() ? ", over a paged KV cache" : op.getCacheLens() ? ", over a KV cache" : "")
     << ", mask ";
  bool structured = !mask.isDense() || mask.getSinks() || mask.getGlobal();
  if (structured)
    os << Attribute(mask);
  if (Value blocks = op.getBlocks()) {
    auto shape = cast<RankedTensorType>(blocks.getType()).getShape();
    os << (structured ? " and " : "") << "runtime (" << shape[0] << "x" << shape[1]
       << " masks, " << shape[2] << "x" << shape[3] << " tiles of "
       << AttentionOp::kMaskTile << "x" << AttentionOp::kMaskTile << ")";
  } else if (!structured) {
    os << "none";
  }
  if (op.getLens())
    os << ", per-sequence lengths";
  if (!op.getScore().empty())
    os << ", score region";
  os << "\n";
}

namespace {
struct CodaPrintKernelsPass : coda::impl::CodaPrintKernelsBase<CodaPrintKernelsPass> {
  void runOnOperation() override {
    raw_ostream &os = llvm::outs();
    SmallVector<StringRef> weightPrep;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func->hasAttr(CodaDialect::getWeightPrepAttrName()))
        weightPrep.push_back(func.getSymName());
      SmallVector<GemmOp> kernels;
      SmallVector<AttentionOp> attentions;
      func.walk([&](GemmOp op) { kernels.push_back(op); });
      func.walk([&](AttentionOp op) { attentions.push_back(op); });
      if (kernels.empty() && attentions.empty())
        continue;
      os << "@" << func.getSymName() << ": " << kernels.size()
         << (kernels.size() == 1 ? " kernel" : " kernels");
      if (!attentions.empty())
        os << ", " << attentions.size() << (attentions.size() == 1 ? " attention" : " attentions");
      os << "\n";
      AsmState state(func);
      for (auto [index, op] : llvm::enumerate(kernels))
        printKernelSummary(os, op, index, state);
      for (auto [index, op] : llvm::enumerate(attentions))
        printAttentionSummary(os, op, index);
    }
    if (!weightPrep.empty()) {
      os << "weight preparation (run once): ";
      llvm::interleaveComma(weightPrep, os, [&](StringRef name) { os << "@" << name; });
      os << "\n";
    }
    os.flush();
    markAllAnalysesPreserved();
  }
};
} // namespace
