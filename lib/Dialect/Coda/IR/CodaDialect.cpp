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
  return op->emitError() << "unknown coda attribute '" << attr.getName().getValue() << "'";
}
