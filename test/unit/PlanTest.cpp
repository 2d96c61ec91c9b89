//===- PlanTest.cpp - the CUDA plan as data -------------------------------===//
//
// What --coda-plan-cuda decides for a given op and target, read back from the attributes it
// writes: sinks, schedule, tables, the tuning database's precedence, names and launch order.
//
//===----------------------------------------------------------------------===//

#include "coda/InitAll.h"
#include "coda/Target/Cuda/Plan.h"
#include "coda/Target/Cuda/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

namespace {

class PlanTest : public ::testing::Test {
protected:
  PlanTest() {
    DialectRegistry registry;
    registerAllCodaDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> plan(StringRef source, StringRef target = "h200",
                             std::string tuningDb = "", std::vector<std::string> without = {}) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    if (!module)
      return module;
    PassManager pm(&context);
    CodaPlanCudaOptions options;
    options.target = target.str();
    options.tuningDb = tuningDb;
    options.without = without;
    buildCodaPlanCudaPipeline(pm, options);
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return module;
  }

  static SmallVector<GemmOp> gemms(ModuleOp module) {
    SmallVector<GemmOp> ops;
    module.walk([&](GemmOp op) { ops.push_back(op); });
    return ops;
  }

  MLIRContext context;
};

// SwiGLU at the Llama-3-8B shape: the contracted result leaves by TMA (ContractStore), the
// row max as tile partials, in a ping-pong kernel (an epilogue with real arithmetic).
constexpr const char *kSwiglu = R"mlir(
func.func @swiglu(%x: tensor<8192x4096xbf16>, %w: tensor<28672x4096xbf16>)
    -> (tensor<8192x14336xbf16>, tensor<8192xf32>) {
  %y, %mx = coda.gemm %x, %w transpose_b pairwise(contract)
      : tensor<8192x4096xbf16>, tensor<28672x4096xbf16>
      -> (store tensor<8192x14336xbf16>, reduce<row, max> tensor<8192xf32>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %one = arith.constant 1.0 : f32
    %ng = arith.negf %g : f32
    %e = math.exp %ng : f32
    %d = arith.addf %e, %one : f32
    %silu = arith.divf %g, %d : f32
    %y = arith.mulf %silu, %u : f32
    coda.yield %y, %y : f32, f32
  }
  return %y, %mx : tensor<8192x14336xbf16>, tensor<8192xf32>
}
)mlir";

TEST_F(PlanTest, ContractSinksAndSchedule) {
  OwningOpRef<ModuleOp> module = plan(kSwiglu);
  ASSERT_TRUE(module);
  KernelConfigAttr config = getKernelConfig(gemms(*module).front());
  ASSERT_TRUE(config);
  EXPECT_EQ(config.getStores(), ArrayRef<ResultSink>({ResultSink::Contract, ResultSink::Partials}));
  EXPECT_TRUE(config.isPingpong());
  EXPECT_EQ(config.getGrid(), GridSize::WholeWaves);
  EXPECT_EQ(config.getDivision(), Division::Ieee); // ping-pong hides the division
  // The choice is the model's best for this problem on this target.
  auto tuning = gemms(*module).front()->getAttrOfType<DictionaryAttr>(kTuningAttr);
  ASSERT_TRUE(tuning);
  EXPECT_EQ(tuning.getAs<StringAttr>("chosen_by").getValue(), "model");
  EXPECT_EQ(tuning.getAs<StringAttr>("key").getValue(),
            "8192x28672x4096:bf16:nt:contract:-:store-bf16,reduce_row_max-f32:ops21");
}

TEST_F(PlanTest, WithoutPathsChangeTheSinks) {
  OwningOpRef<ModuleOp> module =
      plan(kSwiglu, "h200", "", {"tma-contract", "whole-waves"});
  ASSERT_TRUE(module);
  KernelConfigAttr config = getKernelConfig(gemms(*module).front());
  EXPECT_EQ(config.getStores(), ArrayRef<ResultSink>({ResultSink::Direct, ResultSink::Partials}));
  EXPECT_EQ(config.getGrid(), GridSize::AllSms);
}

