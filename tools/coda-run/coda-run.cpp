//===- coda-run.cpp - run MLIR programs on the CPU --------------*- C++ -*-===//
//
//   coda-run FILE [--entry NAME] [--seed N] [--int-max N] [--max-memory SIZE]
//            [--against OTHER [--baseline BASE]] [--rtol R] [--atol A]
//
// Runs a function of FILE on the CPU on deterministic random inputs and prints a summary of
// each result. With --against, runs the same function of OTHER on the same inputs (converted to
// OTHER's float types where they differ: a bf16 program against its f32 form), prints the
// errors of FILE's results relative to OTHER's and exits 1 when any element differs by more
// than atol + rtol * |reference|. With --baseline, BASE (a program of FILE's type, usually the
// one FILE was rewritten from) is compared with OTHER too, and FILE passes where its largest
// error is within --baseline-factor times BASE's (plus atol): a rewritten bf16 program is then
// judged against the original's own bf16 error, not against bf16 rounding noise.
//
//===----------------------------------------------------------------------===//

#include "coda/Execution/CpuRunner.h"
#include "coda/InitAll.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <unistd.h>

using namespace mlir;
using namespace mlir::coda;

static llvm::cl::OptionCategory category("coda-run options");
static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional, llvm::cl::Required,
                                            llvm::cl::desc("<program.mlir>"),
                                            llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    entryName("entry",
              llvm::cl::desc("Function to run (default: 'main', or the only public function)"),
              llvm::cl::value_desc("name"), llvm::cl::cat(category));
static llvm::cl::opt<uint64_t>
    seed("seed", llvm::cl::desc("Seed of the random inputs (same seed, same inputs)"),
         llvm::cl::init(0), llvm::cl::cat(category));
static llvm::cl::opt<int64_t> intMax(
    "int-max",
    llvm::cl::desc("Integer inputs are drawn uniformly from [0, int-max), narrowed to what "
                   "their type holds and to the size of any dimension they index (1 to 2^53; "
                   "default 16)"),
    llvm::cl::init(16), llvm::cl::cat(category));
static llvm::cl::opt<std::string> maxMemory(
    "max-memory",
    llvm::cl::desc("Refuse to run programs that may need more memory than this: bytes, or "
                   "with a K, M, G or T suffix (powers of 1024). Default: half of the memory "
                   "available when coda-run starts"),
    llvm::cl::value_desc("size"), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    againstFile("against",
                llvm::cl::desc("Reference program: run its function of the same name on the "
                               "same inputs and compare"),
                llvm::cl::value_desc("other.mlir"), llvm::cl::cat(category));
static llvm::cl::opt<double> relTol("rtol",
                                  llvm::cl::desc("Relative tolerance for --against (1e-5)"),
                                  llvm::cl::init(1e-5), llvm::cl::cat(category));
static llvm::cl::opt<double> absTol("atol",
                                  llvm::cl::desc("Absolute tolerance for --against (1e-6)"),
                                  llvm::cl::init(1e-6), llvm::cl::cat(category));

static llvm::cl::opt<std::string> baselineFile(
    "baseline",
    llvm::cl::desc("With --against: a program of the same type as FILE, compared with the "
                   "reference too; FILE passes where its largest error is within "
                   "--baseline-factor times the baseline's, plus atol"),
    llvm::cl::value_desc("base.mlir"), llvm::cl::cat(category));
static llvm::cl::opt<double> baselineFactor(
    "baseline-factor", llvm::cl::desc("How much larger than the baseline's error FILE's may be "
                                      "(2)"),
    llvm::cl::init(2.0), llvm::cl::cat(category));

/// Whether `other` can serve as the reference of `type`: the same shapes, and element types
/// that are equal or both floats.
static bool isReferenceTypeOf(FunctionType other, FunctionType type) {
  auto compatible = [](TypeRange a, TypeRange b) {
    if (a.size() != b.size())
      return false;
    for (auto [x, y] : llvm::zip(a, b)) {
      auto tx = cast<RankedTensorType>(x), ty = cast<RankedTensorType>(y);
      if (tx.getShape() != ty.getShape())
        return false;
      if (tx.getElementType() != ty.getElementType() &&
          !(isa<FloatType>(tx.getElementType()) && isa<FloatType>(ty.getElementType())))
        return false;
    }
    return true;
  };
  return compatible(other.getInputs(), type.getInputs()) &&
         compatible(other.getResults(), type.getResults());
}

/// `inputs` converted to the argument types of `func` (exactly, from a narrower float type).
static std::vector<HostTensor> convertInputs(ArrayRef<HostTensor> inputs, func::FuncOp func) {
  std::vector<HostTensor> converted;
  for (auto [input, type] : llvm::zip(inputs, func.getArgumentTypes())) {
    HostTensor t(cast<RankedTensorType>(type));
    for (int64_t i = 0, e = t.getNumElements(); i < e; ++i)
      t.set(i, input.get(i));
    converted.push_back(std::move(t));
  }
  return converted;
}

static OwningOpRef<ModuleOp> parseFile(StringRef path, MLIRContext &ctx,
                                       llvm::SourceMgr &sourceMgr) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = openInputFile(path, &error);
  if (!buffer) {
    llvm::errs() << "coda-run: " << error << "\n";
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &ctx);
}

