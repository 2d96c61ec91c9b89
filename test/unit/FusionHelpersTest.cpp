//===- FusionHelpersTest.cpp - helpers shared by the fusion passes --------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/InitAll.h"
#include "coda/Transforms/KernelQueries.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::coda;

namespace {

class FusionHelpersTest : public ::testing::Test {
protected:
  FusionHelpersTest() {
    DialectRegistry registry;
    registerAllCodaDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  MLIRContext ctx;
};

TEST_F(FusionHelpersTest, ReadDimsSkipKeepdimUnitDimensions) {
  auto d = [&](unsigned i) { return getAffineDimExpr(i, &ctx); };
  auto zero = getAffineConstantExpr(0, &ctx);
  auto rowKeepdim = RankedTensorType::get({8, 1}, Float32Type::get(&ctx));
  // (i, j) -> (i, 0) on [8, 1]: reads dimension i only.
  std::optional<SmallVector<unsigned>> dims =
      getReadDims(AffineMap::get(2, 0, {d(0), zero}, &ctx), rowKeepdim);
  ASSERT_TRUE(dims);
  EXPECT_EQ(*dims, SmallVector<unsigned>({0}));
  // A constant 0 on a dimension that is not of size 1 is not a broadcast.
  auto matrix = RankedTensorType::get({8, 4}, Float32Type::get(&ctx));
  EXPECT_FALSE(getReadDims(AffineMap::get(2, 0, {d(0), zero}, &ctx), matrix));
  // Neither is an expression like i + j.
  EXPECT_FALSE(getReadDims(AffineMap::get(2, 0, {d(0) + d(1), d(1)}, &ctx), matrix));
  // Transposed reads keep their order.
  dims = getReadDims(AffineMap::get(2, 0, {d(1), d(0)}, &ctx), matrix);
  ASSERT_TRUE(dims);
  EXPECT_EQ(*dims, SmallVector<unsigned>({1, 0}));
}

TEST_F(FusionHelpersTest, EpilogueOperandsAddEachValueAndRoleOnce) {
  const char *source = R"mlir(
    func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>) {
      return
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(module);
  func::FuncOp f = *module->getOps<func::FuncOp>().begin();
  Value a = f.getArgument(0), b = f.getArgument(1);
  EpilogueOperands operands;
  EXPECT_EQ(operands.add(a, OperandRole::Row), 0u);
  EXPECT_EQ(operands.add(b, OperandRole::Row), 1u);
  EXPECT_EQ(operands.add(a, OperandRole::Row), 0u);
  // The same tensor in another role is another operand.
  EXPECT_EQ(operands.add(a, OperandRole::Col), 2u);
  EXPECT_EQ(operands.values.size(), 3u);
  EXPECT_EQ(operands.roles[2], OperandRole::Col);
}

TEST_F(FusionHelpersTest, KernelTrafficCountsOperandsOnceAndInitsOnlyWhenRead) {
  const char *source = R"mlir(
    #id = affine_map<(d0, d1) -> (d0, d1)>
    func.func @f(%x: tensor<8x4xf32>, %y: tensor<8x4xbf16>) -> tensor<8x4xf32> {
      %e = tensor.empty() : tensor<8x4xf32>
      %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
          ins(%x, %y : tensor<8x4xf32>, tensor<8x4xbf16>) outs(%e : tensor<8x4xf32>) {
      ^bb0(%a: f32, %b: bf16, %o: f32):
        %c = arith.extf %b : bf16 to f32
        %s = arith.addf %a, %c : f32
        linalg.yield %s : f32
      } -> tensor<8x4xf32>
      return %0 : tensor<8x4xf32>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(module);
  Operation *generic = nullptr;
  module->walk([&](linalg::GenericOp op) { generic = op; });
  ASSERT_TRUE(generic);
  EXPECT_TRUE(isKernel(generic));
  EXPECT_FALSE(isDataMovement(generic));
  Traffic t = kernelTraffic(generic);
  EXPECT_EQ(t.read, 8 * 4 * 4 + 8 * 4 * 2); // x (f32) + y (bf16); the empty init is not read
  EXPECT_EQ(t.written, 8 * 4 * 4);
}

} // namespace
