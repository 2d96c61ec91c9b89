//===- ResultModeAttrTest.cpp - parsing coda attributes -------------------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::coda;

namespace {

class ResultModeAttrTest : public ::testing::Test {
protected:
  ResultModeAttrTest() { ctx.loadDialect<CodaDialect>(); }

  Attribute parse(StringRef text) {
    ScopedDiagnosticHandler quiet(&ctx, [&](Diagnostic &d) {
      lastError = d.str();
      return success();
    });
    return parseAttribute(text, &ctx);
  }

  std::string print(Attribute attr) {
    std::string s;
    llvm::raw_string_ostream os(s);
    attr.print(os);
    return s;
  }

  MLIRContext ctx;
  std::string lastError;
};

TEST_F(ResultModeAttrTest, ParsesEveryKind) {
  auto store = dyn_cast_or_null<ResultModeAttr>(parse("#coda.result<store>"));
  ASSERT_TRUE(store);
  EXPECT_TRUE(store.isStore());
  auto acc = dyn_cast_or_null<ResultModeAttr>(parse("#coda.result<accumulate>"));
  ASSERT_TRUE(acc);
  EXPECT_TRUE(acc.isAccumulate());
  auto lse = dyn_cast_or_null<ResultModeAttr>(parse("#coda.result<reduce<col, lse>>"));
  ASSERT_TRUE(lse);
  EXPECT_TRUE(lse.isReduce());
  EXPECT_EQ(lse.getDim(), ReduceDim::Col);
  EXPECT_EQ(lse.getCombiner(), Combiner::LogSumExp);
}

TEST_F(ResultModeAttrTest, RoundTripsThroughText) {
  for (const char *text : {"#coda.result<store>", "#coda.result<accumulate>",
                           "#coda.result<reduce<row, sum>>", "#coda.result<reduce<row, sumsq>>",
                           "#coda.result<reduce<col, max>>", "#coda.result<reduce<row, lse>>",
                           "#coda.role<matrix>", "#coda.pairwise<expand>"}) {
    Attribute attr = parse(text);
    ASSERT_TRUE(attr) << text << ": " << lastError;
    EXPECT_EQ(print(attr), text);
  }
}

TEST_F(ResultModeAttrTest, UniquesEqualModes) {
  EXPECT_EQ(ResultModeAttr::get(&ctx, ResultKind::Reduce, ReduceDim::Row, Combiner::Sum),
            parse("#coda.result<reduce<row, sum>>"));
  EXPECT_EQ(ResultModeAttr::get(&ctx, ResultKind::Store), parse("#coda.result<store>"));
}

TEST_F(ResultModeAttrTest, RejectsUnknownNames) {
  EXPECT_FALSE(parse("#coda.result<scatter>"));
  EXPECT_NE(lastError.find("unknown result mode 'scatter'"), std::string::npos) << lastError;
  EXPECT_FALSE(parse("#coda.result<reduce<diag, sum>>"));
  EXPECT_NE(lastError.find("unknown reduction dimension 'diag'"), std::string::npos)
      << lastError;
  EXPECT_FALSE(parse("#coda.result<reduce<row, mean>>"));
  EXPECT_NE(lastError.find("unknown reduction combiner 'mean'"), std::string::npos)
      << lastError;
}

TEST_F(ResultModeAttrTest, RejectsReductionParametersOnStore) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  auto bad = ResultModeAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(&ctx)); }, &ctx, ResultKind::Store,
      ReduceDim::Col, Combiner::Max);
  EXPECT_FALSE(bad);
  EXPECT_EQ(message, "a 'store' result takes no reduction dimension or combiner");
}

} // namespace
