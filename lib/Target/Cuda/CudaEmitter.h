//===- CudaEmitter.h - The CUDA back end's printer, inside ------*- C++ -*-===//
//
// What the files of the CUDA back end share: the plan of a GEMM kernel (Sink, ResultPlan,
// KernelPlan), the CudaEmitter class whose print functions they define, and the helpers more
// than one of them uses. Internal to lib/Target/Cuda; the entry point is TranslateToCuda.h.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_LIB_TARGET_CUDA_CUDAEMITTER_H
#define CODA_LIB_TARGET_CUDA_CUDAEMITTER_H

#include "coda/Dialect/Coda/IR/CodaOps.h"
#include "coda/Target/Cuda/KernelConfig.h"
#include "coda/Target/Cuda/Plan.h"
#include "coda/Target/Cuda/TranslateToCuda.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace mlir::coda::cuda {

/// How a result leaves the epilogue.
enum class Sink {
  D,       // the collective's TMA store (the first stored or accumulated result)
  Store,   // coda::rt::GlobalStore
  Halves,  // coda::rt::HalvesStore: a rotation into halves, by TMA from the kernel
  Contract, // coda::rt::ContractStore: a pairwise(contract) result, by TMA from the kernel
  Reduce   // a CUTLASS reduction node writing per-tile partials, then a combine kernel
};

struct ResultPlan {
  Sink sink;
  ResultModeAttr mode;
  std::string element;         // CUTLASS element type of a stored result
  SmallVector<unsigned> values; // the value streams (DAG compute nodes) it reads
};

/// The epilogue DAG of one kernel, in topological order: [C source] operands streams sinks root.
struct KernelPlan {
  std::optional<PairwiseMode> pairwise;
  bool hasSource = false; // the D result accumulates into C
  /// An [M, N] operand of D's element type read through the collective's C (a TMA load
  /// pipelined with the mainloop) instead of per-thread loads; -1 if none.
  int sourceOperand = -1;
  int dResult = -1;
  /// The result a HalvesStore writes; -1 if none.
  int halvesResult = -1;
  /// The result a ContractStore writes; -1 if none.
  int contractResult = -1;
  /// A StagedStore (HalvesStore or ContractStore) stages the kernel's subtiles.
  bool stagesStores() const { return halvesResult >= 0 || contractResult >= 0; }
  SmallVector<std::string> operandElements;
  SmallVector<ResultPlan> results;
  /// Per value stream: the result it computes and which of the result's yields.
  SmallVector<std::pair<unsigned, unsigned>> streams;

  unsigned numLeaves() const { return hasSource + operandElements.size(); }
  unsigned streamNode(unsigned s) const { return numLeaves() + s; }
};

/// Emits C++ for the scalar ops of one epilogue region.
class CudaEmitter {
public:
  CudaEmitter(raw_ostream &os, const CudaEmitterOptions &options) : os(os), options(options) {}

