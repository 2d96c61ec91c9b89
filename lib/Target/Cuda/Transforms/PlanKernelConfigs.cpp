//===- PlanKernelConfigs.cpp - each coda.gemm's configuration and sinks ---===//
//
// For every coda.gemm: how each result leaves the epilogue (the sinks), then the kernel
// configuration (the tuning database's entry for the kernel's key, else the analytic model's
// best for the target GPU), then which tables are read through TMA. The decisions go into the
// `coda.kernel` attribute; the reasons (key, source, model inputs, stage 2's candidates) into
// `coda.tuning`, which the emitter writes into the .cu file as comments for bench/tune.py.
//
//===----------------------------------------------------------------------===//

#include "coda/Target/Cuda/Plan.h"
#include "coda/Target/Cuda/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

namespace mlir::coda {
#define GEN_PASS_DEF_CODAPLANKERNELCONFIGS
#include "coda/Target/Cuda/Transforms/Passes.h.inc"
} // namespace mlir::coda

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

namespace {
/// The default paths a plan may leave out (the pass's `without`).
struct Paths {
  bool tmaHalves = true, tmaContract = true, tmaTables = true, wholeWaves = true;
};
} // namespace

static bool isHalf(Type t) { return isa<BFloat16Type, Float16Type>(t); }
static Type elementOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }

/// How each result leaves the epilogue; an error at the op where the back end cannot run it.
static FailureOr<SmallVector<ResultSink>> chooseSinks(GemmOp op, const Paths &paths) {
  // A batched product runs as CUTLASS's batched GEMM (the L mode): elementwise epilogues with
  // operands per batch or shared, stored or accumulated results.
  if (op.isBatched()) {
    auto refuse = [&](StringRef what) {
      return op.emitOpError("batched products with ")
             << what << " are not supported by the CUDA backend yet", failure();
    };
    if (op.getPairwise())
      return refuse("a pairwise epilogue");
    for (unsigned r = 0, e = op.getNumResults(); r < e; ++r)
      if (op.getMode(r).isReduce())
        return refuse("reduction results");
    for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
      if (op.getRole(i) == OperandRole::Tiled)
        return refuse("tiled operands");
  }
  Type inElem = elementOf(op.getA());
  if (!isHalf(inElem) && !inElem.isF32())
    return op.emitOpError("the CUDA backend needs bf16, f16 or f32 (TF32) inputs, got ") << inElem,
           failure();
  // Integer operands (labels) reach the epilogue as fp32, exact below 2^24.
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i) {
    Type elem = elementOf(op.getExtras()[i]);
    if (!elem.isInteger(64) && !elem.isInteger(32) && !isHalf(elem) && !elem.isF32())
      return op.emitOpError("operand #") << i << " has element type " << elem
                                         << ", which the CUDA backend cannot read",
             failure();
  }
  std::optional<PairwiseMode> pairwise = op.getPairwise();
  bool contract = pairwise == PairwiseMode::Contract;
  bool expand = pairwise == PairwiseMode::Expand;
  bool stored = false, contracted = false; // the collective's D (or a HalvesStore) is taken
  SmallVector<ResultSink> sinks;
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r) {
    ResultModeAttr mode = op.getMode(r);
    if (mode.isReduce()) {
      if (expand)
        return op.emitOpError("result #") << r << ": reductions of pairwise(expand) epilogues are "
                                             "not supported by the CUDA backend",
               failure();
      sinks.push_back(ResultSink::Partials);
      continue;
    }
    Type elem = elementOf(op->getResult(r));
    if (!isHalf(elem) && !elem.isF32())
      return op.emitOpError("result #") << r << " must be bf16, f16 or f32 for the CUDA backend",
             failure();
    // The collective's TMA store writes the first result shaped like the accumulator. A
    // rotation into halves is written by a HalvesStore from the kernel, whole heads per CTA
    // tile. Where it cannot be (an accumulated result, heads no tile is as wide as) or without
    // tma-halves, the TMA store puts the pairs side by side into the workspace and a copy
    // kernel moves them into their halves (16-byte accesses both ways: per-thread scattered
    // stores from the epilogue cost the GEMM a third more on the H200).
    if (!stored && op.getHalves() && paths.tmaHalves && !mode.isAccumulate() &&
        isTileWidth(*op.getHalves())) {
      stored = true;
      sinks.push_back(ResultSink::Halves);
    } else if (!stored && !contract && !expand) {
      stored = true;
      sinks.push_back(op.getHalves() ? ResultSink::Staged : ResultSink::Tma);
    } else if (contract && !contracted && paths.tmaContract && !mode.isAccumulate()) {
      // The first contracted result leaves by TMA; per-thread 2-byte stores cost a
      // cooperative kernel a fifth of its time on the H200.
      contracted = true;
      sinks.push_back(ResultSink::Contract);
    } else if (op.getHalves()) {
      return op.emitOpError("result #") << r << ": the CUDA backend stores one result of a "
                                           "pairwise(rotate, halves) kernel",
             failure();
    } else if (mode.isAccumulate()) {
      return op.emitOpError("result #") << r << ": the CUDA backend accumulates only into the "
                                           "first stored result, and not in contract or expand mode",
             failure();
    } else {
      sinks.push_back(ResultSink::Direct);
    }
  }
  return sinks;
}

