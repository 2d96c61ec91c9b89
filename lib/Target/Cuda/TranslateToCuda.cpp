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
#include "coda/Dialect/Coda/IR/CodaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ScopedHashTable.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::coda;

namespace {

/// Emits C++ for the scalar ops of one epilogue region.
class CudaEmitter {
public:
  explicit CudaEmitter(raw_ostream &os) : os(os) {}

  LogicalResult emitModule(ModuleOp module);

private:
  LogicalResult emitKernel(GemmOp op, StringRef name);
  LogicalResult emitEpilogueFunction(GemmOp op, StringRef name);
  LogicalResult emitScalarOp(Operation &op);
  FailureOr<std::string> cType(Operation *at, Type type);
  std::string valueName(Value v);
  static FailureOr<std::string> cutlassElement(Type t);

  raw_ostream &os;
  DenseMap<Value, std::string> names;
  unsigned nextName = 0;
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

LogicalResult CudaEmitter::emitScalarOp(Operation &op) {
  auto name = [&](Value v) { return valueName(v); };
  auto define = [&](Value result, const std::string &expr) -> LogicalResult {
    FailureOr<std::string> type = cType(&op, result.getType());
    if (failed(type))
      return failure();
    os << "  " << *type << " " << name(result) << " = " << expr << ";\n";
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
      .Case([&](arith::DivFOp) { return binary("/"); })
      .Case([&](arith::AddIOp) { return binary("+"); })
      .Case([&](arith::SubIOp) { return binary("-"); })
      .Case([&](arith::MulIOp) { return binary("*"); })
      .Case([&](arith::NegFOp n) { return define(n.getResult(), "-" + name(n.getOperand())); })
      .Case([&](arith::MaximumFOp) { return call("fmaxf"); })
      .Case([&](arith::MinimumFOp) { return call("fminf"); })
      .Case([&](arith::MaxNumFOp) { return call("fmaxf"); })
      .Case([&](arith::MinNumFOp) { return call("fminf"); })
      .Case([&](arith::ExtFOp e) { return define(e.getResult(), name(e.getIn())); })
      .Case([&](arith::TruncFOp t) -> LogicalResult {
        // Keep the rounding of the narrower type.
        Type to = t.getType();
        if (to.isBF16())
          return define(t.getResult(), "__bfloat162float(__float2bfloat16_rn(" + name(t.getIn()) + "))");
        if (to.isF16())
          return define(t.getResult(), "__half2float(__float2half_rn(" + name(t.getIn()) + "))");
        return define(t.getResult(), "(float)" + name(t.getIn()));
      })
      .Case([&](arith::IndexCastOp c) { return define(c.getResult(), name(c.getIn())); })
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
      .Case([&](math::TanhOp) { return call("tanhf"); })
      .Case([&](math::ErfOp) { return call("erff"); })
      .Case([&](math::RsqrtOp) { return call("rsqrtf"); })
      .Case([&](math::SqrtOp) { return call("sqrtf"); })
      .Case([&](math::AbsFOp) { return call("fabsf"); })
      .Case([&](math::PowFOp) { return call("powf"); })
      .Case([&](math::FPowIOp p) {
        return define(p.getResult(), "powf(" + name(p.getLhs()) + ", (float)" + name(p.getRhs()) + ")");
      })
      .Default([&](Operation *other) {
        return other->emitOpError("is not supported by the CUDA backend yet");
      });
}

LogicalResult CudaEmitter::emitEpilogueFunction(GemmOp op, StringRef name) {
  names.clear();
  nextName = 0;
  Block &body = op.getEpilogue().front();
  bool accumulate = op.getMode(0).isAccumulate();
  os << "// The epilogue of " << name << ", per output element, in fp32"
     << (accumulate ? " (accumulated into the init: init + value)" : "") << ".\n";
  os << "__device__ __forceinline__ float " << name << "_epilogue(";
  SmallVector<std::string> params;
  params.push_back("float " + valueName(body.getArgument(0)));
  if (accumulate)
    params.push_back("float init");
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    params.push_back("float " + valueName(op.getExtraArgs(i).front()));
  llvm::interleaveComma(params, os);
  os << ") {\n";
  for (Operation &inner : body.without_terminator())
    if (failed(emitScalarOp(inner)))
      return failure();
  os << "  return " << (accumulate ? "init + " : "")
     << valueName(cast<YieldOp>(body.getTerminator()).getValues()[0]) << ";\n}\n\n";
  return success();
}

LogicalResult CudaEmitter::emitKernel(GemmOp op, StringRef name) {
  // What this first version of the backend emits.
  if (op.isBatched())
    return op.emitOpError("batched products are not supported by the CUDA backend yet");
  if (op.getPairwise())
    return op.emitOpError("pairwise epilogues are not supported by the CUDA backend yet");
  if (op.getNumResults() != 1 || op.getMode(0).isReduce())
    return op.emitOpError("the CUDA backend supports one stored or accumulated result for now; "
                          "reductions and several results come next");
  bool accumulate = op.getMode(0).isAccumulate();
  if (!op.getRowIndexArg().use_empty() || !op.getColIndexArg().use_empty())
    return op.emitOpError("index-dependent epilogues are not supported by the CUDA backend yet");
  Type inElem = op.getA().getType().getElementType();
  if (!inElem.isBF16() && !inElem.isF16())
    return op.emitOpError("the CUDA backend needs bf16 or f16 inputs, got ") << inElem;
  FailureOr<std::string> aType = cutlassElement(inElem);
  FailureOr<std::string> dType =
      cutlassElement(cast<ShapedType>(op->getResult(0).getType()).getElementType());
  SmallVector<std::string> extraTypes;
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i) {
    OperandRole role = op.getRole(i);
    if (role != OperandRole::Scalar && role != OperandRole::Row && role != OperandRole::Col)
      return op.emitOpError("operand #") << i << " has role '" << stringifyOperandRole(role)
                                         << "', which the CUDA backend does not support yet";
    FailureOr<std::string> t = cutlassElement(cast<ShapedType>(op.getExtras()[i].getType()).getElementType());
    if (failed(t))
      return op.emitOpError("operand #") << i << " must be bf16, f16 or f32 for the CUDA backend";
    extraTypes.push_back(*t);
  }

  if (failed(emitEpilogueFunction(op, name)))
    return failure();

  unsigned n = op.getExtras().size();
  // The EVT compute node applies the function to fragments of the accumulator and operands.
  os << "template <class T> struct " << name << "_fn {};\n";
  os << "template <int N> struct " << name << "_fn<cutlass::Array<float, N>> {\n";
  os << "  CUTLASS_DEVICE cutlass::Array<float, N> operator()(cutlass::Array<float, N> const &acc";
  if (accumulate)
    os << ", cutlass::Array<float, N> const &init";
  for (unsigned i = 0; i < n; ++i)
    os << ", cutlass::Array<float, N> const &x" << i;
  os << ") const {\n    cutlass::Array<float, N> out;\n    CUTLASS_PRAGMA_UNROLL\n";
  os << "    for (int i = 0; i < N; ++i) out[i] = " << name << "_epilogue(acc[i]"
     << (accumulate ? ", init[i]" : "");
  for (unsigned i = 0; i < n; ++i)
    os << ", x" << i << "[i]";
  os << ");\n    return out;\n  }\n};\n\n";

  std::string traits = (name + "_kernel").str();
  os << "struct " << traits << " {\n";
  os << "  using TileShape = cute::Shape<cute::_128, cute::_256, cute::_64>;\n";
  os << "  using ClusterShape = cute::Shape<cute::_2, cute::_1, cute::_1>;\n";
  os << "  using ElementIn = " << *aType << ";\n  using ElementD = " << *dType << ";\n";
  os << "  using LayoutA = cutlass::layout::" << (op.getTransposeA() ? "ColumnMajor" : "RowMajor")
     << "; // A is " << (op.getTransposeA() ? "[K, M]" : "[M, K]") << "\n";
  os << "  using LayoutB = cutlass::layout::" << (op.getTransposeB() ? "ColumnMajor" : "RowMajor")
     << "; // B is " << (op.getTransposeB() ? "[N, K]" : "[K, N]") << "\n";
  os << "  using LayoutD = cutlass::layout::RowMajor;\n";
  SmallVector<std::string> nodes;
  for (unsigned i = 0; i < n; ++i) {
    std::string node = "Operand" + std::to_string(i);
    switch (op.getRole(i)) {
    case OperandRole::Scalar:
      os << "  using " << node << " = cutlass::epilogue::fusion::Sm90ScalarBroadcast<" << extraTypes[i] << ">;\n";
      break;
    case OperandRole::Col: // one value per column: broadcast along rows
      os << "  using " << node << " = cutlass::epilogue::fusion::Sm90RowBroadcast<0, TileShape, " << extraTypes[i] << ", float>;\n";
      break;
    default: // row: one value per row, broadcast along columns
      os << "  using " << node << " = cutlass::epilogue::fusion::Sm90ColBroadcast<0, TileShape, " << extraTypes[i] << ", float>;\n";
      break;
    }
    nodes.push_back(node);
  }
  os << "  using Compute = cutlass::epilogue::fusion::Sm90Compute<" << name
     << "_fn, ElementD, float, cutlass::FloatRoundStyle::round_to_nearest>;\n";
  os << "  using ElementC = " << (accumulate ? "ElementD" : "void") << ";"
     << (accumulate ? " // the init tensor, read through the collective's C" : "") << "\n";
  os << "  using EVT = cutlass::epilogue::fusion::Sm90EVT<Compute, cutlass::epilogue::fusion::Sm90AccFetch";
  if (accumulate)
    os << ", cutlass::epilogue::fusion::Sm90SrcFetch<ElementC>";
  for (const std::string &node : nodes)
    os << ", " << node;
  os << ">;\n";
  os << R"cu(  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, ElementC, LayoutD,
      16 / sizeof(ElementD), ElementD, LayoutD, 16 / sizeof(ElementD),
      cutlass::epilogue::TmaWarpSpecializedCooperative, EVT>::CollectiveOp;
  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementIn, LayoutA,
      16 / sizeof(ElementIn), ElementIn, LayoutB, 16 / sizeof(ElementIn), float, TileShape,
      ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename CollectiveEpilogue::SharedStorage))>,
      cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>,
                                                      CollectiveMainloop, CollectiveEpilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

)cu";

  // The launcher.
  os << "// D = " << name << "(A · B, operands); pointers to device memory; returns a coda_status.\n";
  os << "extern \"C\" int " << name << "(const void *a, const void *b";
  for (unsigned i = 0; i < n; ++i)
    os << ", const void *operand" << i;
  if (accumulate)
    os << ", const void *init";
  os << ", void *d, int m, int n, int k, void *workspace, cudaStream_t stream) {\n";
  os << "  using G = " << traits << "::Gemm;\n";
  os << "  // TMA needs 16-byte aligned rows.\n";
  os << "  int align = 16 / sizeof(" << traits << "::ElementIn);\n";
  os << "  if (k % align != 0 || n % (16 / sizeof(" << traits << "::ElementD)) != 0";
  if (op.getTransposeA())
    os << " || m % align != 0";
  if (!op.getTransposeB())
    os << " || n % align != 0";
  os << ")\n    return CODA_MISALIGNED;\n";
  os << "  auto sA = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideA{}, {m, k, 1});\n";
  os << "  auto sB = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideB{}, {n, k, 1});\n";
  os << "  auto sD = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideD{}, {m, n, 1});\n";
  os << "  typename G::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {m, n, k, 1},\n";
  os << "      {static_cast<const " << traits << "::ElementIn *>(a), sA, static_cast<const "
     << traits << "::ElementIn *>(b), sB},\n";
  if (accumulate)
    os << "      {{}, static_cast<const " << traits << "::ElementD *>(init), sD, static_cast<"
       << traits << "::ElementD *>(d), sD}};\n";
  else
    os << "      {{}, nullptr, {}, static_cast<" << traits << "::ElementD *>(d), sD}};\n";
  os << "  args.epilogue.thread = {{}" << (accumulate ? ", {}" : "");
  for (unsigned i = 0; i < n; ++i) {
    std::string ptr = "static_cast<const " + extraTypes[i] + " *>(operand" + std::to_string(i) + ")";
    if (op.getRole(i) == OperandRole::Scalar)
      os << ", {{}, {" << ptr << "}}";
    else
      os << ", {" << ptr << "}";
  }
  os << ", {}};\n";
  os << "  G gemm;\n";
  os << "  if (gemm.can_implement(args) != cutlass::Status::kSuccess) return CODA_UNSUPPORTED;\n";
  os << "  if (gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess) return CODA_LAUNCH_FAILED;\n";
  os << "  return gemm.run(stream) == cutlass::Status::kSuccess ? CODA_OK : CODA_LAUNCH_FAILED;\n}\n\n";
  os << "extern \"C\" size_t " << name << "_workspace_size(int m, int n, int k) {\n";
  os << "  using G = " << traits << "::Gemm;\n";
  os << "  typename G::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {m, n, k, 1}, {}, {}};\n";
  os << "  return G::get_workspace_size(args);\n}\n\n";
  return success();
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
  CudaEmitter kernelEmitter(bodyStream);
  for (auto &[op, name] : kernels)
    if (failed(kernelEmitter.emitKernel(op, name)))
      return failure();

  os << "// Generated by coda-translate --coda-to-cuda. One CUTLASS 4.2 sm90 kernel per coda.gemm:\n";
  os << "// TMA warp-specialized cooperative mainloop, epilogue visitor tree calling the epilogue.\n";
  os << "// Build: nvcc -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -arch=sm_90a\n";
  os << "#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n";
  os << "#include \"cutlass/cutlass.h\"\n#include \"cute/tensor.hpp\"\n";
  os << "#include \"cutlass/gemm/device/gemm_universal_adapter.h\"\n";
  os << "#include \"cutlass/gemm/kernel/gemm_universal.hpp\"\n";
  os << "#include \"cutlass/gemm/collective/collective_builder.hpp\"\n";
  os << "#include \"cutlass/epilogue/collective/collective_builder.hpp\"\n";
  os << "#include \"cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp\"\n";
  os << "#include \"cutlass/util/packed_stride.hpp\"\n\n";
  os << "enum coda_status { CODA_OK = 0, CODA_MISALIGNED = 1, CODA_UNSUPPORTED = 2, CODA_LAUNCH_FAILED = 3 };\n\n";
  os << body;
  return success();
}

LogicalResult mlir::coda::translateToCuda(Operation *op, raw_ostream &os) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError("--coda-to-cuda translates a module");
  CudaEmitter emitter(os);
  return emitter.emitModule(module);
}
