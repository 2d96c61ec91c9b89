//===- CpuRunner.cpp - run MLIR functions on the CPU ------------*- C++ -*-===//

#include "coda/Execution/CpuRunner.h"
#include "coda/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstring>
#include <mutex>

using namespace mlir;
using namespace mlir::coda;

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

bool mlir::coda::isSupportedTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return false;
  Type e = tensor.getElementType();
  if (e.isF16() || e.isBF16() || e.isF32() || e.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(e);
  return integer && integer.isSignless() && integer.getWidth() <= 64;
}

static unsigned storageBytes(Type elementType) {
  unsigned bits = elementType.getIntOrFloatBitWidth();
  return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

HostTensor::HostTensor(RankedTensorType type)
    : type(type), elementBytes(storageBytes(type.getElementType())),
      storage((type.getNumElements() * elementBytes + 7) / 8 + 1, 0) {}

static const llvm::fltSemantics &semanticsOf(Type t) {
  return cast<FloatType>(t).getFloatSemantics();
}

double HostTensor::get(int64_t index) const {
  const char *p = reinterpret_cast<const char *>(storage.data()) + index * elementBytes;
  Type e = type.getElementType();
  if (e.isF32()) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (e.isF64()) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (isa<FloatType>(e)) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    llvm::APFloat f(semanticsOf(e), llvm::APInt(16, bits));
    return f.convertToDouble();
  }
  uint64_t raw = 0;
  std::memcpy(&raw, p, elementBytes);
  unsigned width = e.getIntOrFloatBitWidth();
  return static_cast<double>(llvm::APInt(64, raw).trunc(width).getSExtValue());
}

void HostTensor::set(int64_t index, double value) {
  char *p = reinterpret_cast<char *>(storage.data()) + index * elementBytes;
  Type e = type.getElementType();
  if (e.isF32()) {
    float v = static_cast<float>(value);
    std::memcpy(p, &v, 4);
  } else if (e.isF64()) {
    std::memcpy(p, &value, 8);
  } else if (isa<FloatType>(e)) {
    llvm::APFloat f(value);
    bool losesInfo;
    f.convert(semanticsOf(e), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    uint16_t bits = static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
    std::memcpy(p, &bits, 2);
  } else {
    int64_t v = static_cast<int64_t>(value);
    std::memcpy(p, &v, elementBytes); // little-endian: the low bytes
  }
}

//===----------------------------------------------------------------------===//
// Entry point and inputs
//===----------------------------------------------------------------------===//

func::FuncOp mlir::coda::findEntryFunction(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal()) {
      module.emitError() << "no function named '" << name << "' with a body in this file";
      return nullptr;
    }
    return func;
  }
  if (auto main = module.lookupSymbol<func::FuncOp>("main"); main && !main.isExternal())
    return main;
  SmallVector<func::FuncOp> publics;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      publics.push_back(func);
  if (publics.size() == 1)
    return publics.front();
  InFlightDiagnostic diag = module.emitError();
  if (publics.empty()) {
    diag << "no public function to run in this file";
  } else {
    diag << "no function 'main' and " << publics.size()
         << " public functions; choose one with --entry:";
    for (func::FuncOp f : publics)
      diag << " " << f.getSymName();
  }
  return nullptr;
}

LogicalResult mlir::coda::verifyRunnableSignature(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  auto check = [&](StringRef what, TypeRange types) -> LogicalResult {
    for (auto [index, t] : llvm::enumerate(types))
      if (!isSupportedTensorType(t))
        return func.emitError() << what << " #" << index << " of @" << func.getSymName()
                                << " has type " << t
                                << "; coda-run supports statically shaped tensors of f16, bf16, "
                                   "f32, f64 or signless integers";
    return success();
  };
  if (failed(check("argument", type.getInputs())))
    return failure();
  if (type.getNumResults() == 0)
    return func.emitError() << "@" << func.getSymName() << " returns nothing to check";
  return check("result", type.getResults());
}

namespace {
/// splitmix64: tiny, fast, and the same sequence on every platform.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; } // [0, 1)
};
} // namespace

