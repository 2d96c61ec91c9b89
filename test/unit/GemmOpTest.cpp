//===- GemmOpTest.cpp - building and verifying coda.gemm in C++ -----------===//

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::coda;

namespace {

class GemmOpTest : public ::testing::Test {
protected:
  GemmOpTest() {
    DialectRegistry registry;
    registerAllCodaDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// A function whose arguments have `argTypes`, with the builder inside it.
  func::FuncOp makeFunc(ArrayRef<Type> argTypes) {
    OpBuilder b(&ctx);
    module = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToEnd(module->getBody());
    auto func = func::FuncOp::create(b, b.getUnknownLoc(), "f",
                                     b.getFunctionType(argTypes, {}));
    func.addEntryBlock();
    return func;
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type e) {
    return RankedTensorType::get(shape, e);
  }

  /// Verifies `op` and returns the first diagnostic message ("" when it verifies).
  std::string verifyMessage(Operation *op) {
    std::string message;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      if (message.empty())
        message = d.str();
      return success();
    });
    if (succeeded(mlir::verify(op)))
      return "";
    return message;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(GemmOpTest, BuildsBiasReluWithReductionAndVerifies) {
  Type f32 = Float32Type::get(&ctx), bf16 = BFloat16Type::get(&ctx);
  func::FuncOp func = makeFunc({tensor({8, 16}, bf16), tensor({16, 32}, bf16),
                                tensor({32}, f32)});
  OpBuilder b = OpBuilder::atBlockEnd(&func.front());
  Location loc = b.getUnknownLoc();
  ValueRange args = func.getArguments();
  auto gemm = GemmOp::create(
      b, loc, TypeRange{tensor({8, 32}, bf16), tensor({8}, f32)}, args[0], args[1],
      ValueRange{args[2]}, {OperandRole::Col}, ValueRange{},
      {ResultModeAttr::get(&ctx, ResultKind::Store),
       ResultModeAttr::get(&ctx, ResultKind::Reduce, ReduceDim::Row, Combiner::Max)},
      /*transposeA=*/false, /*transposeB=*/false, std::nullopt,
      [&](OpBuilder &nb, Location l, ValueRange bargs) {
        Value biased = arith::AddFOp::create(nb, l, bargs[0], bargs[1]);
        Value zero = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0));
        Value relu = arith::MaximumFOp::create(nb, l, biased, zero);
        YieldOp::create(nb, l, ValueRange{relu, relu});
      });
  func::ReturnOp::create(b, loc);
  EXPECT_EQ(verifyMessage(*module), "");
  EXPECT_EQ(gemm.getM(), 8);
  EXPECT_EQ(gemm.getN(), 32);
  EXPECT_EQ(gemm.getK(), 16);
  EXPECT_EQ(gemm.getNumOutputColumns(), 32);
  EXPECT_EQ(gemm.getEpilogue().front().getNumArguments(), 4u); // acc, bias, i, j
  EXPECT_EQ(gemm.getExtraArgs(0).front().getType(), f32);
  EXPECT_TRUE(gemm.getColIndexArg().getType().isIndex());
}

TEST_F(GemmOpTest, PairwiseRegionArgumentsFollowTheMode) {
  Type f32 = Float32Type::get(&ctx);
  func::FuncOp func = makeFunc({tensor({4, 8}, f32), tensor({8, 6}, f32), tensor({6}, f32),
                                tensor({4}, f32)});
  OpBuilder b = OpBuilder::atBlockEnd(&func.front());
  Location loc = b.getUnknownLoc();
  ValueRange args = func.getArguments();
  auto gemm = GemmOp::create(
      b, loc, TypeRange{tensor({4, 6}, f32)}, args[0], args[1], ValueRange{args[2], args[3]},
      {OperandRole::Col, OperandRole::Row}, ValueRange{},
      {ResultModeAttr::get(&ctx, ResultKind::Store)}, false, false, PairwiseMode::Rotate,
      [&](OpBuilder &nb, Location l, ValueRange bargs) {
        YieldOp::create(nb, l, ValueRange{bargs[1], bargs[0]});
      });
  func::ReturnOp::create(b, loc);
  EXPECT_EQ(verifyMessage(*module), "");
  // Two accumulators, two column values, one row value, two indices.
  EXPECT_EQ(gemm.getEpilogue().front().getNumArguments(), 7u);
  EXPECT_EQ(gemm.getExtraArgs(0).size(), 2u);
  EXPECT_EQ(gemm.getExtraArgs(1).size(), 1u);
  EXPECT_EQ(gemm.getInArity(), 2u);
  EXPECT_EQ(gemm.getOutArity(), 2u);
}

