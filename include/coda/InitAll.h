//===- InitAll.h - register everything coda tools know ----------*- C++ -*-===//

#ifndef CODA_INITALL_H
#define CODA_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::coda {

/// The coda dialect plus the upstream dialects that linalg-on-tensors programs (as torch-mlir
/// writes them) and their lowering to the CPU use.
void registerAllCodaDialects(DialectRegistry &registry);

/// All coda passes and pipelines, plus the upstream passes coda programs are used with.
void registerAllCodaPasses();

/// Makes a crash of a coda tool ask for a report to coda (not to LLVM) with the input file
/// that the stack dump names.
void setCodaBugReportMessage();

} // namespace mlir::coda

#endif // CODA_INITALL_H
