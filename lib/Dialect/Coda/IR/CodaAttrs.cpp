//===- CodaAttrs.cpp - coda attributes --------------------------*- C++ -*-===//

#include "coda/Dialect/Coda/IR/CodaAttrs.h"
#include "coda/Dialect/Coda/IR/CodaDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::coda;

#include "coda/Dialect/Coda/IR/CodaOpsEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "coda/Dialect/Coda/IR/CodaOpsAttrDefs.cpp.inc"

void CodaDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "coda/Dialect/Coda/IR/CodaOpsAttrDefs.cpp.inc"
      >();
}

// Body syntax: `store`, `accumulate`, or `reduce<row|col, sum|sumsq|max|lse>`.
void ResultModeAttr::printBody(raw_ostream &os) const {
  os << stringifyResultKind(getKind());
  if (isReduce())
    os << "<" << stringifyReduceDim(getDim()) << ", "
            << stringifyCombiner(getCombiner()) << ">";
}

ResultModeAttr ResultModeAttr::parseBody(AsmParser &parser) {
  MLIRContext *ctx = parser.getContext();
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseKeyword(&kindName))
    return {};
  std::optional<ResultKind> kind = symbolizeResultKind(kindName);
  if (!kind) {
    parser.emitError(loc) << "unknown result mode '" << kindName
                          << "'; expected 'store', 'accumulate' or 'reduce'";
    return {};
  }
  if (*kind != ResultKind::Reduce)
    return ResultModeAttr::get(ctx, *kind);

  StringRef dimName, combinerName;
  llvm::SMLoc dimLoc, combinerLoc;
  if (parser.parseLess() || parser.getCurrentLocation(&dimLoc) ||
      parser.parseKeyword(&dimName) || parser.parseComma() ||
      parser.getCurrentLocation(&combinerLoc) || parser.parseKeyword(&combinerName) ||
      parser.parseGreater())
    return {};
  std::optional<ReduceDim> dim = symbolizeReduceDim(dimName);
  if (!dim) {
    parser.emitError(dimLoc) << "unknown reduction dimension '" << dimName
                             << "'; expected 'row' or 'col'";
    return {};
  }
  std::optional<Combiner> combiner = symbolizeCombiner(combinerName);
  if (!combiner) {
    parser.emitError(combinerLoc) << "unknown reduction combiner '" << combinerName
                                  << "'; expected 'sum', 'sumsq', 'max' or 'lse'";
    return {};
  }
  return ResultModeAttr::get(ctx, ResultKind::Reduce, *dim, *combiner);
}

Attribute ResultModeAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  ResultModeAttr attr = parseBody(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

void ResultModeAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBody(printer.getStream());
  printer << ">";
}

LogicalResult ResultModeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     ResultKind kind, ReduceDim dim, Combiner combiner) {
  // Keeps the printed form faithful: only reductions carry a dimension and a combiner.
  if (kind != ResultKind::Reduce && (dim != ReduceDim::Row || combiner != Combiner::Sum))
    return emitError() << "a '" << stringifyResultKind(kind)
                       << "' result takes no reduction dimension or combiner";
  return success();
}
