//===- CpuRunner.h - run MLIR functions on the CPU --------------*- C++ -*-===//
//
// Runs a function of an MLIR module (coda ops, linalg on tensors, arith/math) on the CPU
// through MLIR's ExecutionEngine: coda ops are expanded to linalg first, then the module is
// bufferized and lowered to LLVM. Used by coda-run for differential checks of rewrites.
//
//===----------------------------------------------------------------------===//

#ifndef CODA_EXECUTION_CPURUNNER_H
#define CODA_EXECUTION_CPURUNNER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <vector>

namespace mlir::coda {

/// A dense, row-major host tensor of one of the element types coda-run supports (f16, bf16,
/// f32, f64 and signless integers of 1 to 64 bits, each stored in its natural width).
class HostTensor {
public:
  HostTensor(RankedTensorType type);

  RankedTensorType getType() const { return type; }
  int64_t getNumElements() const { return type.getNumElements(); }
  void *data() { return storage.data(); }
  const void *data() const { return storage.data(); }

  /// Element `index` converted to double (floats exactly, integers as their signed value).
  double get(int64_t index) const;
  /// Stores `value` at `index`, rounded to nearest even for narrow floats.
  void set(int64_t index, double value);

private:
  RankedTensorType type;
  unsigned elementBytes;
  std::vector<uint64_t> storage; // 8-byte aligned for every element type
};

/// The bytes a host buffer of `type` takes, or failure for a dynamic shape or a count that
/// overflows 64 bits.
FailureOr<int64_t> tensorBytes(RankedTensorType type);

/// Whether coda-run can hand values of this type to a function or read them back.
bool isSupportedTensorType(Type type);

/// The function to run: `name` if given, else `main`, else the only public function. Emits an
/// error on the module and returns null when there is none.
func::FuncOp findEntryFunction(ModuleOp module, StringRef name);

/// Checks that every argument and result of `func` is a tensor coda-run supports; emits an
/// error at the function otherwise.
LogicalResult verifyRunnableSignature(func::FuncOp func);

/// An upper bound of the memory that running `entry` takes: inputs, results and every
/// statically shaped tensor its ops (and those of the functions it calls) make. Emits an error
/// at the op whose size overflows 64 bits.
FailureOr<int64_t> estimateRunMemory(func::FuncOp entry);

/// The exclusive upper bound of the random values of integer argument `arg`: `intMax`, lowered
/// to what its element type holds as a non-negative value and to the smallest dimension that
/// the program indexes with it (a label into a vocabulary, a token into an embedding table).
int64_t integerInputLimit(BlockArgument arg, int64_t intMax);

/// Deterministic random inputs for `func`: floats uniform in [-1, 1), integers uniform in
/// [0, integerInputLimit(arg, intMax)).
std::vector<HostTensor> makeRandomInputs(func::FuncOp func, uint64_t seed, int64_t intMax);

/// Lowers a clone of `module` to LLVM, compiles it and calls `entry` on `inputs` (which are
/// not modified). Indexing is checked at run time; a failed check or cf.assert of the program
/// ends the run with an error at the assertion's location. Emits errors and returns failure
/// when anything goes wrong.
FailureOr<std::vector<HostTensor>> runOnCpu(ModuleOp module, StringRef entry,
                                            ArrayRef<HostTensor> inputs);

/// Summary of an elementwise comparison of a result with a reference.
struct Comparison {
  double maxAbsError = 0;
  double maxRelError = 0;    // over elements whose reference is non-zero
  int64_t numMismatches = 0; // elements with |x - ref| > atol + rtol * |ref| (or NaN mismatch)
};

Comparison compareTensors(const HostTensor &value, const HostTensor &reference, double rtol,
                          double atol);

} // namespace mlir::coda

#endif // CODA_EXECUTION_CPURUNNER_H
