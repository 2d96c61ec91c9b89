//===- TranslateToCuda.cpp - coda.gemm as CUTLASS sm90 kernels ------------===//
//
// Writes one .cu file per module: for every coda.gemm, a CUTLASS 4.2 GemmUniversal with the
// sm90 TMA warp-specialized cooperative mainloop (collective builders) and an Epilogue Visitor
// Tree whose compute node calls the epilogue region, emitted as one __device__ function; and an
// extern "C" launcher per kernel. In the style of mlir/lib/Target/Cpp/TranslateToCpp.cpp: an
// emitter class, one print function per op, scoped value names.
//
// This first version covers stored results of non-batched, non-pairwise gemms with scalar, row
// and column operands; everything else gets a diagnostic at the op and no output.
//
//===----------------------------------------------------------------------===//

#include "coda/Target/Cuda/TranslateToCuda.h"
#include "coda/Target/Cuda/KernelConfig.h"
#include "coda/Dialect/Coda/IR/CodaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSet.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ScopedHashTable.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/xxhash.h"

#include <set>

using namespace mlir;
using namespace mlir::coda;

namespace {
/// How a result leaves the epilogue.
enum class Sink {
  D,       // the collective's TMA store (the first stored or accumulated result)
  Store,   // coda::rt::GlobalStore
  Halves,  // coda::rt::HalvesStore: a rotation into halves, by TMA from the kernel (--tma-halves)
  Contract, // coda::rt::ContractStore: a pairwise(contract) result, by TMA from the kernel
            // (--tma-contract)
  Reduce   // a CUTLASS reduction node writing per-tile partials, then a combine kernel
};

struct ResultPlan {
  Sink sink;
  ResultModeAttr mode;
  std::string element;         // CUTLASS element type of a stored result
  SmallVector<unsigned> values; // the value streams (DAG compute nodes) it reads
};

/// The epilogue DAG of one kernel, in topological order: [C source] operands streams sinks root.
struct KernelPlan {
  std::optional<PairwiseMode> pairwise;
  bool hasSource = false; // the D result accumulates into C
  /// An [M, N] operand of D's element type read through the collective's C (a TMA load
  /// pipelined with the mainloop) instead of per-thread loads; -1 if none.
  int sourceOperand = -1;
  int dResult = -1;
  /// The result a HalvesStore writes (--tma-halves); -1 if none.
  int halvesResult = -1;
  /// The result a ContractStore writes (--tma-contract); -1 if none.
  int contractResult = -1;
  /// A StagedStore (HalvesStore or ContractStore) stages the kernel's subtiles.
  bool stagesStores() const { return halvesResult >= 0 || contractResult >= 0; }
  SmallVector<std::string> operandElements;
  SmallVector<ResultPlan> results;
  /// Per value stream: the result it computes and which of the result's yields.
  SmallVector<std::pair<unsigned, unsigned>> streams;

  unsigned numLeaves() const { return hasSource + operandElements.size(); }
  unsigned streamNode(unsigned s) const { return numLeaves() + s; }
};

/// Emits C++ for the scalar ops of one epilogue region.
class CudaEmitter {
public:
  CudaEmitter(raw_ostream &os, const CudaEmitterOptions &options) : os(os), options(options) {}

  LogicalResult emitModule(ModuleOp module);

private:
  LogicalResult emitKernel(GemmOp op, StringRef name);
  FailureOr<KernelPlan> planKernel(GemmOp op);
  FailureOr<KernelConfig> chooseConfig(GemmOp op, const KernelPlan &plan, raw_ostream &comments);
  LogicalResult emitEpilogueFunction(GemmOp op, StringRef name, const KernelConfig &config);
  void emitStreamFunctor(GemmOp op, StringRef name, const KernelPlan &plan, unsigned stream);
  void emitLauncher(GemmOp op, StringRef name, const KernelPlan &plan, unsigned numNodes,
                    const KernelConfig &config);
  static SmallVector<std::string> launcherParams(GemmOp op);
  void emitTorchWrapper(GemmOp op, StringRef name);
  void emitTorchFunctionWrapper(func::FuncOp func);
  void emitTorchLauncherWrapper(StringRef name, StringRef launcher, ArrayRef<Type> ins,
                                ArrayRef<Type> outs);
  void emitTorchReturn(ArrayRef<std::string> outs);
  LogicalResult checkFunction(func::FuncOp func, std::string &why);
  LogicalResult emitFunction(func::FuncOp func);
  enum class LauncherKind { Run, Prepare, RunPrepared };
  LogicalResult emitFunctionLauncher(func::FuncOp func, LauncherKind kind,
                                     ArrayRef<Operation *> preparations);
  /// What a generic outside the kernels becomes: a kernel; also a row reduction that hands its
  /// rows to the kernel beside it.
  enum class GenericRole { Kernel, Publishing };
  LogicalResult emitGenericKernel(linalg::GenericOp generic, StringRef name,
                                  SmallVectorImpl<Value> &params,
                                  SmallVectorImpl<unsigned> &vectorParams, int64_t &threads,
                                  GenericRole role = GenericRole::Kernel);
  int64_t emitSliceKernel(StringRef name, RankedTensorType small, RankedTensorType large,
                          ArrayRef<int64_t> offsets, bool insert, ArrayRef<int64_t> strides = {});
  LogicalResult emitScalarOp(Operation &op);
  FailureOr<std::string> cType(Operation *at, Type type);
  std::string valueName(Value v);
  static FailureOr<std::string> cutlassElement(Type t);

  raw_ostream &os;
  const CudaEmitterOptions &options;
  std::string indent = "  ";
  /// Kernels whose row operands a reduction computes just before them (`rowsConsumer`), and
  /// those of them emitted to wait for its rows instead (unsplit), with their tile M.
  DenseSet<Operation *> rowsAhead;
  DenseMap<Operation *, int> awaiting;
  /// The kernel that `generic` hands its rows to as they are done (one that awaits them).
  GemmOp handsRowsTo(linalg::GenericOp generic);
  /// The launcher name of every emitted coda.gemm, and the functions with a launcher.
  DenseMap<Operation *, std::string> kernelNames;
  llvm::StringSet<> launchers;
  /// Configurations measured on the GPU (--tuning-db), by kernel key.
  TuningDb tuningDb;
  DenseMap<Value, std::string> names;
  unsigned nextName = 0;
  /// Set while the epilogue function of a kernel configured for div.full.f32 is emitted.
  bool fullDivision = false;
};

} // namespace

FailureOr<std::string> CudaEmitter::cutlassElement(Type t) {
  if (t.isBF16())
    return std::string("cutlass::bfloat16_t");
  if (t.isF16())
    return std::string("cutlass::half_t");
  if (t.isF32())
    return std::string("float");
  return failure();
}

/// The period of tiled operand #i: the columns of its [M, P] table.
static int64_t periodOf(GemmOp op, unsigned i) {
  return cast<ShapedType>(op.getExtras()[i].getType()).getShape().back();
}

/// Whether tiled operand #i is read through TMA (coda::rt::TableLoad, --tma-tables): a 16-bit
/// table whose rows are whole 16-byte units, an epilogue subtile inside one period, a CTA tile a
/// whole number of periods wide, in a ping-pong kernel. A table's stages take shared memory
/// from the mainloop's: 16 KB for ping-pong's 64-row subtiles, twice that for cooperative
/// ones or fp32 tables (on the H200, QK + RoPE's 128x256 cooperative kernel took 0.757 ms with
/// them against 0.541 ms with per-thread loads); those keep per-thread loads.
static bool tableByTma(GemmOp op, unsigned i, const KernelPlan &plan, const KernelConfig &config,
                       const CudaEmitterOptions &options) {
  if (!options.tmaTables || op.getRole(i) != OperandRole::Tiled || !config.pingpong)
    return false;
  const std::string &t = plan.operandElements[i];
  int64_t p = periodOf(op, i);
  return (t == "cutlass::bfloat16_t" || t == "cutlass::half_t") && p % 8 == 0 &&
         p % config.epilogueTileN() == 0 && config.tileN % p == 0;
}

FailureOr<std::string> CudaEmitter::cType(Operation *at, Type type) {
  // Epilogue arithmetic runs in fp32; narrower floats appear only through explicit rounding.
  if (type.isF32() || type.isBF16() || type.isF16())
    return std::string("float");
  if (type.isF64())
    return std::string("double");
  if (type.isInteger(1))
    return std::string("bool");
  if (type.isIndex() || type.isInteger(64))
    return std::string("long long");
  if (type.isInteger(32))
    return std::string("int");
  return at->emitOpError("has a value of type ") << type << " that the CUDA backend cannot emit",
         failure();
}

std::string CudaEmitter::valueName(Value v) {
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  std::string name = "v" + std::to_string(nextName++);
  names[v] = name;
  return name;
}

/// tanh through the hardware's tanh.approx (error about 2⁻¹¹): for bf16/f16 values, whose
/// rounding is coarser, and where approximate functions are allowed (fastmath `afn`).
static bool approximateTanh(math::TanhOp t) {
  return isa<BFloat16Type, Float16Type>(t.getType()) ||
         arith::bitEnumContainsAll(t.getFastmath(), arith::FastMathFlags::afn);
}

/// Whether `d` may divide through div.full.f32 (2 ulp): an fp32 division in an epilogue whose
/// results are all stored 16-bit, whose rounding (2^-9) is far coarser. Elsewhere (reduction
/// partials, fp32 results, generics outside the kernels) division stays IEEE.
static bool mayDivideFull(arith::DivFOp d) {
  auto gemm = d->getParentOfType<GemmOp>();
  if (!gemm || !d.getType().isF32())
    return false;
  for (unsigned r = 0, e = gemm->getNumResults(); r < e; ++r)
    if (!gemm.getMode(r).isStore() ||
        !isa<BFloat16Type, Float16Type>(
            cast<ShapedType>(gemm->getResult(r).getType()).getElementType()))
      return false;
  return true;
}

LogicalResult CudaEmitter::emitScalarOp(Operation &op) {
  auto name = [&](Value v) { return valueName(v); };
  auto define = [&](Value result, const std::string &expr) -> LogicalResult {
    FailureOr<std::string> type = cType(&op, result.getType());
    if (failed(type))
      return failure();
    // Arithmetic on bf16/f16 values runs in fp32 and rounds its result to the narrow type,
    // as the IR means.
    std::string value = expr;
    if (result.getType().isBF16() && !isa<arith::ExtFOp>(op))
      value = "__bfloat162float(__float2bfloat16_rn(" + expr + "))";
    else if (result.getType().isF16() && !isa<arith::ExtFOp>(op))
      value = "__half2float(__float2half_rn(" + expr + "))";
    os << indent << *type << " " << name(result) << " = " << value << ";\n";
    return success();
  };
  auto binary = [&](const char *sym) {
    return define(op.getResult(0),
                  name(op.getOperand(0)) + " " + sym + " " + name(op.getOperand(1)));
  };
  auto call = [&](const char *fn) {
    std::string args;
    llvm::raw_string_ostream s(args);
    llvm::interleaveComma(op.getOperands(), s, [&](Value v) { s << name(v); });
    return define(op.getResult(0), std::string(fn) + "(" + args + ")");
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](arith::ConstantOp c) -> LogicalResult {
        // An exponent of math.fpowi is spelled where it is used: no variable for it.
        if (auto i = dyn_cast<IntegerAttr>(c.getValue());
            i && !c->use_empty() && llvm::all_of(c->getUses(), [](OpOperand &use) {
              return isa<math::FPowIOp>(use.getOwner()) && use.getOperandNumber() == 1;
            })) {
          names[c.getResult()] = std::to_string(i.getValue().getSExtValue());
          return success();
        }
        if (auto f = dyn_cast<FloatAttr>(c.getValue()))
          return define(c.getResult(), llvm::formatv("{0:e9}f", f.getValueAsDouble()).str());
        if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          return define(c.getResult(), c.getType().isInteger(1)
                                           ? (i.getValue().isZero() ? "false" : "true")
                                           : std::to_string(i.getValue().getSExtValue()));
        return c.emitOpError("constant kind is not supported by the CUDA backend");
      })
      .Case([&](arith::AddFOp) { return binary("+"); })
      .Case([&](arith::SubFOp) { return binary("-"); })
      .Case([&](arith::MulFOp) { return binary("*"); })
      .Case([&](arith::DivFOp d) {
        return fullDivision && mayDivideFull(d) ? call("coda::rt::divFull") : binary("/");
      })
      .Case([&](arith::AddIOp) { return binary("+"); })
      .Case([&](arith::SubIOp) { return binary("-"); })
      .Case([&](arith::MulIOp) { return binary("*"); })
      // Index arithmetic (weight preparation) is on non-negative values: unsigned and signed
      // division agree.
      .Case([&](arith::DivUIOp) { return binary("/"); })
      .Case([&](arith::DivSIOp) { return binary("/"); })
      .Case([&](arith::RemUIOp) { return binary("%"); })
      .Case([&](arith::RemSIOp) { return binary("%"); })
      .Case([&](arith::AndIOp) { return binary("&"); })
      .Case([&](arith::OrIOp) { return binary("|"); })
      .Case([&](arith::XOrIOp) { return binary("^"); })
      .Case([&](arith::MaxSIOp) { return call("max"); })
      .Case([&](arith::MinSIOp) { return call("min"); })
      .Case([&](arith::NegFOp n) { return define(n.getResult(), "-" + name(n.getOperand())); })
      .Case([&](arith::MaximumFOp) { return call("fmaxf"); })
      .Case([&](arith::MinimumFOp) { return call("fminf"); })
      .Case([&](arith::MaxNumFOp) { return call("fmaxf"); })
      .Case([&](arith::MinNumFOp) { return call("fminf"); })
      .Case([&](arith::ExtFOp e) { return define(e.getResult(), name(e.getIn())); })
      .Case([&](arith::TruncFOp t) -> LogicalResult {
        // define rounds to the narrower type.
        return define(t.getResult(), name(t.getIn()));
      })
      .Case([&](arith::IndexCastOp c) { return define(c.getResult(), name(c.getIn())); })
      .Case([&](arith::ExtUIOp c) { return define(c.getResult(), "(long long)" + name(c.getIn())); })
      .Case([&](arith::ExtSIOp c) { return define(c.getResult(), "(long long)" + name(c.getIn())); })
      .Case([&](arith::TruncIOp c) { return define(c.getResult(), name(c.getIn())); })
      .Case([&](arith::UIToFPOp c) { return define(c.getResult(), "(float)" + name(c.getIn())); })
      .Case([&](arith::FPToSIOp c) { return define(c.getResult(), "(long long)" + name(c.getIn())); })
      .Case([&](arith::SIToFPOp c) { return define(c.getResult(), "(float)" + name(c.getIn())); })
      .Case([&](arith::SelectOp s) {
        return define(s.getResult(), name(s.getCondition()) + " ? " + name(s.getTrueValue()) +
                                         " : " + name(s.getFalseValue()));
      })
      .Case([&](arith::CmpFOp c) -> LogicalResult {
        const char *sym = nullptr;
        switch (c.getPredicate()) {
        case arith::CmpFPredicate::OGT: case arith::CmpFPredicate::UGT: sym = ">"; break;
        case arith::CmpFPredicate::OGE: case arith::CmpFPredicate::UGE: sym = ">="; break;
        case arith::CmpFPredicate::OLT: case arith::CmpFPredicate::ULT: sym = "<"; break;
        case arith::CmpFPredicate::OLE: case arith::CmpFPredicate::ULE: sym = "<="; break;
        case arith::CmpFPredicate::OEQ: case arith::CmpFPredicate::UEQ: sym = "=="; break;
        case arith::CmpFPredicate::ONE: case arith::CmpFPredicate::UNE: sym = "!="; break;
        default:
          return c.emitOpError("predicate is not supported by the CUDA backend");
        }
        return binary(sym);
      })
      .Case([&](arith::CmpIOp c) -> LogicalResult {
        const char *sym = nullptr;
        switch (c.getPredicate()) {
        case arith::CmpIPredicate::eq: sym = "=="; break;
        case arith::CmpIPredicate::ne: sym = "!="; break;
        case arith::CmpIPredicate::slt: case arith::CmpIPredicate::ult: sym = "<"; break;
        case arith::CmpIPredicate::sle: case arith::CmpIPredicate::ule: sym = "<="; break;
        case arith::CmpIPredicate::sgt: case arith::CmpIPredicate::ugt: sym = ">"; break;
        case arith::CmpIPredicate::sge: case arith::CmpIPredicate::uge: sym = ">="; break;
        }
        return binary(sym);
      })
      .Case([&](math::ExpOp) { return call("__expf"); })
      .Case([&](math::LogOp) { return call("__logf"); })
      // Rounded to bf16 or f16, tanh.approx's error (about 2^-11) disappears.
      .Case([&](math::TanhOp t) {
        return call(approximateTanh(t) ? "coda::rt::tanhApprox" : "tanhf");
      })
      .Case([&](math::ErfOp) { return call("erff"); })
      .Case([&](math::RsqrtOp) { return call("rsqrtf"); })
      .Case([&](math::SqrtOp) { return call("sqrtf"); })
      .Case([&](math::AbsFOp) { return call("fabsf"); })
      .Case([&](math::PowFOp) { return call("powf"); })
      .Case([&](math::FPowIOp p) {
        // Small constant powers (x², x³ of GELU and RMSNorm) as products: powf is dozens of
        // instructions per element.
        IntegerAttr exponent;
        if (matchPattern(p.getRhs(), m_Constant(&exponent)) &&
            exponent.getValue().getSExtValue() >= 1 && exponent.getValue().getSExtValue() <= 4) {
          std::string x = name(p.getLhs()), product = x;
          for (int64_t i = 1; i < exponent.getValue().getSExtValue(); ++i)
            product += " * " + x;
          return define(p.getResult(), product);
        }
        return define(p.getResult(), "powf(" + name(p.getLhs()) + ", (float)" + name(p.getRhs()) + ")");
      })
      .Default([&](Operation *other) {
        return other->emitOpError("is not supported by the CUDA backend yet");
      });
}

