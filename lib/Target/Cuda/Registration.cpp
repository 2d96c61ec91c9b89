//===- Registration.cpp - register --coda-to-cuda -------------------------===//

#include "coda/InitAll.h"
#include "coda/Target/Cuda/TranslateToCuda.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"

void mlir::coda::registerToCudaTranslation() {
  TranslateFromMLIRRegistration registration(
      "coda-to-cuda", "Write coda.gemm kernels as CUDA C++ (CUTLASS 4.2, sm90)",
      [](Operation *op, llvm::raw_ostream &os) { return translateToCuda(op, os); },
      [](DialectRegistry &registry) { registerAllCodaDialects(registry); });
}
