//===- PlanGemm.cpp - What one coda.gemm becomes --------------------------===//
//
// Before a coda.gemm is printed: its epilogue DAG (planKernel: where each result goes, which
// operand rides the collective's C, the value streams), whether a table is read by TMA, and
// its kernel configuration (chooseConfig: the tuning database or the analytic model, with the
// model's ranking written into the file as comments).
//
//===----------------------------------------------------------------------===//

#include "CudaEmitter.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

/// Whether tiled operand #i is read through TMA (coda::rt::TableLoad, tma-tables): a 16-bit
/// table whose rows are whole 16-byte units, an epilogue subtile inside one period, a CTA tile a
/// whole number of periods wide, in a ping-pong kernel. A table's stages take shared memory
/// from the mainloop's: 16 KB for ping-pong's 64-row subtiles, twice that for cooperative
/// ones or fp32 tables (on the H200, QK + RoPE's 128x256 cooperative kernel took 0.757 ms with
/// them against 0.541 ms with per-thread loads); those keep per-thread loads.
bool cuda::tableByTma(GemmOp op, unsigned i, const KernelPlan &plan, const KernelConfig &config,
                      const CudaEmitterOptions &options) {
  if (!options.tmaTables || op.getRole(i) != OperandRole::Tiled || !config.pingpong)
    return false;
  const std::string &t = plan.operandElements[i];
  int64_t p = periodOf(op, i);
  return (t == "cutlass::bfloat16_t" || t == "cutlass::half_t") && p % 8 == 0 &&
         p % config.epilogueTileN() == 0 && config.tileN % p == 0;
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
      // --cuda-without=tma-halves, the TMA store puts the pairs side by side into the workspace and a
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
/// A kernel's key in a tuning database: what decides its speed, not its text, so that a
/// front-end change that leaves the kernel as it is keeps its entry. The problem's shape; A's
/// element type and both operands' layouts; the pairwise mode (and the heads it rotates); each
/// epilogue operand's role and element type (a table's period); each result's mode and
/// element type; and the epilogue's fp32 operations per element. For example
/// "8192x28672x4096:bf16:nt:contract:-:store-bf16:ops16".
static std::string tuningKey(GemmOp op, double opsPerElement) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << op.getM() << "x" << op.getN() << "x" << op.getK() << ":"
     << op.getA().getType().getElementType() << ":" << (op.getTransposeA() ? "t" : "n")
     << (op.getTransposeB() ? "t" : "n") << ":";
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
    os << "-" << cast<ShapedType>(extra.getType()).getElementType();
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
    os << "-" << cast<ShapedType>(op->getResult(r).getType()).getElementType();
  }
  os << ":ops" << llvm::formatv("{0:f0}", opsPerElement);
  return key;
}

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
                   rowsAhead.contains(op), opsFull},
                  options.target);

  std::string key = tuningKey(op, ops);
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
