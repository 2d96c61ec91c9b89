//===- CpuRunner.cpp - run MLIR functions on the CPU ------------*- C++ -*-===//

#include "coda/Execution/CpuRunner.h"
#include "coda/Conversion/Passes.h"
#include "coda/Dialect/Coda/IR/CodaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/TargetSelect.h"

#include <csetjmp>
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
  if (!tensor || !tensor.hasStaticShape() || failed(tensorBytes(tensor)))
    return false;
  Type e = tensor.getElementType();
  if (e.isF16() || e.isBF16() || e.isF32() || e.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(e);
  return integer && integer.isSignless() && integer.getWidth() <= 64;
}

static unsigned storageBytes(Type elementType) {
  unsigned bits = elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 64;
  return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

FailureOr<int64_t> mlir::coda::tensorBytes(RankedTensorType type) {
  if (!type.hasStaticShape())
    return failure();
  int64_t bytes = storageBytes(type.getElementType());
  for (int64_t size : type.getShape())
    if (llvm::MulOverflow(bytes, size, bytes))
      return failure();
  return bytes;
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
    for (auto [index, t] : llvm::enumerate(types)) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (tensor && tensor.hasStaticShape() && failed(tensorBytes(tensor)))
        return func.emitError() << what << " #" << index << " of @" << func.getSymName()
                                << " has type " << t << ", which needs more than 2^63 bytes";
      if (!isSupportedTensorType(t))
        return func.emitError() << what << " #" << index << " of @" << func.getSymName()
                                << " has type " << t
                                << "; coda-run supports statically shaped tensors of f16, bf16, "
                                   "f32, f64 or signless integers";
    }
    return success();
  };
  if (failed(check("argument", type.getInputs())))
    return failure();
  if (type.getNumResults() == 0)
    return func.emitError() << "@" << func.getSymName() << " returns nothing to check";
  return check("result", type.getResults());
}

/// Adds `bytes` to `total`; false on overflow.
static bool addBytes(int64_t &total, int64_t bytes) {
  return !llvm::AddOverflow(total, bytes, total);
}

FailureOr<int64_t> mlir::coda::estimateRunMemory(func::FuncOp entry) {
  int64_t total = 0;
  auto add = [&](Type type, Location loc) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return success(); // sized at run time: not counted
    FailureOr<int64_t> bytes = tensorBytes(tensor);
    if (failed(bytes) || !addBytes(total, *bytes))
      return emitError(loc) << "a value of type " << type
                            << " needs more than 2^63 bytes; coda-run cannot hold it";
    return success();
  };
  // Inputs twice (the caller's and the copy the program may write into) and results.
  for (Type t : entry.getArgumentTypes())
    if (failed(add(t, entry.getLoc())) || failed(add(t, entry.getLoc())))
      return failure();
  for (Type t : entry.getResultTypes())
    if (failed(add(t, entry.getLoc())))
      return failure();
  // Every tensor an op of the entry or of a function it calls makes: at most one buffer each,
  // and bufferized programs do not free them before returning.
  SmallVector<func::FuncOp> pending{entry};
  DenseSet<Operation *> seen{entry};
  auto module = entry->getParentOfType<ModuleOp>();
  while (!pending.empty()) {
    func::FuncOp func = pending.pop_back_val();
    WalkResult walk = func.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (failed(add(result.getType(), op->getLoc())))
          return WalkResult::interrupt();
      // coda.attention's expansion holds [B, Hq, Sq, Sk] scores three times (scaled and
      // masked, exponentiated, normalized) and P·V in f32.
      if (auto attention = dyn_cast<AttentionOp>(op)) {
        Type f32 = Float32Type::get(op->getContext());
        int64_t b = attention.getBatchSize(), h = attention.getNumHeads(),
                sq = attention.getQueryLen();
        auto scores = RankedTensorType::get({b, h, sq, attention.getKeyLen()}, f32);
        auto values = RankedTensorType::get({b, h, sq, attention.getValueSize()}, f32);
        for (Type t : {Type(scores), Type(scores), Type(scores), Type(values)})
          if (failed(add(t, op->getLoc())))
            return WalkResult::interrupt();
      }
      if (auto call = dyn_cast<func::CallOp>(op))
        if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee()))
          if (!callee.isExternal() && seen.insert(callee).second)
            pending.push_back(callee);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return total;
}

