//===- Registration.cpp - register --coda-to-cuda -------------------------===//

#include "coda/InitAll.h"
#include "coda/Target/Cuda/KernelConfig.h"
#include "coda/Target/Cuda/TranslateToCuda.h"

#include "mlir/IR/DialectRegistry.h"
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
  static llvm::cl::opt<bool> tmaHalves(
      "tma-halves",
      llvm::cl::desc("With --coda-to-cuda: write pairwise(rotate, halves) results into their "
                     "halves from the kernel's own TMA stores (default; where the result is not "
                     "accumulated and a head is 128 or 256 columns wide). =false stages the "
                     "rotated pairs in the workspace and copies them into place afterwards"),
      llvm::cl::init(true));
  static llvm::cl::opt<bool> tmaContract(
      "tma-contract",
      llvm::cl::desc("With --coda-to-cuda: write a pairwise(contract) result ([M, N/2], SwiGLU's) "
                     "by the kernel's TMA stores of subtiles staged in shared memory (default; "
                     "the launch then needs N a multiple of 16 for 16-bit results). =false: "
                     "each thread stores its elements, for any even N"),
      llvm::cl::init(true));
  static llvm::cl::opt<bool> tmaTables(
      "tma-tables",
      llvm::cl::desc("With --coda-to-cuda: read 16-bit tiled operands ([M, P] tables such as "
                     "RoPE's cos and sin) through TMA into shared memory ahead of the epilogue (default; "
                     "in ping-pong kernels whose CTA tile is a whole number of periods wide). "
                     "=false: each thread loads its elements"),
      llvm::cl::init(true));
  static llvm::cl::opt<bool> overlapRows(
      "overlap-rows",
      llvm::cl::desc("With --coda-to-cuda: a row reduction whose results only the next kernel "
                     "reads as row operands (a norm's statistics) runs beside that kernel on the "
                     "SMs its last wave leaves idle, handing the rows over a row block at a time "
                     "(default; the analytic model then takes that kernel's tiles along N, the "
                     "order the handover needs). =false runs the two one after the other"),
      llvm::cl::init(true));
  static llvm::cl::opt<bool> wholeWaves(
      "whole-waves",
      llvm::cl::desc("With --coda-to-cuda: run each persistent kernel on the fewest CTAs that "
                     "take as many waves of tiles as one CTA per SM would (default). =false: "
                     "one CTA per SM, as CUTLASS does"),
      llvm::cl::init(true));
  static llvm::cl::opt<bool> directLaunch(
      "direct-launch",
      llvm::cl::desc("With --coda-to-cuda: launch each CUTLASS kernel through coda's own host "
                     "path (coda/Runtime/Launch.cuh: kernel attributes set once per device, the "
                     "driver's TMA descriptor entry point looked up once) instead of "
                     "GemmUniversalAdapter's, which repeats both on every call (default). "
                     "=false: GemmUniversalAdapter's initialize and run"),
      llvm::cl::init(true));
  TranslateFromMLIRRegistration registration(
      "coda-to-cuda", "Write coda.gemm kernels as CUDA C++ (CUTLASS 4.2, sm90)",
      [](Operation *op, llvm::raw_ostream &os) {
        CudaEmitterOptions options;
        options.target = lookupGpuTarget(target);
        if (!options.target) {
          InFlightDiagnostic diag = emitError(op->getLoc(), "--target: unknown GPU '")
                                    << target.getValue() << "'; known:";
          for (const GpuTarget &known : gpuTargets())
            diag << " " << known.name << " (" << known.description << ")";
          return LogicalResult(diag);
        }
        options.torchBinding = emitTorchBinding;
        options.tuningDb = tuningDb;
        options.tmaHalves = tmaHalves;
        options.tmaContract = tmaContract;
        options.tmaTables = tmaTables;
        options.overlapRows = overlapRows;
        options.wholeWaves = wholeWaves;
        options.directLaunch = directLaunch;
        return translateToCuda(op, os, options);
      },
      [](DialectRegistry &registry) { registerAllCodaDialects(registry); });
}
