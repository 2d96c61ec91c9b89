//===- coda-translate.cpp - coda's mlir-translate ---------------*- C++ -*-===//
//
// Translates MLIR files to other formats, like mlir-translate. coda programs lower to LLVM IR
// after `coda-opt --coda-expand` and the usual CPU pipeline; the CUDA emitter registers here.
//
//===----------------------------------------------------------------------===//

#include "coda/InitAll.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "coda translation tool\n"));
}