//===----------------------------------------------------------------------===//
// What one coda.gemm becomes
//===----------------------------------------------------------------------===//


static const char *combinerName(Combiner c) {
  switch (c) {
  case Combiner::Sum:
  case Combiner::SumSq:
    return "Sum";
  case Combiner::Max:
    return "Max";
  case Combiner::LogSumExp:
    return "Lse";
  }
  llvm_unreachable("combiner");
}

/// The value a reduction ignores (for the odd slot of a contracted pair).
static const char *identityOf(Combiner c) {
  return c == Combiner::Sum || c == Combiner::SumSq ? "0.f" : "-INFINITY";
}

LogicalResult CudaEmitter::emitEpilogueFunction(GemmOp op, StringRef name,
                                                const KernelConfig &config) {
  names.clear();
  nextName = 0;
  llvm::SaveAndRestore divide(fullDivision, config.fullDivision);
  Block &body = op.getEpilogue().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  os << "// The epilogue region of " << name << " in fp32: one call per "
     << (op.getInArity() == 2 ? "column pair" : "accumulator element") << ", "
     << yield.getValues().size() << " value(s) out.\n";
  os << "__device__ __forceinline__ void " << name << "_epilogue(";
  for (BlockArgument arg : body.getArguments()) {
    FailureOr<std::string> type = cType(op, arg.getType());
    if (failed(type))
      return failure();
    os << *type << " " << valueName(arg) << ", ";
  }
  os << "float *out) {\n";
  for (Operation &inner : body.without_terminator())
    if (failed(emitScalarOp(inner)))
      return failure();
  for (auto [index, value] : llvm::enumerate(yield.getValues()))
    os << "  out[" << index << "] = " << valueName(value) << ";\n";
  os << "}\n\n";
  return success();
}

FailureOr<KernelPlan> CudaEmitter::planKernel(GemmOp op) {
  if (op.isBatched())
    return op.emitOpError("batched products are not supported by the CUDA backend yet"), failure();
  Type inElem = op.getA().getType().getElementType();
  if (!inElem.isBF16() && !inElem.isF16())
    return op.emitOpError("the CUDA backend needs bf16 or f16 inputs, got ") << inElem, failure();

  KernelPlan plan;
  plan.pairwise = op.getPairwise();
  bool contract = plan.pairwise == PairwiseMode::Contract;
  bool expand = plan.pairwise == PairwiseMode::Expand;
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i) {
    // Integer operands (labels) reach the epilogue as fp32, exact below 2^24.
    Type elem = cast<ShapedType>(op.getExtras()[i].getType()).getElementType();
    FailureOr<std::string> t = elem.isInteger(64)   ? FailureOr<std::string>(std::string("int64_t"))
                               : elem.isInteger(32) ? FailureOr<std::string>(std::string("int32_t"))
                                                    : cutlassElement(elem);
    if (failed(t))
      return op.emitOpError("operand #") << i << " has element type "
                                         << cast<ShapedType>(op.getExtras()[i].getType()).getElementType()
                                         << ", which the CUDA backend cannot read",
             failure();
    plan.operandElements.push_back(*t);
  }

  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r) {
    ResultModeAttr mode = op.getMode(r);
    ResultPlan result{Sink::Store, mode, "", {}};
    if (mode.isReduce()) {
      if (expand)
        return op.emitOpError("result #") << r << ": reductions of pairwise(expand) epilogues are "
                                             "not supported by the CUDA backend",
               failure();
      result.sink = Sink::Reduce;
    } else {
      FailureOr<std::string> t =
          cutlassElement(cast<ShapedType>(op->getResult(r).getType()).getElementType());
      if (failed(t))
        return op.emitOpError("result #") << r << " must be bf16, f16 or f32 for the CUDA backend",
               failure();
      result.element = *t;
      // The collective's TMA store writes the first result shaped like the accumulator. A
      // rotation into halves is written by a HalvesStore from the kernel, whole heads per CTA
      // tile. Where it cannot be (an accumulated result, heads no tile is as wide as) or with
      // --tma-halves=false, the TMA store puts the pairs side by side into the workspace and a
      // copy kernel moves them into their halves (16-byte accesses both ways: per-thread
      // scattered stores from the epilogue cost the GEMM a third more on the H200).
      if (plan.dResult < 0 && plan.halvesResult < 0 && op.getHalves() && options.tmaHalves &&
          !mode.isAccumulate() && isTileWidth(*op.getHalves())) {
        plan.halvesResult = r;
        result.sink = Sink::Halves;
      } else if (plan.dResult < 0 && plan.halvesResult < 0 && !contract && !expand) {
        plan.dResult = r;
        result.sink = Sink::D;
        plan.hasSource = mode.isAccumulate();
      } else if (contract && plan.contractResult < 0 && options.tmaContract &&
                 !mode.isAccumulate()) {
        // The first contracted result leaves by TMA; per-thread 2-byte stores cost a
        // cooperative kernel a fifth of its time on the H200.
        plan.contractResult = r;
        result.sink = Sink::Contract;
      } else if (op.getHalves()) {
        return op.emitOpError("result #") << r << ": the CUDA backend stores one result of a "
                                             "pairwise(rotate, halves) kernel",
               failure();
      } else if (mode.isAccumulate()) {
        return op.emitOpError("result #") << r << ": the CUDA backend accumulates only into the "
                                             "first stored result, and not in contract or expand mode",
               failure();
      }
    }
    // Rotate reads its two yields in one stream (even and odd column); expand in two.
    unsigned streamsOf = expand ? 2 : 1;
    for (unsigned s = 0; s < streamsOf; ++s) {
      result.values.push_back(plan.streams.size());
      plan.streams.push_back({r, s});
    }
    plan.results.push_back(result);
  }
  // C is free when no result accumulates: the first matrix operand shaped and typed like D
  // (a residual, say) takes it.
  if (!plan.hasSource && plan.dResult >= 0)
    for (unsigned i = 0, e = plan.operandElements.size(); i < e; ++i)
      if (op.getRole(i) == OperandRole::Matrix &&
          plan.operandElements[i] == plan.results[plan.dResult].element) {
        plan.sourceOperand = i;
        break;
      }
  return plan;
}

void CudaEmitter::emitStreamFunctor(GemmOp op, StringRef name, const KernelPlan &plan,
                                    unsigned stream) {
  auto [r, part] = plan.streams[stream];
  ResultModeAttr mode = op.getMode(r);
  unsigned outArity = op.getOutArity();
  bool pairs = op.getInArity() == 2;
  bool square = mode.isReduce() && mode.getCombiner() == Combiner::SumSq;
  unsigned numYields = cast<YieldOp>(op.getEpilogue().front().getTerminator()).getValues().size();

  os << "// Value stream " << stream << ": result #" << r;
  if (outArity == 2)
    os << (plan.pairwise == PairwiseMode::Rotate ? " (even and odd column of each pair)"
                                                 : (part == 0 ? " (even output column)" : " (odd output column)"));
  if (square)
    os << ", squared for the sum of squares";
  if (mode.isAccumulate())
    os << ", added to the init";
  os << ".\n";
  os << "template <int F> struct " << name << "_v" << stream << " {\n";
  os << "  CUTLASS_DEVICE cutlass::Array<float, F> operator()(cutlass::Array<int, F> const &rows, "
        "cutlass::Array<int, F> const &cols, cutlass::Array<float, F> const &acc";
  if (plan.hasSource)
    os << ", cutlass::Array<float, F> const &init";
  for (unsigned i = 0, e = plan.operandElements.size(); i < e; ++i)
    os << ", cutlass::Array<float, F> const &x" << i;
  os << ") const {\n    cutlass::Array<float, F> v;\n    float out[" << numYields << "];\n";
  // One call of the region: on element e (and e + 1 for pairs).
  auto call = [&](const char *e) {
    os << name << "_epilogue(acc[" << e << "]";
    if (pairs)
      os << ", acc[" << e << " + 1]";
    for (unsigned i = 0, n = plan.operandElements.size(); i < n; ++i) {
      os << ", x" << i << "[" << e << "]";
      if (op.getNumRegionArgsForRole(op.getRole(i)) == 2)
        os << ", x" << i << "[" << e << " + 1]";
    }
    os << ", rows[" << e << "], " << (pairs ? "cols[" + std::string(e) + "] / 2" : "cols[" + std::string(e) + "]")
       << ", out);\n";
  };
  auto value = [&](unsigned yieldIndex, const std::string &at) {
    std::string v = "out[" + std::to_string(yieldIndex) + "]";
    if (square)
      v = v + " * " + v;
    if (mode.isAccumulate())
      v = "init[" + at + "] + " + v;
    return v;
  };
  if (!pairs) {
    os << "    CUTLASS_PRAGMA_UNROLL\n    for (int e = 0; e < F; ++e) {\n      ";
    call("e");
    os << "      v[e] = " << value(r * outArity + part, "e") << ";\n    }\n";
  } else {
    os << "    coda::rt::checkPairs(rows, cols);\n";
    os << "    CUTLASS_PRAGMA_UNROLL\n    for (int e = 0; e < F; e += 2) {\n      ";
    call("e");
    if (outArity == 2) { // rotate: the pair's two output columns
      os << "      v[e] = " << value(r * 2, "e") << ";\n";
      os << "      v[e + 1] = " << value(r * 2 + 1, "e + 1") << ";\n";
    } else { // contract: the pair's value at the even column
      os << "      v[e] = " << value(r, "e") << ";\n";
      os << "      v[e + 1] = "
         << (mode.isReduce() ? std::string(identityOf(mode.getCombiner())) : std::string("v[e]")) << ";\n";
    }
    os << "    }\n";
  }
  os << "    return v;\n  }\n};\n\n";
}

/// The epilogue's arithmetic per accumulator element for the model, in simple fp32 operations:
/// the region's ops (library calls weighted by their length, each bf16/f16 rounding one more),
/// and the work of the DAG's nodes (coordinates, per-thread loads and stores, reductions);
/// `fullDivision`: with the divisions that may through div.full.f32.
static double epilogueOpsPerElement(GemmOp op, const KernelPlan &plan, bool fullDivision) {
  double region = 0;
  op.getEpilogue().walk([&](Operation *o) {
    if (isa<arith::ConstantOp, YieldOp>(o))
      return;
    Type t = o->getNumResults() ? o->getResult(0).getType() : Type();
    bool narrow = t && isa<BFloat16Type, Float16Type>(t) && !isa<arith::ExtFOp>(o);
    double cost = llvm::TypeSwitch<Operation *, double>(o)
                      .Case([&](math::TanhOp t) { return approximateTanh(t) ? 4.0 : 20.0; })
                      .Case<math::ErfOp>([](auto) { return 20.0; })
                      .Case<math::PowFOp>([](auto) { return 40.0; })
                      .Case([](math::FPowIOp p) {
                        IntegerAttr e;
                        return matchPattern(p.getRhs(), m_Constant(&e)) ? 3.0 : 40.0;
                      })
                      .Case<math::ExpOp, math::LogOp, math::RsqrtOp, math::SqrtOp>(
                          [](auto) { return 4.0; })
                      .Case([&](arith::DivFOp d) {
                        return fullDivision && mayDivideFull(d) ? 2.0 : 6.0;
                      })
                      .Default([](Operation *) { return 1.0; });
    region += cost + (narrow ? 1 : 0);
  });
  double ops = region * plan.streams.size() / op.getInArity() + 2; // + coordinates
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    ops += (op.getRole(i) == OperandRole::Matrix || op.getRole(i) == OperandRole::Tiled) &&
                   int(i) != plan.sourceOperand
               ? 4
               : 1;
  for (const ResultPlan &result : plan.results)
    ops += result.sink == Sink::Store || result.sink == Sink::Halves ||
                   result.sink == Sink::Contract
               ? 3
           : result.sink == Sink::Reduce ? (result.mode.getCombiner() == Combiner::LogSumExp ? 8 : 3)
                                         : 0;
  return ops;
}

/// The database's configuration for this kernel, else the analytic model's best; the choice
/// and the model's ranking go into the file as comments (bench/tune.py reads them).
FailureOr<KernelConfig> CudaEmitter::chooseConfig(GemmOp op, const KernelPlan &plan,
                                                  raw_ostream &comments) {
  auto bytesOf = [](Type t) { return std::max<unsigned>(1, t.getIntOrFloatBitWidth() / 8); };
  double bytes = 0;
  for (auto [r, result] : llvm::enumerate(plan.results))
    if (!result.mode.isReduce())
      bytes += bytesOf(cast<ShapedType>(op->getResult(r).getType()).getElementType()) *
               double(op.getOutArity()) / op.getInArity() * (result.mode.isAccumulate() ? 2 : 1);
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    if (op.getRole(i) == OperandRole::Matrix)
      bytes += bytesOf(cast<ShapedType>(op.getExtras()[i].getType()).getElementType());
  double ops = epilogueOpsPerElement(op, plan, /*fullDivision=*/false);
  bool divides = false;
  op.getEpilogue().walk([&](arith::DivFOp d) { divides |= mayDivideFull(d); });
  double opsFull = divides ? epilogueOpsPerElement(op, plan, /*fullDivision=*/true) : 0;
  bool plain = llvm::all_of(plan.results, [](const ResultPlan &r) {
    return r.sink == Sink::Reduce ||
           ((r.sink == Sink::D || r.sink == Sink::Contract) &&
            (r.element == "cutlass::bfloat16_t" || r.element == "cutlass::half_t"));
  });
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    plain &= op.getRole(i) != OperandRole::Tiled;
  SmallVector<std::pair<KernelConfig, double>> ranked =
      rankConfigs({op.getM(), op.getN(), op.getK(), bytes, ops, plain,
                   rowsAhead.contains(op), opsFull});

  // The key: the problem and a fingerprint of the op (its epilogue), stable across runs.
  std::string text;
  llvm::raw_string_ostream textStream(text);
  op->print(textStream, OpPrintingFlags().elideLargeElementsAttrs().useLocalScope());
  std::string key = llvm::formatv("{0}x{1}x{2}:{3:x-}", op.getM(), op.getN(), op.getK(),
                                  llvm::xxh3_64bits(text))
                        .str();
  // A HalvesStore tiles the result in whole heads: the CTA tile's N is a multiple of the head,
  // in the model's ranking and in a database entry alike.
  std::optional<int64_t> head;
  if (plan.halvesResult >= 0)
    head = *op.getHalves();
  if (head)
    llvm::erase_if(ranked, [&](const auto &c) { return c.first.tileN % *head != 0; });
  auto it = tuningDb.find(key);
  if (it != tuningDb.end() && head && it->second.tileN % *head != 0)
    it = tuningDb.end();
  KernelConfig chosen = it != tuningDb.end() ? it->second : ranked.front().first;
  comments << "// coda-tuning-key: " << key << "\n";
  comments << "// configuration: " << chosen.str()
           << (it != tuningDb.end() ? " (tuning database)" : " (analytic model)") << "\n";
  comments << "// model inputs: epilogue " << llvm::formatv("{0:f1}", bytes) << " bytes and "
           << llvm::formatv("{0:f0}", ops) << " fp32 ops per element";
  if (divides)
    comments << " (" << llvm::formatv("{0:f0}", opsFull) << " with div.full.f32)";
  comments << "\n";
  // Stage 2's candidates: the model's best per tile, schedule and split; then the best tile in
  // every other cluster shape, in the two other raster orders, without the swizzle and with
  // CUTLASS's own epilogue subtile, and with the other division (the model's raster order,
  // subtile and division are estimates, and it does not tell the clusters' L2 reuse apart).
  SmallVector<std::pair<KernelConfig, double>> candidates;
  auto sameTile = [](const KernelConfig &a, const KernelConfig &b) {
    return a.tileM == b.tileM && a.tileN == b.tileN && a.pingpong == b.pingpong;
  };
  for (auto &[config, ms] : ranked)
    if (llvm::none_of(candidates, [&](const auto &c) { return sameTile(c.first, config); }))
      candidates.push_back({config, ms});
  for (auto &[config, ms] : ranked)
    if (sameTile(config, ranked.front().first) &&
        llvm::none_of(candidates, [&](const auto &c) {
          return sameTile(c.first, config) && c.first.clusterM == config.clusterM &&
                 c.first.clusterN == config.clusterN;
        }))
      candidates.push_back({config, ms});
  for (KernelConfig::Raster raster : {KernelConfig::Raster::Heuristic, KernelConfig::Raster::AlongM,
                                      KernelConfig::Raster::AlongN}) {
    KernelConfig config = ranked.front().first;
    if (config.raster == raster)
      continue;
    config.raster = raster;
    candidates.push_back({config, ranked.front().second});
  }
  if (KernelConfig unswizzled = ranked.front().first; unswizzled.swizzle > 1) {
    unswizzled.swizzle = 1;
    candidates.push_back({unswizzled, ranked.front().second});
  }
  if (KernelConfig automatic = ranked.front().first; automatic.epilogueN) {
    automatic.epilogueN = 0;
    candidates.push_back({automatic, ranked.front().second});
  }
  if (KernelConfig other = ranked.front().first; divides) {
    other.fullDivision = !other.fullDivision;
    candidates.push_back({other, ranked.front().second});
  }
  for (auto &[config, ms] : candidates)
    comments << "// coda-candidate: " << config.json() << " model "
             << llvm::formatv("{0:f3}", ms) << " ms\n";
  return chosen;
}

