//===- KernelConfig.cpp - the analytic model and the tuning database ------===//
//
// The model (stage 1) estimates a sm90 GEMM on a GPU of GpuTargets.def (SMs, peak, HBM
// bandwidth, clock, L2; the H200 unless --target names another). A configuration's time is its
// waves of work units times the time of one unit, and never less than the time to move A, B
// and the epilogue's bytes once at copy speed. A unit is a tile, or with split-K a tile's
// share of the K loop. Its time: the mainloop at an efficiency that grows with the tile
// (operand bytes per flop fall; wgmma computes padding rows too, which is what makes
// decode-sized M slow on 128-row tiles), split-K's partial tiles added in turn through L2, plus
// the epilogue: its memory traffic and its arithmetic, which ping-pong overlaps with the other
// warp group's mainloop and cooperative does not. The epilogue's arithmetic rate (simple fp32
// operations per clock and SM) is what the H200 showed on bias+GELU, SwiGLU and LM head +
// log-sum-exp: about 17 for cooperative's two warp groups together, 7 for one ping-pong warp
// group, far under the SM's 128 lanes (dependent chains, few warps). Clusters multicast
// operands (a small gain) but round the tile grid up to whole clusters. Cluster shape affects
// L2 reuse, which the model cannot tell apart: stage 2 times the alternatives. The raster order
// it picks from the operand bytes each order reads from DRAM (rasterFor).
// The epilogue subtile is not modelled: a plain epilogue takes 64 columns where stage 2
// measured them faster (widerSubtileMeasured). Divisions go through div.full.f32 where they
// may in cooperative kernels only, whose epilogue is on the critical path (fullDivision).
//
//===----------------------------------------------------------------------===//

#include "coda/Target/Cuda/KernelConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::coda;

static const char *rasterName(KernelConfig::Raster r) {
  switch (r) {
  case KernelConfig::Raster::Heuristic:
    return "heuristic";
  case KernelConfig::Raster::AlongM:
    return "along_m";
  case KernelConfig::Raster::AlongN:
    return "along_n";
  }
  return "heuristic";
}

std::string KernelConfig::str() const {
  return llvm::formatv("{0}x{1}x{2} cluster {3}x{4} {5} raster {6}{7}{8}{9}{10}", tileM, tileN,
                       tileK, clusterM, clusterN, pingpong ? "pingpong" : "cooperative",
                       rasterName(raster),
                       swizzle != kDefaultSwizzle ? " swizzle " + std::to_string(swizzle) : "",
                       epilogueN ? llvm::formatv(" epilogue {0}x{1}", epilogueTileM(), epilogueN)
                                       .str()
                                 : "",
                       fullDivision ? " division full" : "",
                       splits > 1 ? " split " + std::to_string(splits) : "")
      .str();
}

std::string KernelConfig::json() const {
  return llvm::formatv("{{\"tile\": [{0}, {1}, {2}], \"cluster\": [{3}, {4}], \"schedule\": "
                       "\"{5}\", \"raster\": \"{6}\"{7}{8}{9}{10}}",
                       tileM, tileN, tileK, clusterM, clusterN,
                       pingpong ? "pingpong" : "cooperative", rasterName(raster),
                       swizzle != kDefaultSwizzle ? ", \"swizzle\": " + std::to_string(swizzle) : "",
                       epilogueN ? ", \"epilogue_n\": " + std::to_string(epilogueN) : "",
                       fullDivision ? ", \"division\": \"full\"" : "",
                       splits > 1 ? ", \"splits\": " + std::to_string(splits) : "")
      .str();
}

bool KernelConfig::operator==(const KernelConfig &o) const {
  return tileM == o.tileM && tileN == o.tileN && tileK == o.tileK && clusterM == o.clusterM &&
         clusterN == o.clusterN && pingpong == o.pingpong && raster == o.raster &&
         swizzle == o.swizzle && epilogueN == o.epilogueN &&
         fullDivision == o.fullDivision && splits == o.splits;
}

namespace {
/// The CTA tiles and schedules the backend emits.
struct Shape {
  int m, n;
  bool pingpong;
  double efficiency; // of the mainloop at this tile, from CUTLASS's sm90 bf16 GEMMs
};
constexpr Shape shapes[] = {{128, 256, false, 0.80}, {256, 128, false, 0.78},
                            {128, 128, false, 0.70}, {128, 128, true, 0.74},
                            {64, 256, true, 0.72}};
} // namespace