/// The smallest size of a dimension that `value` (an integer input) indexes, following it
/// through what carries it unchanged: reshapes and slices, generics' bodies, casts, selects and
/// calls. None where no use indexes a statically sized dimension.
static std::optional<int64_t> indexBound(Value value) {
  std::optional<int64_t> bound;
  SmallVector<Value> pending{value};
  DenseSet<Value> seen{value};
  auto follow = [&](Value v) {
    if (seen.insert(v).second)
      pending.push_back(v);
  };
  while (!pending.empty()) {
    Value v = pending.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp,
              tensor::CastOp, arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
              arith::ExtUIOp, arith::TruncIOp>(user)) {
        if (use.getOperandNumber() == 0)
          follow(user->getResult(0));
      } else if (auto select = dyn_cast<arith::SelectOp>(user)) {
        if (use.getOperandNumber() != 0)
          follow(select.getResult());
      } else if (auto generic = dyn_cast<linalg::GenericOp>(user)) {
        follow(generic.getMatchingBlockArgument(&use));
      } else if (auto yield = dyn_cast<linalg::YieldOp>(user)) {
        if (isa<linalg::GenericOp>(yield->getParentOp()))
          follow(yield->getParentOp()->getResult(use.getOperandNumber()));
      } else if (auto extract = dyn_cast<tensor::ExtractOp>(user)) {
        if (use.getOperandNumber() == 0) {
          follow(extract.getResult());
          continue;
        }
        int64_t size = extract.getTensor().getType().getDimSize(use.getOperandNumber() - 1);
        if (!ShapedType::isDynamic(size))
          bound = bound ? std::min(*bound, size) : size;
      } else if (auto call = dyn_cast<func::CallOp>(user)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
        if (callee && !callee.isExternal())
          follow(callee.getArgument(use.getOperandNumber()));
      }
    }
  }
  return bound;
}