static int64_t vectorWidth(linalg::GenericOp generic, bool warp);
static FailureOr<std::string> bufferElement(Type t);
static constexpr int64_t kVector = 8;

/// Whether `operand` varies along the generic's last loop: with 8-element steps, it moves 16
/// bytes at a time.
static bool alongLastLoop(linalg::GenericOp generic, OpOperand &operand) {
  return generic.getMatchingIndexingMap(&operand).isFunctionOfDim(generic.getNumLoops() - 1);
}

LogicalResult CudaEmitter::emitKernel(GemmOp op, StringRef name) {
  FailureOr<KernelPlan> planned = planKernel(op);
  if (failed(planned))
    return failure();
  KernelPlan &plan = *planned;
  // The configuration first (the epilogue function's division depends on it); its comments go
  // with the kernel's below.
  std::string configComments;
  llvm::raw_string_ostream configStream(configComments);
  FailureOr<KernelConfig> chosen = chooseConfig(op, plan, configStream);
  if (failed(chosen))
    return failure();
  KernelConfig config = *chosen;
  if (failed(emitEpilogueFunction(op, name, config)))
    return failure();
  for (unsigned s = 0, e = plan.streams.size(); s < e; ++s)
    emitStreamFunctor(op, name, plan, s);

  unsigned numOperands = plan.operandElements.size();
  std::string traits = (name + "_kernel").str();
  std::string inElem = *cutlassElement(op.getA().getType().getElementType());
  std::string dElem = plan.dResult >= 0 ? plan.results[plan.dResult].element : "void";
  // The element CUTLASS's collective takes D to be when the kernel has none (coda::rt::WithoutD).
  const char *noDElement = "cutlass::bfloat16_t";

  os << "// " << name << ": A" << (op.getTransposeA() ? "ᵀ" : "") << " · B"
     << (op.getTransposeB() ? "ᵀ" : "");
  if (plan.pairwise)
    os << ", pairwise(" << stringifyPairwiseMode(*plan.pairwise) << ")";
  os << "; results:";
  for (auto [r, result] : llvm::enumerate(plan.results)) {
    os << " #" << r << " ";
    ResultModeAttr mode = result.mode;
    if (mode.isReduce())
      os << "reduce<" << stringifyReduceDim(mode.getDim()) << ", "
         << stringifyCombiner(mode.getCombiner()) << ">";
    else
      os << (mode.isAccumulate() ? "accumulate" : "store");
    os << (result.sink == Sink::D        ? " (TMA store)"
           : result.sink == Sink::Halves ? " (TMA store into the heads' halves)"
           : result.sink == Sink::Contract ? " (TMA store of N/2 columns)"
           : result.sink == Sink::Store  ? " (direct store)"
                                         : " (tile partials)");
  }
  os << ".\n" << configComments;
  // Unsplit kernels read the rows of a reduction computed just before them as they come.
  bool awaits = rowsAhead.contains(op);
  if (awaits)
    awaiting[op] = config.tileM;
  os << "struct " << traits << " {\n";
  os << "  using TileShape = cute::Shape<cute::_" << config.tileM << ", cute::_" << config.tileN
     << ", cute::_" << config.tileK << ">;\n";
  os << "  using ClusterShape = cute::Shape<cute::_" << config.clusterM << ", cute::_"
     << config.clusterN << ", cute::_1>;\n";
  os << "  static constexpr int kTileM = " << config.tileM << ", kTileN = " << config.tileN << ";\n";
  os << "  using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecialized"
     << (config.pingpong ? "Pingpong" : "Cooperative") << ";\n";
  os << "  using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized"
     << (config.pingpong ? "" : "Cooperative") << ";\n";
  os << "  using ElementIn = " << inElem << ";\n  using ElementD = " << dElem << ";\n";
  os << "  static constexpr int kAlignD = " << (plan.dResult >= 0 ? "16 / sizeof(ElementD)" : "8")
     << ";\n";
  // A StagedStore and a TableLoad stage subtiles of their own shape: the configuration's (by
  // default CUTLASS's automatic choice), spelled out.
  bool tables = false;
  for (unsigned i = 0; i < numOperands; ++i)
    tables |= tableByTma(op, i, plan, config, options);
  std::string epilogueTile = "cutlass::epilogue::collective::EpilogueTileAuto";
  if (plan.stagesStores() || tables || config.epilogueN) {
    os << "  using EpilogueTile = cute::Shape<cute::_" << config.epilogueTileM() << ", cute::_"
       << config.epilogueTileN() << ">;\n";
    epilogueTile = "EpilogueTile";
  }
  if (plan.stagesStores())
    os << "  static constexpr int kStoreStages = 2; // CUTLASS's store stages for sm90 TMA epilogues\n";
  os << "  using LayoutA = cutlass::layout::" << (op.getTransposeA() ? "ColumnMajor" : "RowMajor")
     << "; // A is " << (op.getTransposeA() ? "[K, M]" : "[M, K]") << "\n";
  os << "  using LayoutB = cutlass::layout::" << (op.getTransposeB() ? "ColumnMajor" : "RowMajor")
     << "; // B is " << (op.getTransposeB() ? "[N, K]" : "[K, N]") << "\n";
  os << "  using LayoutD = cutlass::layout::RowMajor;\n";
  if (plan.hasSource)
    os << "  using ElementC = ElementD; // the init, read through the collective's C\n";
  else if (plan.sourceOperand >= 0)
    os << "  using ElementC = " << plan.operandElements[plan.sourceOperand] << "; // operand #"
       << plan.sourceOperand << ", read through the collective's C\n";
  else
    os << "  using ElementC = void;\n";
  if (tables)
    os << "  // The tables' TMA loads go through the collective's load pipeline: its stages.\n"
          "  static constexpr int kLoadStages = decltype(cutlass::epilogue::collective::detail::\n"
          "      sm90_get_tma_dispatch_policy<TileShape, EpilogueTile, ElementC, "
       << (plan.dResult >= 0 ? "ElementD" : noDElement) << ", EpilogueSchedule>())::StagesC;\n";

  // The DAG's nodes, in topological order.
  SmallVector<std::string> nodes;
  SmallVector<std::string> edges;
  std::string fusion = "cutlass::epilogue::fusion::";
  if (plan.hasSource) {
    nodes.push_back(fusion + "Sm90SrcFetch<ElementC>");
    edges.push_back("cute::seq<>");
  }
  for (unsigned i = 0; i < numOperands; ++i) {
    const std::string &t = plan.operandElements[i];
    switch (op.getRole(i)) {
    case OperandRole::Scalar:
      nodes.push_back(fusion + "Sm90ScalarBroadcast<" + t + ">");
      break;
    case OperandRole::Col: // one value per column, broadcast along the rows
      nodes.push_back(fusion + "Sm90RowBroadcast<0, TileShape, " + t + ", float>");
      break;
    case OperandRole::Row: // one value per row, broadcast along the columns
      nodes.push_back(awaits ? "coda::rt::AwaitedRows<" + fusion + "Sm90ColBroadcast<0, TileShape, " +
                                   t + ", float>>"
                             : fusion + "Sm90ColBroadcast<0, TileShape, " + t + ", float>");
      break;
    case OperandRole::Matrix:
      nodes.push_back(int(i) == plan.sourceOperand ? fusion + "Sm90SrcFetch<ElementC>"
                                                   : "coda::rt::GlobalLoad<" + t + ">");
      break;
    case OperandRole::Tiled: {
      std::string period = std::to_string(periodOf(op, i));
      nodes.push_back(tableByTma(op, i, plan, config, options)
                          ? "coda::rt::TableLoad<kLoadStages, EpilogueTile, " + t + ", " + period + ">"
                          : "coda::rt::GlobalLoad<" + t + ", " + period + ">");
      break;
    }
    }
    edges.push_back("cute::seq<>");
  }
  std::string leafEdges;
  for (unsigned i = 0, e = plan.numLeaves(); i < e; ++i)
    leafEdges += (i ? ", " : "") + std::to_string(i);
  for (unsigned s = 0, e = plan.streams.size(); s < e; ++s) {
    nodes.push_back("coda::rt::IndexedCompute<" + (name + "_v" + Twine(s)).str() + ">");
    edges.push_back("cute::seq<" + leafEdges + ">");
  }
  unsigned firstSink = nodes.size();
  SmallVector<int> sinkNode(plan.results.size(), -1);
  for (auto [r, result] : llvm::enumerate(plan.results)) {
    if (result.sink == Sink::D)
      continue;
    std::string in;
    for (unsigned v : result.values)
      in += (in.empty() ? "" : ", ") + std::to_string(plan.streamNode(v));
    if (result.sink == Sink::Halves) {
      nodes.push_back("coda::rt::HalvesStore<kStoreStages, EpilogueTile, " + result.element +
                      ", " + std::to_string(*op.getHalves()) + ">");
    } else if (result.sink == Sink::Contract) {
      nodes.push_back("coda::rt::ContractStore<kStoreStages, EpilogueTile, " + result.element + ">");
    } else if (result.sink == Sink::Store) {
      const char *columns = plan.pairwise == PairwiseMode::Contract ? "Contract"
                            : plan.pairwise == PairwiseMode::Expand ? "Expand"
                                                                    : "Same";
      nodes.push_back("coda::rt::GlobalStore<" + result.element + ", coda::rt::Columns::" + columns + ">");
    } else {
      Combiner c = result.mode.getCombiner();
      std::string comb = std::string("coda::rt::") + combinerName(c);
      std::string partial = c == Combiner::LogSumExp ? "coda::rt::MaxSum" : "float";
      bool row = result.mode.getDim() == ReduceDim::Row;
      // Reducing along a row gives a column vector: CUTLASS's ColReduction, and vice versa.
      nodes.push_back(fusion + (row ? "Sm90ColReduction<" : "Sm90RowReduction<") + comb + ", " +
                      comb + ", " + comb + ", 0, TileShape, float, " + partial +
                      ", cutlass::FloatRoundStyle::round_to_nearest, " +
                      (row ? "cute::Stride<cute::_1, cute::_0, cute::_0>"
                           : "cute::Stride<cute::_0, cute::_1, cute::_0>") +
                      ", 4, true, /*FinalReduction=*/false>");
    }
    sinkNode[r] = nodes.size() - 1;
    edges.push_back("cute::seq<" + in + ">");
  }
  // The root passes the D stream (or any stream, when no result goes through D) to the collective.
  std::string rootEdges = std::to_string(
      plan.streamNode(plan.dResult >= 0 ? plan.results[plan.dResult].values[0] : 0));
  for (unsigned i = firstSink, e = nodes.size(); i < e; ++i)
    rootEdges += ", " + std::to_string(i);
  nodes.push_back(fusion + "Sm90Compute<coda::rt::TakeFirst, " +
                  (plan.dResult >= 0 ? "ElementD" : "float") +
                  ", float, cutlass::FloatRoundStyle::round_to_nearest>");
  edges.push_back("cute::seq<" + rootEdges + ">");

  if (nodes.size() == 2) {
    // The root over one stream (no operands, no other sink). CUTLASS's topological visitor
    // needs three nodes or more (with two, its tuple of fragments degenerates to one array):
    // a tree instead. Every other sink makes a third node; a kernel without D has one.
    assert(plan.dResult >= 0 && "a two-node DAG has a D");
    os << "  using EVT = " << fusion << "Sm90EVT<\n      " << nodes[1] << ",  // 1\n      "
       << nodes[0] << ">;  // 0\n";
  } else {
    os << "  using EVT = "
       << (plan.dResult < 0 ? "coda::rt::WithoutD<" + std::string(noDElement) + ", " : "")
       << fusion << "Sm90TopologicalVisitor<float, cute::tuple<\n";
    for (auto [i, edge] : llvm::enumerate(edges))
      os << "      " << edge << (i + 1 == edges.size() ? ">,\n" : ",\n");
    for (auto [i, node] : llvm::enumerate(nodes))
      os << "      " << node << (i + 1 == nodes.size() ? (plan.dResult < 0 ? ">>;" : ">;") : ",")
         << "  // " << i << "\n";
  }
  os << "  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<\n"
        "      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,\n"
        "      " << epilogueTile << ", float, float, ElementC, LayoutD, kAlignD,\n"
        "      ElementD, LayoutD, kAlignD, EpilogueSchedule, EVT>::CollectiveOp;\n";
  if (plan.stagesStores())
    os << "  static_assert(CollectiveEpilogue::DispatchPolicy::StagesD == kStoreStages,\n"
          "                \"a StagedStore's stages are the collective's store stages\");\n";
  if (tables)
    os << "  static_assert(CollectiveEpilogue::DispatchPolicy::StagesC == kLoadStages,\n"
          "                \"a TableLoad's stages are the collective's load stages\");\n";
  // The stages fill the shared memory the epilogue leaves.
  os << R"cu(  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementIn, LayoutA,
      16 / sizeof(ElementIn), ElementIn, LayoutB, 16 / sizeof(ElementIn), float, TileShape,
      ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename CollectiveEpilogue::SharedStorage))>,
      MainloopSchedule>::CollectiveOp;
)cu";
  os << "  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>,\n"
        "      CollectiveMainloop, CollectiveEpilogue>;\n";
  os << "  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;\n};\n\n";
  emitLauncher(op, name, plan, nodes.size(), config);
  return success();
}

/// A kernel's inputs, in the order of its launcher and of its PyTorch function: A, B, the
/// operands, the inits of accumulated results.
static SmallVector<std::string> kernelInputs(GemmOp op) {
  SmallVector<std::string> inputs{"a", "b"};
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    inputs.push_back("operand" + std::to_string(i));
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r)
    if (op.getMode(r).isAccumulate())
      inputs.push_back("init" + std::to_string(r));
  return inputs;
}

/// The launcher's parameter list.
SmallVector<std::string> CudaEmitter::launcherParams(GemmOp op) {
  SmallVector<std::string> params;
  for (const std::string &input : kernelInputs(op))
    params.push_back("const void *" + input);
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r)
    params.push_back("void *result" + std::to_string(r));
  params.append({"int m", "int n", "int k", "long long lda", "long long ldb", "long long ldd",
                 "void *workspace", "cudaStream_t stream"});
  return params;
}