/// Whether the 64-column epilogue subtile beat CUTLASS's 32 for a plain epilogue at this tile.
/// Stage 2 on the H200 (docs/benchmarks.md): cooperative 128x256 0.2-1.2 %
/// faster in four kernels and within 0.4 % in four; ping-pong 128x128 1.0 % (SwiGLU), 64x256
/// 2.7 % (LM head + CE). Half as many steps, each a barrier of the warp groups and a TMA
/// store. Where the epilogue read RoPE's tables or stored halves it lost 5-7 %: not plain.
static bool widerSubtileMeasured(const Shape &s) {
  return s.n == 256 || (s.pingpong && s.m == 128 && s.n == 128);
}

bool mlir::coda::isTileWidth(int64_t n) {
  return llvm::any_of(shapes, [&](const Shape &s) { return s.n == n; });
}

/// The raster order whose tiles read fewer operand bytes from DRAM. The persistent scheduler
/// visits the tiles in groups of `swizzle` clusters across the raster, each group sweeping
/// along it: along N, a group's rows of A stay in L2 while all of B streams past once per group
/// (and the other way along M). SwiGLU's 64 × 224 tiles of 128² in 2x1 clusters: along N reads
/// B 4 times (0.96 GB), along M A 28 times (2.0 GB); the H200 read 2.26 GB against 4.95 (ncu).
/// Heuristic (CUTLASS's choice, along M when the tiles along N are more) where it is that
/// order, where the orders differ by less than 1.5x, or where both operands fit in L2. Along N
/// whatever the bytes where a row reduction runs just before the kernel (`p.rowsAhead`): only
/// then does it run beside it.
static KernelConfig::Raster rasterFor(const KernelProblem &p, const KernelConfig &c,
                                      double tilesM, double tilesN, double l2) {
  KernelConfig::Raster heuristic =
      tilesN > tilesM ? KernelConfig::Raster::AlongM : KernelConfig::Raster::AlongN;
  if (p.rowsAhead)
    return heuristic == KernelConfig::Raster::AlongN ? KernelConfig::Raster::Heuristic
                                                     : KernelConfig::Raster::AlongN;
  constexpr double clearly = 1.5;
  double a = double(p.m) * p.k * p.inputBytes, b = double(p.n) * p.k * p.inputBytes;
  if (a + b <= l2)
    return KernelConfig::Raster::Heuristic;
  // The swizzle the launcher takes: the largest power of two up to c.swizzle that divides both
  // tile counts by itself times the cluster.
  int swizzle = c.swizzle;
  while (swizzle > 1 && (std::fmod(tilesM, swizzle * c.clusterM) != 0 ||
                         std::fmod(tilesN, swizzle * c.clusterN) != 0))
    swizzle /= 2;
  double alongN = a + b * std::ceil(tilesM / (swizzle * c.clusterM));
  double alongM = b + a * std::ceil(tilesN / (swizzle * c.clusterN));
  KernelConfig::Raster better =
      alongN < alongM ? KernelConfig::Raster::AlongN : KernelConfig::Raster::AlongM;
  if (better == heuristic || std::max(alongN, alongM) < clearly * std::min(alongN, alongM))
    return KernelConfig::Raster::Heuristic;
  return better;
}

ArrayRef<GpuTarget> mlir::coda::gpuTargets() {
  static const GpuTarget targets[] = {
#define GPU_TARGET(NAME, DESCRIPTION, SMS, TFLOPS, TBPS, GHZ, SMEM_KIB, L2_MIB, COOP, PINGPONG)  \
  {NAME, DESCRIPTION, SMS, TFLOPS * 1e12, TBPS * 1e12, GHZ * 1e9, SMEM_KIB * 1024,              \
   L2_MIB * 1e6, COOP, PINGPONG},
#include "coda/Target/Cuda/GpuTargets.def"
  };
  return targets;
}

const GpuTarget *mlir::coda::lookupGpuTarget(StringRef name) {
  for (const GpuTarget &target : gpuTargets())
    if (target.name == name)
      return &target;
  return nullptr;
}

