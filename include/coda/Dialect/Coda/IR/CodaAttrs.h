//===- CodaAttrs.h - coda attributes ----------------------------*- C++ -*-===//

#ifndef CODA_DIALECT_CODA_IR_CODAATTRS_H
#define CODA_DIALECT_CODA_IR_CODAATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "coda/Dialect/Coda/IR/CodaOpsEnums.h.inc"

namespace mlir::coda {
/// A role whose operand the epilogue reads as a statistic of its row (row_sum, row_sumsq).
inline bool isRowStatistic(OperandRole role) {
  return role == OperandRole::RowSum || role == OperandRole::RowSumSq;
}
} // namespace mlir::coda

#define GET_ATTRDEF_CLASSES
#include "coda/Dialect/Coda/IR/CodaOpsAttrDefs.h.inc"

#endif // CODA_DIALECT_CODA_IR_CODAATTRS_H