std::vector<HostTensor> mlir::coda::makeRandomInputs(func::FuncOp func, uint64_t seed,
                                                     int64_t intMax) {
  SplitMix64 rng{seed};
  std::vector<HostTensor> inputs;
  for (Type t : func.getFunctionType().getInputs()) {
    HostTensor tensor(cast<RankedTensorType>(t));
    bool isFloat = isa<FloatType>(tensor.getType().getElementType());
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
      double u = rng.uniform();
      tensor.set(i, isFloat ? 2.0 * u - 1.0 : std::floor(u * static_cast<double>(intMax)));
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

//===----------------------------------------------------------------------===//
// Lowering and running
//===----------------------------------------------------------------------===//

// From tensors to LLVM: expand coda ops, bufferize with results as out-parameters (so the
// caller owns every buffer), loops, then the standard conversions. bf16 conversions are
// expanded to integer code so that no compiler-runtime helpers are needed.
static constexpr const char *kCpuPipeline =
    "coda-expand,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{modify-public-functions=true},"
    "func.func(convert-linalg-to-loops),"
    "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
    "arith-expand{include-bf16=true},"
    "convert-math-to-llvm,convert-math-to-libm,"
    "convert-arith-to-llvm,finalize-memref-to-llvm,convert-func-to-llvm,"
    "convert-cf-to-llvm,reconcile-unrealized-casts";

/// A memref descriptor as the C interface passes it: allocated and aligned pointers, offset,
/// sizes, strides.
static std::vector<int64_t> makeDescriptor(void *data, RankedTensorType type) {
  std::vector<int64_t> desc{reinterpret_cast<int64_t>(data), reinterpret_cast<int64_t>(data), 0};
  ArrayRef<int64_t> shape = type.getShape();
  desc.insert(desc.end(), shape.begin(), shape.end());
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  desc.insert(desc.end(), strides.begin(), strides.end());
  return desc;
}

FailureOr<std::vector<HostTensor>> mlir::coda::runOnCpu(ModuleOp original, StringRef entry,
                                                        ArrayRef<HostTensor> inputs) {
  // The JIT needs the host target, initialized once per process.
  static std::once_flag nativeTarget;
  std::call_once(nativeTarget, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });

  MLIRContext *ctx = original.getContext();
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);

  OwningOpRef<ModuleOp> module(cast<ModuleOp>(original->clone()));
  auto func = module->lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return original.emitError() << "no function named '" << entry << "'";
  FunctionType type = func.getFunctionType();
  if (inputs.size() != type.getNumInputs())
    return func.emitError() << "@" << entry << " takes " << type.getNumInputs()
                            << " arguments, " << inputs.size() << " given";
  for (auto [index, input] : llvm::enumerate(inputs))
    if (input.getType() != type.getInput(index))
      return func.emitError() << "argument #" << index << " of @" << entry << " has type "
                              << type.getInput(index) << ", the input has type "
                              << input.getType();
  SmallVector<RankedTensorType> resultTypes;
  for (Type t : type.getResults())
    resultTypes.push_back(cast<RankedTensorType>(t));
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), UnitAttr::get(ctx));

  PassManager pm(ctx);
  if (failed(parsePassPipeline(kCpuPipeline, pm)))
    return original.emitError() << "coda-run: internal error: bad lowering pipeline";
  if (failed(pm.run(*module)))
    return original.emitError() << "coda-run: lowering @" << entry << " to LLVM failed";

  ExecutionEngineOptions options;
  auto transformer = makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0, nullptr);
  options.transformer = transformer;
  StringRef runtimeLibs[] = {CODA_MLIR_C_RUNNER_UTILS};
  options.sharedLibPaths = runtimeLibs;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return original.emitError() << "coda-run: JIT compilation failed: "
                                << llvm::toString(engine.takeError());

  // Inputs are copied: bufferization may write into argument buffers in place.
  std::vector<HostTensor> args(inputs.begin(), inputs.end());
  std::vector<HostTensor> results;
  for (RankedTensorType t : resultTypes)
    results.emplace_back(t);
  std::vector<std::vector<int64_t>> descriptors;
  for (HostTensor &t : args)
    descriptors.push_back(makeDescriptor(t.data(), t.getType()));
  for (HostTensor &t : results)
    descriptors.push_back(makeDescriptor(t.data(), t.getType()));
  std::vector<void *> descriptorPtrs;
  for (auto &d : descriptors)
    descriptorPtrs.push_back(d.data());
  SmallVector<void *> packed;
  for (void *&p : descriptorPtrs)
    packed.push_back(&p);
  if (llvm::Error err = (*engine)->invokePacked(("_mlir_ciface_" + entry).str(), packed))
    return original.emitError() << "coda-run: calling @" << entry
                                << " failed: " << llvm::toString(std::move(err));
  return results;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

Comparison mlir::coda::compareTensors(const HostTensor &value, const HostTensor &reference,
                                      double rtol, double atol) {
  Comparison c;
  for (int64_t i = 0, e = value.getNumElements(); i < e; ++i) {
    double x = value.get(i), r = reference.get(i);
    if (std::isnan(x) || std::isnan(r)) {
      if (std::isnan(x) != std::isnan(r)) {
        ++c.numMismatches;
        c.maxAbsError = c.maxRelError = std::numeric_limits<double>::infinity();
      }
      continue;
    }
    if (x == r) // also equal infinities
      continue;
    double err = std::fabs(x - r);
    c.maxAbsError = std::max(c.maxAbsError, err);
    if (r != 0)
      c.maxRelError = std::max(c.maxRelError, err / std::fabs(r));
    if (!(err <= atol + rtol * std::fabs(r)))
      ++c.numMismatches;
  }
  return c;
}
