//===- Fusion.h - queries shared by the fusion passes and reports -*- C++ -*-===//

#ifndef CODA_TRANSFORMS_FUSION_H
#define CODA_TRANSFORMS_FUSION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace mlir::coda {

/// Why --coda-fuse-epilogue leaves this linalg.matmul / linalg.batch_matmul as it is.
std::string whyContractionIsNotFused(linalg::LinalgOp contraction);

} // namespace mlir::coda

#endif // CODA_TRANSFORMS_FUSION_H