SmallVector<std::pair<KernelConfig, double>> mlir::coda::rankConfigs(const KernelProblem &p,
                                                                     const GpuTarget *target) {
  const GpuTarget &gpu = target ? *target : gpuTargets().front();
  const double sms = gpu.sms, hbm = gpu.memoryBandwidth, clock = gpu.clock;
  // TF32 wgmma runs at half the 16-bit rate; its K step of 32 holds as many bytes as 64.
  const double peak = p.inputBytes == 4 ? gpu.peakFlops / 2 : gpu.peakFlops;
  const int tileK = 128 / p.inputBytes;
  const double cooperativeOpsPerClock = gpu.cooperativeOpsPerClock,
               pingpongOpsPerClock = gpu.pingpongOpsPerClock;
  // No kernel reads and writes faster than a copy: about 90 % of HBM's peak.
  constexpr double copyFraction = 0.9;
  // The bytes every configuration moves at least once: A, B and the epilogue's traffic. At
  // decode-sized M this floor (the weights) is the kernel's time, and what ranks the
  // configurations is how close their tiles' own time comes to it.
  double floor = (double(p.m) * p.k * p.inputBytes + double(p.n) * p.k * p.inputBytes +
                  double(p.m) * p.n * p.epilogueBytesPerElement) /
                 (hbm * copyFraction);
  double kTiles = std::ceil(double(p.k) / tileK);
  // 2x1 first: it wins ties (an epilogue-bound ping-pong), and its multicast halves B's loads.
  // 2x2 multicasts both operands; the model cannot weigh the L2 traffic that saves (stage 2
  // times it), so 2x2 only ever ties 2x1 or loses to its rounding.
  const int clusters[][2] = {{2, 1}, {1, 1}, {1, 2}, {2, 2}};
  struct Ranked {
    KernelConfig config;
    double ms, tiles; // the estimate, and the tiles' own time under the floor
  };
  SmallVector<Ranked> ranked;
  for (const Shape &s : shapes)
    for (const auto &c : clusters)
      // Split-K: cooperative kernels only, each split at least 4 k-tiles (a filled pipeline),
      // not with a row reduction beside the kernel (its handover follows the persistent
      // scheduler's tile order).
      for (int splits = 1; splits == 1 || (!s.pingpong && !p.rowsAhead && isSplitCount(splits) &&
                                           kTiles >= 4 * splits);
           splits *= 2) {
        KernelConfig config;
        config.tileM = s.m;
        config.tileN = s.n;
        config.tileK = tileK;
        config.clusterM = c[0];
        config.clusterN = c[1];
        config.pingpong = s.pingpong;
        config.splits = splits;
        double tilesM = std::ceil(double(p.m) / s.m), tilesN = std::ceil(double(p.n) / s.n);
        tilesM = std::ceil(tilesM / c[0]) * c[0];
        tilesN = std::ceil(tilesN / c[1]) * c[1];
        config.raster = rasterFor(p, config, tilesM, tilesN, gpu.l2Bytes);
        if (p.plainEpilogue && widerSubtileMeasured(s))
          config.epilogueN = 64;
        config.fullDivision = !s.pingpong && p.epilogueOpsFullDivision > 0;
        double ops = config.fullDivision ? p.epilogueOpsFullDivision : p.epilogueOpsPerElement;
        double waves = std::ceil(tilesM * tilesN * splits / sms);
        double multicast = c[0] * c[1] > 1 ? 1.02 : 1.0;
        // wgmma computes the whole tile, padding rows included.
        double mainloop =
            2.0 * s.m * s.n * p.k / (peak / sms * s.efficiency * multicast) / splits;
        // The splits of a tile add their fp32 partials in turn (deterministic): each writes
        // and reads back a tile of partials through L2, at an SM's 64 bytes per clock, while
        // the later ones wait.
        double fixup = splits > 1 ? splits * 2.0 * s.m * s.n * 4 / (64 * clock) : 0;
        // The epilogue runs once per tile, in its last split; rows past M move no bytes.
        double rows = std::min<double>(s.m, p.m);
        double epilogue = rows * s.n * p.epilogueBytesPerElement / (hbm / sms) +
                          s.m * s.n * ops /
                              ((s.pingpong ? pingpongOpsPerClock : cooperativeOpsPerClock) * clock);
        double perUnit = s.pingpong ? std::max(mainloop, epilogue) : mainloop + fixup + epilogue;
        double tiles = waves * perUnit;
        ranked.push_back({config, std::max(tiles, floor) * 1e3, tiles});
      }
  // Ties at the floor go to the configuration with the most room under it.
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked &a, const Ranked &b) {
    return a.ms != b.ms ? a.ms < b.ms : a.tiles < b.tiles;
  });
  SmallVector<std::pair<KernelConfig, double>> result;
  for (const Ranked &r : ranked)
    result.push_back({r.config, r.ms});
  return result;
}

