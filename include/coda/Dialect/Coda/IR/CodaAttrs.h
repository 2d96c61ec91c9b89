//===- CodaAttrs.h - coda attributes ----------------------------*- C++ -*-===//

#ifndef CODA_DIALECT_CODA_IR_CODAATTRS_H
#define CODA_DIALECT_CODA_IR_CODAATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "coda/Dialect/Coda/IR/CodaOpsEnums.h.inc"

namespace mlir::coda {
/// `[a, b, ...]`, possibly empty: the list parameters of coda attributes.
template <typename T>
FailureOr<SmallVector<T>> parseBracketList(AsmParser &parser) {
  SmallVector<T> items;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
        FailureOr<T> item = FieldParser<T>::parse(parser);
        if (failed(item))
          return failure();
        items.push_back(*item);
        return success();
      }))
    return failure();
  return items;
}
template <typename T>
void printBracketList(AsmPrinter &printer, ArrayRef<T> items) {
  printer << "[";
  llvm::interleaveComma(items, printer, [&](const T &item) { printer << item; });
  printer << "]";
}
} // namespace mlir::coda

#define GET_ATTRDEF_CLASSES
#include "coda/Dialect/Coda/IR/CodaOpsAttrDefs.h.inc"

#endif // CODA_DIALECT_CODA_IR_CODAATTRS_H