  LogicalResult emitModule(ModuleOp module);

private:
  /// One kernel per configuration of `op` (its own, or one per range of M of its
  /// coda.dispatch, then a launcher that picks by M).
  LogicalResult emitKernel(GemmOp op, StringRef name);
  LogicalResult emitKernelOfConfig(GemmOp op, StringRef name);
  FailureOr<KernelPlan> planKernel(GemmOp op);
  void emitConfigComments(GemmOp op, const KernelConfig &config, raw_ostream &out);
  LogicalResult emitEpilogueFunction(GemmOp op, StringRef name, const KernelConfig &config);
  void emitStreamFunctor(GemmOp op, StringRef name, const KernelPlan &plan, unsigned stream);
  void emitLauncher(GemmOp op, StringRef name, const KernelPlan &plan, unsigned numNodes,
                    const KernelConfig &config);
  static SmallVector<std::string> launcherParams(GemmOp op);
  /// The names of launcherParams, to forward a call to another launcher.
  static SmallVector<std::string> launcherArgs(GemmOp op);
  void emitTorchWrapper(GemmOp op, StringRef name);
  void emitTorchFunctionWrapper(func::FuncOp func);
  /// `aliases`: for each result, the argument it updates in place (the function returns a
  /// KV cache it appends to), or -1.
  void emitTorchLauncherWrapper(StringRef name, StringRef launcher, ArrayRef<Type> ins,
                                ArrayRef<Type> outs, ArrayRef<int> aliases = {});
  void emitTorchReturn(ArrayRef<std::string> outs);
  LogicalResult checkFunction(func::FuncOp func, std::string &why);
  LogicalResult emitFunction(func::FuncOp func);
  LogicalResult emitFunctionLauncher(func::FuncOp func, LauncherKind kind,
                                     ArrayRef<Operation *> preparations);
  /// What a generic outside the kernels becomes: a kernel; also a row reduction that hands its
  /// rows to the kernel beside it.
  enum class GenericRole { Kernel, Publishing };
  LogicalResult emitGenericKernel(linalg::GenericOp generic, StringRef name,
                                  SmallVectorImpl<Value> &params,
                                  SmallVectorImpl<unsigned> &vectorParams, int64_t &threads,
                                  GenericRole role = GenericRole::Kernel);
  /// The `Problem` of the attention kernel (coda/Runtime/Attention.cuh) for `op`.
  LogicalResult emitAttentionProblem(AttentionOp op, StringRef name);
  int64_t emitSliceKernel(StringRef name, RankedTensorType small, RankedTensorType large,
                          ArrayRef<int64_t> offsets, bool insert, ArrayRef<int64_t> strides = {});
  LogicalResult emitScalarOp(Operation &op);
  FailureOr<std::string> cType(Operation *at, Type type);
  std::string valueName(Value v);
  static FailureOr<std::string> cutlassElement(Type t);

  raw_ostream &os;
  const CudaEmitterOptions &options;
  std::string indent = "  ";
  /// The kernel that `generic` hands its rows to as they are done (one that awaits them).
  static GemmOp handsRowsTo(linalg::GenericOp generic);
  /// The functions given a launcher so far (a call needs its callee's).
  llvm::StringSet<> launchers;
  DenseMap<Value, std::string> names;
  unsigned nextName = 0;
  /// Set while the epilogue function of a kernel configured for div.full.f32 is emitted.
  bool fullDivision = false;
};

//===----------------------------------------------------------------------===//
// Helpers shared across the back end's files
//===----------------------------------------------------------------------===//

// EmitCommon.cpp
const char *combinerName(Combiner c);
const char *identityOf(Combiner c);
FailureOr<std::string> bufferElement(Type t);
FailureOr<std::string> affineToC(AffineExpr e, ArrayRef<std::string> dims);
std::string linearIndex(RankedTensorType type, ArrayRef<std::string> indices);

// ReadGemmPlan.cpp
/// Whether the plan reads tiled operand #i through TMA (coda::rt::TableLoad).
bool tableByTma(GemmOp op, unsigned i);
/// The name of kernel #i of an op the plan named (coda.kernels).
std::string kernelName(Operation *op, unsigned i = 0);

// EmitGemm.cpp
SmallVector<std::string> kernelInputs(GemmOp op);

// EmitCommon.cpp
/// The C literal of a float constant: `1.000000000e+00f`, `INFINITY`, `-INFINITY`, `NAN`.
std::string floatLiteral(const APFloat &value);

// EmitGeneric.cpp
std::string fillLiteral(linalg::FillOp fill);

// EmitHost.cpp
/// The ops of `func`'s separable weight preparation, in order (coda.prepares).
SmallVector<Operation *> preparationsOf(func::FuncOp func);

// EmitTorchBinding.cpp
extern const char *const kTorchPrelude;

} // namespace mlir::coda::cuda

#endif // CODA_LIB_TARGET_CUDA_CUDAEMITTER_H
