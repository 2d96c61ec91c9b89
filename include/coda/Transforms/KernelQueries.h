//===- KernelQueries.h - queries shared by the fusion passes and reports -*- C++ -*-===//

#ifndef CODA_TRANSFORMS_KERNELQUERIES_H
#define CODA_TRANSFORMS_KERNELQUERIES_H

#include "coda/Dialect/Coda/IR/CodaAttrs.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

#include <string>

namespace mlir::coda {

/// Why --coda-fuse-epilogue leaves this linalg.matmul / linalg.batch_matmul as it is.
std::string whyContractionIsNotFused(linalg::LinalgOp contraction);

/// Bytes a kernel reads and writes in global memory, each operand read once and each result
/// written once (inits only when the kernel reads them). Sums saturate at INT64_MAX: a program
/// may name tensors no machine holds.
struct Traffic {
  int64_t read = 0;
  int64_t written = 0;
  static void add(int64_t &total, int64_t bytes) {
    if (llvm::AddOverflow(total, bytes, total))
      total = std::numeric_limits<int64_t>::max();
  }
  Traffic &operator+=(const Traffic &o) {
    add(read, o.read);
    add(written, o.written);
    return *this;
  }
};

/// Whether `op` runs as a kernel of its own: a coda.gemm, a coda.attention or a linalg op.
bool isKernel(Operation *op);

/// Whether `op` only moves or fills data (fill, copy, transpose, broadcast, or a generic that
/// yields an input unchanged).
bool isDataMovement(Operation *op);

/// The traffic of one kernel (see isKernel).
Traffic kernelTraffic(Operation *op);

/// Erases the ops that defined `values` when they are now unused, and so on up the chain of
/// their operands (and of values their regions capture). Calls `onErase` before erasing each.
void eraseDeadProducers(RewriterBase &rewriter, ArrayRef<Value> values,
                        llvm::function_ref<void(Operation *)> onErase = nullptr);

/// The one computing op of a generic's body (the body is that op and a yield of its result),
/// or null.
Operation *getSoleBodyOp(linalg::GenericOp op);

/// The loop dimensions a map reads a tensor of `type` with, where results that are the
/// constant 0 on a dimension of size 1 (torch-mlir's keepdim tensors) are skipped; nullopt
/// when the map is anything else.
std::optional<SmallVector<unsigned>> getReadDims(AffineMap map, ShapedType type);

/// The bf16/f16 tensor that `v` widens elementwise to f32 (an identity-mapped generic whose
/// body is one arith.extf), or null.
Value getWidenedFrom(Value v);

/// `v` as a rank-1 vector: `[M, 1]`, `[1, N]` (torch-mlir's keepdim vectors) collapsed, a
/// rank-1 `v` as it is.
Value toVector(OpBuilder &b, Location loc, Value v);

/// Converts a float scalar to another float type (extf or truncf).
Value castFloatTo(OpBuilder &b, Location loc, Value v, Type type);

class GemmOp;

/// A two-loop reduction of one [M, N] value read with the identity map, over the last loop
/// into [M] / [M, 1] (a row reduction) or over the first into [N] / [1, N] (a column
/// reduction), whose first result combines the input with the running value as a sum, a sum
/// of squares or a max; its other results (torch-mlir's argmax beside a max) are unused.
struct Reduction2D {
  Value input;
  ReduceDim dim;
  Combiner combiner;
  /// The initial value of the first result.
  Value init;
  /// Whether `init` is a fill with the combiner's identity (0, or −∞ for max).
  bool startsFromIdentity() const;
};
std::optional<Reduction2D> matchReduction2D(linalg::GenericOp op);
/// The same match for result `result` of `op`, whatever its other results. With `normForms`,
/// also the forms torch-mlir writes for a norm's statistics: the input widened (arith.extf)
/// before it is combined, and its square as math.fpowi x, 2.
std::optional<Reduction2D> matchReductionResult2D(linalg::GenericOp op, unsigned result,
                                                  bool normForms);

/// Epilogue operands collected for a new coda.gemm, each (value, role) once.
struct EpilogueOperands {
  SmallVector<Value> values;
  SmallVector<OperandRole> roles;
  /// The index of (value, role), added when new.
  unsigned add(Value value, OperandRole role) {
    for (unsigned i = 0; i < values.size(); ++i)
      if (values[i] == value && roles[i] == role)
        return i;
    values.push_back(value);
    roles.push_back(role);
    return values.size() - 1;
  }
};

/// Replaces extra operand `index` of `gemm`, computed by the elementwise generic `producer`, by
/// `inputs` (the producer's inputs as the gemm reads them, with `roles`) and clones the
/// producer's body into the epilogue; returns the new gemm. Each input has one region argument.
GemmOp inlineOperandProducer(GemmOp gemm, unsigned index, linalg::GenericOp producer,
                             ArrayRef<Value> inputs, ArrayRef<OperandRole> roles,
                             RewriterBase &rewriter);

/// Clones the body of the elementwise generic `op` at `b`, its block arguments given by `mapping`
/// and its `linalg.index` 0 and 1 by `row` and `col`; the constants it captures are cloned too.
/// Returns the value its yield gives (the first).
Value cloneElementwiseBody(OpBuilder &b, linalg::GenericOp op, IRMapping &mapping, Value row,
                           Value col);

/// Prints one kernel as --coda-print-kernels and --coda-fuse-report show it.
void printKernelSummary(llvm::raw_ostream &os, GemmOp op, unsigned index, AsmState &state);

class AttentionOp;

/// Prints one coda.attention as --coda-print-kernels and --coda-fuse-report show it.
void printAttentionSummary(llvm::raw_ostream &os, AttentionOp op, unsigned index);

/// Name of the attribute on a fused coda.gemm holding the [read, written] bytes of the ops it
/// replaced.
inline constexpr llvm::StringLiteral kUnfusedBytesAttr = "coda.unfused_bytes";

} // namespace mlir::coda

#endif // CODA_TRANSFORMS_KERNELQUERIES_H
