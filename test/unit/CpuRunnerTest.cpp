//===- CpuRunnerTest.cpp - running programs on the CPU from C++ -----------===//

#include "coda/Execution/CpuRunner.h"
#include "coda/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::coda;

namespace {

class CpuRunnerTest : public ::testing::Test {
protected:
  CpuRunnerTest() {
    DialectRegistry registry;
    registerAllCodaDialects(registry);
    registerAllCodaPasses();
    ctx.appendDialectRegistry(registry);
  }
  MLIRContext ctx;
};

TEST_F(CpuRunnerTest, HostTensorRoundsNarrowFloats) {
  HostTensor t(RankedTensorType::get({3}, BFloat16Type::get(&ctx)));
  t.set(0, 1.0);
  t.set(1, 1.0 + 1.0 / 512); // halfway between two bf16 values: ties to even
  t.set(2, -3.5);
  EXPECT_EQ(t.get(0), 1.0);
  EXPECT_EQ(t.get(1), 1.0);
  EXPECT_EQ(t.get(2), -3.5);
  HostTensor i(RankedTensorType::get({2}, IntegerType::get(&ctx, 32)));
  i.set(0, -7);
  i.set(1, 123456);
  EXPECT_EQ(i.get(0), -7);
  EXPECT_EQ(i.get(1), 123456);
}

TEST_F(CpuRunnerTest, RunsCodaGemmWithKnownInputs) {
  // y = relu(x · w) with x = [[1, -2]], w = [[3], [1]]: 1*3 - 2*1 = 1; and -1 for -w.
  const char *source = R"mlir(
    func.func @main(%x: tensor<1x2xf32>, %w: tensor<2x2xf32>) -> tensor<1x2xf32> {
      %0 = coda.gemm %x, %w : tensor<1x2xf32>, tensor<2x2xf32>
          -> (store tensor<1x2xf32>)
          epilogue(%acc: f32, %i: index, %j: index) {
        %z = arith.constant 0.0 : f32
        %y = arith.maximumf %acc, %z : f32
        coda.yield %y : f32
      }
      return %0 : tensor<1x2xf32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(module);
  func::FuncOp main = findEntryFunction(*module, "");
  ASSERT_TRUE(main);
  HostTensor x(RankedTensorType::get({1, 2}, Float32Type::get(&ctx)));
  HostTensor w(RankedTensorType::get({2, 2}, Float32Type::get(&ctx)));
  x.set(0, 1);
  x.set(1, -2);
  w.set(0, 3);  // w[0][0]
  w.set(1, -3); // w[0][1]
  w.set(2, 1);  // w[1][0]
  w.set(3, -1); // w[1][1]
  FailureOr<std::vector<HostTensor>> results = runOnCpu(*module, "main", {x, w});
  ASSERT_TRUE(succeeded(results));
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].get(0), 1.0);
  EXPECT_EQ((*results)[0].get(1), 0.0);
  // The inputs are not modified by the run.
  EXPECT_EQ(x.get(1), -2.0);
}

TEST_F(CpuRunnerTest, RandomInputsAreDeterministicAndInRange) {
  const char *source = R"mlir(
    func.func @main(%x: tensor<64xf32>, %l: tensor<64xi64>) -> tensor<64xf32> {
      return %x : tensor<64xf32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(module);
  func::FuncOp main = findEntryFunction(*module, "");
  std::vector<HostTensor> a = makeRandomInputs(main, 7, 10);
  std::vector<HostTensor> b = makeRandomInputs(main, 7, 10);
  std::vector<HostTensor> c = makeRandomInputs(main, 8, 10);
  bool differs = false;
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_EQ(a[0].get(i), b[0].get(i));
    EXPECT_GE(a[0].get(i), -1.0);
    EXPECT_LT(a[0].get(i), 1.0);
    EXPECT_GE(a[1].get(i), 0.0);
    EXPECT_LT(a[1].get(i), 10.0);
    differs |= a[0].get(i) != c[0].get(i);
  }
  EXPECT_TRUE(differs);
}

TEST_F(CpuRunnerTest, ComparisonCountsMismatches) {
  auto type = RankedTensorType::get({3}, Float32Type::get(&ctx));
  HostTensor x(type), ref(type);
  ref.set(0, 1.0);
  x.set(0, 1.0 + 1e-7);
  ref.set(1, 2.0);
  x.set(1, 2.5);
  ref.set(2, 0.0);
  x.set(2, 0.0);
  Comparison c = compareTensors(x, ref, 1e-5, 1e-6);
  EXPECT_EQ(c.numMismatches, 1);
  EXPECT_DOUBLE_EQ(c.maxAbsError, 0.5);
  EXPECT_DOUBLE_EQ(c.maxRelError, 0.25);
}

TEST_F(CpuRunnerTest, ReportsMissingEntry) {
  const char *source = R"mlir(
    func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
    func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_FALSE(findEntryFunction(*module, ""));
  EXPECT_EQ(message, "no function 'main' and 2 public functions; choose one with --entry: a b");
  EXPECT_FALSE(findEntryFunction(*module, "c"));
  EXPECT_EQ(message, "no function named 'c' with a body in this file");
}

} // namespace