void CudaEmitter::emitLauncher(GemmOp op, StringRef name, const KernelPlan &plan,
                               unsigned numNodes, const KernelConfig &config) {
  std::string traits = (name + "_kernel").str();
  bool contract = plan.pairwise == PairwiseMode::Contract;
  SmallVector<unsigned> reductions;
  for (auto [r, result] : llvm::enumerate(plan.results))
    if (result.sink == Sink::Reduce)
      reductions.push_back(r);

  // Where the per-tile partials of each reduction live, after the GEMM's own workspace.
  if (!reductions.empty()) {
  os << "// Byte offsets of " << name << "'s per-tile partials in its workspace; returns their size.\n";
  os << "static size_t " << name << "_partials(int m, int n, size_t *offsets) {\n";
  os << "  using K = " << traits << ";\n";
  os << "  size_t tilesM = (m + K::kTileM - 1) / K::kTileM, tilesN = (n + K::kTileN - 1) / K::kTileN;\n";
  os << "  size_t at = 0;\n";
  for (auto [i, r] : llvm::enumerate(reductions)) {
    ResultModeAttr mode = plan.results[r].mode;
    std::string partial = mode.getCombiner() == Combiner::LogSumExp ? "coda::rt::MaxSum" : "float";
    os << "  offsets[" << i << "] = at; // result #" << r << "\n";
    if (mode.getDim() == ReduceDim::Row)
      os << "  at += coda_round_up(tilesM * K::kTileM * tilesN * sizeof(" << partial << "));\n";
    else
      os << "  at += coda_round_up(tilesM * tilesN * K::kTileN * sizeof(" << partial << "));\n";
  }
  os << "  return at;\n}\n\n";
  }

  // The scheduler's arguments: set wherever the workspace is sized or the tiles' order matters
  // (the launcher, whole waves, the rows' handover). The swizzle groups the tiles in flight so
  // that they share A and B in L2.
  auto emitScheduler = [&] {
    if (config.swizzle > 1)
      os << "  args.scheduler.max_swizzle_size = coda_swizzle(m, n, " << config.tileM << ", "
         << config.tileN << ", " << config.clusterM << ", " << config.clusterN << ", "
         << config.swizzle << ");\n";
    if (config.raster != KernelConfig::Raster::Heuristic)
      os << "  args.scheduler.raster_order = cutlass::gemm::kernel::detail::RasterOrderOptions::"
         << (config.raster == KernelConfig::Raster::AlongM ? "AlongM" : "AlongN") << ";\n";
  };
  // The scheduler's tiling of (m, n) as coda::rt's planners (Overlap.cuh) take it, after
  // emitScheduler.
  std::string tiling = llvm::formatv("m, n, K::kTileM, K::kTileN, {0}, {1}, "
                                     "args.scheduler.max_swizzle_size, args.scheduler.raster_order",
                                     config.clusterM, config.clusterN)
                           .str();
  // The body of a function of (m, n, k) returning the bytes of CUTLASS's workspace and the
  // partials.
  auto emitGemmWorkspace = [&] {
    os << "  using G = " << traits << "::Gemm;\n";
    os << "  typename G::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {m, n, k, 1}, {}, {}};\n";
    emitScheduler();
    if (!reductions.empty())
      os << "  size_t offsets[" << reductions.size() << "];\n  return coda_round_up(G::get_workspace_size(args)) + "
         << name << "_partials(m, n, offsets);\n}\n\n";
    else
      os << "  return coda_round_up(G::get_workspace_size(args));\n}\n\n";
  };
  // A rotation into halves that no HalvesStore writes is staged in the workspace, then copied.
  std::optional<uint64_t> halves =
      plan.halvesResult < 0 ? op.getHalves() : std::optional<uint64_t>();
  if (halves) {
    os << "// Where " << name << "'s result waits with its pairs side by side, in its workspace: after "
          "the GEMM's own workspace and partials.\n";
    os << "static size_t " << name << "_staging_offset(int m, int n, int k) {\n";
    emitGemmWorkspace();
  }

  std::string runs = "// Runs " + name.str() +
                     " on device pointers (row-major, leading dimensions lda, ldb for A and B and "
                     "ldd for the first stored result and its init; other results and operands "
                     "packed). Returns a coda_status.\n";
  // A kernel that can wait for its row operands' rows, or run a row pass: the launcher behind
  // the public one also takes their row blocks' counts (null: ready) and the SMs to run on (0:
  // all), and the row pass's operands (null: none).
  bool awaits = awaiting.contains(op);
  if (awaits) {
    os << "// How a reduction of " << name << "'s rows run just before it shares the GPU with it.\n";
    os << "static coda::rt::RowsOverlap " << name << "_rows_overlap(int m, int n) {\n";
    os << "  using K = " << traits << ";\n";
    os << "  typename K::Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {m, n, 1, 1}, {}, {}};\n";
    emitScheduler();
    os << "  return coda::rt::rowsOverlap(" << tiling << ");\n}\n\n";
  }
  if (awaits) {
    os << "static int " << name << "_launch(";
    llvm::interleaveComma(launcherParams(op), os);
    os << ", const unsigned *rowsDone, int sms) {\n";
  } else {
    os << runs << "extern \"C\" int " << name << "(";
    llvm::interleaveComma(launcherParams(op), os);
    os << ") {\n";
  }
  os << "  using K = " << traits << ";\n  using G = K::Gemm;\n";
  os << "  if (m < 1 || n < 1 || k < 1" << (op.getInArity() == 2 ? " || n % 2 != 0" : "");
  // Periods N must be a multiple of: tiled operands' and the heads rotated into halves.
  std::set<int64_t> periods;
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    if (op.getRole(i) == OperandRole::Tiled)
      periods.insert(periodOf(op, i));
  if (std::optional<uint64_t> head = op.getHalves())
    periods.insert(*head);
  for (int64_t period : periods)
    os << " || n % " << period << " != 0";
  os << ")\n    return CODA_BAD_SHAPE;\n";
  // The result stored by TMA (the collective's D or a HalvesStore) is the one ldd describes.
  int tmaResult = plan.dResult >= 0 ? plan.dResult : plan.halvesResult;
  os << "  if (lda < " << (op.getTransposeA() ? "m" : "k") << " || ldb < "
     << (op.getTransposeB() ? "k" : "n") << (tmaResult >= 0 ? " || ldd < n" : "")
     << ")\n    return CODA_BAD_SHAPE;\n";
  os << "  // TMA needs 16-byte aligned rows.\n";
  os << "  constexpr int align = 16 / sizeof(K::ElementIn);\n";
  os << "  if (lda % align != 0 || ldb % align != 0";
  if (plan.dResult >= 0)
    os << " || ldd % K::kAlignD != 0";
  else if (tmaResult >= 0)
    os << " || ldd % (16 / sizeof(" << plan.results[tmaResult].element << ")) != 0";
  os << " || !coda_aligned(a) || !coda_aligned(b)";
  if (tmaResult >= 0)
    os << " || !coda_aligned(result" << tmaResult << ")";
  if (plan.dResult >= 0) {
    if (plan.hasSource)
      os << " || !coda_aligned(init" << plan.dResult << ")";
    if (plan.sourceOperand >= 0)
      os << " || n % K::kAlignD != 0 || !coda_aligned(operand" << plan.sourceOperand << ")";
  }
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    if (tableByTma(op, i, plan, config, options))
      os << " || !coda_aligned(operand" << i << ")";
  // A ContractStore's rows are N/2 elements, packed.
  if (plan.contractResult >= 0)
    os << " || (n / 2) % (16 / sizeof(" << plan.results[plan.contractResult].element
       << ")) != 0 || !coda_aligned(result" << plan.contractResult << ")";
  os << ")\n    return CODA_MISALIGNED;\n";
  os << "  auto sA = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideA{}, {m, k, 1});\n";
  os << "  auto sB = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideB{}, {n, k, 1});\n";
  os << "  auto sD = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideD{}, {m, n, 1});\n";
  os << "  cute::get<" << (op.getTransposeA() ? 1 : 0) << ">(sA) = lda;\n";
  os << "  cute::get<" << (op.getTransposeB() ? 0 : 1) << ">(sB) = ldb;\n";
  if (halves) {
    os << "  // The pairs side by side, packed, after the GEMM's workspace and partials.\n";
    os << "  K::ElementD *staging = reinterpret_cast<K::ElementD *>(static_cast<char *>(workspace) + "
       << name << "_staging_offset(m, n, k));\n";
  } else {
    os << "  cute::get<0>(sD) = ldd;\n";
  }
  std::string dPtr = halves ? "staging"
                     : plan.dResult >= 0
                         ? "static_cast<K::ElementD *>(result" + std::to_string(plan.dResult) + ")"
                         : "nullptr";
  std::string cPtr = plan.hasSource ? "static_cast<const K::ElementC *>(init" +
                                          std::to_string(plan.dResult) + ")"
                     : plan.sourceOperand >= 0
                         ? "static_cast<const K::ElementC *>(operand" +
                               std::to_string(plan.sourceOperand) + ")"
                         : "nullptr";
  // An init shares D's leading dimension; an operand is packed.
  if (plan.sourceOperand >= 0)
    os << "  auto sC = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideC{}, {m, n, 1});\n";
  os << "  typename G::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {m, n, k, 1},\n";
  os << "      {static_cast<const K::ElementIn *>(a), sA, static_cast<const K::ElementIn *>(b), sB},\n";
  os << "      {{}, " << cPtr << ", " << (plan.sourceOperand >= 0 ? "sC" : "sD") << ", " << dPtr
     << ", sD}};\n";
  emitScheduler();
  os << "  size_t gemmBytes = coda_round_up(G::get_workspace_size(args));\n";
  if (!reductions.empty()) {
    os << "  size_t offsets[" << reductions.size() << "];\n";
    os << "  " << name << "_partials(m, n, offsets);\n";
    os << "  char *partials = static_cast<char *>(workspace) + gemmBytes;\n";
  }
  // The DAG's arguments, node by node.
  SmallVector<std::string> nodeArgs;
  if (plan.hasSource)
    nodeArgs.push_back("{}");
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i) {
    std::string ptr = "static_cast<const " + plan.operandElements[i] + " *>(operand" +
                      std::to_string(i) + ")";
    switch (op.getRole(i)) {
    case OperandRole::Scalar:
      nodeArgs.push_back("{{}, {" + ptr + "}}");
      break;
    case OperandRole::Row:
      nodeArgs.push_back(awaits ? "{{" + ptr + "}, rowsDone}" : "{" + ptr + "}");
      break;
    case OperandRole::Col:
      nodeArgs.push_back("{" + ptr + "}");
      break;
    case OperandRole::Matrix:
      nodeArgs.push_back(int(i) == plan.sourceOperand ? "{}" : "{" + ptr + ", n}");
      break;
    case OperandRole::Tiled:
      nodeArgs.push_back(tableByTma(op, i, plan, config, options)
                             ? "{" + ptr + "}"
                             : "{" + ptr + ", " + std::to_string(periodOf(op, i)) + "}");
      break;
    }
  }
  for (unsigned s = 0, e = plan.streams.size(); s < e; ++s)
    nodeArgs.push_back("{}");
  unsigned reductionIndex = 0;
  for (auto [r, result] : llvm::enumerate(plan.results)) {
    std::string out = "result" + std::to_string(r);
    if (result.sink == Sink::Halves) {
      nodeArgs.push_back("{static_cast<" + result.element + " *>(" + out + "), ldd}");
    } else if (result.sink == Sink::Contract) {
      nodeArgs.push_back("{static_cast<" + result.element + " *>(" + out + "), n / 2}");
    } else if (result.sink == Sink::Store) {
      const char *ld = contract ? "n / 2" : plan.pairwise == PairwiseMode::Expand ? "2 * n" : "n";
      nodeArgs.push_back("{static_cast<" + result.element + " *>(" + out + "), " + ld + "}");
    } else if (result.sink == Sink::Reduce) {
      Combiner c = result.mode.getCombiner();
      std::string identity = c == Combiner::LogSumExp ? "coda::rt::MaxSum{-INFINITY, 0.f}"
                                                : std::string(identityOf(c));
      nodeArgs.push_back("{partials + offsets[" + std::to_string(reductionIndex++) + "], " +
                         identity + "}");
    }
  }
  nodeArgs.push_back("{}");
  assert(nodeArgs.size() == numNodes && "one argument per DAG node");
  (void)numNodes;
  os << "  args.epilogue.thread = {";
  llvm::interleaveComma(nodeArgs, os);
  os << "};\n";
  // Whole waves: as many CTAs as the tiles need in as many waves as one per SM would take (or
  // the SMs a reduction beside the kernel leaves it).
  std::string waves = "coda::rt::wholeWaves(" + tiling + ")";
  if (awaits) // (0: every SM)
    os << "  args.hw_info.sm_count = " << (options.wholeWaves ? "sms > 0 ? sms : " + waves : "sms")
       << ";\n";
  else if (options.wholeWaves)
    os << "  args.hw_info.sm_count = " << waves << ";\n";
  os << "  if (G::can_implement(args) != cutlass::Status::kSuccess) return CODA_UNSUPPORTED;\n";
  if (options.directLaunch) {
    os << "  if (coda::rt::launchGemm<G>(args, workspace, stream"
       << (awaits ? ", /*pdl=*/rowsDone != nullptr" : "")
       << ") != cudaSuccess) return CODA_LAUNCH_FAILED;\n";
  } else {
    os << "  G gemm;\n";
    os << "  if (gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess) return CODA_LAUNCH_FAILED;\n";
    if (awaits) // launched behind the reduction, which lets it start at once
      os << "  if (gemm.run(stream, nullptr, /*launch_with_pdl=*/rowsDone != nullptr) != "
            "cutlass::Status::kSuccess)\n    return CODA_LAUNCH_FAILED;\n";
    else
      os << "  if (gemm.run(stream) != cutlass::Status::kSuccess) return CODA_LAUNCH_FAILED;\n";
  }
  if (halves)
    os << "  if (coda::rt::launchPairsToHalves<K::ElementD, " << *halves << ">(staging, static_cast<K::ElementD *>(result"
       << plan.dResult << "), m, n, ldd, stream) != cudaSuccess)\n    return CODA_LAUNCH_FAILED;\n";
  if (!reductions.empty()) {
    os << "  // Combine the partials of every row (column) in tile order: deterministic.\n";
    os << "  long long tilesM = (m + K::kTileM - 1) / K::kTileM, tilesN = (n + K::kTileN - 1) / K::kTileN;\n";
    reductionIndex = 0;
    for (unsigned r : reductions) {
      ResultModeAttr mode = plan.results[r].mode;
      Combiner c = mode.getCombiner();
      std::string partial = c == Combiner::LogSumExp ? "coda::rt::MaxSum" : "float";
      bool row = mode.getDim() == ReduceDim::Row;
      os << "  if (coda::rt::launchCombine<coda::rt::Combiner::" << combinerName(c) << ", " << partial
         << ">(partials + offsets[" << reductionIndex++ << "], static_cast<float *>(result" << r
         << "), " << (row ? "m" : (contract ? "n / 2" : "n")) << ", "
         << (row ? "int(tilesN)" : "int(tilesM)") << ", "
         << (row ? "tilesM * K::kTileM" : "tilesN * K::kTileN") << ", "
         << (!row && contract ? 2 : 1) << ", stream) != cudaSuccess)\n";
      os << "    return CODA_LAUNCH_FAILED;\n";
    }
  }
  os << "  return CODA_OK;\n}\n\n";
  if (awaits) {
    os << runs << "extern \"C\" int " << name << "(";
    SmallVector<std::string> params = launcherParams(op), args;
    llvm::interleaveComma(params, os);
    for (const std::string &p : params)
      args.push_back(p.substr(p.find_last_of(" *") + 1));
    os << ") {\n  return " << name << "_launch(";
    llvm::interleaveComma(args, os);
    os << ", nullptr, 0);\n}\n\n";
  }

  os << "// Bytes of device memory " << name << " needs as its workspace.\n";
  os << "extern \"C\" size_t " << name << "_workspace_size(int m, int n, int k) {\n";
  if (halves) {
    os << "  return " << name << "_staging_offset(m, n, k) + coda_round_up(size_t(m) * n * sizeof("
       << traits << "::ElementD));\n}\n\n";
    return;
  }
  emitGemmWorkspace();
}


/// What the PyTorch binding needs once per file.
static constexpr const char *kTorchPrelude = R"cu(// PyTorch binding: torch.utils.cpp_extension.load(sources=[this file], ...) returns a module
// with one function per kernel, taking and returning torch.Tensors on the current CUDA stream.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

// Sizes are spelled with snprintf: streaming integers into TORCH_CHECK's message from this
// translation unit crashed on the H200 machine (torch 2.11, nvcc 13).
static std::string coda_dims(at::IntArrayRef dims) {
  std::string s = "[";
  char buf[32];
  for (size_t i = 0; i < dims.size(); ++i) {
    snprintf(buf, sizeof buf, i ? ", %lld" : "%lld", static_cast<long long>(dims[i]));
    s += buf;
  }
  return s + "]";
}

static void coda_check_device(const char *fn, const char *what, const torch::Tensor &t,
                              at::ScalarType dtype, const at::Device &device) {
  TORCH_CHECK(t.is_cuda(), fn, ": ", what, " must be a CUDA tensor, got one on ", t.device());
  TORCH_CHECK(t.device() == device, fn, ": ", what, " is on ", t.device(), " but the first input is on ", device);
  TORCH_CHECK(t.scalar_type() == dtype, fn, ": ", what, " must be ", dtype, ", got ", t.scalar_type());
}