// A database entry for the kernel's key wins over the model.
TEST_F(PlanTest, TuningDatabaseWins) {
  SmallString<64> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("plan-test", "json", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream db(path, ec);
    ASSERT_FALSE(ec);
    db << R"({"kernels": {"8192x28672x4096:bf16:nt:contract:-:store-bf16,reduce_row_max-f32:ops21": )"
       << R"({"tile": [128, 256, 64], "cluster": [1, 2], "schedule": "cooperative", )"
       << R"("raster": "along_m", "swizzle": 4}}})";
  }
  OwningOpRef<ModuleOp> module = plan(kSwiglu, "h200", path.str().str());
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(module);
  GemmOp op = gemms(*module).front();
  KernelConfigAttr config = getKernelConfig(op);
  EXPECT_EQ(config.getTileN(), 256);
  EXPECT_EQ(config.getClusterN(), 2);
  EXPECT_FALSE(config.isPingpong());
  EXPECT_EQ(config.getRaster(), RasterOrder::AlongM);
  EXPECT_EQ(config.getSwizzle(), 4);
  EXPECT_EQ(op->getAttrOfType<DictionaryAttr>(kTuningAttr).getAs<StringAttr>("chosen_by").getValue(),
            "database");
}

// The target's constants reach the model: the same kernel's estimate differs on the H100.
TEST_F(PlanTest, TargetSelectsTheModelsGpu) {
  auto bestMs = [&](StringRef target) {
    OwningOpRef<ModuleOp> module = plan(kSwiglu, target);
    auto tuning = gemms(*module).front()->getAttrOfType<DictionaryAttr>(kTuningAttr);
    auto first = cast<DictionaryAttr>(tuning.getAs<ArrayAttr>("candidates")[0]);
    return first.getAs<IntegerAttr>("model_ns").getInt();
  };
  EXPECT_GT(bestMs("h100-sxm"), bestMs("h200"));
}

// A row reduction whose sums only the kernel reads hands them over while the kernel runs: it
// is marked, the kernel awaits, the op that does not depend on it (the weight scaling) goes
// first, and names follow the order before scheduling.
constexpr const char *kRowsAhead = R"mlir(
#rows = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d0)>
func.func @norm_qkv(%x: tensor<256x512xbf16>, %w: tensor<768x512xbf16>) -> tensor<256x768xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
  %ss = linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xbf16>) outs(%init : tensor<256xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %v = arith.extf %in : bf16 to f32
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %we = tensor.empty() : tensor<768x512xbf16>
  %w2 = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<768x512xbf16>) outs(%we : tensor<768x512xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %d = arith.addf %in, %in : bf16
    linalg.yield %d : bf16
  } -> tensor<768x512xbf16>
  %y = coda.gemm %x, %w2 transpose_b : tensor<256x512xbf16>, tensor<768x512xbf16>
      with(%ss as row : tensor<256xf32>)
      -> (store tensor<256x768xbf16>)
      epilogue(%acc: f32, %r: f32, %i: index, %j: index) {
    %n = arith.constant 5.120000e+02 : f32
    %m = arith.divf %r, %n : f32
    %q = math.rsqrt %m : f32
    %o = arith.mulf %acc, %q : f32
    coda.yield %o : f32
  }
  return %y : tensor<256x768xbf16>
}
)mlir";