/// Parses `path` into `module` and returns its runnable function `name` (the default entry when
/// `name` is empty), or null after reporting why not.
static func::FuncOp loadEntry(StringRef path, StringRef name, MLIRContext &ctx,
                              llvm::SourceMgr &sourceMgr, OwningOpRef<ModuleOp> &module) {
  module = parseFile(path, ctx, sourceMgr);
  if (!module)
    return nullptr;
  func::FuncOp entry = findEntryFunction(*module, name);
  return entry && succeeded(verifyRunnableSignature(entry)) ? entry : nullptr;
}

/// `text` as a byte count ("512", "64K", "8G"), or nothing when it is not one.
static std::optional<int64_t> parseSize(StringRef text) {
  text = text.trim();
  int64_t scale = 1;
  if (!text.empty()) {
    switch (llvm::toUpper(text.back())) {
    case 'K': scale = 1LL << 10; break;
    case 'M': scale = 1LL << 20; break;
    case 'G': scale = 1LL << 30; break;
    case 'T': scale = 1LL << 40; break;
    default: break;
    }
    if (scale != 1)
      text = text.drop_back();
  }
  uint64_t value;
  int64_t bytes;
  if (text.getAsInteger(10, value) || value > static_cast<uint64_t>(INT64_MAX) ||
      llvm::MulOverflow(static_cast<int64_t>(value), scale, bytes))
    return std::nullopt;
  return bytes;
}

/// Half of the memory the system reports available (MemAvailable), or of physical memory.
static int64_t defaultMemoryLimit() {
  if (auto meminfo = llvm::MemoryBuffer::getFileAsStream("/proc/meminfo")) {
    StringRef text = (*meminfo)->getBuffer();
    size_t at = text.find("MemAvailable:");
    int64_t kib;
    if (at != StringRef::npos &&
        !text.drop_front(at + strlen("MemAvailable:")).ltrim().split(' ').first.getAsInteger(
            10, kib))
      return kib / 2 * 1024;
  }
  return static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) / 2;
}

static std::string sizeString(int64_t bytes) {
  if (bytes < (1LL << 20))
    return std::to_string(bytes) + " bytes";
  const char *unit = bytes >= (1LL << 30) ? "GiB" : "MiB";
  double scaled = bytes / double(bytes >= (1LL << 30) ? 1LL << 30 : 1LL << 20);
  return llvm::formatv("{0} bytes ({1:f2} {2})", bytes, scaled, unit).str();
}