/// A or B: two-dimensional with unit stride along its rows (rows may be padded).
static void coda_check_matrix(const char *fn, const char *what, const torch::Tensor &t,
                              at::ScalarType dtype, const at::Device &device) {
  coda_check_device(fn, what, t, dtype, device);
  TORCH_CHECK(t.dim() == 2, fn, ": ", what, " must be a matrix, got shape ", coda_dims(t.sizes()).c_str());
  TORCH_CHECK(t.stride(1) == 1 && t.stride(0) >= t.size(1), fn, ": ", what,
              " must be row-major with unit column stride (call .contiguous()), got strides ",
              coda_dims(t.strides()).c_str());
}

/// Pairwise kernels read column pairs.
static void coda_check_even(const char *fn, int64_t n) {
  TORCH_CHECK(n % 2 == 0, fn, ": a pairwise kernel needs an even N (B has an odd number of columns)");
}

/// Operands and inits: exactly this shape, contiguous.
static void coda_check(const char *fn, const char *what, const torch::Tensor &t,
                       at::ScalarType dtype, at::IntArrayRef shape, const at::Device &device) {
  coda_check_device(fn, what, t, dtype, device);
  TORCH_CHECK(t.sizes() == shape, fn, ": ", what, " must have shape ", coda_dims(shape).c_str(),
              ", got ", coda_dims(t.sizes()).c_str());
  TORCH_CHECK(t.is_contiguous(), fn, ": ", what, " must be contiguous (call .contiguous())");
}

)cu";

static const char *torchDtype(Type t) {
  if (t.isBF16())
    return "at::kBFloat16";
  if (t.isF16())
    return "at::kHalf";
  if (t.isF32())
    return "at::kFloat";
  // As bufferElement stores them: an index as long long, i1 as bool.
  if (t.isInteger(64) || t.isIndex())
    return "at::kLong";
  if (t.isInteger(1))
    return "at::kBool";
  return "at::kInt";
}

/// A PyTorch function for one kernel: checks its tensors, allocates its results and workspace,
/// launches on the current stream and turns a failing status into a Python error.
void CudaEmitter::emitTorchWrapper(GemmOp op, StringRef name) {
  unsigned numResults = op.getNumResults();
  SmallVector<std::string> inputs = kernelInputs(op), params;
  for (const std::string &input : inputs)
    params.push_back("torch::Tensor " + input);
  std::string ret = numResults == 1 ? "torch::Tensor" : "std::vector<torch::Tensor>";
  os << "static " << ret << " coda_torch_" << name << "(";
  llvm::interleaveComma(params, os);
  os << ") {\n";
  os << "  const char *fn = \"" << name << "\";\n";
  Type inElem = op.getA().getType().getElementType();
  os << "  coda_check_matrix(fn, \"a\", a, " << torchDtype(inElem) << ", a.device());\n";
  os << "  coda_check_matrix(fn, \"b\", b, " << torchDtype(inElem) << ", a.device());\n";
  os << "  const int64_t m = a.size(" << (op.getTransposeA() ? 1 : 0) << "), k = a.size("
     << (op.getTransposeA() ? 0 : 1) << "), n = b.size(" << (op.getTransposeB() ? 0 : 1) << ");\n";
  os << "  TORCH_CHECK(b.size(" << (op.getTransposeB() ? 1 : 0) << ") == k, fn, \": b must be "
     << (op.getTransposeB() ? "[N, K]" : "[K, N]")
     << " with a's K, got \", coda_dims(b.sizes()).c_str(), \" for a \", coda_dims(a.sizes()).c_str());\n";
  std::string nOut = op.getPairwise() == PairwiseMode::Contract ? "n / 2"
                     : op.getPairwise() == PairwiseMode::Expand ? "2 * n"
                                                                : "n";
  if (op.getInArity() == 2)
    os << "  coda_check_even(fn, n);\n";
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i) {
    std::string shape;
    switch (op.getRole(i)) {
    case OperandRole::Scalar: shape = "{}"; break;
    case OperandRole::Row: shape = "{m}"; break;
    case OperandRole::Col: shape = "{n}"; break;
    case OperandRole::Matrix: shape = "{m, n}"; break;
    case OperandRole::Tiled:
      shape = "{m, " + std::to_string(periodOf(op, i)) + "}";
      break;
    }
    os << "  coda_check(fn, \"operand" << i << " (" << stringifyOperandRole(op.getRole(i))
       << ")\", operand" << i << ", "
       << torchDtype(cast<ShapedType>(op.getExtras()[i].getType()).getElementType()) << ", "
       << shape << ", a.device());\n";
  }
  SmallVector<std::string> outs;
  for (unsigned r = 0; r < numResults; ++r) {
    ResultModeAttr mode = op.getMode(r);
    std::string out = "result" + std::to_string(r);
    if (mode.isReduce()) {
      os << "  auto " << out << " = torch::empty({" << (mode.getDim() == ReduceDim::Row ? "m" : nOut)
         << "}, a.options().dtype(at::kFloat));\n";
    } else {
      Type t = cast<ShapedType>(op->getResult(r).getType()).getElementType();
      if (mode.isAccumulate())
        os << "  coda_check(fn, \"init" << r << "\", init" << r << ", " << torchDtype(t) << ", {m, "
           << nOut << "}, a.device());\n";
      os << "  auto " << out << " = torch::empty({m, " << nOut << "}, a.options().dtype("
         << torchDtype(t) << "));\n";
    }
    outs.push_back(out);
  }
  os << "  const at::cuda::CUDAGuard guard(a.device());\n";
  os << "  auto workspace = torch::empty({static_cast<int64_t>(" << name
     << "_workspace_size(m, n, k))}, a.options().dtype(at::kByte));\n";
  os << "  int status = " << name << "(";
  for (const std::string &tensor : llvm::concat<const std::string>(inputs, outs))
    os << tensor << ".data_ptr(), ";
  os << "m, n, k, a.stride(0), b.stride(0), " << nOut
     << ", workspace.data_ptr(), at::cuda::getCurrentCUDAStream());\n";
  emitTorchReturn(outs);
}

/// Ends a PyTorch function: a failing status as a Python error, then its result(s).
void CudaEmitter::emitTorchReturn(ArrayRef<std::string> outs) {
  os << "  TORCH_CHECK(status == CODA_OK, fn, \": \", coda_status_string(status));\n";
  if (outs.size() == 1) {
    os << "  return " << outs[0] << ";\n}\n\n";
    return;
  }
  os << "  return {";
  llvm::interleaveComma(outs, os);
  os << "};\n}\n\n";
}

//===----------------------------------------------------------------------===//
// Whole functions: a launcher that runs a function's ops in order on the device
//===----------------------------------------------------------------------===//

/// C type of a buffer element.
static FailureOr<std::string> bufferElement(Type t) {
  if (t.isF32())
    return std::string("float");
  if (t.isBF16())
    return std::string("__nv_bfloat16");
  if (t.isF16())
    return std::string("__half");
  if (t.isInteger(64) || t.isIndex())
    return std::string("long long");
  if (t.isInteger(32))
    return std::string("int");
  if (t.isInteger(1))
    return std::string("bool");
  return failure();
}

/// Bits of an element as bufferElement stores it (an index as long long).
static unsigned storageBits(Type t) { return t.isIndex() ? 64 : t.getIntOrFloatBitWidth(); }

static int64_t numBytes(RankedTensorType t) {
  return t.getNumElements() * std::max<int64_t>(1, storageBits(t.getElementType()) / 8);
}

/// An affine expression over loop variables as C (all values are non-negative).
static FailureOr<std::string> affineToC(AffineExpr e, ArrayRef<std::string> dims) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return dims[d.getPosition()];
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return std::to_string(c.getValue()) + "LL";
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return failure();
  FailureOr<std::string> l = affineToC(bin.getLHS(), dims), r = affineToC(bin.getRHS(), dims);
  if (failed(l) || failed(r))
    return failure();
  switch (e.getKind()) {
  case AffineExprKind::Add: return "(" + *l + " + " + *r + ")";
  case AffineExprKind::Mul: return "(" + *l + " * " + *r + ")";
  case AffineExprKind::Mod: return "(" + *l + " % " + *r + ")";
  case AffineExprKind::FloorDiv: return "(" + *l + " / " + *r + ")";
  case AffineExprKind::CeilDiv: return "((" + *l + " + " + *r + " - 1) / " + *r + ")";
  default: return failure();
  }
}

/// Row-major linear index of `indices` in a tensor of `type`.
static std::string linearIndex(RankedTensorType type, ArrayRef<std::string> indices) {
  std::string index;
  int64_t stride = 1;
  ArrayRef<int64_t> shape = type.getShape();
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    std::string term = stride == 1 ? indices[d] : indices[d] + " * " + std::to_string(stride) + "LL";
    index = index.empty() ? term : term + " + " + index;
    stride *= shape[d];
  }
  return index.empty() ? "0" : index;
}

/// Why the function cannot run as a launcher (an op outside what the backend emits), or
/// success.
LogicalResult CudaEmitter::checkFunction(func::FuncOp func, std::string &why) {
  if (func.isExternal()) {
    why = "it has no body";
    return failure();
  }
  auto tensorOk = [&](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.hasStaticShape() && succeeded(bufferElement(tensor.getElementType()));
  };
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(), func.getResultTypes()))
    if (!tensorOk(t)) {
      why = "its signature has a non-tensor or dynamic type";
      return failure();
    }
  for (Operation &op : func.getBody().front()) {
    bool ok = llvm::TypeSwitch<Operation *, bool>(&op)
                  .Case<GemmOp, tensor::EmptyOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                        func::ReturnOp, arith::ConstantOp>([](auto) { return true; })
                  .Case([&](func::CallOp call) { return launchers.contains(call.getCallee()); })
                  .Case([&](tensor::InsertSliceOp s) { return s.hasUnitStride() && s.getSourceType().hasStaticShape() && s.getOffsets().empty(); })
                  .Case([&](tensor::ExtractSliceOp s) {
                    return s.getType().hasStaticShape() && s.getOffsets().empty() &&
                           s.getStrides().empty() && s.getSourceType().getRank() == s.getType().getRank();
                  })
                  .Case([&](tensor::ConcatOp c) { return c.getResultType().hasStaticShape(); })
                  .Case([&](linalg::GenericOp g) { return g.hasPureTensorSemantics(); })
                  .Case([&](linalg::FillOp f) {
                    return f.hasPureTensorSemantics() && f.value().getDefiningOp<arith::ConstantOp>();
                  })
                  .Default([](Operation *) { return false; });
    if (!ok) {
      why = "'" + op.getName().getStringRef().str() + "' runs outside coda kernels";
      return failure();
    }
    for (Type t : op.getResultTypes())
      if (isa<TensorType>(t) && !tensorOk(t)) {
        why = "a tensor has a dynamic shape or an unsupported element type";
        return failure();
      }
  }
  return success();
}

/// A __global__ function for one linalg.generic: one thread per point of the parallel loops,
/// the reduction loops in order inside, the outputs' running values in registers.
namespace {
/// How one output of a reduction generic folds in a value: out = combine(value, out).
struct WarpCombine {
  Operation *op;     // the combining op, which the warp version replaces
  Value value;       // what it folds into the output
  const char *fn;    // the combine as a call (fmaxf, fminf), or empty
  const char *sym;   // else as an infix operator (+, *)
  const char *identity;
};
} // namespace

/// A generic that reduces its innermost loop dimension into f32 (or integer: counts) outputs,
/// each by a plain fold out = combine(f(inputs), out), runs one warp per output point: lanes
/// stride along the reduced dimension (coalesced for row-major inputs), then combine by
/// shuffles in a fixed order (deterministic). Returns the folds, or nothing when the generic is not of that form.
static std::optional<SmallVector<WarpCombine>> warpReduction(linalg::GenericOp generic) {
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (iterators.empty() || iterators.back() != utils::IteratorType::reduction ||
      llvm::count(iterators, utils::IteratorType::reduction) != 1 || ranges.back() < 64)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(generic.getBlock()->getTerminator());
  SmallVector<WarpCombine> folds;
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    BlockArgument out = generic.getMatchingBlockArgument(&init);
    Value yielded = yield.getValues()[init.getOperandNumber() - generic.getNumDpsInputs()];
    Operation *op = yielded.getDefiningOp();
    if (!(out.getType().isF32() || out.getType().isInteger(64) || out.getType().isInteger(32)) ||
        !out.hasOneUse() || !op || !yielded.hasOneUse() ||
        op->getBlock() != generic.getBlock() || op->getNumOperands() != 2 ||
        (op->getOperand(0) != out && op->getOperand(1) != out) ||
        op->getOperand(0) == op->getOperand(1))
      return std::nullopt;
    Value value = op->getOperand(0) == out ? op->getOperand(1) : op->getOperand(0);
    if (value.getParentBlock() != generic.getBlock())
      return std::nullopt; // a value from above: rare, left to the sequential loop
    std::optional<WarpCombine> fold =
        llvm::TypeSwitch<Operation *, std::optional<WarpCombine>>(op)
            .Case([&](arith::AddFOp) { return WarpCombine{op, value, "", "+", "0.f"}; })
            .Case([&](arith::AddIOp) { return WarpCombine{op, value, "", "+", "0"}; })
            .Case([&](arith::MulFOp) { return WarpCombine{op, value, "", "*", "1.f"}; })
            .Case<arith::MaximumFOp, arith::MaxNumFOp>(
                [&](auto) { return WarpCombine{op, value, "fmaxf", "", "-INFINITY"}; })
            .Case<arith::MinimumFOp, arith::MinNumFOp>(
                [&](auto) { return WarpCombine{op, value, "fminf", "", "INFINITY"}; })
            .Default([](Operation *) { return std::nullopt; });
    if (!fold)
      return std::nullopt;
    folds.push_back(*fold);
  }
  return folds;
}

/// The C literal a linalg.fill writes.
static std::string fillLiteral(linalg::FillOp fill) {
  auto value = cast<TypedAttr>(fill.value().getDefiningOp<arith::ConstantOp>().getValue());
  if (auto f = dyn_cast<FloatAttr>(value))
    return llvm::formatv("{0:e9}f", f.getValueAsDouble()).str();
  return std::to_string(cast<IntegerAttr>(value).getValue().getSExtValue());
}

/// A warp reduction reads each init once, when it folds its result in: an init filled with a
/// constant is that constant, and neither the fill nor the copy into the output need to run.
static linalg::FillOp foldedFill(linalg::GenericOp generic, OpOperand &init) {
  if (!warpReduction(generic))
    return {};
  return init.get().getDefiningOp<linalg::FillOp>();
}

/// A fill that only the warp reductions reading it as their init use: it never runs.
static bool fillFolded(linalg::FillOp fill) {
  return llvm::all_of(fill.result().getUses(), [](OpOperand &use) {
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    return generic && generic.isDpsInit(&use) && foldedFill(generic, use);
  });
}

/// The coda.gemm that reads every result of `generic`, a row reduction with a warp per row, only
/// as row operands (through reshapes), one row per GEMM row: the reduction can hand its rows to
/// that GEMM a row block at a time while it runs (coda/Runtime/Overlap.cuh). Null otherwise.
static GemmOp rowsConsumer(linalg::GenericOp generic) {
  if (!warpReduction(generic))
    return {};
  int64_t points = 1;
  for (auto [range, iterator] :
       llvm::zip(generic.getStaticLoopRanges(), generic.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel)
      points *= range;
  GemmOp consumer;
  SmallVector<Value> values(generic->getResults());
  while (!values.empty()) {
    for (OpOperand &use : values.pop_back_val().getUses()) {
      Operation *user = use.getOwner();
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user)) {
        values.push_back(user->getResult(0));
        continue;
      }
      auto gemm = dyn_cast<GemmOp>(user);
      if (!gemm || (consumer && gemm != consumer) || gemm.isBatched() || gemm.getM() != points)
        return {};
      unsigned first = gemm.getExtras().getBeginOperandIndex();
      unsigned extra = use.getOperandNumber() - first;
      if (use.getOperandNumber() < first || extra >= gemm.getExtras().size() ||
          gemm.getRole(extra) != OperandRole::Row)
        return {};
      consumer = gemm;
    }
  }
  return consumer;
}

GemmOp CudaEmitter::handsRowsTo(linalg::GenericOp generic) {
  GemmOp consumer = rowsConsumer(generic);
  return consumer && awaiting.contains(consumer) ? consumer : GemmOp();
}

static std::string combineExpr(const WarpCombine &c, const std::string &a, const std::string &b) {
  return *c.fn ? std::string(c.fn) + "(" + a + ", " + b + ")" : a + " " + c.sym + " " + b;
}