TEST_F(GemmOpTest, VerifierRejectsOddPairwiseColumns) {
  Type f32 = Float32Type::get(&ctx);
  func::FuncOp func = makeFunc({tensor({4, 8}, f32), tensor({8, 5}, f32)});
  OpBuilder b = OpBuilder::atBlockEnd(&func.front());
  Location loc = b.getUnknownLoc();
  ValueRange args = func.getArguments();
  GemmOp::create(b, loc, TypeRange{tensor({4, 2}, f32)}, args[0], args[1], ValueRange{}, {},
                 ValueRange{}, {ResultModeAttr::get(&ctx, ResultKind::Store)}, false, false,
                 PairwiseMode::Contract, [&](OpBuilder &nb, Location l, ValueRange bargs) {
                   YieldOp::create(nb, l, ValueRange{bargs[0]});
                 });
  func::ReturnOp::create(b, loc);
  EXPECT_EQ(verifyMessage(*module),
            "'coda.gemm' op pairwise(contract) needs an even number of columns, got N = 5");
}

TEST_F(GemmOpTest, VerifierRejectsRoleShapeMismatch) {
  Type f32 = Float32Type::get(&ctx);
  func::FuncOp func = makeFunc({tensor({4, 8}, f32), tensor({8, 6}, f32), tensor({4}, f32)});
  OpBuilder b = OpBuilder::atBlockEnd(&func.front());
  Location loc = b.getUnknownLoc();
  ValueRange args = func.getArguments();
  // A [M] vector declared as a column vector.
  GemmOp::create(b, loc, TypeRange{tensor({4, 6}, f32)}, args[0], args[1],
                 ValueRange{args[2]}, {OperandRole::Col}, ValueRange{},
                 {ResultModeAttr::get(&ctx, ResultKind::Store)}, false, false, std::nullopt,
                 [&](OpBuilder &nb, Location l, ValueRange bargs) {
                   YieldOp::create(nb, l, ValueRange{bargs[0]});
                 });
  func::ReturnOp::create(b, loc);
  EXPECT_EQ(verifyMessage(*module),
            "'coda.gemm' op operand #0 has role 'col' and needs shape [6], got [4]");
}

TEST_F(GemmOpTest, BatchedShapesAndTransposes) {
  const char *source = R"mlir(
    func.func @f(%a: tensor<3x16x8xf16>, %b: tensor<3x32x16xf16>, %r: tensor<3x8xf32>)
        -> tensor<3x8x32xf16> {
      %0 = coda.gemm %a, %b transpose_a transpose_b : tensor<3x16x8xf16>, tensor<3x32x16xf16>
          with(%r as row : tensor<3x8xf32>)
          -> (store tensor<3x8x32xf16>)
          epilogue(%acc: f32, %s: f32, %i: index, %j: index) {
        %y = arith.mulf %acc, %s : f32
        coda.yield %y : f32
      }
      return %0 : tensor<3x8x32xf16>
    })mlir";
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(parsed);
  func::FuncOp func = *parsed->getOps<func::FuncOp>().begin();
  GemmOp gemm = *func.getOps<GemmOp>().begin();
  EXPECT_TRUE(gemm.isBatched());
  EXPECT_EQ(gemm.getBatchSize(), 3);
  EXPECT_EQ(gemm.getM(), 8);
  EXPECT_EQ(gemm.getK(), 16);
  EXPECT_EQ(gemm.getN(), 32);
}

} // namespace
