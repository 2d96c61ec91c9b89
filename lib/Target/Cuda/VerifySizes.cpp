//===- VerifySizes.cpp - sizes the CUDA kernels can index -----------------===//
//
// The kernels and launchers take GEMM extents as int (CUTLASS's problem shape) and launch one
// thread per element; an empty tensor has nothing to launch and would divide by zero in the
// launch arithmetic. Sizes outside that range are refused at the op before anything is printed.
//
//===----------------------------------------------------------------------===//

#include "coda/Target/Cuda/TranslateToCuda.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

/// Why the CUDA backend cannot hold values of `type`, or nothing.
static std::optional<std::string> whyNotIndexable(RankedTensorType type) {
  if (!type.hasStaticShape())
    return std::nullopt; // the launcher check reports dynamic shapes
  int64_t elements = 1;
  for (auto [dim, size] : llvm::enumerate(type.getShape())) {
    if (size == 0)
      return "has no elements (dimension #" + std::to_string(dim) +
             " is 0); the CUDA backend needs every dimension to be at least 1";
    if (size > INT32_MAX)
      return "has " + std::to_string(size) + " in dimension #" + std::to_string(dim) +
             "; the CUDA kernels index dimensions up to 2^31 - 1";
    if (llvm::MulOverflow(elements, size, elements) || elements > coda::kMaxCudaElements)
      return std::string("has more elements than the CUDA kernels launch threads for "
                         "((2^31 - 1) * 256)");
  }
  return std::nullopt;
}

LogicalResult mlir::coda::verifyCudaSizes(ModuleOp module) {
  auto check = [](Type type, auto emit) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    if (std::optional<std::string> why = whyNotIndexable(tensor))
      return emit() << "--coda-to-cuda: " << type << " " << *why;
    return success();
  };
  for (auto func : module.getOps<func::FuncOp>()) {
    for (Type t : llvm::concat<const Type>(func.getArgumentTypes(), func.getResultTypes()))
      if (failed(check(t, [&] { return func.emitError(); })))
        return failure();
    WalkResult walk = func.walk([&](Operation *op) {
      for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
        if (failed(check(t, [&] { return op->emitError(); })))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}
