//===- coda-opt.cpp - coda's mlir-opt ---------------------------*- C++ -*-===//
//
// Runs coda and upstream passes and pipelines over MLIR files, like mlir-opt.
//
//===----------------------------------------------------------------------===//

#include "coda/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::coda::registerAllCodaDialects(registry);
  mlir::coda::registerAllCodaPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "coda optimizer: GEMM-epilogue passes and pipelines\n",
                        registry));
}
