//===- AttentionMasks.h - masks on positions as #coda.mask ------*- C++ -*-===//
//
// Internal to --coda-fuse-attention: a mask a program computes from the query and key
// positions (torch.arange comparisons, as torch-mlir writes them) read as a function of the
// two positions, and the #coda.mask that equals it, found by trying the parameters the
// program's constants suggest and proved on every case the function can tell apart.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_LIB_TRANSFORMS_ATTENTIONMASKS_H
#define CODA_LIB_TRANSFORMS_ATTENTIONMASKS_H

#include "coda/Dialect/Coda/IR/CodaAttrs.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <functional>
#include <memory>
#include <optional>
#include <set>

namespace mlir::coda::masks {

/// Which loop (the query's or the key's: the last two of `g`) the position tensor `operand` of
/// `g` holds the index of: a 1-D `index_cast(linalg.index 0)` generic, reshaped with unit
/// dimensions.
std::optional<unsigned> positionLoop(linalg::GenericOp g, OpOperand &operand);
/// The loop of `g` whose index the position tensor `operand` holds: any loop, the operand's
/// unit dimensions (a broadcast's) ignored.
std::optional<unsigned> iotaLoop(linalg::GenericOp g, OpOperand &operand);

/// What a condition on positions depends on, beyond the distance j − i: thresholds on the
/// query index i and on the key index j (the condition is constant between two of them), and
/// chunks of i and j (⌊i / C⌋ = ⌊j / C⌋: the residue of i mod C matters).
struct Dependence {
  std::set<int64_t> iThresholds, jThresholds;
  int64_t chunk = 0;
};

/// A boolean condition of a generic's last two loops (query i, key j), computed from position
/// tensors (a 1-D `index_cast(linalg.index 0)`), constants and integer or float arithmetic.
struct PositionCondition {
  std::function<std::optional<bool>(int64_t i, int64_t j)> eval;
  Dependence deps;
  /// The condition in the IR: an i1 value of `owner`'s body.
  Value value;
  linalg::GenericOp owner;
};

/// `cond` (an i1 value in the body of `g`) as a condition on positions whose dependence on i
/// and j is one of: the distance j − i (any arithmetic on it), thresholds on i or on j, and
/// chunk equality; none for anything else.
std::optional<PositionCondition> matchPositionCondition(linalg::GenericOp g, Value cond);

/// A condition on positions that hides a key where it is `hidesWhen`.
struct HiddenTerm {
  PositionCondition cond;
  bool hidesWhen;
};

/// The #coda.mask under which key j is visible to query i (at position i + Sk − Sq) exactly
/// when no term hides it, for every i < Sq and j < Sk; a null MaskAttr for dense attention;
/// none when no mask the attribute can say is equal (or proving it would take too long).
std::optional<MaskAttr> fitMask(MLIRContext *ctx, ArrayRef<HiddenTerm> hidden, int64_t sq,
                                int64_t sk);

/// A [Sq, Sk] i1 tensor, true where no term hides key j from query i: one generic over the
/// two positions (linalg.index) that recomputes each term's condition (and the constants it
/// reads), for a mask that no #coda.mask says and becomes a runtime mask.
Value materializeVisible(OpBuilder &b, Location loc, ArrayRef<HiddenTerm> hidden, int64_t sq,
                         int64_t sk);

} // namespace mlir::coda::masks

#endif // CODA_LIB_TRANSFORMS_ATTENTIONMASKS_H