/// Elements per thread along the last loop dimension of a generic kernel outside the
/// kernels: 8, read and written 16 bytes at a time (coda::rt::load8/store8), when every operand
/// that depends on that dimension has it, alone, as its contiguous last index, in a float
/// type, with a last dimension (hence every row offset) a multiple of 8; else 1. Elementwise
/// generics and warp reductions only.
static int64_t vectorWidth(linalg::GenericOp generic, bool warp) {
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (iterators.empty() || ranges.back() % kVector != 0 ||
      (!warp && llvm::count(iterators, utils::IteratorType::reduction) != 0))
    return 1;
  unsigned last = iterators.size() - 1;
  for (OpOperand &operand : generic->getOpOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    if (!map.isFunctionOfDim(last)) {
      // Broadcast along the vector: fine for inputs and for a warp reduction's outputs.
      if (!warp && generic.isDpsInit(&operand))
        return 1;
      continue;
    }
    auto type = cast<RankedTensorType>(operand.get().getType());
    auto lastIndex = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!lastIndex || lastIndex.getPosition() != last || type.getShape().back() % kVector != 0 ||
        !isa<FloatType>(type.getElementType()) || type.getElementType().getIntOrFloatBitWidth() > 32)
      return 1;
    for (AffineExpr e : map.getResults().drop_back())
      if (e.isFunctionOfDim(last))
        return 1;
  }
  return kVector;
}

LogicalResult CudaEmitter::emitGenericKernel(linalg::GenericOp generic, StringRef name,
                                             SmallVectorImpl<Value> &params,
                                             SmallVectorImpl<unsigned> &vectorParams,
                                             int64_t &threads, GenericRole role) {
  names.clear();
  nextName = 0;
  Block &body = *generic.getBlock();
  // Tensors the body reads with tensor.extract travel as extra parameters.
  SmallVector<Value> captured;
  generic.walk([&](tensor::ExtractOp e) {
    if (!llvm::is_contained(captured, e.getTensor()))
      captured.push_back(e.getTensor());
  });
  params.clear();
  for (Value v : generic.getDpsInputs())
    params.push_back(v);
  params.append(captured.begin(), captured.end());
  for (Value v : generic.getDpsInits())
    params.push_back(v);

  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  std::optional<SmallVector<WarpCombine>> folds = warpReduction(generic);
  int64_t width = vectorWidth(generic, folds.has_value());
  unsigned last = ranges.size() - 1;
  SmallVector<std::string> dims;
  for (unsigned d = 0; d < ranges.size(); ++d)
    dims.push_back("d" + std::to_string(d));
  // With vectors, the last dimension's index is its vector's first element, then each element.
  SmallVector<std::string> vectorDims(dims);
  if (width > 1)
    vectorDims[last] += "v";
  int64_t points = 1, reduced = 1;
  for (unsigned d = 0; d < ranges.size(); ++d)
    (iterators[d] == utils::IteratorType::parallel ? points : reduced) *= ranges[d];

  os << "// " << name << ": a linalg.generic over [";
  llvm::interleaveComma(ranges, os);
  os << "] outside the kernels"
     << (width > 1 ? ", 8 elements of the last dimension per step" : "") << ".\n";
  unsigned numInputs = generic.getNumDpsInputs() + captured.size();
  std::string paramList, argList;
  for (auto [i, v] : llvm::enumerate(params)) {
    auto type = cast<RankedTensorType>(v.getType());
    paramList += std::string(i ? ", " : "") + (i < numInputs ? "const " : "") +
                 *bufferElement(type.getElementType()) + " *__restrict__ p" + std::to_string(i);
    argList += (i ? ", p" : "p") + std::to_string(i);
  }
  // A reduction that hands its rows to a GEMM beside it reduces a row in a function that both
  // kernels call.
  bool publishing = role == GenericRole::Publishing && folds.has_value();
  // A few output points with long reductions (cross-entropy's mean over 8192 rows: 24 µs for one
  // warp on the H200) fold with a block of kFoldBlock threads per point instead of a warp.
  constexpr int64_t kFoldBlock = 256, kFewPoints = 64;
  bool blockFold = folds && role == GenericRole::Kernel && points <= kFewPoints &&
                   reduced >= 4 * kFoldBlock * width;
  int64_t foldThreads = blockFold ? kFoldBlock : 32;
  // Threads to launch (in blocks of 256): a warp or a block per output point, or one per point
  // (per 8 with vectors).
  int64_t units = folds ? points : points / width;
  threads = folds ? points * foldThreads : units;
  // The point's indices.
  auto emitIndices = [&] {
    os << "  if (point >= " << units << "LL) return;\n";
    int64_t stride = units;
    for (unsigned d = 0; d < ranges.size(); ++d)
      if (iterators[d] == utils::IteratorType::parallel) {
        int64_t range = !folds && d == last ? ranges[d] / width : ranges[d];
        stride /= range;
        os << "  long long " << vectorDims[d] << " = point / " << stride << "LL % " << range
           << "LL" << (!folds && d == last && width > 1 ? " * " + std::to_string(width) + "LL" : "")
           << ";\n";
      }
  };
  auto operandIndex = [&](OpOperand &operand, ArrayRef<std::string> at) -> FailureOr<std::string> {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    SmallVector<std::string> indices;
    for (AffineExpr e : map.getResults()) {
      FailureOr<std::string> c = affineToC(e, at);
      if (failed(c))
        return failure();
      indices.push_back(*c);
    }
    return linearIndex(cast<RankedTensorType>(operand.get().getType()), indices);
  };
  auto vectorized = [&](OpOperand &operand) { return width > 1 && alongLastLoop(generic, operand); };
  auto vectorName = [&](Value arg) { return valueName(arg) + "v"; };
  vectorParams.clear();
  for (auto [i, v] : llvm::enumerate(params))
    if (!llvm::is_contained(captured, v) &&
        vectorized(i < static_cast<size_t>(generic.getNumDpsInputs())
                       ? generic->getOpOperand(i)
                       : *generic.getDpsInitOperand(i - numInputs)))
      vectorParams.push_back(i);
  // An input's 16-byte load at the step's first element.
  SmallVector<std::pair<unsigned, BlockArgument>> vectorInputs;
  for (auto [i, input] : llvm::enumerate(generic.getDpsInputOperands()))
    if (BlockArgument arg = generic.getMatchingBlockArgument(input);
        width > 1 && !arg.use_empty() && vectorized(*input))
      vectorInputs.push_back({unsigned(i), arg});
  auto vectorLoad = [&](unsigned i, BlockArgument arg) -> FailureOr<std::string> {
    FailureOr<std::string> index = operandIndex(*generic.getDpsInputOperand(i), vectorDims);
    if (failed(index))
      return generic.emitOpError("has an indexing map the CUDA backend cannot emit");
    return "coda::rt::load8(p" + std::to_string(i) + ", " + *index + ")";
  };

  if (publishing) {
    os << "__device__ __forceinline__ void " << name << "_row(long long point, int lane, "
       << paramList << ") {\n";
  } else if (blockFold) {
    os << "__global__ void " << name << "(" << paramList << ") {\n  // One block of "
       << kFoldBlock << " threads per output point.\n";
    os << "  long long point = blockIdx.x;\n  int lane = threadIdx.x;\n";
  } else if (folds) {
    os << "__global__ void " << name << "(" << paramList << ") {\n  // One warp per output point.\n";
    os << "  long long point = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;\n";
    os << "  int lane = threadIdx.x % 32;\n";
  } else {
    os << "__global__ void " << name << "(" << paramList << ") {\n";
    os << "  long long point = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n";
  }
  emitIndices();

  // Running values of the outputs, read only when the body uses them.
  unsigned firstInit = numInputs;
  for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
    BlockArgument arg = generic.getMatchingBlockArgument(&init);
    FailureOr<std::string> type = cType(generic, arg.getType());
    FailureOr<std::string> index = operandIndex(init, vectorDims);
    if (failed(type) || failed(index))
      return generic.emitOpError("has an indexing map the CUDA backend cannot emit");
    std::string p = "p" + std::to_string(firstInit + i);
    if (folds)
      os << "  " << *type << " " << valueName(arg) << " = " << (*folds)[i].identity
         << "; // this lane's part\n";
    else if (vectorized(init))
      os << "  coda::rt::Vec8 " << vectorName(arg)
         << (arg.use_empty() ? "" : " = coda::rt::load8(" + p + ", " + *index + ")") << ";\n";
    else
      os << "  " << *type << " " << valueName(arg)
         << (arg.use_empty() ? "" : " = coda::rt::load(" + p + ", " + *index + ")") << ";\n";
  }
  std::string inner = "  ";
  for (unsigned d = 0; d < ranges.size(); ++d)
    if (iterators[d] != utils::IteratorType::parallel) {
      if (folds)
        os << inner << "for (long long " << vectorDims[d] << " = lane * " << width << "LL; "
           << vectorDims[d] << " < " << ranges[d] << "LL; " << vectorDims[d]
           << " += " << foldThreads * width << ") {\n";
      else
        os << inner << "for (long long " << dims[d] << " = 0; " << dims[d] << " < " << ranges[d]
           << "LL; ++" << dims[d] << ") {\n";
      inner += "  ";
    }
  // Vector loads at the vector's first element, then one step per element.
  if (width > 1) {
    for (auto [i, arg] : vectorInputs) {
      FailureOr<std::string> load = vectorLoad(i, arg);
      if (failed(load))
        return failure();
      os << inner << "coda::rt::Vec8 " << vectorName(arg) << " = " << *load << ";\n";
    }
    os << inner << "#pragma unroll\n"
       << inner << "for (int e = 0; e < " << width << "; ++e) {\n";
    inner += "  ";
    bool indexed = false;
    generic.walk([&](linalg::IndexOp index) { indexed |= index.getDim() == last; });
    if (indexed)
      os << inner << "long long " << dims[last] << " = " << vectorDims[last] << " + e;\n";
  }
  indent = inner;
  for (auto [i, input] : llvm::enumerate(generic.getDpsInputOperands())) {
    BlockArgument arg = generic.getMatchingBlockArgument(input);
    if (arg.use_empty())
      continue;
    FailureOr<std::string> type = cType(generic, arg.getType());
    FailureOr<std::string> index = operandIndex(*input, dims);
    if (failed(type) || failed(index))
      return generic.emitOpError("has an indexing map the CUDA backend cannot emit");
    os << inner << *type << " " << valueName(arg) << " = "
       << (vectorized(*input) ? vectorName(arg) + ".v[e]"
                              : "coda::rt::load(p" + std::to_string(i) + ", " + *index + ")")
       << ";\n";
  }
  if (width > 1 && !folds)
    for (OpOperand &init : generic.getDpsInitsMutable())
      if (BlockArgument arg = generic.getMatchingBlockArgument(&init); !arg.use_empty())
        os << inner << "float " << valueName(arg) << " = " << vectorName(arg) << ".v[e];\n";
  for (Operation &op : body.without_terminator()) {
    if (folds && llvm::any_of(*folds, [&](const WarpCombine &f) { return f.op == &op; }))
      continue; // folded below, into this lane's part
    // Constants from above are used inside; everything else is a scalar op of the body.
    for (Value v : op.getOperands())
      if (auto c = v.getDefiningOp<arith::ConstantOp>(); c && !names.count(v) &&
                                                          !generic->isProperAncestor(c))
        if (failed(emitScalarOp(*c)))
          return failure();
    LogicalResult r =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](linalg::IndexOp index) -> LogicalResult {
              os << inner << "long long " << valueName(index) << " = " << dims[index.getDim()]
                 << ";\n";
              return success();
            })
            .Case([&](tensor::ExtractOp extract) -> LogicalResult {
              SmallVector<std::string> indices;
              for (Value i : extract.getIndices())
                indices.push_back(valueName(i));
              unsigned p = generic.getNumDpsInputs() +
                           llvm::find(captured, extract.getTensor()) - captured.begin();
              FailureOr<std::string> type = cType(&op, extract.getType());
              if (failed(type))
                return failure();
              os << inner << *type << " " << valueName(extract) << " = coda::rt::load(p" << p
                 << ", " << linearIndex(extract.getTensor().getType(), indices) << ");\n";
              return success();
            })
            .Default([&](Operation *other) { return emitScalarOp(*other); });
    if (failed(r))
      return failure();
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
    BlockArgument arg = generic.getMatchingBlockArgument(&init);
    std::string out = valueName(arg);
    if (folds)
      os << inner << out << " = " << combineExpr((*folds)[i], out, valueName((*folds)[i].value))
         << ";\n";
    else if (vectorized(init))
      os << inner << vectorName(arg) << ".v[e] = " << valueName(yield.getValues()[i]) << ";\n";
    else
      os << inner << out << " = " << valueName(yield.getValues()[i]) << ";\n";
  }
  while (inner.size() > 2) {
    inner.resize(inner.size() - 2);
    os << inner << "}\n";
  }
  indent = "  ";
  if (folds) {
    // The lanes' parts, combined in a fixed butterfly order, then folded into the output; in a
    // block, the warps' parts go through shared memory to the first warp, which combines them
    // the same way.
    auto butterfly = [&] {
      os << "  for (int offset = 16; offset > 0; offset /= 2) {\n";
      for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
        std::string out = valueName(generic.getMatchingBlockArgument(&init));
        os << "    " << out << " = "
           << combineExpr((*folds)[i], out, "__shfl_xor_sync(0xffffffffu, " + out + ", offset)")
           << ";\n";
      }
      os << "  }\n";
    };
    butterfly();
    if (blockFold) {
      int64_t warps = kFoldBlock / 32;
      for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
        BlockArgument arg = generic.getMatchingBlockArgument(&init);
        os << "  __shared__ " << *cType(generic, arg.getType()) << " " << valueName(arg)
           << "w[" << warps << "];\n";
        os << "  if (lane % 32 == 0) " << valueName(arg) << "w[lane / 32] = " << valueName(arg)
           << ";\n";
      }
      os << "  __syncthreads();\n  if (lane >= 32) return;\n";
      for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
        std::string out = valueName(generic.getMatchingBlockArgument(&init));
        os << "  " << out << " = lane < " << warps << " ? " << out << "w[lane] : "
           << (*folds)[i].identity << ";\n";
      }
      butterfly();
    }
    os << "  if (lane != 0) return;\n";
  }
  for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
    BlockArgument arg = generic.getMatchingBlockArgument(&init);
    std::string out = valueName(arg);
    std::string index = *operandIndex(init, vectorDims);
    std::string p = "p" + std::to_string(firstInit + i);
    if (linalg::FillOp fill = folds ? foldedFill(generic, init) : linalg::FillOp())
      out = combineExpr((*folds)[i], fillLiteral(fill), out);
    else if (folds)
      out = combineExpr((*folds)[i], "coda::rt::load(" + p + ", " + index + ")", out);
    if (vectorized(init) && !folds)
      os << "  coda::rt::store8(" << p << ", " << index << ", " << vectorName(arg) << ");\n";
    else
      os << "  coda::rt::store(" << p << ", " << index << ", " << out << ");\n";
  }
  os << "}\n\n";
  if (publishing) {
    os << "// One warp per output point.\n__global__ void " << name << "(" << paramList << ") {\n";
    os << "  " << name << "_row((blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32, "
       << "threadIdx.x % 32, " << argList << ");\n}\n\n";
    os << "// " << name << ", handing its rows to the GEMM launched beside it a row block at a time "
       << "(coda/Runtime/Overlap.cuh).\n";
    os << "__global__ void __launch_bounds__(1024) " << name << "_published(" << paramList
       << ", unsigned *__restrict__ done, int tileM, long long early, int side) {\n";
    os << "  coda::rt::publishRows(" << units << "LL, tileM, early, side, done, "
       << "[&](long long point, int lane) { " << name << "_row(point, lane, " << argList
       << "); });\n}\n\n";
  }
  return success();
}

