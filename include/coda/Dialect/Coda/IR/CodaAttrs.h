//===- CodaAttrs.h - coda attributes ----------------------------*- C++ -*-===//

#ifndef CODA_DIALECT_CODA_IR_CODAATTRS_H
#define CODA_DIALECT_CODA_IR_CODAATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "coda/Dialect/Coda/IR/CodaOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "coda/Dialect/Coda/IR/CodaOpsAttrDefs.h.inc"

#endif // CODA_DIALECT_CODA_IR_CODAATTRS_H