TEST_F(PlanTest, RowHandoffAndLaunchOrder) {
  OwningOpRef<ModuleOp> module = plan(kRowsAhead);
  ASSERT_TRUE(module);
  SmallVector<std::string> order;
  auto func = *module->getOps<func::FuncOp>().begin();
  for (Operation &op : func.getBody().front())
    if (auto names = op.getAttrOfType<ArrayAttr>(kKernelsAttr))
      order.push_back(cast<StringAttr>(names[0]).str() +
                      (op.hasAttr(kHandsRowsAttr) ? "+hands" : "") +
                      (op.hasAttr(kAwaitsRowsAttr) ? "+awaits" : ""));
  EXPECT_EQ(order, (SmallVector<std::string>{"norm_qkv_g0", "norm_qkv_g2", "norm_qkv_g1+hands",
                                             "norm_qkv_k0+awaits"}));
  // Along N: the order the reduction's row blocks can be handed over in.
  EXPECT_NE(getKernelConfig(gemms(*module).front()).getRaster(), RasterOrder::AlongM);
}

TEST_F(PlanTest, WithoutOverlapRowsKeepsTheOrder) {
  OwningOpRef<ModuleOp> module = plan(kRowsAhead, "h200", "", {"overlap-rows"});
  ASSERT_TRUE(module);
  SmallVector<std::string> order;
  auto func = *module->getOps<func::FuncOp>().begin();
  for (Operation &op : func.getBody().front())
    if (auto names = op.getAttrOfType<ArrayAttr>(kKernelsAttr)) {
      EXPECT_FALSE(op.hasAttr(kHandsRowsAttr) || op.hasAttr(kAwaitsRowsAttr));
      order.push_back(cast<StringAttr>(names[0]).str());
    }
  EXPECT_EQ(order,
            (SmallVector<std::string>{"norm_qkv_g0", "norm_qkv_g1", "norm_qkv_g2", "norm_qkv_k0"}));
}

// The launcher's workspace: the sums (256 floats, 1 KB) and the scaled weights (768 x 512 bf16)
// in launch order, then the counts of the hand-off (2 row blocks of 128, 256 bytes rounded);
// the zero fill folds into the reduction and takes nothing.
TEST_F(PlanTest, WorkspaceLayoutInLaunchOrder) {
  OwningOpRef<ModuleOp> module = plan(kRowsAhead);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  auto offsetOf = [&](Operation &op) {
    auto layout = op.getAttrOfType<DictionaryAttr>(kWorkspaceAttr);
    return layout ? layout.getAs<DenseI64ArrayAttr>("run")[0] : int64_t(-1);
  };
  SmallVector<int64_t> offsets;
  for (Operation &op : func.getBody().front())
    if (op.hasAttr(kKernelsAttr) && !isa<GemmOp>(op))
      offsets.push_back(offsetOf(op));
  // fill (folded), weights, sums: the weights launch first.
  EXPECT_EQ(offsets, (SmallVector<int64_t>{-1, 0, 768 * 512 * 2}));
  Operation *sums = nullptr;
  for (Operation &op : func.getBody().front())
    if (op.hasAttr(kHandsRowsAttr))
      sums = &op;
  ASSERT_TRUE(sums);
  int64_t tileM = getKernelConfig(gemms(*module).front()).getTileM();
  EXPECT_EQ(sums->getAttrOfType<DictionaryAttr>(kRowsDoneAttr).getAs<IntegerAttr>("run").getInt(),
            768 * 512 * 2 + 1024);
  EXPECT_EQ(func->getAttrOfType<DictionaryAttr>(kWorkspaceBytesAttr).getAs<IntegerAttr>("run").getInt(),
            768 * 512 * 2 + 1024 + ((256 + tileM - 1) / tileM * 4 + 255) / 256 * 256);
}

// A plan given in the IR is kept: planning again changes nothing.
TEST_F(PlanTest, PlannedKernelsKeepTheirPlan) {
  OwningOpRef<ModuleOp> module = plan(kRowsAhead);
  ASSERT_TRUE(module);
  std::string once, twice;
  llvm::raw_string_ostream(once) << *module;
  PassManager pm(&context);
  CodaPlanCudaOptions options;
  options.target = "h100-sxm";
  buildCodaPlanCudaPipeline(pm, options);
  ASSERT_TRUE(succeeded(pm.run(*module)));
  llvm::raw_string_ostream(twice) << *module;
  EXPECT_EQ(once, twice);
}

} // namespace