/// Whether tiled operand #i is read through TMA (coda::rt::TableLoad): a 16-bit table whose
/// rows are whole 16-byte units, an epilogue subtile inside one period, a CTA tile a whole
/// number of periods wide, in a ping-pong kernel. A table's stages take shared memory from the
/// mainloop's: 16 KB for ping-pong's 64-row subtiles, twice that for cooperative ones or fp32
/// tables (on the H200, QK + RoPE's 128x256 cooperative kernel took 0.757 ms with them
/// against 0.541 ms with per-thread loads); those keep per-thread loads.
static bool tableByTma(GemmOp op, unsigned i, const KernelConfig &config) {
  if (op.getRole(i) != OperandRole::Tiled || !config.pingpong)
    return false;
  int64_t p = periodOf(op, i);
  return isHalf(elementOf(op.getExtras()[i])) && p % 8 == 0 &&
         p % config.epilogueTileN() == 0 && config.tileN % p == 0;
}

/// The epilogue's arithmetic per accumulator element for the model, in simple fp32 operations:
/// the region's ops (library calls weighted by their length, each bf16/f16 rounding one more),
/// and the work of the DAG's nodes (coordinates, per-thread loads and stores, reductions);
/// `fullDivision`: with the divisions that may through div.full.f32.
static double epilogueOpsPerElement(GemmOp op, ArrayRef<ResultSink> sinks, bool fullDivision) {
  double region = 0;
  op.getEpilogue().walk([&](Operation *o) {
    if (isa<arith::ConstantOp, YieldOp>(o))
      return;
    Type t = o->getNumResults() ? o->getResult(0).getType() : Type();
    bool narrow = t && isHalf(t) && !isa<arith::ExtFOp>(o);
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
  // Rotate reads its two yields in one stream; expand in two.
  unsigned streams = op.getNumResults() * (op.getPairwise() == PairwiseMode::Expand ? 2 : 1);
  double ops = region * streams / op.getInArity() + 2; // + coordinates
  int source = sourceOperand(op, sinks);
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    ops += (op.getRole(i) == OperandRole::Matrix || op.getRole(i) == OperandRole::Tiled) &&
                   int(i) != source
               ? 4
               : 1;
  for (auto [r, sink] : llvm::enumerate(sinks))
    ops += sink == ResultSink::Direct || sink == ResultSink::Halves ||
                   sink == ResultSink::Contract
               ? 3
           : sink == ResultSink::Partials
               ? (op.getMode(r).getCombiner() == Combiner::LogSumExp ? 8 : 3)
               : 0;
  return ops;
}

/// A kernel's key in a tuning database: what decides its speed, not its text, so that a
/// front-end change that leaves the kernel as it is keeps its entry. The problem's shape; A's
/// element type and both operands' layouts; the pairwise mode (and the heads it rotates); each
/// epilogue operand's role and element type (a table's period); each result's mode and
/// element type; and the epilogue's fp32 operations per element. For example
/// "8192x28672x4096:bf16:nt:contract:-:store-bf16:ops16" ("b<L>:" first for a batch of L).
static std::string tuningKey(GemmOp op, int64_t m, double opsPerElement) {
  std::string key;
  llvm::raw_string_ostream os(key);
  if (op.isBatched()) // "b<L>:" before a batch of L products
    os << "b" << op.getBatchSize() << ":";
  os << m << "x" << op.getN() << "x" << op.getK() << ":" << elementOf(op.getA()) << ":"
     << (op.getTransposeA() ? "t" : "n") << (op.getTransposeB() ? "t" : "n") << ":";
  if (std::optional<PairwiseMode> mode = op.getPairwise())
    os << stringifyPairwiseMode(*mode);
  else
    os << "plain";
  if (std::optional<uint64_t> halves = op.getHalves())
    os << "-halves" << *halves;
  os << ":";
  if (op.getExtras().empty())
    os << "-";
  for (auto [i, extra] : llvm::enumerate(op.getExtras())) {
    OperandRole role = op.getRole(i);
    os << (i ? "," : "") << stringifyOperandRole(role);
    if (role == OperandRole::Tiled)
      os << periodOf(op, i);
    os << "-" << elementOf(extra);
  }
  os << ":";
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r) {
    ResultModeAttr mode = op.getMode(r);
    os << (r ? "," : "");
    if (mode.isReduce())
      os << "reduce_" << stringifyReduceDim(mode.getDim()) << "_"
         << stringifyCombiner(mode.getCombiner());
    else
      os << (mode.isAccumulate() ? "accumulate" : "store");
    os << "-" << elementOf(op->getResult(r));
  }
  os << ":ops" << llvm::formatv("{0:f0}", opsPerElement);
  return key;
}

/// Stage 2's candidates: the model's best per tile and schedule; then the best tile in every
/// other cluster shape and split count, in the two other raster orders, without the swizzle,
/// with CUTLASS's own epilogue subtile, and with the other division (the model's raster order,
/// subtile and division are estimates, and it does not tell the clusters' L2 reuse apart).
static SmallVector<std::pair<KernelConfig, double>>
stage2Candidates(ArrayRef<std::pair<KernelConfig, double>> ranked, bool divides) {
  SmallVector<std::pair<KernelConfig, double>> candidates;
  auto sameTile = [](const KernelConfig &a, const KernelConfig &b) {
    return a.tileM == b.tileM && a.tileN == b.tileN && a.pingpong == b.pingpong;
  };
  for (auto &[config, ms] : ranked)
    if (llvm::none_of(candidates, [&](const auto &c) { return sameTile(c.first, config); }))
      candidates.push_back({config, ms});
  const auto &[best, bestMs] = ranked.front();
  // Other clusters at the best's split count; other split counts in the best's cluster where
  // the model puts them within half again of the best.
  for (auto &[config, ms] : ranked) {
    bool sameCluster = config.clusterM == best.clusterM && config.clusterN == best.clusterN;
    if (sameTile(config, best) &&
        (config.splits == best.splits || (sameCluster && ms <= 1.5 * bestMs)) &&
        llvm::none_of(candidates, [&](const auto &c) {
          return sameTile(c.first, config) && c.first.clusterM == config.clusterM &&
                 c.first.clusterN == config.clusterN && c.first.splits == config.splits;
        }))
      candidates.push_back({config, ms});
  }
  for (KernelConfig::Raster raster : {KernelConfig::Raster::Heuristic, KernelConfig::Raster::AlongM,
                                      KernelConfig::Raster::AlongN}) {
    KernelConfig config = best;
    if (config.raster == raster)
      continue;
    config.raster = raster;
    candidates.push_back({config, bestMs});
  }
  if (KernelConfig unswizzled = best; unswizzled.swizzle > 1) {
    unswizzled.swizzle = 1;
    candidates.push_back({unswizzled, bestMs});
  }
  if (KernelConfig automatic = best; automatic.epilogueN) {
    automatic.epilogueN = 0;
    candidates.push_back({automatic, bestMs});
  }
  if (KernelConfig other = best; divides) {
    other.fullDivision = !other.fullDivision;
    candidates.push_back({other, bestMs});
  }
  return candidates;
}

/// Plans `op`: its sinks, configuration and TMA tables into `coda.kernel`, the reasons into
/// `coda.tuning`.
static LogicalResult planKernel(GemmOp op, const GpuTarget &target, const TuningDb &db,
                                const Paths &paths, ArrayRef<int64_t> dispatch,
                                bool threeTf32) {
  // (A batch's split copies would interleave its products' K rows: batched products stay TF32.)
  bool exactFp32 = threeTf32 && elementOf(op.getA()).isF32() && !op.isBatched();
  FailureOr<SmallVector<ResultSink>> sinks = chooseSinks(op, paths);
  if (failed(sinks))
    return failure();
  auto bytesOf = [](Type t) { return std::max<unsigned>(1, t.getIntOrFloatBitWidth() / 8); };
  double bytes = 0;
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r)
    if (ResultModeAttr mode = op.getMode(r); !mode.isReduce())
      bytes += bytesOf(elementOf(op->getResult(r))) * double(op.getOutArity()) /
               op.getInArity() * (mode.isAccumulate() ? 2 : 1);
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    if (op.getRole(i) == OperandRole::Matrix)
      bytes += bytesOf(elementOf(op.getExtras()[i]));
  double ops = epilogueOpsPerElement(op, *sinks, /*fullDivision=*/false);
  bool divides = false;
  op.getEpilogue().walk([&](arith::DivFOp d) { divides |= mayDivideFull(d); });
  double opsFull = divides ? epilogueOpsPerElement(op, *sinks, /*fullDivision=*/true) : 0;
  // Results through the collective's TMA store, a ContractStore or reduction partials, 16-bit
  // where stored, and no tables: the epilogue the 64-column subtile was measured on.
  bool plain = true;
  for (auto [r, sink] : llvm::enumerate(*sinks))
    plain &= sink == ResultSink::Partials ||
             ((sink == ResultSink::Tma || sink == ResultSink::Staged ||
               sink == ResultSink::Contract) &&
              isHalf(elementOf(op->getResult(r))));
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    plain &= op.getRole(i) != OperandRole::Tiled;
  // A batch of L products is planned as one of L·M rows: as many tiles, within a tile per batch.
  // Three TF32 products run as one over 3K.
  KernelProblem problem{op.getBatchSize() * op.getM(), op.getN(), (exactFp32 ? 3 : 1) * op.getK(),
                        bytes, ops, plain,
                        op->hasAttr(kAwaitsRowsAttr), opsFull,
                        elementOf(op.getA()).isF32() ? 4 : 2};
  // A HalvesStore tiles the result in whole heads: the CTA tile's N is a multiple of the head,
  // in the model's ranking and in a database entry alike.
  std::optional<int64_t> head;
  if (llvm::is_contained(*sinks, ResultSink::Halves))
    head = *op.getHalves();
  // The configuration for M rows: the database's entry for the kernel's key at that M, else
  // the model's best; and whether it came from the database.
  auto choose = [&](int64_t m, SmallVector<std::pair<KernelConfig, double>> &ranked) {
    KernelProblem p = problem;
    p.m = op.getBatchSize() * m;
    ranked = rankConfigs(p, &target);
    if (head)
      llvm::erase_if(ranked, [&](const auto &c) { return c.first.tileN % *head != 0; });
    // The batched launch runs on the persistent scheduler: no split-K.
    if (op.isBatched())
      llvm::erase_if(ranked, [&](const auto &c) { return c.first.splits > 1; });
    auto it = db.find(tuningKey(op, m, ops));
    if (it != db.end() && head && it->second.tileN % *head != 0)
      it = db.end();
    // A row hand-off follows the persistent scheduler's tile order, which split-K's is not.
    if (it != db.end() && it->second.splits > 1 && (op->hasAttr(kAwaitsRowsAttr) || op.isBatched()))
      it = db.end();
    return it != db.end() ? std::make_pair(it->second, true)
                          : std::make_pair(ranked.front().first, false);
  };
  SmallVector<std::pair<KernelConfig, double>> ranked;
  auto [chosen, fromDb] = choose(op.getM(), ranked);
  std::string key = tuningKey(op, op.getM(), ops);
  MLIRContext *context = op.getContext();
  auto attrOf = [&](const KernelConfig &config) {
    SmallVector<int64_t> tables;
    for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
      if (paths.tmaTables && tableByTma(op, i, config))
        tables.push_back(i);
    return toKernelConfigAttr(context, config, *sinks, tables, paths.wholeWaves, exactFp32);
  };
  KernelConfigAttr chosenAttr = attrOf(chosen);
  op->setAttr(KernelConfigAttr::getAttrName(), chosenAttr);

  // Runtime dispatch on M: a configuration per range, the kernel's own in its own range.
  if (!dispatch.empty() && !op->hasAttr(kAwaitsRowsAttr) && !op.isBatched()) {
    Builder b(context);
    SmallVector<Attribute> entries;
    bool differs = false;
    for (size_t r = 0; r <= dispatch.size(); ++r) {
      int64_t lo = r ? dispatch[r - 1] : 0;
      bool last = r == dispatch.size();
      int64_t hi = last ? std::max<int64_t>(8192, 2 * lo) : dispatch[r];
      bool own = op.getM() > lo && (last || op.getM() <= hi);
      int64_t planned = own ? op.getM() : hi;
      SmallVector<std::pair<KernelConfig, double>> unused;
      KernelConfigAttr attr = own ? chosenAttr : attrOf(choose(planned, unused).first);
      differs |= attr != chosenAttr;
      SmallVector<NamedAttribute> fields{b.getNamedAttr("kernel", attr),
                                         b.getNamedAttr("planned_m", b.getI64IntegerAttr(planned))};
      if (!last)
        fields.push_back(b.getNamedAttr("max_m", b.getI64IntegerAttr(hi)));
      entries.push_back(b.getDictionaryAttr(fields));
    }
    if (differs)
      op->setAttr(kDispatchAttr, b.getArrayAttr(entries));
  }

  std::string inputs = llvm::formatv("epilogue {0:f1} bytes and {1:f0} fp32 ops per element",
                                     bytes, ops);
  if (divides)
    inputs += llvm::formatv(" ({0:f0} with div.full.f32)", opsFull).str();
  Builder b(context);
  SmallVector<Attribute> candidates;
  for (auto &[config, ms] : stage2Candidates(ranked, divides))
    candidates.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("config", toKernelConfigAttr(context, config, *sinks, {},
                                                      paths.wholeWaves, exactFp32)),
         b.getNamedAttr("model_ns", b.getI64IntegerAttr(std::llround(ms * 1e6)))}));
  op->setAttr(kTuningAttr,
              b.getDictionaryAttr({b.getNamedAttr("key", b.getStringAttr(key)),
                                   b.getNamedAttr("chosen_by", b.getStringAttr(fromDb ? "database"
                                                                                      : "model")),
                                   b.getNamedAttr("model_inputs", b.getStringAttr(inputs)),
                                   b.getNamedAttr("candidates", b.getArrayAttr(candidates))}));
  return success();
}