static std::string shapeString(RankedTensorType type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

static void printSummary(unsigned index, const HostTensor &t) {
  if (t.getNumElements() == 0) {
    llvm::outs() << "result #" << index << ": " << shapeString(t.getType())
                 << " has no elements\n";
    return;
  }
  double min = INFINITY, max = -INFINITY, sum = 0, sumSq = 0;
  int64_t nonFinite = 0, n = t.getNumElements();
  for (int64_t i = 0; i < n; ++i) {
    double v = t.get(i);
    if (!std::isfinite(v)) {
      ++nonFinite;
      continue;
    }
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    sumSq += v * v;
  }
  int64_t finite = n - nonFinite;
  double mean = finite ? sum / finite : NAN;
  double stddev = finite ? std::sqrt(std::max(0.0, sumSq / finite - mean * mean)) : NAN;
  llvm::outs() << llvm::formatv("result #{0}: {1} min {2:e4} max {3:e4} mean {4:e4} std {5:e4} "
                                "l2 {6:e4}",
                                index, shapeString(t.getType()), min, max, mean, stddev,
                                std::sqrt(sumSq));
  if (nonFinite)
    llvm::outs() << " non-finite " << nonFinite;
  llvm::outs() << "\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  setCodaBugReportMessage();
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "coda-run: runs a function of an MLIR program on the CPU (coda ops are expanded to "
      "linalg, then bufferized and JIT-compiled through MLIR's ExecutionEngine).\n\n"
      "Inputs are random and deterministic: floats uniform in [-1, 1), integers in [0, "
      "int-max) (fewer where a program indexes a dimension with them), from --seed. A program "
      "that may need more than --max-memory is refused before anything is allocated; indices "
      "are checked as it runs, and a failed check or cf.assert is reported at its location. Without --against it prints each result's shape and summary "
      "statistics. With --against it runs the function of the same name in the other file on "
      "the same inputs (converted to its float types where they differ, e.g. a bf16 program "
      "against its f32 form), prints the maximum absolute and relative error of every result, "
      "and exits 1 when any element has |x - ref| > atol + rtol * |ref|. With --baseline, a "
      "third program of FILE's type is compared with the reference too, and FILE passes where "
      "its largest error is within --baseline-factor times the baseline's, plus atol. A "
      "program planned by --coda-plan-cuda runs as the program it plans: coda's annotations "
      "(kernel configurations, launch order, workspace offsets) are dropped.\n");

  // A crash names the input in its stack dump.
  std::string what = "coda-run: running '" + inputFile + "'";
  llvm::PrettyStackTraceString running(what.c_str());
  if (intMax < 1 || intMax > (1LL << 53)) {
    llvm::errs() << "coda-run: --int-max must be between 1 and 2^53, got " << intMax << "\n";
    return 2;
  }
  std::optional<int64_t> memoryLimit;
  if (maxMemory.getNumOccurrences()) {
    memoryLimit = parseSize(maxMemory);
    if (!memoryLimit || *memoryLimit <= 0) {
      llvm::errs() << "coda-run: --max-memory wants a positive size such as 512M or 8G, got '"
                   << maxMemory << "'\n";
      return 2;
    }
  } else {
    memoryLimit = defaultMemoryLimit();
  }

  DialectRegistry registry;
  registerAllCodaDialects(registry);
  registerAllCodaPasses();
  MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr, otherSourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  OwningOpRef<ModuleOp> module;
  func::FuncOp entry = loadEntry(inputFile, entryName, ctx, sourceMgr, module);
  if (!entry)
    return 2;
  std::string name = entry.getSymName().str();

  OwningOpRef<ModuleOp> other;
  if (!againstFile.empty()) {
    // Diagnostics from the other file must point into that file.
    SourceMgrDiagnosticHandler otherHandler(otherSourceMgr, &ctx);
    func::FuncOp otherEntry = loadEntry(againstFile, name, ctx, otherSourceMgr, other);
    if (!otherEntry)
      return 2;
    if (!isReferenceTypeOf(otherEntry.getFunctionType(), entry.getFunctionType())) {
      otherEntry.emitError() << "@" << name << " has type " << otherEntry.getFunctionType()
                             << " here but " << entry.getFunctionType() << " in " << inputFile
                             << " (a reference may differ only in its float types)";
      return 2;
    }
  }
  if (!(baselineFactor > 0)) {
    llvm::errs() << "coda-run: --baseline-factor must be positive, got " << baselineFactor
                 << "\n";
    return 2;
  }
  if (!baselineFile.empty() && !other) {
    llvm::errs() << "coda-run: --baseline needs --against (the reference both are compared "
                    "with)\n";
    return 2;
  }

  // Nothing is allocated before the run's whole size is known to fit.
  {
    int64_t need = 0;
    for (ModuleOp m : {*module, other ? *other : ModuleOp()}) {
      if (!m)
        continue;
      FailureOr<int64_t> bytes = estimateRunMemory(findEntryFunction(m, name));
      if (failed(bytes))
        return 2;
      // Each program fits in 63 bits; the two together may not, and are then too many.
      if (llvm::AddOverflow(need, *bytes, need))
        need = std::numeric_limits<int64_t>::max();
    }
    if (need > *memoryLimit) {
      entry.emitError() << "running @" << name << " may need " << sizeString(need)
                        << " of memory, above the limit of " << sizeString(*memoryLimit)
                        << " (raise it with --max-memory)";
      return 2;
    }
  }
  std::vector<HostTensor> inputs = makeRandomInputs(entry, seed, intMax);
  FailureOr<std::vector<HostTensor>> results = runOnCpu(*module, name, inputs);
  if (failed(results))
    return 2;

  if (!other) {
    llvm::outs() << "@" << name << " (seed " << seed << ")\n";
    for (auto [index, result] : llvm::enumerate(*results))
      printSummary(index, result);
    return 0;
  }

  FailureOr<std::vector<HostTensor>> references;
  {
    SourceMgrDiagnosticHandler otherHandler(otherSourceMgr, &ctx);
    references = runOnCpu(*other, name,
                          convertInputs(inputs, findEntryFunction(*other, name)));
  }
  if (failed(references))
    return 2;

  // The baseline's own errors against the reference, when one is given.
  std::optional<std::vector<Comparison>> baseline;
  if (!baselineFile.empty()) {
    llvm::SourceMgr baseSourceMgr;
    SourceMgrDiagnosticHandler baseHandler(baseSourceMgr, &ctx);
    OwningOpRef<ModuleOp> base;
    func::FuncOp baseEntry = loadEntry(baselineFile, name, ctx, baseSourceMgr, base);
    if (!baseEntry)
      return 2;
    if (baseEntry.getFunctionType() != entry.getFunctionType()) {
      baseEntry.emitError() << "@" << name << " has type " << baseEntry.getFunctionType()
                            << " here but " << entry.getFunctionType() << " in " << inputFile;
      return 2;
    }
    FailureOr<std::vector<HostTensor>> baseResults = runOnCpu(*base, name, inputs);
    if (failed(baseResults))
      return 2;
    baseline.emplace();
    for (unsigned i = 0; i < baseResults->size(); ++i)
      baseline->push_back(compareTensors((*baseResults)[i], (*references)[i], relTol, absTol));
  }

  llvm::outs() << "@" << name << " (seed " << seed << ") against " << againstFile << "\n";
  bool allOk = true;
  for (unsigned i = 0; i < results->size(); ++i) {
    Comparison c = compareTensors((*results)[i], (*references)[i], relTol, absTol);
    llvm::outs() << llvm::formatv("result #{0}: {1} max abs err {2:e3} max rel err {3:e3} ", i,
                                  shapeString((*results)[i].getType()), c.maxAbsError,
                                  c.maxRelError);
    bool ok;
    if (baseline) {
      const Comparison &b = (*baseline)[i];
      double limit = baselineFactor * b.maxAbsError + absTol;
      ok = c.maxAbsError <= limit;
      llvm::outs() << llvm::formatv("(baseline max abs err {0:e3}, limit {1} x baseline + atol "
                                    "{2:e1} = {3:e3}): ",
                                    b.maxAbsError, baselineFactor.getValue(), absTol.getValue(),
                                    limit);
      if (!ok)
        llvm::outs() << "MISMATCH: the error exceeds the limit\n";
    } else {
      ok = c.numMismatches == 0;
      llvm::outs() << llvm::formatv("(rtol {0:e1}, atol {1:e1}): ", relTol.getValue(),
                                    absTol.getValue());
      if (!ok)
        llvm::outs() << "MISMATCH in " << c.numMismatches << " of "
                     << (*results)[i].getNumElements() << " elements\n";
    }
    allOk &= ok;
    if (ok)
      llvm::outs() << "ok\n";
  }
  if (!allOk) {
    llvm::errs() << "coda-run: " << inputFile << " and " << againstFile
                 << " disagree beyond the tolerances\n";
    return 1;
  }
  return 0;
}