/// A copy kernel between a box of a larger tensor and a whole smaller one (insert_slice with
/// unit strides, extract_slice with static offsets and strides). Where the box's rows are
/// contiguous in both, start at a multiple of 8 elements and hold whole groups of 8, a thread
/// copies 8 elements at once (16-byte accesses for 16-bit types; the launcher checks the
/// pointers). Returns the elements a thread copies.
int64_t CudaEmitter::emitSliceKernel(StringRef name, RankedTensorType small,
                                     RankedTensorType large, ArrayRef<int64_t> offsets,
                                     bool insert, ArrayRef<int64_t> strides) {
  std::string elem = *bufferElement(small.getElementType());
  unsigned last = small.getRank() - 1;
  int64_t width = small.getDimSize(last) % kVector == 0 && large.getDimSize(last) % kVector == 0 &&
                          offsets[last] % kVector == 0 && (strides.empty() || strides[last] == 1) &&
                          storageBits(small.getElementType()) % 8 == 0
                      ? kVector
                      : 1;
  os << "// " << name << ": " << (insert ? "tensor.insert_slice" : "tensor.extract_slice")
     << (width > 1 ? ", 8 elements per thread" : "") << ".\n";
  os << "__global__ void " << name << "(const " << elem << " *__restrict__ src, " << elem
     << " *__restrict__ dst) {\n";
  os << "  long long point = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n";
  os << "  if (point >= " << small.getNumElements() / width << "LL) return;\n";
  SmallVector<std::string> smallIdx, largeIdx;
  int64_t below = small.getNumElements() / width;
  for (unsigned d = 0; d < small.getRank(); ++d) {
    int64_t size = d == last ? small.getDimSize(d) / width : small.getDimSize(d);
    below /= size;
    std::string i = "i" + std::to_string(d);
    os << "  long long " << i << " = point / " << below << "LL % " << size << "LL"
       << (d == last && width > 1 ? " * " + std::to_string(width) + "LL" : "") << ";\n";
    smallIdx.push_back(i);
    int64_t stride = strides.empty() ? 1 : strides[d];
    largeIdx.push_back("(" + (stride == 1 ? i : i + " * " + std::to_string(stride) + "LL") + " + " +
                       std::to_string(offsets[d]) + "LL)");
  }
  std::string s = linearIndex(small, smallIdx), l = linearIndex(large, largeIdx);
  std::string to = insert ? l : s, from = insert ? s : l;
  if (width > 1)
    os << "  coda::rt::copy8(dst + " << to << ", src + " << from << ");\n}\n\n";
  else
    os << "  dst[" << to << "] = src[" << from << "];\n}\n\n";
  return width;
}

/// The weight preparation of `func` when it reads only the function's arguments (directly, or
/// through slices and reshapes used by nothing else) and its own results, so that it can run on
/// its own, once: those calls and views, in order; else nothing.
static SmallVector<Operation *> separablePreparations(func::FuncOp func) {
  SmallVector<Operation *> ops;
  DenseSet<Value> available(func.getArguments().begin(), func.getArguments().end());
  auto isPrepCall = [&](Operation *op) {
    auto call = dyn_cast<func::CallOp>(op);
    auto callee = call ? dyn_cast_or_null<func::FuncOp>(
                             SymbolTable::lookupNearestSymbolFrom(func, call.getCalleeAttr()))
                       : nullptr;
    return callee && callee->hasAttr("coda.weight_prep");
  };
  for (Operation &op : func.getBody().front()) {
    if (isPrepCall(&op)) {
      if (!llvm::all_of(op.getOperands(), [&](Value v) { return available.contains(v); }))
        return {};
      ops.push_back(&op);
      available.insert(op.getResults().begin(), op.getResults().end());
    } else if (isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op) &&
               available.contains(op.getOperand(0)) && !op.getResult(0).use_empty() &&
               llvm::all_of(op.getResult(0).getUsers(), isPrepCall)) {
      ops.push_back(&op);
      available.insert(op.getResult(0));
    }
  }
  if (llvm::none_of(ops, isPrepCall))
    return {};
  return ops;
}

/// What the preparation hands to the rest of the function: its call results read elsewhere.
static SmallVector<Value> preparedValues(ArrayRef<Operation *> preparation) {
  SmallVector<Value> prepared;
  for (Operation *op : preparation)
    if (isa<func::CallOp>(op))
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(),
                         [&](Operation *user) { return !llvm::is_contained(preparation, user); }))
          prepared.push_back(r);
  return prepared;
}

static bool isPreparation(Operation &op, ArrayRef<Operation *> preparation) {
  return llvm::is_contained(preparation, &op);
}

LogicalResult CudaEmitter::emitFunction(func::FuncOp func) {
  SmallVector<Operation *> preparations = separablePreparations(func);
  if (failed(emitFunctionLauncher(func, LauncherKind::Run, preparations)))
    return failure();
  if (!preparations.empty() &&
      (failed(emitFunctionLauncher(func, LauncherKind::Prepare, preparations)) ||
       failed(emitFunctionLauncher(func, LauncherKind::RunPrepared, preparations))))
    return failure();
  launchers.insert(func.getSymName());
  return success();
}

LogicalResult CudaEmitter::emitFunctionLauncher(func::FuncOp func, LauncherKind kind,
                                                ArrayRef<Operation *> preparations) {
  std::string fname = func.getSymName().str();
  std::string launcher = fname + (kind == LauncherKind::Run       ? "_run"
                                  : kind == LauncherKind::Prepare ? "_prepare"
                                                                  : "_run_prepared");
  Block &block = func.getBody().front();
  // Buffers: arguments, results, and intermediates at static offsets in the workspace, before
  // the scratch that kernels and callees share (they run one after the other on the stream).
  DenseMap<Value, std::string> buffer;
  int64_t intermediates = 0;
  auto allocate = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    buffer[v] = "reinterpret_cast<" + *bufferElement(type.getElementType()) + " *>(ws + " +
                std::to_string(intermediates) + ")";
    intermediates += (numBytes(type) + 255) / 256 * 256;
  };
  // A tensor.empty gets memory only if something reads or writes its buffer.
  auto ptr = [&](Value v) {
    if (!buffer.count(v) && v.getDefiningOp<tensor::EmptyOp>())
      allocate(v);
    return buffer.lookup(v);
  };
  for (BlockArgument arg : block.getArguments())
    buffer[arg] = "static_cast<const " +
                  *bufferElement(cast<RankedTensorType>(arg.getType()).getElementType()) +
                  " *>(arg" + std::to_string(arg.getArgNumber()) + ")";
  // Prepared weights: outputs of the prepare launcher, inputs of the prepared run.
  SmallVector<Value> prepared = preparedValues(preparations);
  for (auto [i, v] : llvm::enumerate(prepared))
    if (kind != LauncherKind::Run)
      buffer[v] = std::string(kind == LauncherKind::Prepare ? "static_cast<" : "static_cast<const ") +
                  *bufferElement(cast<RankedTensorType>(v.getType()).getElementType()) +
                  " *>(prepared" + std::to_string(i) + ")";
  // Values returned once and made by a kernel, a generic, a call or a slice copy go straight to
  // the result.
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  // (Through reshapes of a value used only by them: the same bytes.)
  for (auto [i, returned] : llvm::enumerate(ret.getOperands())) {
    if (kind == LauncherKind::Prepare)
      break;
    Value v = returned;
    while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(v.getDefiningOp()) &&
           v.getDefiningOp()->getOperand(0).hasOneUse())
      v = v.getDefiningOp()->getOperand(0);
    if (v.getDefiningOp() &&
        isa<GemmOp, linalg::GenericOp, func::CallOp, tensor::ExtractSliceOp>(v.getDefiningOp()) &&
        llvm::count(ret.getOperands(), returned) == 1 && !buffer.count(v))
      buffer[v] = "static_cast<" + *bufferElement(cast<RankedTensorType>(v.getType()).getElementType()) +
                  " *>(result" + std::to_string(i) + ")";
  }

  std::string kernels;
  llvm::raw_string_ostream kos(kernels);
  std::string body;
  llvm::raw_string_ostream bos(body);
  SmallVector<std::string> scratch; // workspace-size expressions of kernels and callees
  SmallVector<std::string> aligned; // buffers that generic kernels access 16 bytes at a time
  // Kernel names follow the ops' order in the function, so that every launcher of it (each
  // runs a subset of its ops) calls the kernels the full one defines.
  DenseMap<Operation *, unsigned> firstKernel;
  unsigned numKernels = 0;
  for (Operation &op : block) {
    firstKernel[&op] = numKernels;
    if (isa<linalg::GenericOp, linalg::FillOp, tensor::InsertSliceOp, tensor::ExtractSliceOp>(op))
      numKernels += 1;
    else if (auto concat = dyn_cast<tensor::ConcatOp>(op))
      numKernels += concat.getInputs().size();
  }
  unsigned generics = 0;
  // Whether this launcher runs `op` (views and constants are not launches).
  auto launches = [&](Operation *op) {
    bool preparation = isPreparation(*op, preparations);
    return !isa<arith::ConstantOp, tensor::EmptyOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op) &&
           !(kind == LauncherKind::Prepare && !preparation) &&
           !(kind == LauncherKind::RunPrepared && preparation);
  };
  // The ops in launch order. Between a row reduction and the kernel that reads its rows, the ops
  // that do not depend on the reduction go first, so that the kernel can start beside it.
  SmallVector<Operation *> order;
  for (Operation &op : block.without_terminator())
    order.push_back(&op);
  for (unsigned i = 0; i < order.size(); ++i) {
    auto generic = dyn_cast<linalg::GenericOp>(order[i]);
    GemmOp consumer = generic ? handsRowsTo(generic) : GemmOp();
    auto at = llvm::find(order, consumer.getOperation());
    if (!consumer || at == order.end())
      continue;
    DenseSet<Operation *> dependent{generic};
    SmallVector<Operation *> before, after;
    for (Operation *op : llvm::make_range(order.begin() + i + 1, at)) {
      bool reads = false;
      op->walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          reads |= dependent.contains(v.getDefiningOp());
      });
      (reads ? after : before).push_back(op);
      if (reads)
        dependent.insert(op);
    }
    before.push_back(generic);
    before.append(after);
    llvm::copy(before, order.begin() + i);
    i += before.size() - after.size() - 1;
  }
  // The op after `op` that this launcher runs.
  auto nextLaunch = [&](Operation &op) -> Operation * {
    for (auto it = llvm::find(order, &op) + 1; it != order.end(); ++it)
      if (launches(*it))
        return *it;
    return nullptr;
  };
  // Kernels that a reduction just before them hands their rows to: its `done` counts and split.
  DenseMap<Operation *, std::pair<std::string, std::string>> handover;
  auto launch = [&](const std::string &kernel, int64_t n, const std::string &args) {
    bos << "  " << kernel << "<<<" << (n + 255) / 256 << ", 256, 0, stream>>>(" << args
        << ");\n  if (cudaGetLastError() != cudaSuccess) return CODA_LAUNCH_FAILED;\n";
  };
  // 16-byte accesses need 16-byte aligned buffers: checked before anything runs.
  auto requireAligned = [&](const std::string &p) {
    if (!llvm::is_contained(aligned, p))
      aligned.push_back(p);
  };
  // A copy of `elements` from src to dst, `width` elements per thread.
  auto launchCopy = [&](const std::string &kernel, int64_t elements, int64_t width,
                        const std::string &src, const std::string &dst) {
    if (width > 1) {
      requireAligned(src);
      requireAligned(dst);
    }
    launch(kernel, elements / width, src + ", " + dst);
  };
  for (Operation *next : order) {
    Operation &op = *next;
    if (isa<arith::ConstantOp>(op))
      continue; // used inside generic bodies, emitted there
    // The prepare launcher runs only the preparations; the prepared run skips them.
    bool preparation = isPreparation(op, preparations);
    if ((kind == LauncherKind::Prepare && !preparation) ||
        (kind == LauncherKind::RunPrepared && preparation))
      continue;
    if (isa<tensor::EmptyOp>(op))
      continue;
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
      buffer[op.getResult(0)] = ptr(op.getOperand(0)); // dense row-major: the same bytes
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op); fill && fillFolded(fill))
      continue; // its readers start from the constant
    for (Value r : op.getResults())
      if (!buffer.count(r))
        allocate(r);
    generics = firstKernel.lookup(&op);
    if (auto gemm = dyn_cast<GemmOp>(op)) {
      std::string name = kernelNames.lookup(gemm);
      int64_t m = gemm.getM(), n = gemm.getN(), k = gemm.getK();
      auto rows = handover.find(gemm);
      bool handed = rows != handover.end();
      bos << "  // coda.gemm " << name << ".\n";
      bos << "  if (int s = " << name << (handed ? "_launch(" : "(") << ptr(gemm.getA()) << ", "
          << ptr(gemm.getB());
      for (Value x : gemm.getExtras())
        bos << ", " << ptr(x);
      for (Value x : gemm.getInits())
        bos << ", " << ptr(x);
      for (Value r : gemm->getResults())
        bos << ", " << ptr(r);
      bos << ", " << m << ", " << n << ", " << k << ", " << (gemm.getTransposeA() ? m : k) << ", "
          << (gemm.getTransposeB() ? k : n) << ", " << n << ", scratch, stream";
      if (handed) {
        const std::string &split = rows->second.second;
        bos << ", " << split << ".side > 0 ? " << rows->second.first << " : nullptr, " << split
            << ".sms";
      }
      bos << ")) return s;\n";
      scratch.push_back(name + "_workspace_size(" + std::to_string(m) + ", " + std::to_string(n) +
                        ", " + std::to_string(k) + ")");
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      bos << "  // " << (cast<func::FuncOp>(SymbolTable::lookupNearestSymbolFrom(func, call.getCalleeAttr()))
                              ->hasAttr("coda.weight_prep") ? "weight preparation " : "")
          << "@" << call.getCallee() << ".\n";
      bos << "  if (int s = " << call.getCallee() << "_run(";
      for (Value x : llvm::concat<Value>(call.getOperands(), call.getResults()))
        bos << ptr(x) << ", ";
      bos << "scratch, stream)) return s;\n";
      scratch.push_back(call.getCallee().str() + "_run_workspace_size()");
    } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      std::string name = fname + "_g" + std::to_string(generics++);
      SmallVector<Value> params;
      SmallVector<unsigned> vectorParams;
      int64_t threads = 0;
      GemmOp consumer = handsRowsTo(generic);
      bool publishing = static_cast<bool>(consumer);
      CudaEmitter genericEmitter(kos, options);
      if (failed(genericEmitter.emitGenericKernel(
              generic, name, params, vectorParams, threads,
              publishing ? GenericRole::Publishing : GenericRole::Kernel)))
        return failure();
      // Outputs start from their init, unless it is fresh.
      for (auto [init, result] : llvm::zip(generic.getDpsInitsMutable(), generic->getResults()))
        if (!init.get().getDefiningOp<tensor::EmptyOp>() && !foldedFill(generic, init))
          bos << "  cudaMemcpyAsync(" << ptr(result) << ", " << ptr(init.get()) << ", "
              << numBytes(cast<RankedTensorType>(init.get().getType()))
              << ", cudaMemcpyDeviceToDevice, stream);\n";
      // The kernel writes its outputs into the results' buffers (by position: two outputs
      // may start from the same init).
      unsigned firstInit = params.size() - generic.getNumDpsInits();
      auto argPtr = [&](unsigned i) {
        return ptr(i >= firstInit ? generic->getResult(i - firstInit) : params[i]);
      };
      std::string args;
      for (unsigned i = 0, e = params.size(); i < e; ++i)
        args += (args.empty() ? "" : ", ") + argPtr(i);
      for (unsigned i : vectorParams)
        requireAligned(argPtr(i));
      if (!publishing || nextLaunch(op) != consumer.getOperation()) {
        launch(name, threads, args);
        continue;
      }
      // The kernel right after reads these rows: it starts beside this reduction, which hands
      // them over a row block at a time through `done` (when the GPU has SMs to spare for it).
      std::string kernel = kernelNames.lookup(consumer);
      int64_t tileM = awaiting.lookup(consumer);
      int64_t blocks = (consumer.getM() + tileM - 1) / tileM;
      std::string done = "reinterpret_cast<unsigned *>(ws + " + std::to_string(intermediates) + ")";
      intermediates += (blocks * 4 + 255) / 256 * 256;
      std::string split = kernel + "_rows";
      bos << "  // " << name << " hands its rows to " << kernel << ", which runs beside it.\n";
      bos << "  coda::rt::RowsOverlap " << split << " = " << kernel << "_rows_overlap("
          << consumer.getM() << ", " << consumer.getN() << ");\n";
      bos << "  if (" << split << ".side > 0) {\n";
      bos << "    if (cudaMemsetAsync(" << done << ", 0, " << blocks * 4
          << ", stream) != cudaSuccess)\n      return CODA_LAUNCH_FAILED;\n";
      bos << "    " << name << "_published<<<" << split << ".sms + " << split << ".side, 1024, 0, stream>>>("
          << args << ", " << done << ", " << tileM << ", " << split << ".early, " << split
          << ".side);\n";
      bos << "  } else {\n";
      bos << "    " << name << "<<<" << (threads + 255) / 256 << ", 256, 0, stream>>>(" << args << ");\n";
      bos << "  }\n";
      bos << "  if (cudaGetLastError() != cudaSuccess) return CODA_LAUNCH_FAILED;\n";
      handover[consumer] = {done, split};
    } else if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      std::string name = fname + "_g" + std::to_string(generics++);
      auto type = cast<RankedTensorType>(fill.result().getType());
      std::string literal = fillLiteral(fill);
      kos << "// " << name << ": linalg.fill.\n__global__ void " << name << "("
          << *bufferElement(type.getElementType()) << " *__restrict__ dst) {\n";
      kos << "  long long point = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n";
      kos << "  if (point < " << type.getNumElements() << "LL) coda::rt::store(dst, point, "
          << literal << ");\n}\n\n";
      launch(name, type.getNumElements(), ptr(fill.result()));
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      std::string name = fname + "_g" + std::to_string(generics++);
      int64_t width = CudaEmitter(kos, options).emitSliceKernel(
          name, insert.getSourceType(), insert.getType(), insert.getStaticOffsets(), true);
      bos << "  cudaMemcpyAsync(" << ptr(insert) << ", " << ptr(insert.getDest()) << ", "
          << numBytes(insert.getType()) << ", cudaMemcpyDeviceToDevice, stream);\n";
      launchCopy(name, insert.getSourceType().getNumElements(), width, ptr(insert.getSource()),
                 ptr(insert));
    } else if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
      // One copy per input, at its offset along the concatenated dimension.
      int64_t offset = 0;
      for (Value input : concat.getInputs()) {
        auto type = cast<RankedTensorType>(input.getType());
        SmallVector<int64_t> offsets(type.getRank(), 0);
        offsets[concat.getDim()] = offset;
        offset += type.getDimSize(concat.getDim());
        std::string name = fname + "_g" + std::to_string(generics++);
        int64_t width = CudaEmitter(kos, options).emitSliceKernel(
            name, type, concat.getResultType(), offsets, true);
        launchCopy(name, type.getNumElements(), width, ptr(input), ptr(concat));
      }
    } else if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
      std::string name = fname + "_g" + std::to_string(generics++);
      int64_t width = CudaEmitter(kos, options).emitSliceKernel(
          name, extract.getType(), extract.getSourceType(), extract.getStaticOffsets(), false,
          extract.getStaticStrides());
      launchCopy(name, extract.getType().getNumElements(), width, ptr(extract.getSource()),
                 ptr(extract));
    }
  }
  // Results that did not go straight to their pointer.
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (kind == LauncherKind::Prepare)
      break;
    std::string target = "result" + std::to_string(i);
    if (StringRef(ptr(v)).contains("(" + target + ")"))
      continue;
    bos << "  cudaMemcpyAsync(" << target << ", " << ptr(v) << ", "
        << numBytes(cast<RankedTensorType>(v.getType())) << ", cudaMemcpyDeviceToDevice, stream);\n";
  }

  if (kind == LauncherKind::Run) // (the other launchers reuse these kernels)
    os << kernels;
  os << "// Bytes of device memory " << launcher << " needs as its workspace.\n";
  os << "extern \"C\" size_t " << launcher << "_workspace_size() {\n  size_t scratch = 0;\n";
  for (const std::string &s : scratch)
    os << "  scratch = std::max(scratch, " << s << ");\n";
  os << "  return " << intermediates << " + scratch;\n}\n\n";
  os << "// @" << fname << " on the device: ";
  if (kind == LauncherKind::Run)
    os << "its ops in order on `stream`";
  else if (kind == LauncherKind::Prepare)
    os << "only its weight preparation (run once, at load time), into `prepared`";
  else
    os << "its ops in order with the weights `" << fname << "_prepare` made";
  if (func->hasAttr("coda.weight_prep"))
    os << " (run-once weight preparation: call it at load time)";
  os << ". Returns a coda_status.\n";
  os << "extern \"C\" int " << launcher << "(";
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    os << "const void *arg" << i << ", ";
  for (unsigned i = 0, e = kind == LauncherKind::Run ? 0 : prepared.size(); i < e; ++i)
    os << (kind == LauncherKind::Prepare ? "void *prepared" : "const void *prepared") << i << ", ";
  for (unsigned i = 0, e = kind == LauncherKind::Prepare ? 0 : func.getNumResults(); i < e; ++i)
    os << "void *result" << i << ", ";
  os << "void *workspace, cudaStream_t stream) {\n";
  os << "  [[maybe_unused]] char *ws = static_cast<char *>(workspace);\n";
  os << "  [[maybe_unused]] void *scratch = ws + " << intermediates << ";\n";
  if (!aligned.empty()) {
    os << "  if (";
    llvm::interleave(aligned, os, [&](const std::string &p) { os << "!coda_aligned(" << p << ")"; },
                     " || ");
    os << ")\n    return CODA_MISALIGNED;\n";
  }
  os << body;
  os << "  return CODA_OK;\n}\n\n";
  return success();
}

