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

LogicalResult KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       int64_t tileM, int64_t tileN, int64_t tileK,
                                       int64_t clusterM, int64_t clusterN,
                                       KernelSchedule schedule, RasterOrder, int64_t swizzle,
                                       int64_t epilogueN, Division, int64_t splits, GridSize,
                                       ArrayRef<ResultSink>,
                                       ArrayRef<int64_t> tmaTables, bool) {
  if (tileM <= 0 || tileN <= 0 || tileK <= 0)
    return emitError() << "tile " << tileM << "x" << tileN << "x" << tileK
                       << " must be positive in every dimension";
  if (clusterM <= 0 || clusterN <= 0 || clusterM * clusterN > 16)
    return emitError() << "cluster " << clusterM << "x" << clusterN
                       << " must be positive with at most 16 CTAs";
  if (!llvm::is_contained({1, 2, 4, 8}, swizzle))
    return emitError() << "swizzle " << swizzle << " must be 1, 2, 4 or 8";
  if (epilogueN < 0 || (epilogueN && tileN % epilogueN != 0))
    return emitError() << "epilogueN " << epilogueN
                       << " must be 0 (CUTLASS's choice) or divide tileN " << tileN;
  if (!llvm::is_contained({1, 2, 4, 8, 16}, splits))
    return emitError() << "splits " << splits << " must be 1, 2, 4, 8 or 16";
  if (splits > 1 && schedule != KernelSchedule::Cooperative)
    return emitError() << "split-K (splits " << splits << ") needs the cooperative schedule";
  if (llvm::any_of(tmaTables, [](int64_t i) { return i < 0; }))
    return emitError() << "tmaTables lists operand indices, which are not negative";
  return success();
}

LogicalResult MaskAttr::verify(function_ref<InFlightDiagnostic()> emitError, bool,
                               int64_t left, int64_t right, int64_t dilation, int64_t chunk,
                               int64_t sinks, int64_t global) {
  if (left < -1 || right < -1)
    return emitError() << "window bounds left = " << left << ", right = " << right
                       << " must be keys (>= 0), or -1 for no bound";
  if (dilation < 1)
    return emitError() << "dilation " << dilation << " must be at least 1";
  if (chunk < 0 || sinks < 0 || global < 0)
    return emitError() << "chunk, sinks and global count positions and cannot be negative";
  return success();
}