namespace {
struct PlanKernelConfigsPass
    : public coda::impl::CodaPlanKernelConfigsBase<PlanKernelConfigsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const GpuTarget *gpu = lookupGpuTarget(target);
    if (!gpu) {
      InFlightDiagnostic diag = emitError(module.getLoc(), "unknown target GPU '") << target << "'; known:";
      for (const GpuTarget &known : gpuTargets())
        diag << " " << known.name << " (" << known.description << ")";
      return signalPassFailure();
    }
    Paths paths;
    for (const std::string &path : without) {
      bool *flag = llvm::StringSwitch<bool *>(path)
                       .Case("tma-halves", &paths.tmaHalves)
                       .Case("tma-contract", &paths.tmaContract)
                       .Case("tma-tables", &paths.tmaTables)
                       .Case("whole-waves", &paths.wholeWaves)
                       .Default(nullptr);
      if (!flag) {
        emitError(module.getLoc(), "without: unknown path '")
            << path << "'; expected tma-halves, tma-contract, tma-tables or whole-waves";
        return signalPassFailure();
      }
      *flag = false;
    }
    TuningDb db;
    if (!tuningDb.empty()) {
      llvm::Expected<TuningDb> loaded = loadTuningDb(tuningDb);
      if (!loaded) {
        emitError(module.getLoc(), llvm::toString(loaded.takeError()));
        return signalPassFailure();
      }
      db = std::move(*loaded);
    }
    if (fp32 != "tf32" && fp32 != "3xtf32") {
      emitError(module.getLoc(), "fp32: unknown mode '") << fp32 << "'; expected tf32 or 3xtf32";
      return signalPassFailure();
    }
    SmallVector<int64_t> bounds(dispatch.begin(), dispatch.end());
    for (size_t i = 0; i < bounds.size(); ++i)
      if (bounds[i] < 1 || bounds[i] >= std::numeric_limits<int32_t>::max() ||
          (i && bounds[i] <= bounds[i - 1])) {
        emitError(module.getLoc(), "dispatch: bounds of M must be ascending, from 1 to 2^31 - 2 "
                                   "(a launcher's M is an int), got ")
            << bounds[i] << (i ? " after " + std::to_string(bounds[i - 1]) : std::string());
        return signalPassFailure();
      }
    WalkResult result = module.walk([&](GemmOp op) {
      if (getKernelConfig(op))
        return WalkResult::advance();
      return failed(planKernel(op, *gpu, db, paths, bounds, fp32 == "3xtf32")) ? WalkResult::interrupt()
                                                     : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    module.walk([&](AttentionOp op) {
      if (attentionRowWise(op, *gpu))
        op->setAttr(kRowWiseAttr, UnitAttr::get(op.getContext()));
    });
  }
};
} // namespace