int64_t mlir::coda::integerInputLimit(BlockArgument arg, int64_t intMax) {
  auto tensor = cast<RankedTensorType>(arg.getType());
  unsigned width = tensor.getElementType().getIntOrFloatBitWidth();
  // Non-negative values the type holds: 0 and 1 for i1, [0, 2^(w-1)) otherwise.
  int64_t limit = width == 1 ? 2 : width >= 64 ? intMax : std::min<int64_t>(intMax, 1LL << (width - 1));
  if (std::optional<int64_t> bound = indexBound(arg))
    limit = std::min(limit, *bound);
  return std::max<int64_t>(limit, 1);
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
  for (BlockArgument arg : func.getArguments()) {
    HostTensor tensor(cast<RankedTensorType>(arg.getType()));
    bool isFloat = isa<FloatType>(tensor.getType().getElementType());
    int64_t limit = isFloat ? 0 : integerInputLimit(arg, intMax);
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
      if (isFloat) {
        tensor.set(i, 2.0 * rng.uniform() - 1.0);
        continue;
      }
      // 53 random bits scaled to [0, limit): exact for every limit coda-run accepts.
      tensor.set(i, std::min<double>(std::floor(rng.uniform() * static_cast<double>(limit)),
                                     static_cast<double>(limit - 1)));
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

//===----------------------------------------------------------------------===//
// Lowering and running
//===----------------------------------------------------------------------===//

// From tensors to LLVM: check that every linalg op's operands agree on its loop sizes, expand
// coda ops, bufferize with results as out-parameters (so the caller owns every buffer), then
// loops. The program's assertions, and the checks insertIndexChecks and insertDivisionChecks
// add (an out-of-range label or a zero divisor reports an error instead of reading outside a
// buffer or trapping), then become calls to coda-run (see lowerAssertions), and the standard
// conversions follow. bf16 conversions are expanded to integer code so that no
// compiler-runtime helpers are needed.
static constexpr const char *kExpandPipeline = "func.func(coda-verify-shapes),coda-expand";
static constexpr const char *kBufferizePipeline =
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{modify-public-functions=true},"
    "func.func(convert-linalg-to-loops)";
static constexpr const char *kToLLVMPipeline =
    "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
    "arith-expand{include-bf16=true},"
    "convert-math-to-llvm,convert-math-to-libm,"
    "convert-arith-to-llvm,finalize-memref-to-llvm,convert-func-to-llvm,"
    "convert-cf-to-llvm,reconcile-unrealized-casts";

/// Marks the messages of the checks coda-run adds, as opposed to the program's own assertions.
static constexpr llvm::StringLiteral kCheckMessage = "coda-run check: ";

/// Asserts before every tensor.extract and tensor.insert whose index the program computes that
/// the index is inside its dimension. (Upstream's generate-runtime-verification would check
/// memref.load after bufferization, but its check of memref.expand_shape divides by a
/// zero-sized group's size.)
static void insertIndexChecks(ModuleOp module) {
  module.walk([](Operation *op) {
    Value tensor;
    ValueRange indices;
    if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      tensor = extract.getTensor();
      indices = extract.getIndices();
    } else if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
      tensor = insert.getDest();
      indices = insert.getIndices();
    } else {
      return;
    }
    OpBuilder b(op);
    auto type = cast<RankedTensorType>(tensor.getType());
    for (auto [dim, index] : llvm::enumerate(indices)) {
      // A loop index of the enclosing generic is inside the sizes coda-verify-shapes checked.
      if (index.getDefiningOp<linalg::IndexOp>())
        continue;
      Location loc = op->getLoc();
      Value size = tensor::DimOp::create(b, loc, tensor, dim);
      // Unsigned: a negative index is out of range too.
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, size);
      std::string message;
      llvm::raw_string_ostream os(message);
      os << kCheckMessage << "index out of range in dimension #" << dim << " of '" << type
         << "'";
      cf::AssertOp::create(b, loc, inside, message);
    }
  });
}

/// Asserts before every integer division and remainder that its divisor is not zero and, for
/// signed ones, that it does not divide the smallest value by -1: either would trap the
/// process, and both are undefined in arith.
static void insertDivisionChecks(ModuleOp module) {
  module.walk([](Operation *op) {
    if (!isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp, arith::CeilDivUIOp,
             arith::CeilDivSIOp, arith::FloorDivSIOp>(op))
      return;
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    Type type = rhs.getType();
    if (!type.isIntOrIndex())
      return;
    APInt divisor;
    bool constant = matchPattern(rhs, m_ConstantInt(&divisor));
    bool isSigned = isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(op);
    if (constant && !divisor.isZero() && (!isSigned || !divisor.isAllOnes()))
      return;
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto cst = [&](int64_t v) -> Value {
      if (type.isIndex())
        return arith::ConstantIndexOp::create(b, loc, v);
      return arith::ConstantIntOp::create(b, loc, type, v);
    };
    Value nonzero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rhs, cst(0));
    cf::AssertOp::create(b, loc, nonzero, (kCheckMessage + "integer division by zero").str());
    if (!isSigned)
      return;
    unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
    Value smallest = cst(APInt::getSignedMinValue(width).getSExtValue());
    Value overflow = arith::AndIOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, smallest),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, cst(-1)));
    Value fine = arith::XOrIOp::create(b, loc, overflow,
                                       arith::ConstantIntOp::create(b, loc, 1, 1));
    cf::AssertOp::create(b, loc, fine,
                         (kCheckMessage + "signed division overflows (smallest value by -1)").str());
  });
}

