//===- CodaDialect.cpp - coda dialect ---------------------------*- C++ -*-===//

#include "coda/Dialect/Coda/IR/CodaDialect.h"
#include "coda/Dialect/Coda/IR/CodaOps.h"


#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::coda;

#include "coda/Dialect/Coda/IR/CodaOpsDialect.cpp.inc"

void CodaDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "coda/Dialect/Coda/IR/CodaOps.cpp.inc"
      >();
  registerAttributes();
}

LogicalResult CodaDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == getWeightPrepAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getWeightPrepAttrName() << "' must be a unit attribute";
    // Any function op: the mark stays on the function as it is lowered (func.func, llvm.func).
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func)
      return op->emitError() << "'" << getWeightPrepAttrName()
                             << "' marks a function, not '" << op->getName() << "'";
    if (func.isExternal())
      return op->emitError() << "'" << getWeightPrepAttrName()
                             << "' needs a function with a body";
    return success();
  }
  if (attr.getName() == "coda.unfused_bytes") {
    auto bytes = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!isa<GemmOp, AttentionOp>(op) || !bytes || bytes.size() != 2)
      return op->emitError() << "'coda.unfused_bytes' is a [read, written] i64 array on a "
                                "coda.gemm or a coda.attention";
    return success();
  }
  // The CUDA plan's decisions (include/coda/Target/Cuda/Plan.h).
  StringRef name = attr.getName().getValue();
  if (name == KernelConfigAttr::getAttrName()) {
    auto config = dyn_cast<KernelConfigAttr>(attr.getValue());
    auto gemm = dyn_cast<GemmOp>(op);
    if (!config || !gemm)
      return op->emitError() << "'" << name << "' is a #coda.kernel<...> on a coda.gemm";
    if (config.getStores().size() != gemm->getNumResults())
      return op->emitError() << "'" << name << "' lists " << config.getStores().size()
                             << " stores for " << gemm->getNumResults() << " results";
    for (int64_t i : config.getTmaTables())
      if (i >= int64_t(gemm.getExtras().size()) || gemm.getRole(i) != OperandRole::Tiled)
        return op->emitError() << "'" << name << "' reads operand #" << i
                               << " through TMA, which is not a tiled operand";
    return success();
  }
  if (name == "coda.dispatch") {
    // [{max_m, planned_m, kernel}, ..., {planned_m, kernel}]: ranges of M, ascending, the last
    // unbounded; each kernel with the op's stores.
    auto gemm = dyn_cast<GemmOp>(op);
    auto entries = dyn_cast<ArrayAttr>(attr.getValue());
    auto bad = [&]() {
      return op->emitError() << "'coda.dispatch' is a non-empty array of {max_m, planned_m, "
                                "kernel} on a coda.gemm, max_m ascending and absent on the last";
    };
    if (!gemm || !entries || entries.empty())
      return bad();
    int64_t previous = 0;
    for (auto [i, entry] : llvm::enumerate(entries)) {
      auto fields = dyn_cast<DictionaryAttr>(entry);
      auto kernel = fields ? fields.getAs<KernelConfigAttr>("kernel") : KernelConfigAttr();
      // i64 only: getInt() of a wider integer would not fit.
      auto i64 = [&](StringRef field) {
        auto value = fields ? fields.getAs<IntegerAttr>(field) : IntegerAttr();
        return value && value.getType().isInteger(64) ? value : IntegerAttr();
      };
      IntegerAttr planned = i64("planned_m"), maxM = i64("max_m");
      if (fields && fields.get("max_m") && !maxM)
        return bad();
      bool last = i + 1 == entries.size();
      if (!kernel || !planned || planned.getInt() < 1 || bool(maxM) == last ||
          (maxM && maxM.getInt() <= previous))
        return bad();
      if (maxM)
        previous = maxM.getInt();
      if (kernel.getStores().size() != gemm->getNumResults())
        return op->emitError() << "'coda.dispatch' entry #" << i << " lists "
                               << kernel.getStores().size() << " stores for "
                               << gemm->getNumResults() << " results";
    }
    return success();
  }
  if (name == "coda.tuning") {
    if (!isa<GemmOp>(op) || !isa<DictionaryAttr>(attr.getValue()))
      return op->emitError() << "'coda.tuning' is a dictionary on a coda.gemm";
    return success();
  }
  if (name == "coda.awaits_rows" || name == "coda.hands_rows") {
    bool gemm = name == "coda.awaits_rows";
    if (!isa<UnitAttr>(attr.getValue()) ||
        (gemm ? !isa<GemmOp>(op) : op->getName().getStringRef() != "linalg.generic"))
      return op->emitError() << "'" << name << "' is a unit attribute on a "
                             << (gemm ? "coda.gemm" : "linalg.generic");
    return success();
  }
  if (name == "coda.kernels") {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!names || names.empty() ||
        !llvm::all_of(names, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError() << "'coda.kernels' is a non-empty array of kernel names";
    return success();
  }
  if (name == "coda.row_wise") {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<AttentionOp>(op))
      return op->emitError() << "'coda.row_wise' is a unit attribute on a coda.attention";
    return success();
  }
  if (name == "coda.prepares") {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'coda.prepares' is a unit attribute";
    return success();
  }
  // Workspace layout: per launcher (run, prepare, run_prepared) an offset per result, the
  // offset of a row hand-off's counts, or a function's bytes.
  if (name == "coda.workspace" || name == "coda.rows_done" || name == "coda.workspace_bytes") {
    auto launchers = dyn_cast<DictionaryAttr>(attr.getValue());
    bool perResult = name == "coda.workspace";
    bool ok = launchers && (name != "coda.workspace_bytes" || isa<FunctionOpInterface>(op));
    for (NamedAttribute entry : launchers ? launchers.getValue() : ArrayRef<NamedAttribute>()) {
      StringRef key = entry.getName().getValue();
      ok &= key == "run" || key == "prepare" || key == "run_prepared";
      if (perResult) {
        auto offsets = dyn_cast<DenseI64ArrayAttr>(entry.getValue());
        ok &= offsets && offsets.size() == int64_t(op->getNumResults());
      } else {
        auto bytes = dyn_cast<IntegerAttr>(entry.getValue());
        ok &= bytes && bytes.getInt() >= 0;
      }
    }
    if (!ok)
      return op->emitError() << "'" << name << "' maps launchers (run, prepare, run_prepared) to "
                             << (perResult ? "an i64 array with an offset per result"
                                           : "a non-negative byte offset or size")
                             << (name == "coda.workspace_bytes" ? ", on a function" : "");
    return success();
  }
  return op->emitError() << "unknown coda attribute '" << name << "'";
}