llvm::Expected<TuningDb> mlir::coda::loadTuningDb(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read tuning database '%s'",
                                   path.str().c_str());
  llvm::Expected<llvm::json::Value> value = llvm::json::parse((*buffer)->getBuffer());
  if (!value)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "tuning database '%s' is not JSON: %s", path.str().c_str(),
                                   llvm::toString(value.takeError()).c_str());
  auto bad = [&](const std::string &what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "tuning database '%s': %s",
                                   path.str().c_str(), what.c_str());
  };
  const llvm::json::Object *root = value->getAsObject();
  const llvm::json::Object *kernels = root ? root->getObject("kernels") : nullptr;
  if (!kernels)
    return bad("expected an object with a \"kernels\" object");
  TuningDb db;
  for (const auto &[key, entry] : *kernels) {
    const llvm::json::Object *e = entry.getAsObject();
    const llvm::json::Array *tile = e ? e->getArray("tile") : nullptr;
    const llvm::json::Array *cluster = e ? e->getArray("cluster") : nullptr;
    std::optional<StringRef> schedule = e ? e->getString("schedule") : std::nullopt;
    std::optional<StringRef> raster = e ? e->getString("raster") : std::nullopt;
    std::optional<int64_t> swizzle = e ? e->getInteger("swizzle") : std::nullopt;
    std::optional<int64_t> epilogueN = e ? e->getInteger("epilogue_n") : std::nullopt;
    std::optional<StringRef> division = e ? e->getString("division") : std::nullopt;
    std::optional<int64_t> splits = e ? e->getInteger("splits") : std::nullopt;
    if (!tile || tile->size() != 3 || !cluster || cluster->size() != 2 || !schedule || !raster)
      return bad("entry '" + key.str() +
                 "' needs \"tile\": [M, N, K], \"cluster\": [M, N], \"schedule\" and \"raster\"");
    KernelConfig config;
    int *fields[] = {&config.tileM, &config.tileN, &config.tileK};
    for (unsigned i = 0; i < 3; ++i)
      *fields[i] = (*tile)[i].getAsInteger().value_or(0);
    config.clusterM = (*cluster)[0].getAsInteger().value_or(0);
    config.clusterN = (*cluster)[1].getAsInteger().value_or(0);
    if (*schedule != "cooperative" && *schedule != "pingpong")
      return bad("entry '" + key.str() + "': schedule must be cooperative or pingpong");
    config.pingpong = *schedule == "pingpong";
    if (*raster == "heuristic")
      config.raster = KernelConfig::Raster::Heuristic;
    else if (*raster == "along_m")
      config.raster = KernelConfig::Raster::AlongM;
    else if (*raster == "along_n")
      config.raster = KernelConfig::Raster::AlongN;
    else
      return bad("entry '" + key.str() + "': raster must be heuristic, along_m or along_n");
    config.swizzle = int(swizzle.value_or(KernelConfig::kDefaultSwizzle));
    if (!isSwizzle(config.swizzle))
      return bad("entry '" + key.str() + "': swizzle must be 1, 2, 4 or 8");
    config.epilogueN = int(epilogueN.value_or(0));
    if (epilogueN && (!isEpilogueWidth(*epilogueN) || config.tileN % *epilogueN != 0))
      return bad("entry '" + key.str() + "': epilogue_n must be 16, 32, 64 or 128 and divide " +
                 "the tile's N (" + std::to_string(config.tileN) + ")");
    if (division && *division != "ieee" && *division != "full")
      return bad("entry '" + key.str() + "': division must be ieee or full");
    config.fullDivision = division == "full";
    config.splits = int(splits.value_or(1));
    if (!isSplitCount(config.splits))
      return bad("entry '" + key.str() + "': splits must be 1, 2, 4, 8 or 16");
    if (config.splits > 1 && config.pingpong)
      return bad("entry '" + key.str() + "': split-K needs the cooperative schedule");
    bool known = false;
    for (auto &[candidate, ms] : rankConfigs({256, 256, 256, 0}))
      known |= candidate.tileM == config.tileM && candidate.tileN == config.tileN &&
               candidate.pingpong == config.pingpong &&
               (config.tileK == 64 || config.tileK == 32) &&
               candidate.clusterM == config.clusterM && candidate.clusterN == config.clusterN;
    if (!known)
      return bad("entry '" + key.str() + "': " + config.str() +
                 " is not one of the configurations the backend emits");
    db[key] = config;
  }
  return db;
}
