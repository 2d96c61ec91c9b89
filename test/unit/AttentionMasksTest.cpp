//===- AttentionMasksTest.cpp - masks on positions as #coda.mask ----------===//
//
// fitMask on conditions written directly as functions of (i, j) with what they depend on:
// each structured mask is found with its parameters, and a function one pair away from it
// is refused (the proof visits that pair's class).
//
//===----------------------------------------------------------------------===//

#include "../../lib/Transforms/AttentionMasks.h"

#include "coda/InitAll.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::masks;

namespace {

class AttentionMasksTest : public ::testing::Test {
protected:
  AttentionMasksTest() {
    DialectRegistry registry;
    registerAllCodaDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  /// The mask that shows key j to query i where `visible` says, as one hiding term.
  std::optional<MaskAttr> fit(std::function<bool(int64_t, int64_t)> visible, Dependence deps,
                              int64_t sq, int64_t sk) {
    HiddenTerm term{{[visible](int64_t i, int64_t j) { return std::optional<bool>(visible(i, j)); },
                     std::move(deps)},
                    /*hidesWhen=*/false};
    return fitMask(&context, {term}, sq, sk);
  }
  static std::string str(std::optional<MaskAttr> m) {
    if (!m)
      return "none";
    if (!*m)
      return "dense";
    std::string s;
    llvm::raw_string_ostream os(s);
    Attribute(*m).print(os);
    return s;
  }
  MLIRContext context;
};

TEST_F(AttentionMasksTest, DistanceMasks) {
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) { return j <= i; }, {}, 300, 300)),
            "#coda.mask<causal = true>");
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) { return j <= i && (i - j) % 4 == 0; }, {}, 300,
                    300)),
            "#coda.mask<causal = true, dilation = 4>");
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) { return i - j <= 7 && j - i <= 3; }, {}, 64, 64)),
            "#coda.mask<left = 7, right = 3>");
  EXPECT_EQ(str(fit([](int64_t, int64_t) { return true; }, {}, 16, 16)), "dense");
  // Bottom-right aligned: query i sits at position i + Sk - Sq.
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) { return j <= i + 100; }, {}, 28, 128)),
            "#coda.mask<causal = true>");
  // A gap in the band: no mask says it.
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) { return j <= i && i - j != 2; }, {}, 64, 64)),
            "none");
}

TEST_F(AttentionMasksTest, ThresholdsAndChunks) {
  Dependence sinks;
  sinks.jThresholds = {4, 5, 6};
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) { return j <= i && (i - j < 32 || j < 4); }, sinks,
                    200, 200)),
            "#coda.mask<causal = true, left = 31, sinks = 4>");
  Dependence global;
  global.iThresholds = {8, 9, 10};
  global.jThresholds = {8, 9, 10};
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) { return (i > j ? i - j : j - i) <= 16 || i < 8 ||
                                                      j < 8; },
                    global, 200, 200)),
            "#coda.mask<left = 16, right = 16, global = 8>");
  Dependence chunk;
  chunk.chunk = 64;
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) { return j <= i && i / 64 == j / 64; }, chunk, 200,
                    200)),
            "#coda.mask<causal = true, chunk = 64>");
}

TEST_F(AttentionMasksTest, OnePairAwayIsRefused) {
  // The one extra pair (5, 0) lies in the classes its thresholds make: the proof visits it.
  Dependence extra;
  extra.iThresholds = {5, 6, 7};
  extra.jThresholds = {0, 1, 2};
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) {
                      return (j <= i && (i - j) % 4 == 0) || (i == 5 && j == 0);
                    },
                    extra, 64, 64)),
            "none");
  // Chunks without the distance-7 pairs are chunks with a window (a fit, not a near miss);
  // without one distance-1 pair of one residue they are no #coda.mask.
  Dependence chunk;
  chunk.chunk = 8;
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) {
                      return j <= i && i / 8 == j / 8 && !(i % 8 == 7 && j == i - 7);
                    },
                    chunk, 64, 64)),
            "#coda.mask<causal = true, left = 6, chunk = 8>");
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) {
                      return j <= i && i / 8 == j / 8 && !(i % 8 == 3 && j == i - 1);
                    },
                    chunk, 64, 64)),
            "none");
}

TEST_F(AttentionMasksTest, TooManyClassesIsNoProof) {
  Dependence chunk;
  chunk.chunk = 1 << 20;
  EXPECT_EQ(str(fit([](int64_t i, int64_t j) { return j <= i; }, chunk, 1 << 20, 1 << 20)),
            "none");
}

} // namespace
