//===- InitAll.cpp - register everything coda tools know --------*- C++ -*-===//

#include "coda/InitAll.h"
#include "coda/Conversion/Passes.h"
#include "coda/Dialect/Coda/IR/CodaDialect.h"
#include "coda/Target/Cuda/Transforms/Passes.h"
#include "coda/Transforms/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "llvm/Support/PrettyStackTrace.h"

void mlir::coda::registerAllCodaDialects(DialectRegistry &registry) {
  registry.insert<CodaDialect>();
  // libMLIR is linked as one shared library, so the full upstream set costs nothing extra and
  // lets coda-opt read any program torch-mlir or a user hands it.
  registerAllDialects(registry);
  registerAllExtensions(registry);
}

void mlir::coda::registerAllCodaPasses() {
  registerAllPasses();
  registerCodaConversionPasses();
  registerCodaTransformsPasses();
  registerCodaFusePipeline();
  registerCodaCudaTransformsPasses();
  registerCodaPlanCudaPipeline();
}

void mlir::coda::setCodaBugReportMessage() {
  llvm::setBugReportMsg(
      "PLEASE report this crash of a coda tool with the input file and the stack dump below "
      "(the command line names the file).\n");
}
