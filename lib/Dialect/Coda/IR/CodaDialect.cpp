//===- CodaDialect.cpp - coda dialect ---------------------------*- C++ -*-===//

#include "coda/Dialect/Coda/IR/CodaDialect.h"
#include "coda/Dialect/Coda/IR/CodaOps.h"


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
