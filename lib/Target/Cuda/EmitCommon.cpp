//===- EmitCommon.cpp - Scalar code and shared type helpers ---------------===//
//
// What every kernel family prints: the scalar ops of an epilogue region or a generic's body
// as fp32 C++ (emitScalarOp), value names, and the C, CUTLASS and buffer types of elements;
// with the small helpers the families share (index expressions, combiners, periods).
//
//===----------------------------------------------------------------------===//

#include "CudaEmitter.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

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
  if (type.isInteger(8))
    return std::string("signed char");
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
          return define(c.getResult(), floatLiteral(f.getValue()));
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
      // A bit of a mask's word (attention mask preparation): 1 << t, t < 32.
      .Case([&](arith::ShLIOp) { return binary("<<"); })
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

const char *cuda::combinerName(Combiner c) {
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
const char *cuda::identityOf(Combiner c) {
  return c == Combiner::Sum || c == Combiner::SumSq ? "0.f" : "-INFINITY";
}

/// C type of a buffer element.
FailureOr<std::string> cuda::bufferElement(Type t) {
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
  if (t.isInteger(8))
    return std::string("signed char");
  if (t.isInteger(1))
    return std::string("bool");
  return failure();
}

/// An affine expression over loop variables as C (all values are non-negative).
FailureOr<std::string> cuda::affineToC(AffineExpr e, ArrayRef<std::string> dims) {
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

std::string cuda::floatLiteral(const APFloat &value) {
  // formatv would print infinity as `INFf`: the macros of CUDA's math.h say it.
  if (value.isInfinity())
    return value.isNegative() ? "-INFINITY" : "INFINITY";
  if (value.isNaN())
    return "NAN";
  APFloat wide = value;
  bool lost;
  wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return llvm::formatv("{0:e9}f", wide.convertToDouble()).str();
}

/// Row-major linear index of `indices` in a tensor of `type`.
std::string cuda::linearIndex(RankedTensorType type, ArrayRef<std::string> indices) {
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
