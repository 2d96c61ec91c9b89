//===- Registration.cpp - register --coda-to-cuda -------------------------===//

#include "coda/Dialect/Coda/IR/CodaDialect.h"
#include "coda/Target/Cuda/KernelConfig.h"
#include "coda/Target/Cuda/TranslateToCuda.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

void mlir::coda::registerToCudaTranslation() {
  static llvm::cl::opt<bool> emitTorchBinding(
      "emit-torch-binding",
      llvm::cl::desc("With --coda-to-cuda: also define a PyTorch extension, one function per "
                     "kernel (load with torch.utils.cpp_extension.load)"),
      llvm::cl::init(false));
  static llvm::cl::opt<std::string> tuningDb(
      "tuning-db",
      llvm::cl::desc("With --coda-to-cuda: a JSON tuning database (bench/tune.py writes one) "
                     "whose measured kernel configurations replace the analytic model's; one "
                     "per GPU (data/tuning/tuning-h200.json, tuning-h100-80gb-hbm3.json)"),
      llvm::cl::value_desc("file"), llvm::cl::init(""));
  static llvm::cl::opt<std::string> target(
      "target",
      llvm::cl::desc("With --coda-to-cuda: the GPU whose SMs, clock, peak and bandwidth the "
                     "analytic model ranks kernel configurations for: h200 (default) or "
                     "h100-sxm"),
      llvm::cl::value_desc("gpu"), llvm::cl::init("h200"));
  // Each default path measured faster than its alternative (docs/benchmarks.md); the
  // alternatives stay reachable for A/B runs and for shapes the default cannot take.
  static llvm::cl::list<std::string> without(
      "cuda-without",
      llvm::cl::desc(
          "With --coda-to-cuda, for A/B runs: emit without the named default paths, "
          "comma-separated. tma-halves: a rotation into halves is staged and copied into place "
          "instead of stored by the kernel's TMA. tma-contract: SwiGLU's contracted result is "
          "stored by each thread (any even N) instead of by TMA (N a multiple of 16). "
          "tma-tables: RoPE's tables are loaded by each thread instead of through TMA. "
          "overlap-rows: a norm's row statistics run before the kernel that reads them instead "
          "of beside it. whole-waves: persistent kernels take one CTA per SM instead of whole "
          "waves of tiles. direct-launch: CUTLASS kernels are launched by its "
          "GemmUniversalAdapter instead of coda's host path"),
      llvm::cl::value_desc("path,..."), llvm::cl::CommaSeparated);
  static llvm::cl::list<int64_t> dispatch(
      "m-dispatch",
      llvm::cl::desc("With --coda-to-cuda: bounds of M, ascending, comma-separated (e.g. "
                     "64,1024): each kernel's launcher carries a configuration per range of M "
                     "and picks by the M it is called with, so that one file serves decode- and "
                     "prefill-sized calls (each configuration is one more kernel to compile)"),
      llvm::cl::value_desc("m,..."), llvm::cl::CommaSeparated);
  static llvm::cl::opt<std::string> fp32(
      "fp32-products",
      llvm::cl::desc("With --coda-to-cuda: how products of fp32 inputs run. tf32 (default): one "
                     "product on TF32 tensor cores (10-bit mantissas, as PyTorch's matmul with "
                     "TF32 allowed). 3xtf32: three TF32 products over the inputs split into "
                     "high and low parts, about fp32's accuracy for three times the tensor-core "
                     "work"),
      llvm::cl::value_desc("tf32|3xtf32"), llvm::cl::init("tf32"));
  TranslateFromMLIRRegistration registration(
      "coda-to-cuda", "Write coda.gemm kernels as CUDA C++ (CUTLASS 4.2, sm90)",
      [](Operation *op, llvm::raw_ostream &os) {
        CudaEmitterOptions options;
        if (!lookupGpuTarget(target)) {
          InFlightDiagnostic diag = emitError(op->getLoc(), "--target: unknown GPU '")
                                    << target.getValue() << "'; known:";
          for (const GpuTarget &known : gpuTargets())
            diag << " " << known.name << " (" << known.description << ")";
          return LogicalResult(diag);
        }
        options.target = target;
        options.torchBinding = emitTorchBinding;
        options.tuningDb = tuningDb;
        options.dispatch.assign(dispatch.begin(), dispatch.end());
        if (fp32 != "tf32" && fp32 != "3xtf32")
          return LogicalResult(emitError(op->getLoc(), "--fp32-products: unknown mode '")
                               << fp32.getValue() << "'; expected tf32 or 3xtf32");
        options.fp32 = fp32;
        for (const std::string &path : without) {
          if (path == "direct-launch") {
            options.directLaunch = false;
            continue;
          }
          if (!llvm::is_contained({"tma-halves", "tma-contract", "tma-tables", "overlap-rows",
                                   "whole-waves"},
                                  path))
            return LogicalResult(emitError(op->getLoc(), "--cuda-without: unknown path '")
                                 << path
                                 << "'; expected tma-halves, tma-contract, tma-tables, "
                                    "overlap-rows, whole-waves or direct-launch");
          options.without.push_back(path);
        }
        return translateToCuda(op, os, options);
      },
      [](DialectRegistry &registry) {
        registry.insert<CodaDialect>();
        registerAllDialects(registry);
        registerAllExtensions(registry);
      });
}
