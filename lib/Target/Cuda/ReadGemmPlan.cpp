//===- ReadGemmPlan.cpp - A coda.gemm's plan, as the emitter reads it -----===//
//
// The epilogue DAG of one kernel from its `coda.kernel` attribute (--coda-plan-kernel-configs):
// where each result goes, which operand rides the collective's C, the value streams; and the
// configuration's comments from `coda.tuning`.
//
//===----------------------------------------------------------------------===//

#include "CudaEmitter.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

bool cuda::tableByTma(GemmOp op, unsigned i) {
  return llvm::is_contained(getKernelConfig(op).getTmaTables(), int64_t(i));
}

std::string cuda::kernelName(Operation *op, unsigned i) {
  auto names = op->getAttrOfType<ArrayAttr>(kKernelsAttr);
  return names && i < names.size() ? cast<StringAttr>(names[i]).str() : std::string();
}

static Sink sinkOf(ResultSink s) {
  switch (s) {
  case ResultSink::Tma:
  case ResultSink::Staged:
    return Sink::D;
  case ResultSink::Halves:
    return Sink::Halves;
  case ResultSink::Contract:
    return Sink::Contract;
  case ResultSink::Direct:
    return Sink::Store;
  case ResultSink::Partials:
    return Sink::Reduce;
  }
  llvm_unreachable("unknown sink");
}

FailureOr<KernelPlan> CudaEmitter::planKernel(GemmOp op) {
  KernelConfigAttr config = getKernelConfig(op);
  if (!config)
    return op.emitOpError("has no 'coda.kernel' configuration (--coda-plan-cuda writes one)"),
           failure();
  KernelPlan plan;
  plan.pairwise = op.getPairwise();
  for (Value extra : op.getExtras()) {
    // Integer operands (labels) reach the epilogue as fp32, exact below 2^24.
    Type elem = cast<ShapedType>(extra.getType()).getElementType();
    FailureOr<std::string> t = elem.isInteger(64)   ? FailureOr<std::string>(std::string("int64_t"))
                               : elem.isInteger(32) ? FailureOr<std::string>(std::string("int32_t"))
                                                    : cutlassElement(elem);
    if (failed(t))
      return op.emitOpError("has an operand of element type ")
                 << elem << ", which the CUDA backend cannot read",
             failure();
    plan.operandElements.push_back(*t);
  }
  bool expand = plan.pairwise == PairwiseMode::Expand;
  for (auto [r, stored] : llvm::enumerate(config.getStores())) {
    ResultModeAttr mode = op.getMode(r);
    ResultPlan result{sinkOf(stored), mode, "", {}};
    if (!mode.isReduce()) {
      FailureOr<std::string> t =
          cutlassElement(cast<ShapedType>(op->getResult(r).getType()).getElementType());
      if (failed(t) || result.sink == Sink::Reduce)
        return op.emitOpError("result #") << r << " cannot leave the kernel as planned", failure();
      result.element = *t;
    }
    if (result.sink == Sink::D) {
      plan.dResult = r;
      plan.hasSource = mode.isAccumulate();
    } else if (result.sink == Sink::Halves) {
      plan.halvesResult = r;
    } else if (result.sink == Sink::Contract) {
      plan.contractResult = r;
    }
    // Rotate reads its two yields in one stream (even and odd column); expand in two.
    for (unsigned s = 0, e = expand ? 2 : 1; s < e; ++s) {
      result.values.push_back(plan.streams.size());
      plan.streams.push_back({unsigned(r), s});
    }
    plan.results.push_back(result);
  }
  plan.sourceOperand = sourceOperand(op, config.getStores());
  return plan;
}

/// The configuration as comments: how it was chosen and stage 2's candidates (bench/tune.py
/// reads the `coda-` lines).
void CudaEmitter::emitConfigComments(GemmOp op, const KernelConfig &config, raw_ostream &out) {
  auto tuning = op->getAttrOfType<DictionaryAttr>(kTuningAttr);
  auto text = [&](StringRef field) {
    auto value = tuning ? tuning.getAs<StringAttr>(field) : StringAttr();
    return value ? value.getValue() : StringRef();
  };
  if (!text("key").empty())
    out << "// coda-tuning-key: " << text("key") << "\n";
  auto planned = tuning ? tuning.getAs<IntegerAttr>("planned_m") : IntegerAttr();
  out << "// configuration: " << config.str()
      << (text("chosen_by") == "database" ? " (tuning database)"
          : text("chosen_by") == "dispatch"
              ? " (for its range of M, planned at M " + std::to_string(planned.getInt()) + ")"
          : tuning ? " (analytic model)"
                   : " (given in the IR)")
      << "\n";
  if (!text("model_inputs").empty())
    out << "// model inputs: " << text("model_inputs") << "\n";
  if (auto candidates = tuning ? tuning.getAs<ArrayAttr>("candidates") : ArrayAttr())
    for (auto candidate : candidates.getAsRange<DictionaryAttr>()) {
      auto config = candidate.getAs<KernelConfigAttr>("config");
      auto ns = candidate.getAs<IntegerAttr>("model_ns");
      if (config && ns)
        out << "// coda-candidate: " << toKernelConfig(config).json() << " model "
            << llvm::formatv("{0:f3}", ns.getInt() / 1e6) << " ms\n";
    }
}
