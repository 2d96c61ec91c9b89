//===- TranslateToCuda.cpp - coda modules as CUDA C++ ---------------------===//
//
// Writes one .cu file per module: for every coda.gemm, a CUTLASS 4.2 GemmUniversal with the
// sm90 TMA warp-specialized mainloop (collective builders) and an Epilogue Visitor Tree whose
// compute nodes call the epilogue region, emitted as one __device__ function, with an extern "C"
// launcher per kernel; stored, accumulated and reduced results, pairwise epilogues and tiled
// tables. For every function whose ops it can run, coda's own kernels (generics, fills, slices)
// and a whole-function launcher; with --emit-torch-binding, a PyTorch module. In the style of
// mlir/lib/Target/Cpp/TranslateToCpp.cpp: an emitter class, one print function per op, scoped
// value names. What the back end cannot emit gets a diagnostic at the op and no output.
//
// The decisions are the plan's (--coda-plan-cuda, run here on what is not planned yet): each
// kernel's configuration and sinks, names, launch order, row hand-offs and workspace layout,
// as attributes. This file prints the module (its prelude, coda_status, the helpers used);
// the rest is in ReadGemmPlan.cpp (a GEMM's plan as the emitter reads it), EmitGemm.cpp (GEMM
// kernels and launchers), EmitGeneric.cpp (coda's own kernels), EmitHost.cpp (whole-function
// launchers), EmitTorchBinding.cpp (the PyTorch binding) and EmitCommon.cpp (scalar code and
// types).
//
//===----------------------------------------------------------------------===//

#include "coda/Target/Cuda/TranslateToCuda.h"
#include "CudaEmitter.h"
#include "coda/Target/Cuda/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

LogicalResult CudaEmitter::emitModule(ModuleOp module) {
  // Check and collect first: nothing is written for a module with an unsupported kernel.
  SmallVector<std::pair<GemmOp, std::string>> kernels;
  module.walk([&](GemmOp op) { kernels.push_back({op, kernelName(op)}); });
  std::string body;
  llvm::raw_string_ostream bodyStream(body);
  CudaEmitter kernelEmitter(bodyStream, options);
  for (auto &[op, name] : kernels)
    if (failed(kernelEmitter.emitKernel(op, name)))
      return failure();

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
      if (preparationsOf(func).empty())
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
        "#include \"coda/Runtime/Restage.cuh\"\n#include \"coda/Runtime/Tf32Split.cuh\"\n"
        "#include \"coda/Runtime/Reduce.cuh\"\n";
  os << "#include \"coda/Runtime/Math.cuh\"\n#include \"coda/Runtime/Tensor.cuh\"\n";
  os << "#include \"coda/Runtime/Attention.cuh\"\n#include \"coda/Runtime/Decode.cuh\"\n\n";
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
  case CODA_MISALIGNED: return "misaligned: a buffer that is read 16 bytes at a time (attention heads, generic kernels' vectors, the rows that TMA moves for a pairwise contract, a rotation into halves or a table operand) needs a 16-byte aligned pointer and rows (N a multiple of 16 for a pairwise contract's N/2 columns); unaligned A, B and D are copied instead";
  case CODA_UNSUPPORTED: return "CUTLASS cannot implement this problem";
  case CODA_LAUNCH_FAILED: return "kernel launch failed";
  case CODA_BAD_SHAPE: return "bad shape: sizes must be positive, leading dimensions at least the row length, N even for pairwise kernels and a multiple of a tiled operand's period (and of the heads rotated into halves)";
  }
  return "unknown status";
}

)cu";
  // The helpers below only where used: nvcc warns about an unused static function (a file of
  // weight preparations alone has no GEMM workspace to round up).
  if (StringRef(body).contains("coda_aligned("))
    os << "static inline bool coda_aligned(const void *p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }\n";
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
  // What is not planned yet is planned here (a planned function or kernel keeps its plan).
  PassManager pm(module.getContext());
  CodaPlanCudaOptions plan;
  plan.target = options.target;
  plan.tuningDb = options.tuningDb;
  plan.without = options.without;
  plan.dispatch = options.dispatch;
  plan.fp32 = options.fp32;
  buildCodaPlanCudaPipeline(pm, plan);
  if (failed(pm.run(module)))
    return failure();
  CudaEmitter emitter(os, options);
  return emitter.emitModule(module);
}
