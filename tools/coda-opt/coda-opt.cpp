//===- coda-opt.cpp - coda's mlir-opt ---------------------------*- C++ -*-===//
//
// Runs coda and upstream passes and pipelines over MLIR files, like mlir-opt.
//
//===----------------------------------------------------------------------===//

#include "coda/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/PrettyStackTrace.h"

int main(int argc, char **argv) {
  mlir::coda::setCodaBugReportMessage();
  mlir::DialectRegistry registry;
  mlir::coda::registerAllCodaDialects(registry);
  mlir::coda::registerAllCodaPasses();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "coda optimizer: GEMM-epilogue passes and pipelines\n", registry);
  // A crash names the input in its stack dump (MlirOptMain installs the signal handlers).
  std::string what = "coda-opt: processing '" + input + "'";
  llvm::PrettyStackTraceString processing(what.c_str());
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));
}