/// The host function a failed assertion calls with its number.
static constexpr const char *kAssertFailed = "coda_run_assert_failed";

namespace {
struct Assertion {
  Location loc;
  std::string message;
};
} // namespace

/// Replaces every cf.assert of `module` by a call to kAssertFailed with the assertion's number
/// in `asserts` where its condition is false.
static void lowerAssertions(ModuleOp module, std::vector<Assertion> &asserts) {
  SmallVector<cf::AssertOp> ops;
  module.walk([&](cf::AssertOp op) { ops.push_back(op); });
  if (ops.empty())
    return;
  OpBuilder b(module.getBodyRegion());
  auto i64 = b.getI64Type();
  auto callee = func::FuncOp::create(b, module.getLoc(), kAssertFailed,
                                     b.getFunctionType({i64}, {}));
  callee.setPrivate();
  for (auto [id, op] : llvm::enumerate(ops)) {
    asserts.push_back({op.getLoc(), StringRef(op.getMsg()).trim().str()});
    b.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value one = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value failed = arith::XOrIOp::create(b, loc, op.getArg(), one);
    auto ifOp = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value number = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(id));
    func::CallOp::create(b, loc, callee, ValueRange{number});
    op.erase();
  }
}

// A failed assertion leaves the compiled program through longjmp: the frames in between are
// JIT-compiled code, which holds no C++ objects to destroy.
static std::jmp_buf *assertJump;
static int64_t failedAssert;

extern "C" void codaRunAssertFailed(int64_t id) {
  failedAssert = id;
  std::longjmp(*assertJump, 1);
}

/// Calls `fn(args)`; false when one of the program's assertions failed (its number is then in
/// failedAssert).
static bool callCatchingAssertions(void (*fn)(void **), void **args) {
  std::jmp_buf jump;
  assertJump = &jump;
  if (setjmp(jump)) {
    assertJump = nullptr;
    return false;
  }
  fn(args);
  assertJump = nullptr;
  return true;
}

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
  // coda's annotations (the CUDA plan's kernel configurations, launch order and workspace
  // offsets; fusion reports' byte counts) say how the GPU runs a program, not what it
  // computes, and they are checked against ops that the lowering rewrites: a planned program
  // runs as the program it plans.
  module->walk([](Operation *op) {
    for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
      if (attr.getName().getValue().starts_with("coda."))
        op->removeDiscardableAttr(attr.getName());
  });
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

  // Diagnostics of the runtime checks and of assertions point into the program's source.
  std::vector<Assertion> asserts;
  for (const char *pipeline : {kExpandPipeline, kBufferizePipeline, kToLLVMPipeline}) {
    // Checks go in once coda ops are expanded (a score region holds no assertion).
    if (pipeline == kBufferizePipeline) {
      insertIndexChecks(*module);
      insertDivisionChecks(*module);
    }
    PassManager pm(ctx);
    if (failed(parsePassPipeline(pipeline, pm)))
      return original.emitError() << "coda-run: internal error: bad lowering pipeline";
    if (failed(pm.run(*module)))
      return original.emitError() << "coda-run: lowering @" << entry << " to LLVM failed";
    if (pipeline == kBufferizePipeline)
      lowerAssertions(*module, asserts);
  }

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
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner(kAssertFailed)] = {llvm::orc::ExecutorAddr::fromPtr(&codaRunAssertFailed),
                                        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  auto fn = (*engine)->lookupPacked(("_mlir_ciface_" + entry).str());
  if (!fn)
    return original.emitError() << "coda-run: calling @" << entry
                                << " failed: " << llvm::toString(fn.takeError());
  if (!callCatchingAssertions(*fn, packed.data())) {
    const Assertion &a = asserts[failedAssert];
    StringRef message = a.message;
    if (message.consume_front(kCheckMessage))
      return emitError(a.loc) << "runtime check failed while running @" << entry << ": "
                              << message;
    return emitError(a.loc) << "assertion failed while running @" << entry << ": " << message;
  }
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
