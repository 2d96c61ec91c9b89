//===- KernelConfig.h - mainloop configurations of coda kernels --*- C++ -*-===//
//
// How one coda.gemm kernel runs on the GPU: CTA tile, cluster, cooperative or ping-pong
// warp-specialized schedule, raster order and swizzle of the persistent tile scheduler. Stage 1 of the
// choice is an analytic model that ranks every configuration for the kernel's problem; stage 2
// (bench/tune.py) times the model's best few on the GPU and writes a tuning database, which
// --coda-plan-kernel-configs reads (`tuning-db=FILE`, or coda-translate's --tuning-db). Without
// a database entry the model's best is used.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_TARGET_CUDA_KERNELCONFIG_H
#define CODA_TARGET_CUDA_KERNELCONFIG_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace mlir::coda {

struct KernelConfig {
  int tileM = 128, tileN = 256, tileK = 64;
  int clusterM = 2, clusterN = 1;
  bool pingpong = false;
  enum class Raster { Heuristic, AlongM, AlongN } raster = Raster::Heuristic;
  /// The tile scheduler's swizzle: tiles visited in groups of up to this many along the
  /// raster's other dimension, so that the tiles in flight share rows of A and B in L2 (at run
  /// time the largest power of two up to it that divides the tile grid: no tile padded in).
  int swizzle = kDefaultSwizzle;
  /// On the H200 a swizzle of 8 took SwiGLU from 1.08x to 1.00x cuBLAS's time and bias + GELU
  /// from 1.13x to 1.03x (DRAM traffic about three times cuBLAS's without it).
  static constexpr int kDefaultSwizzle = 8;
  /// The epilogue subtile's width, columns the warp groups compute, stage in shared memory and
  /// store per step; 0: CUTLASS's automatic choice (32 for 16-bit outputs). A wider subtile
  /// takes fewer steps (each a barrier and a TMA store) for more shared memory: on the H200,
  /// 64 made the cooperative bias + GELU kernel 0.6 % faster.
  int epilogueN = 0;
  /// The epilogue subtile: its rows are CUTLASS's choice for the schedule, its columns
  /// epilogueN or CUTLASS's automatic choice for 16-bit outputs (what EpilogueTileAuto picks).
  int epilogueTileM() const { return std::min(tileM, pingpong ? 64 : 128); }
  int epilogueTileN() const {
    return epilogueN ? epilogueN : std::gcd(std::min(tileN, 32), tileN);
  }
  /// The epilogue's fp32 divisions through PTX div.full.f32 (2 ulp, a few instructions) instead
  /// of IEEE division, where every result is stored 16-bit (the emitter checks; elsewhere the
  /// flag changes nothing). On the H200 it took SwiGLU's cooperative 128x256 kernel from 1.13x
  /// to 1.05x cuBLAS's time (its epilogue runs after the mainloop) and made the ping-pong
  /// 128x128 kernel 1.5 % slower (its epilogue hides under the other warp group's mainloop).
  bool fullDivision = false;
  /// Split-K: each tile's K loop divided among this many CTAs (cooperative kernels only), on
  /// CUTLASS's stream-K scheduler in split-K mode. The fp32 partial tiles are reduced in split
  /// order (deterministic) before the epilogue, which runs once per tile in the last split. It
  /// pays where the tiles are fewer than the SMs: decode-sized M, whose 128-row wgmma tiles
  /// compute mostly padding and leave most SMs idle.
  int splits = 1;

  // "128x256x64 cluster 2x1 cooperative raster heuristic" (+ " swizzle S", " epilogue MxN",
  // " division full", " split S" where not the default)
  std::string str() const;
  std::string json() const;
  bool operator==(const KernelConfig &o) const;
};

/// A GPU as the model sees it (GpuTargets.def).
struct GpuTarget {
  StringRef name;
  StringRef description;
  double sms;
  double peakFlops;         // dense bf16, fp32 accumulation
  double memoryBandwidth;   // bytes per second
  double clock;             // SM clock, Hz
  int64_t sharedMemoryBytes; // per SM
  double l2Bytes;
  double cooperativeOpsPerClock, pingpongOpsPerClock; // the epilogue's fp32 rate per SM
};

/// Every GPU the model knows, the first the default.
ArrayRef<GpuTarget> gpuTargets();
/// The GPU named `name` (e.g. "h200", "h100-sxm"), or null.
const GpuTarget *lookupGpuTarget(StringRef name);

/// What the model needs to know about a kernel.
struct KernelProblem {
  int64_t m, n, k;
  /// Bytes the epilogue moves per accumulator element: stored results, matrix operands, inits.
  double epilogueBytesPerElement;
  /// The epilogue's arithmetic per accumulator element, in simple fp32 operations.
  double epilogueOpsPerElement = 0;
  /// The epilogue's results leave through the collective's TMA store, a ContractStore or
  /// reduction partials, 16-bit where stored, and it reads no tables (tiled operands): the
  /// kind of epilogue the 64-column subtile was measured on (rankConfigs).
  bool plainEpilogue = false;
  /// A row reduction of A runs just before the kernel (overlap-rows): it hides beside the
  /// kernel only where the tiles go along N (coda::rt::rowsOverlap), so the model takes that
  /// order for every configuration.
  bool rowsAhead = false;
  /// epilogueOpsPerElement with the epilogue's divisions through div.full.f32, where they may
  /// be (every result stored 16-bit); 0: no such division.
  double epilogueOpsFullDivision = 0;
  /// Bytes of an A or B element: 2 (bf16, f16) or 4 (f32, multiplied as TF32 at half the
  /// bf16 peak, in K steps of 32 so that a stage holds as many bytes).
  int inputBytes = 2;
};

/// Whether some CTA tile the backend emits is `n` columns wide.
bool isTileWidth(int64_t n);

/// The split counts the backend emits.
inline bool isSplitCount(int64_t s) { return s == 1 || s == 2 || s == 4 || s == 8 || s == 16; }

/// The swizzles the backend emits.
inline bool isSwizzle(int64_t s) { return s == 1 || s == 2 || s == 4 || s == 8; }

/// The epilogue subtile widths the backend emits (a divisor of the CTA tile's N).
inline bool isEpilogueWidth(int64_t n) { return n == 16 || n == 32 || n == 64 || n == 128; }

/// Stage 1: every configuration, best first, with the model's estimate in milliseconds on
/// `target` (the default GPU when null).
SmallVector<std::pair<KernelConfig, double>> rankConfigs(const KernelProblem &problem,
                                                         const GpuTarget *target = nullptr);

/// A tuning database: configurations by kernel key (`M x N x K : epilogue fingerprint`).
using TuningDb = llvm::StringMap<KernelConfig>;
llvm::Expected<TuningDb> loadTuningDb(StringRef path);

} // namespace mlir::coda

#endif // CODA_TARGET_CUDA_KERNELCONFIG_H
