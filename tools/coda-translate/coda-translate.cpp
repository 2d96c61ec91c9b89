//===- coda-translate.cpp - coda's mlir-translate ---------------*- C++ -*-===//
//
// Translates MLIR files to other formats, like mlir-translate: --coda-to-cuda writes CUDA C++
// for coda.gemm kernels; the upstream translations (e.g. --mlir-to-llvmir) are there too.
//
//===----------------------------------------------------------------------===//

#include "coda/InitAll.h"
#include "coda/Target/Cuda/TranslateToCuda.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::coda::setCodaBugReportMessage();
  mlir::registerAllTranslations();
  mlir::coda::registerToCudaTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "coda translation tool\n"));
}
