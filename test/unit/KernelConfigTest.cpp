//===- KernelConfigTest.cpp - the analytic configuration model ------------===//

#include "coda/Target/Cuda/KernelConfig.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir::coda;

namespace {

TEST(KernelConfigTest, RanksEveryConfigurationFastestFirst) {
  auto ranked = rankConfigs({8192, 4096, 14336, 4.0, 8});
  // 5 tile/schedule shapes x 4 clusters, and the 3 cooperative ones split 2 to 16 ways.
  ASSERT_EQ(ranked.size(), 20u + 3 * 4 * 4);
  for (size_t i = 1; i < ranked.size(); ++i)
    EXPECT_LE(ranked[i - 1].second, ranked[i].second);
}

// A light epilogue (down + residual): the large cooperative tile, whose mainloop is the most
// efficient, wins; nothing needs hiding.
TEST(KernelConfigTest, LightEpilogueTakesCooperative) {
  KernelConfig best = rankConfigs({8192, 4096, 14336, 4.0, 8}).front().first;
  EXPECT_FALSE(best.pingpong);
  EXPECT_EQ(best.tileM * best.tileN, 128 * 256);
}

// An epilogue with real arithmetic (LM head + log-sum-exp, SwiGLU): ping-pong overlaps it with
// the other warp group's mainloop, as measured on the H200.
TEST(KernelConfigTest, HeavyEpilogueTakesPingpong) {
  EXPECT_TRUE(rankConfigs({8192, 128256, 4096, 0.0, 26}).front().first.pingpong);
  EXPECT_TRUE(rankConfigs({8192, 28672, 4096, 1.0, 16}).front().first.pingpong);
}

// An epilogue longer than a tile's mainloop (bias + GELU through powf and tanhf, about 100
// ops): one ping-pong warp group cannot keep up, cooperative's two share it (measured on the
// H200: 4.0 ms cooperative, 6.2 ms ping-pong).
TEST(KernelConfigTest, VeryHeavyEpilogueTakesCooperative) {
  EXPECT_FALSE(rankConfigs({8192, 14336, 4096, 2.0, 100}).front().first.pingpong);
}

// SwiGLU's 64 x 224 tiles: along N re-reads B 4 times, along M (CUTLASS's heuristic, more tiles
// along N) A 28 times; the H200 read 2.26 GB along N against 4.95 GB. Bias + GELU's two orders
// read about the same (heuristic), and operands that fit in L2 leave the order to CUTLASS.
TEST(KernelConfigTest, RasterOrderReadsFewerOperandBytes) {
  KernelConfig swiglu = rankConfigs({8192, 28672, 4096, 1.0, 16}).front().first;
  ASSERT_EQ(swiglu.tileM * swiglu.tileN, 128 * 128);
  EXPECT_EQ(swiglu.raster, KernelConfig::Raster::AlongN);
  EXPECT_EQ(rankConfigs({8192, 14336, 4096, 2.0, 100}).front().first.raster,
            KernelConfig::Raster::Heuristic);
  EXPECT_EQ(rankConfigs({256, 1024, 512, 2.0, 0}).front().first.raster,
            KernelConfig::Raster::Heuristic);
  // The same problem transposed (224 x 64 tiles): along N, whose groups span 16 tile rows in
  // 2x1 clusters, reads A once and B 14 times (1.1 GB), along M B once and A 8 times (1.9 GB);
  // CUTLASS's heuristic picks along N itself.
  EXPECT_EQ(rankConfigs({28672, 8192, 4096, 1.0, 16}).front().first.raster,
            KernelConfig::Raster::Heuristic);
}

// A row reduction ahead of the kernel hides beside it only along N: LayerNorm -> QKV's 256x128
// tiles (32 x 48, which CUTLASS's heuristic takes along M) go along N explicitly, and where the
// heuristic already goes along N it is left alone. On an H100 along N took the kernel and its
// statistics from 1.039x to 1.030x cuBLAS (queued; idle 1.033x to 1.005x).
TEST(KernelConfigTest, RowsAheadGoAlongN) {
  KernelProblem qkv{8192, 6144, 4096, 2.0, 3};
  qkv.rowsAhead = true;
  for (auto &[c, ms] : rankConfigs(qkv)) {
    bool heuristicAlongN = std::ceil(6144.0 / c.tileN / c.clusterN) * c.clusterN <=
                           std::ceil(8192.0 / c.tileM / c.clusterM) * c.clusterM;
    EXPECT_EQ(c.raster, heuristicAlongN ? KernelConfig::Raster::Heuristic
                                        : KernelConfig::Raster::AlongN)
        << c.str();
  }
  qkv.rowsAhead = false;
  for (auto &[c, ms] : rankConfigs(qkv)) {
    if (c.tileM == 256 && c.tileN == 128 && c.clusterM == 1 && c.clusterN == 2) {
      EXPECT_NE(c.raster, KernelConfig::Raster::AlongN) << c.str();
    }
  }
}

// Where the epilogue bounds a ping-pong tile, clusters tie: 2x1 (multicast) comes first.
TEST(KernelConfigTest, TiesGoToTheTwoByOneCluster) {
  KernelConfig best = rankConfigs({8192, 14336, 4096, 2.0, 29}).front().first;
  EXPECT_TRUE(best.pingpong);
  EXPECT_EQ(best.clusterM, 2);
  EXPECT_EQ(best.clusterN, 1);
}

// A 2x2 cluster multicasts both operands, a saving in L2 traffic the model does not weigh:
// it ties the 2x1 cluster of the same tile at best, and loses where it rounds the grid up
// (stage 2 times it).
TEST(KernelConfigTest, TwoByTwoClustersNeverBeatTwoByOne) {
  for (KernelProblem p : {KernelProblem{8192, 5120, 4096, 2.0, 21},
                          KernelProblem{8192, 128256, 4096, 0.0, 26}, KernelProblem{7, 1000, 1024, 2.0, 4}}) {
    auto ranked = rankConfigs(p);
    int twoByTwo = 0;
    for (auto &[config, ms] : ranked) {
      if (config.clusterM != 2 || config.clusterN != 2)
        continue;
      twoByTwo += config.splits == 1;
      for (auto &[other, otherMs] : ranked) {
        if (other.tileM == config.tileM && other.tileN == config.tileN &&
            other.pingpong == config.pingpong && other.splits == config.splits &&
            other.clusterM == 2 && other.clusterN == 1) {
          EXPECT_LE(otherMs, ms) << config.str();
        }
      }
    }
    EXPECT_EQ(twoByTwo, 5);
    EXPECT_FALSE(ranked.front().first.clusterM == 2 && ranked.front().first.clusterN == 2);
  }
}

// A plain epilogue takes the 64-column subtile at the tiles where stage 2 measured it faster
// (cooperative 128x256, ping-pong 128x128 and 64x256), CUTLASS's automatic one elsewhere and for
// any other epilogue.
TEST(KernelConfigTest, WiderSubtileOnlyWhereMeasured) {
  KernelProblem plain{64, 4096, 14336, 2.0, 4, /*plainEpilogue=*/true};
  for (auto &[c, ms] : rankConfigs(plain)) {
    bool measured = c.tileN == 256 || (c.pingpong && c.tileM == 128);
    EXPECT_EQ(c.epilogueN, measured ? 64 : 0) << c.str();
  }
  for (auto &[c, ms] : rankConfigs({64, 4096, 14336, 2.0, 4}))
    EXPECT_EQ(c.epilogueN, 0) << c.str();
}

// Tiles are swizzled by 8 unless a database says otherwise.
TEST(KernelConfigTest, SwizzleAppearsInTextAndJsonOnlyWhenNotTheDefault) {
  KernelConfig config;
  EXPECT_EQ(config.swizzle, 8);
  config.swizzle = 1;
  EXPECT_EQ(config.str(), "128x256x64 cluster 2x1 cooperative raster heuristic swizzle 1");
  EXPECT_EQ(config.json(), "{\"tile\": [128, 256, 64], \"cluster\": [2, 1], \"schedule\": "
                           "\"cooperative\", \"raster\": \"heuristic\", \"swizzle\": 1}");
  for (auto &[c, ms] : rankConfigs({64, 4096, 14336, 2.0, 4}))
    EXPECT_EQ(c.swizzle, 8) << c.str();
}

// The epilogue subtile is CUTLASS's automatic choice unless a database widens it; the model
// never does (it cannot tell the widths apart: stage 2 times them).
TEST(KernelConfigTest, EpilogueWidthAppearsInTextAndJsonOnlyWhenSet) {
  KernelConfig config;
  EXPECT_EQ(config.epilogueTileM(), 128);
  EXPECT_EQ(config.epilogueTileN(), 32);
  config.epilogueN = 64;
  EXPECT_EQ(config.epilogueTileN(), 64);
  EXPECT_EQ(config.str(), "128x256x64 cluster 2x1 cooperative raster heuristic epilogue 128x64");
  EXPECT_EQ(config.json(), "{\"tile\": [128, 256, 64], \"cluster\": [2, 1], \"schedule\": "
                           "\"cooperative\", \"raster\": \"heuristic\", \"epilogue_n\": 64}");
  EXPECT_FALSE(config == KernelConfig());
  config.pingpong = true;
  config.tileN = 128;
  EXPECT_EQ(config.epilogueTileM(), 64);
  for (auto &[c, ms] : rankConfigs({8192, 4096, 4096, 2.0, 4}))
    EXPECT_EQ(c.epilogueN, 0) << c.str();
}

// Divisions through div.full.f32 where the kernel's epilogue may take them: in every cooperative
// configuration (its epilogue runs after the mainloop, so fewer instructions are time), never in
// ping-pong ones (measured 1.5 % slower on the H200); a cooperative estimate drops with them.
TEST(KernelConfigTest, FullDivisionInCooperativeKernelsOnly) {
  KernelProblem swiglu{8192, 28672, 4096, 1.0, 12};
  for (auto &[c, ms] : rankConfigs(swiglu))
    EXPECT_FALSE(c.fullDivision) << c.str();
  KernelProblem divides = swiglu;
  divides.epilogueOpsFullDivision = 10;
  auto ieee = rankConfigs(swiglu), full = rankConfigs(divides);
  for (auto &[c, ms] : full) {
    EXPECT_EQ(c.fullDivision, !c.pingpong) << c.str();
    KernelConfig same = c;
    same.fullDivision = false;
    auto it = llvm::find_if(ieee, [&](const auto &e) { return e.first == same; });
    ASSERT_NE(it, ieee.end()) << c.str();
    if (c.pingpong)
      EXPECT_EQ(ms, it->second) << c.str();
    else
      EXPECT_LT(ms, it->second) << c.str();
  }
  KernelConfig config;
  config.fullDivision = true;
  EXPECT_EQ(config.str(), "128x256x64 cluster 2x1 cooperative raster heuristic division full");
  EXPECT_EQ(config.json(), "{\"tile\": [128, 256, 64], \"cluster\": [2, 1], \"schedule\": "
                           "\"cooperative\", \"raster\": \"heuristic\", \"division\": \"full\"}");
  EXPECT_FALSE(config == KernelConfig());
}

// The GPUs the model knows, by name; the default (first) is the H200.
TEST(KernelConfigTest, GpuTargetsByName) {
  ASSERT_FALSE(gpuTargets().empty());
  EXPECT_EQ(gpuTargets().front().name, "h200");
  const GpuTarget *h100 = lookupGpuTarget("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->sms, 132);
  EXPECT_LT(h100->memoryBandwidth, lookupGpuTarget("h200")->memoryBandwidth);
  EXPECT_EQ(lookupGpuTarget("a100"), nullptr);
}

// The same problem costs more where HBM is slower: a short-K product whose epilogue moves 8
// bytes per element is bound by memory, longer on the H100 SXM's 3.35 TB/s than on the H200's
// 4.8; the default target is the H200.
TEST(KernelConfigTest, EstimatesFollowTheTarget) {
  KernelProblem problem{8192, 8192, 256, 8.0, 4};
  double h200 = rankConfigs(problem).front().second;
  EXPECT_EQ(h200, rankConfigs(problem, lookupGpuTarget("h200")).front().second);
  EXPECT_GT(rankConfigs(problem, lookupGpuTarget("h100-sxm")).front().second, h200);
}

// Decode-sized M: 128-row tiles compute padding rows at the tensor cores' rate and 32 of them
// leave most SMs idle, so the down projection at M 1 (K 14336) splits K among cooperative CTAs,
// and the estimate comes near the time to read the weights once. At prefill-sized M nothing
// splits.
TEST(KernelConfigTest, DecodeSizedProductsSplitK) {
  for (const GpuTarget &gpu : gpuTargets()) {
    for (int64_t m : {1, 32}) {
      auto ranked = rankConfigs({m, 4096, 14336, 4.0, 5}, &gpu);
      const KernelConfig &best = ranked.front().first;
      EXPECT_GT(best.splits, 1) << gpu.name.str() << " M " << m;
      EXPECT_FALSE(best.pingpong);
      double weights = 4096.0 * 14336 * 2 / gpu.memoryBandwidth * 1e3;
      EXPECT_LT(ranked.front().second, 1.5 * weights) << best.str();
      for (auto &[config, ms] : ranked)
        if (config.splits == 1) {
          EXPECT_GT(ms, ranked.front().second) << config.str();
        }
    }
    EXPECT_EQ(rankConfigs({8192, 4096, 14336, 4.0, 5}, &gpu).front().first.splits, 1);
  }
}

// Split-K never goes to ping-pong kernels, to splits of fewer than 4 k-tiles, or beside a row
// reduction that hands its rows to the kernel (that handover follows the persistent order).
TEST(KernelConfigTest, SplitsOnlyWhereTheBackendRunsThem) {
  for (auto &[config, ms] : rankConfigs({1, 4096, 1024, 2.0, 4}))
    if (config.splits > 1) {
      EXPECT_FALSE(config.pingpong);
      EXPECT_LE(config.splits * 4, 1024 / 64) << config.str();
    }
  KernelProblem rows{1, 4096, 14336, 2.0, 4};
  rows.rowsAhead = true;
  for (auto &[config, ms] : rankConfigs(rows))
    EXPECT_EQ(config.splits, 1) << config.str();
}

TEST(KernelConfigTest, SplitsAppearInTextAndJsonOnlyWhenSplit) {
  KernelConfig config;
  EXPECT_EQ(config.str().find("split"), std::string::npos);
  EXPECT_EQ(config.json().find("splits"), std::string::npos);
  config.splits = 4;
  EXPECT_NE(config.str().find(" split 4"), std::string::npos);
  EXPECT_NE(config.json().find("\"splits\": 4"), std::string::npos);
  EXPECT_FALSE(config == KernelConfig());
}

} // namespace
