//===- ReportTraffic.cpp - global-memory bytes per kernel -----------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Transforms/KernelQueries.h"
#include "coda/Transforms/Passes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::coda {
#define GEN_PASS_DEF_CODAREPORTTRAFFIC
#include "coda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;

namespace {
struct CodaReportTrafficPass : coda::impl::CodaReportTrafficBase<CodaReportTrafficPass> {
  void runOnOperation() override {
    raw_ostream &os = llvm::outs();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      SmallVector<Operation *> kernels;
      func.walk([&](Operation *op) {
        if (isKernel(op) && !isa<linalg::FillOp>(op))
          kernels.push_back(op);
      });
      if (kernels.empty())
        continue;
      os << "@" << func.getSymName() << ": bytes read + written per kernel (before fusion -> after)\n";
      Traffic before, after;
      for (Operation *op : kernels) {
        Traffic now = kernelTraffic(op), then = now;
        if (auto bytes = op->getAttrOfType<DenseI64ArrayAttr>(kUnfusedBytesAttr))
          then = Traffic{bytes[0], bytes[1]};
        before += then;
        after += now;
        os << llvm::formatv("  {0,-18} {1,12} + {2,-12} -> {3,12} + {4,-12}", op->getName(),
                            then.read, then.written, now.read, now.written);
        if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
          os << "  line " << loc.getLine();
        os << "\n";
      }
      int64_t total0 = before.read, total1 = after.read;
      Traffic::add(total0, before.written);
      Traffic::add(total1, after.written);
      os << llvm::formatv("  total: {0} bytes -> {1} bytes ({2:f2}x less)\n", total0, total1,
                          total1 ? double(total0) / double(total1) : 0.0);
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