/// PyTorch functions for a whole function: tensors of exactly the function's types in, its
/// results out; with separable weight preparation also `<f>_prepare` (arguments → prepared
/// weights) and `<f>_prepared` (arguments and prepared weights → results).
void CudaEmitter::emitTorchFunctionWrapper(func::FuncOp func) {
  std::string fname = func.getSymName().str();
  SmallVector<Type> args(func.getArgumentTypes()), results(func.getResultTypes()), prepared;
  for (Value v : preparedValues(separablePreparations(func)))
    prepared.push_back(v.getType());
  emitTorchLauncherWrapper(fname, fname + "_run", args, results);
  if (prepared.empty())
    return;
  emitTorchLauncherWrapper(fname + "_prepare", fname + "_prepare", args, prepared);
  SmallVector<Type> withPrepared(args);
  llvm::append_range(withPrepared, prepared);
  emitTorchLauncherWrapper(fname + "_prepared", fname + "_run_prepared", withPrepared, results);
}

void CudaEmitter::emitTorchLauncherWrapper(StringRef name, StringRef launcher, ArrayRef<Type> ins,
                                           ArrayRef<Type> outs) {
  std::string ret = outs.size() == 1 ? "torch::Tensor" : "std::vector<torch::Tensor>";
  os << "static " << ret << " coda_torch_fn_" << name << "(";
  for (unsigned i = 0, e = ins.size(); i < e; ++i)
    os << (i ? ", " : "") << "torch::Tensor in" << i;
  os << ") {\n  const char *fn = \"" << name << "\";\n";
  std::string device = ins.empty() ? "at::Device(at::kCUDA)" : "in0.device()";
  auto shapeOf = [](RankedTensorType t) {
    std::string shape = "{";
    llvm::raw_string_ostream s(shape);
    llvm::interleaveComma(t.getShape(), s);
    return shape + "}";
  };
  for (unsigned i = 0, e = ins.size(); i < e; ++i) {
    auto t = cast<RankedTensorType>(ins[i]);
    os << "  coda_check(fn, \"argument " << i << "\", in" << i << ", "
       << torchDtype(t.getElementType()) << ", " << shapeOf(t) << ", " << device << ");\n";
  }
  os << "  const at::cuda::CUDAGuard guard(" << device << ");\n";
  os << "  auto options = at::TensorOptions().device(" << device << ");\n";
  for (unsigned i = 0, e = outs.size(); i < e; ++i) {
    auto t = cast<RankedTensorType>(outs[i]);
    os << "  auto out" << i << " = torch::empty(" << shapeOf(t) << ", options.dtype("
       << torchDtype(t.getElementType()) << "));\n";
  }
  os << "  auto workspace = torch::empty({static_cast<int64_t>(" << launcher
     << "_workspace_size())}, options.dtype(at::kByte));\n";
  os << "  int status = " << launcher << "(";
  for (unsigned i = 0, e = ins.size(); i < e; ++i)
    os << "in" << i << ".data_ptr(), ";
  SmallVector<std::string> results;
  for (unsigned i = 0, e = outs.size(); i < e; ++i) {
    results.push_back("out" + std::to_string(i));
    os << results.back() << ".data_ptr(), ";
  }
  os << "workspace.data_ptr(), at::cuda::getCurrentCUDAStream());\n";
  emitTorchReturn(results);
}

LogicalResult CudaEmitter::emitModule(ModuleOp module) {
  // Check and collect first: nothing is written for a module with an unsupported kernel.
  SmallVector<std::pair<GemmOp, std::string>> kernels;
  for (auto func : module.getOps<func::FuncOp>()) {
    unsigned index = 0;
    func.walk([&](GemmOp op) {
      kernels.push_back({op, (func.getSymName() + "_k" + Twine(index++)).str()});
    });
  }
  std::string body;
  llvm::raw_string_ostream bodyStream(body);
  CudaEmitter kernelEmitter(bodyStream, options);
  if (!options.tuningDb.empty()) {
    llvm::Expected<TuningDb> db = loadTuningDb(options.tuningDb);
    if (!db)
      return module.emitError(llvm::toString(db.takeError()));
    kernelEmitter.tuningDb = std::move(*db);
  }
  module.walk([&](linalg::GenericOp generic) {
    if (GemmOp gemm = options.overlapRows ? rowsConsumer(generic) : GemmOp())
      kernelEmitter.rowsAhead.insert(gemm);
  });
  for (auto &[op, name] : kernels) {
    if (failed(kernelEmitter.emitKernel(op, name)))
      return failure();
    kernelEmitter.kernelNames[op] = name;
  }

  // A launcher per function whose ops the backend can run in order (callees first). A function
  // that cannot have one gets a warning: its kernels are still there to call one by one.
  SmallVector<func::FuncOp> functions, pending(module.getOps<func::FuncOp>());
  DenseMap<Operation *, std::string> whyNot;
  for (bool progress = true; progress && !pending.empty();) {
    progress = false;
    SmallVector<func::FuncOp> next;
    for (func::FuncOp func : pending) {
      std::string why;
      if (failed(kernelEmitter.checkFunction(func, why))) {
        whyNot[func] = why;
        next.push_back(func);
        continue;
      }
      // Emit into a scratch string: an op inside a generic the backend cannot emit makes this
      // function go without a launcher, not the translation fail.
      std::string text;
      llvm::raw_string_ostream textStream(text);
      CudaEmitter functionEmitter(textStream, options);
      functionEmitter.kernelNames = kernelEmitter.kernelNames;
      functionEmitter.awaiting = kernelEmitter.awaiting;
      functionEmitter.launchers = kernelEmitter.launchers;
      std::string error;
      LogicalResult emitted = success();
      {
        ScopedDiagnosticHandler capture(module.getContext(), [&](Diagnostic &d) {
          if (d.getSeverity() == DiagnosticSeverity::Error && error.empty())
            error = d.str();
          return success();
        });
        emitted = functionEmitter.emitFunction(func);
      }
      if (failed(emitted)) {
        whyNot[func] = error;
        continue;
      }
      whyNot.erase(func);
      bodyStream << text;
      kernelEmitter.launchers.insert(func.getSymName());
      functions.push_back(func);
      progress = true;
    }
    pending = std::move(next);
  }
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    if (whyNot.count(func) && !func.isExternal())
      func.emitWarning("no launcher for @")
          << func.getSymName() << ": " << whyNot[func]
          << " (its kernels have their own launchers)";

  if (options.torchBinding) {
    bodyStream << kTorchPrelude;
    for (auto &[op, name] : kernels)
      kernelEmitter.emitTorchWrapper(op, name);
    for (func::FuncOp func : functions)
      kernelEmitter.emitTorchFunctionWrapper(func);
    bodyStream << "PYBIND11_MODULE(TORCH_EXTENSION_NAME, module) {\n";
    for (auto &[op, name] : kernels) {
      bodyStream << "  module.def(\"" << name << "\", &coda_torch_" << name << ", \"" << name
                 << "(";
      llvm::interleaveComma(kernelInputs(op), bodyStream);
      bodyStream << ") -> " << (op.getNumResults() == 1 ? "result" : "[results]")
                 << ": coda.gemm #" << name.substr(name.rfind('_') + 2) << " of @"
                 << op->getParentOfType<func::FuncOp>().getSymName() << "\");\n";
    }
    for (func::FuncOp func : functions) {
      StringRef f = func.getSymName();
      bodyStream << "  module.def(\"" << f << "\", &coda_torch_fn_" << f << ", \"@" << f
                 << " on the device"
                 << (func->hasAttr("coda.weight_prep") ? " (weight preparation: run once)" : "")
                 << "\");\n";
      if (separablePreparations(func).empty())
        continue;
      bodyStream << "  module.def(\"" << f << "_prepare\", &coda_torch_fn_" << f
                 << "_prepare, \"the weight preparation of @" << f << ": run once\");\n";
      bodyStream << "  module.def(\"" << f << "_prepared\", &coda_torch_fn_" << f
                 << "_prepared, \"@" << f << " with the weights " << f << "_prepare made\");\n";
    }
    bodyStream << "}\n";
  }

  os << "// Generated by coda-translate --coda-to-cuda. One CUTLASS 4.2 sm90 kernel per coda.gemm:\n";
  os << "// TMA warp-specialized cooperative mainloop; the epilogue is a visitor DAG whose compute\n";
  os << "// nodes call the generated epilogue function (coda/Runtime/Epilogue.cuh).\n";
  os << "// Build: nvcc -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr\n";
  os << "//        -gencode arch=compute_90a,code=sm_90a\n";
  os << "//        -I<coda>/include -I<cutlass>/include -I<cutlass>/tools/util/include\n";
  os << "#include <cstdint>\n#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n";
  os << "#include <cmath>\n";
  if (options.directLaunch) // before CUTLASS's TMA headers: it redirects their driver calls
    os << "#include \"coda/Runtime/Launch.cuh\"\n";
  os << "#include \"cutlass/cutlass.h\"\n#include \"cute/tensor.hpp\"\n";
  os << "#include \"cutlass/gemm/device/gemm_universal_adapter.h\"\n";
  os << "#include \"cutlass/gemm/kernel/gemm_universal.hpp\"\n";
  os << "#include \"cutlass/gemm/collective/collective_builder.hpp\"\n";
  os << "#include \"cutlass/epilogue/collective/collective_builder.hpp\"\n";
  os << "#include \"cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp\"\n";
  os << "#include \"cutlass/util/packed_stride.hpp\"\n";
  os << "#include <algorithm>\n";
  os << "#include \"coda/Runtime/Epilogue.cuh\"\n#include \"coda/Runtime/Overlap.cuh\"\n"
        "#include \"coda/Runtime/Reduce.cuh\"\n";
  os << "#include \"coda/Runtime/Math.cuh\"\n#include \"coda/Runtime/Tensor.cuh\"\n\n";
  os << R"cu(enum coda_status {
  CODA_OK = 0,
  CODA_MISALIGNED = 1,    // a pointer or leading dimension breaks TMA's 16-byte alignment
  CODA_UNSUPPORTED = 2,   // CUTLASS cannot run this problem
  CODA_LAUNCH_FAILED = 3, // a launch failed (see cudaGetLastError)
  CODA_BAD_SHAPE = 4      // a size is out of range (or odd for a pairwise kernel)
};

// Weak: several generated files can be linked into one program.
extern "C" __attribute__((weak)) const char *coda_status_string(int status) {
  switch (status) {
  case CODA_OK: return "ok";
  case CODA_MISALIGNED: return "misaligned: TMA needs 16-byte aligned pointers and rows (for 16-bit types: K, N and leading dimensions multiples of 8, and N of 16 where a pairwise contract's N/2 columns are stored by TMA)";
  case CODA_UNSUPPORTED: return "CUTLASS cannot implement this problem";
  case CODA_LAUNCH_FAILED: return "kernel launch failed";
  case CODA_BAD_SHAPE: return "bad shape: sizes must be positive, leading dimensions at least the row length, N even for pairwise kernels and a multiple of a tiled operand's period (and of the heads rotated into halves)";
  }
  return "unknown status";
}

static inline bool coda_aligned(const void *p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }
)cu";
  // The helpers below only where used: nvcc warns about an unused static function (a file of
  // weight preparations alone has no GEMM workspace to round up).
  if (StringRef(body).contains("coda_round_up("))
    os << "static inline size_t coda_round_up(size_t bytes) { return (bytes + 255) / 256 * 256; }\n";
  if (StringRef(body).contains("coda_swizzle("))
    os << R"cu(// The tile scheduler's swizzle: the largest power of two up to `limit` that divides both tile
// counts by itself times the cluster, since CUTLASS rounds the grid up to whole groups and a
// padded tile would write reduction partials past the workspace.
static inline int coda_swizzle(int m, int n, int tileM, int tileN, int clusterM, int clusterN, int limit) {
  int tilesM = (m + tileM - 1) / tileM, tilesN = (n + tileN - 1) / tileN, s = limit;
  while (s > 1 && (tilesM % (s * clusterM) != 0 || tilesN % (s * clusterN) != 0))
    s /= 2;
  return s;
}
)cu";
  os << "\n" << body;
  return success();
}

LogicalResult mlir::coda::translateToCuda(Operation *op, raw_ostream &os,
                                         const CudaEmitterOptions &options) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError("--coda-to-cuda translates a module");
  if (failed(verifyCudaSizes(module)))
    return failure();
  CudaEmitter emitter(os, options);
  return emitter.emitModule(module);
}
