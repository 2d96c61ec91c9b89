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
    if (!isa<GemmOp>(op) || !bytes || bytes.size() != 2)
      return op->emitError() << "'coda.unfused_bytes' is a [read, written] i64 array on a "
                                "coda.gemm";
    return success();
  }
  return op->emitError() << "unknown coda attribute '" << attr.getName().getValue() << "'";
}
