//===- EmitTorchBinding.cpp - The PyTorch binding -------------------------===//
//
// With --emit-torch-binding: a PyTorch function per kernel and per whole-function launcher,
// which checks its tensors, allocates its results and workspace and launches on the current
// stream; and the checks they share (kTorchPrelude). emitModule writes the PYBIND11_MODULE.
//
//===----------------------------------------------------------------------===//

#include "CudaEmitter.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

/// What the PyTorch binding needs once per file.
const char *const cuda::kTorchPrelude = R"cu(// PyTorch binding: torch.utils.cpp_extension.load(sources=[this file], ...) returns a module
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

/// A or B of a batched product: [L, rows, columns], its matrices as coda_check_matrix wants
/// them and one after the other (batch stride rows times the row stride).
static void coda_check_batch(const char *fn, const char *what, const torch::Tensor &t,
                             at::ScalarType dtype, const at::Device &device) {
  coda_check_device(fn, what, t, dtype, device);
  TORCH_CHECK(t.dim() == 3, fn, ": ", what, " must be a batch of matrices [L, rows, columns], got shape ",
              coda_dims(t.sizes()).c_str());
  TORCH_CHECK(t.stride(2) == 1 && t.stride(1) >= t.size(2) && t.stride(0) == t.size(1) * t.stride(1),
              fn, ": ", what, " must hold its row-major matrices one after the other (call .contiguous()), got strides ",
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
  if (t.isInteger(8))
    return "at::kChar";
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
  bool batched = op.isBatched();
  int nb = batched ? 1 : 0; // the batch dimension before the matrices'
  const char *check = batched ? "coda_check_batch" : "coda_check_matrix";
  os << "  " << check << "(fn, \"a\", a, " << torchDtype(inElem) << ", a.device());\n";
  os << "  " << check << "(fn, \"b\", b, " << torchDtype(inElem) << ", a.device());\n";
  os << "  const int64_t m = a.size(" << nb + (op.getTransposeA() ? 1 : 0) << "), k = a.size("
     << nb + (op.getTransposeA() ? 0 : 1) << "), n = b.size(" << nb + (op.getTransposeB() ? 0 : 1)
     << ");\n";
  os << "  TORCH_CHECK(b.size(" << nb + (op.getTransposeB() ? 1 : 0) << ") == k"
     << (batched ? " && b.size(0) == a.size(0)" : "") << ", fn, \": b must be "
     << (batched ? "[L, " : "[") << (op.getTransposeB() ? "N, K]" : "K, N]")
     << " with a's " << (batched ? "L and K" : "K") << ", got \", coda_dims(b.sizes()).c_str(), \" for a \", coda_dims(a.sizes()).c_str());\n";
  if (batched)
    os << "  const int64_t l = a.size(0);\n";
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
    if (op.hasOwnBatch(i))
      shape.insert(1, "l, ");
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
      std::string rows = batched ? "l, m" : "m";
      if (mode.isAccumulate())
        os << "  coda_check(fn, \"init" << r << "\", init" << r << ", " << torchDtype(t) << ", {"
           << rows << ", " << nOut << "}, a.device());\n";
      os << "  auto " << out << " = torch::empty({" << rows << ", " << nOut << "}, a.options().dtype("
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
  os << "m, n, k, " << (batched ? "l, a.stride(1), b.stride(1), " : "a.stride(0), b.stride(0), ") << nOut
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

/// PyTorch functions for a whole function: tensors of exactly the function's types in, its
/// results out; with separable weight preparation also `<f>_prepare` (arguments → prepared
/// weights) and `<f>_prepared` (arguments and prepared weights → results).
void CudaEmitter::emitTorchFunctionWrapper(func::FuncOp func) {
  std::string fname = func.getSymName().str();
  SmallVector<Type> args(func.getArgumentTypes()), results(func.getResultTypes()), prepared;
  for (Value v : preparedValues(preparationsOf(func)))
    prepared.push_back(v.getType());
  // A returned append into a cache argument that nothing else reads updates it in place.
  SmallVector<int> aliases;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (Value v : ret.getOperands()) {
    auto append = v.getDefiningOp<AppendOp>();
    auto cache = append ? dyn_cast<BlockArgument>(append.getCache()) : BlockArgument();
    aliases.push_back(cache && cache.hasOneUse() && llvm::count(ret.getOperands(), v) == 1
                          ? static_cast<int>(cache.getArgNumber())
                          : -1);
  }
  emitTorchLauncherWrapper(fname, fname + "_run", args, results, aliases);
  if (prepared.empty())
    return;
  emitTorchLauncherWrapper(fname + "_prepare", fname + "_prepare", args, prepared);
  SmallVector<Type> withPrepared(args);
  llvm::append_range(withPrepared, prepared);
  emitTorchLauncherWrapper(fname + "_prepared", fname + "_run_prepared", withPrepared, results,
                           aliases);
}

void CudaEmitter::emitTorchLauncherWrapper(StringRef name, StringRef launcher, ArrayRef<Type> ins,
                                           ArrayRef<Type> outs, ArrayRef<int> aliases) {
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
    if (i < aliases.size() && aliases[i] >= 0) {
      os << "  auto out" << i << " = in" << aliases[i] << "; // updated in place\n";
      continue;
    }
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
