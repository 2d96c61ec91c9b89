//===- AttentionHeads.h - attention's operands back to the stored heads -*- C++ -*-===//
//
// Internal to --coda-fuse-attention: the operands of torch-mlir's attention products followed
// back through their views to the tensors that hold the heads, and read again as
// coda.attention's operands.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_LIB_TRANSFORMS_ATTENTIONHEADS_H
#define CODA_LIB_TRANSFORMS_ATTENTIONHEADS_H

#include "coda/Dialect/Coda/IR/CodaAttrs.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::coda::heads {

/// One operand of attention as a view of stored heads: `base` read as [B, H, S, d] in `layout`,
/// query head h reading head h / repeat.
struct Heads {
  Value base;
  AttentionLayout layout = AttentionLayout::BHSD;
  int64_t repeat = 1;
  double scale = 1.0;
  bool transposed = false; // read as [.., d, S] (Kᵀ)
  bool unbatched = false;  // `base` has rank 3 ([H, S, d] or [S, H, d]): B = 1
  /// A reshape that `base`, widened, went through: replayed on the narrow `base`.
  Operation *reshape = nullptr;
};

/// The value `v` views, past expand_shape and collapse_shape (the same elements, row-major).
Value throughReshapes(Value v);
/// The generic that makes `v`, past reshapes; null where no generic does.
linalg::GenericOp producerGeneric(Value v);
/// The one-element integer vector (a step's `cache_position`) that `v` reshapes, or null.
Value sharedPosition(Value v);
/// Whether `map` reads an operand of `type` along no loop, or only along loop `dim`: every
/// other result is the constant 0 or indexes a dimension of size 1.
bool readsOnly(AffineMap map, ShapedType type, unsigned dim = ~0u);

bool isPermutation(linalg::TransposeOp t, ArrayRef<int64_t> perm);
/// A generic of parallel loops whose maps are all identities.
bool allParallelIdentity(linalg::GenericOp g);
/// A float constant, also as torch-mlir writes the softmax scale (an f64 truncated in the body).
std::optional<double> floatConstant(Value v);

/// An operand of attention's products back to its stored heads, before any widening.
Heads traceHeads(Value v3);
/// The stored heads of one operand, as coda.attention reads them (rank 4).
Value headsOperand(OpBuilder &b, Location loc, const Heads &h);
/// Dimension sizes [B, H] of stored heads; nullopt when they are not heads of rank 4 (3
/// unbatched).
std::optional<std::pair<int64_t, int64_t>> batchAndHeads(const Heads &h);

} // namespace mlir::coda::heads

#endif // CODA_LIB_TRANSFORMS_ATTENTIONHEADS_H
