//===- EmitGeneric.cpp - coda's own kernels -------------------------------===//
//
// The kernels coda writes itself for the ops of a function outside its GEMMs: a linalg.generic
// as a thread (or warp, or block) per output point, 8 elements a step where it can, row
// reductions that hand their rows to the GEMM beside them; and slice copies.
//
//===----------------------------------------------------------------------===//

#include "CudaEmitter.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

/// The C literal a linalg.fill writes.
std::string cuda::fillLiteral(linalg::FillOp fill) {
  auto value = cast<TypedAttr>(fill.value().getDefiningOp<arith::ConstantOp>().getValue());
  if (auto f = dyn_cast<FloatAttr>(value))
    return floatLiteral(f.getValue());
  return std::to_string(cast<IntegerAttr>(value).getValue().getSExtValue());
}

GemmOp CudaEmitter::handsRowsTo(linalg::GenericOp generic) {
  return generic->hasAttr(kHandsRowsAttr) ? rowsConsumer(generic) : GemmOp();
}

static std::string combineExpr(const WarpCombine &c, const std::string &a, const std::string &b) {
  return *c.fn ? std::string(c.fn) + "(" + a + ", " + b + ")" : a + " " + c.sym + " " + b;
}

static constexpr int64_t kVector = 8;

/// Whether `operand` varies along the generic's last loop: with 8-element steps, it moves 16
/// bytes at a time.
static bool alongLastLoop(linalg::GenericOp generic, OpOperand &operand) {
  return generic.getMatchingIndexingMap(&operand).isFunctionOfDim(generic.getNumLoops() - 1);
}

/// Elements per thread along the last loop dimension of a generic kernel outside the
/// kernels: 8, read and written 16 bytes at a time (coda::rt::load8/store8), when every operand
/// that depends on that dimension has it, alone, as its contiguous last index, in a float
/// type, with a last dimension (hence every row offset) a multiple of 8; else 1. Elementwise
/// generics and warp reductions only.
static int64_t vectorWidth(linalg::GenericOp generic, bool warp) {
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (iterators.empty() || ranges.back() % kVector != 0 ||
      (!warp && llvm::count(iterators, utils::IteratorType::reduction) != 0))
    return 1;
  unsigned last = iterators.size() - 1;
  for (OpOperand &operand : generic->getOpOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    if (!map.isFunctionOfDim(last)) {
      // Broadcast along the vector: fine for inputs and for a warp reduction's outputs.
      if (!warp && generic.isDpsInit(&operand))
        return 1;
      continue;
    }
    auto type = cast<RankedTensorType>(operand.get().getType());
    auto lastIndex = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!lastIndex || lastIndex.getPosition() != last || type.getShape().back() % kVector != 0 ||
        !isa<FloatType>(type.getElementType()) || type.getElementType().getIntOrFloatBitWidth() > 32)
      return 1;
    for (AffineExpr e : map.getResults().drop_back())
      if (e.isFunctionOfDim(last))
        return 1;
  }
  return kVector;
}

/// A __global__ function for one linalg.generic: one thread per point of the parallel loops,
/// the reduction loops in order inside, the outputs' running values in registers.
LogicalResult CudaEmitter::emitGenericKernel(linalg::GenericOp generic, StringRef name,
                                             SmallVectorImpl<Value> &params,
                                             SmallVectorImpl<unsigned> &vectorParams,
                                             int64_t &threads, GenericRole role) {
  names.clear();
  nextName = 0;
  Block &body = *generic.getBlock();
  // Tensors the body reads with tensor.extract travel as extra parameters.
  SmallVector<Value> captured;
  generic.walk([&](tensor::ExtractOp e) {
    if (!llvm::is_contained(captured, e.getTensor()))
      captured.push_back(e.getTensor());
  });
  params.clear();
  for (Value v : generic.getDpsInputs())
    params.push_back(v);
  params.append(captured.begin(), captured.end());
  for (Value v : generic.getDpsInits())
    params.push_back(v);

  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  std::optional<SmallVector<WarpCombine>> folds = warpReduction(generic);
  int64_t width = vectorWidth(generic, folds.has_value());
  unsigned last = ranges.size() - 1;
  SmallVector<std::string> dims;
  for (unsigned d = 0; d < ranges.size(); ++d)
    dims.push_back("d" + std::to_string(d));
  // With vectors, the last dimension's index is its vector's first element, then each element.
  SmallVector<std::string> vectorDims(dims);
  if (width > 1)
    vectorDims[last] += "v";
  int64_t points = 1, reduced = 1;
  for (unsigned d = 0; d < ranges.size(); ++d)
    (iterators[d] == utils::IteratorType::parallel ? points : reduced) *= ranges[d];

  os << "// " << name << ": a linalg.generic over [";
  llvm::interleaveComma(ranges, os);
  os << "] outside the kernels"
     << (width > 1 ? ", 8 elements of the last dimension per step" : "") << ".\n";
  unsigned numInputs = generic.getNumDpsInputs() + captured.size();
  std::string paramList, argList;
  for (auto [i, v] : llvm::enumerate(params)) {
    auto type = cast<RankedTensorType>(v.getType());
    paramList += std::string(i ? ", " : "") + (i < numInputs ? "const " : "") +
                 *bufferElement(type.getElementType()) + " *__restrict__ p" + std::to_string(i);
    argList += (i ? ", p" : "p") + std::to_string(i);
  }
  // A reduction that hands its rows to a GEMM beside it reduces a row in a function that both
  // kernels call.
  bool publishing = role == GenericRole::Publishing && folds.has_value();
  // A few output points with long reductions (cross-entropy's mean over 8192 rows: 24 µs for one
  // warp on the H200) fold with a block of kFoldBlock threads per point instead of a warp.
  constexpr int64_t kFoldBlock = 256, kFewPoints = 64;
  bool blockFold = folds && role == GenericRole::Kernel && points <= kFewPoints &&
                   reduced >= 4 * kFoldBlock * width;
  int64_t foldThreads = blockFold ? kFoldBlock : 32;
  // Threads to launch (in blocks of 256): a warp or a block per output point, or one per point
  // (per 8 with vectors).
  int64_t units = folds ? points : points / width;
  threads = folds ? points * foldThreads : units;
  // The point's indices.
  auto emitIndices = [&] {
    os << "  if (point >= " << units << "LL) return;\n";
    int64_t stride = units;
    for (unsigned d = 0; d < ranges.size(); ++d)
      if (iterators[d] == utils::IteratorType::parallel) {
        int64_t range = !folds && d == last ? ranges[d] / width : ranges[d];
        stride /= range;
        os << "  long long " << vectorDims[d] << " = point / " << stride << "LL % " << range
           << "LL" << (!folds && d == last && width > 1 ? " * " + std::to_string(width) + "LL" : "")
           << ";\n";
      }
  };
  auto operandIndex = [&](OpOperand &operand, ArrayRef<std::string> at) -> FailureOr<std::string> {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    SmallVector<std::string> indices;
    for (AffineExpr e : map.getResults()) {
      FailureOr<std::string> c = affineToC(e, at);
      if (failed(c))
        return failure();
      indices.push_back(*c);
    }
    return linearIndex(cast<RankedTensorType>(operand.get().getType()), indices);
  };
  auto vectorized = [&](OpOperand &operand) { return width > 1 && alongLastLoop(generic, operand); };
  auto vectorName = [&](Value arg) { return valueName(arg) + "v"; };
  vectorParams.clear();
  for (auto [i, v] : llvm::enumerate(params))
    if (!llvm::is_contained(captured, v) &&
        vectorized(i < static_cast<size_t>(generic.getNumDpsInputs())
                       ? generic->getOpOperand(i)
                       : *generic.getDpsInitOperand(i - numInputs)))
      vectorParams.push_back(i);
  // An input's 16-byte load at the step's first element.
  SmallVector<std::pair<unsigned, BlockArgument>> vectorInputs;
  for (auto [i, input] : llvm::enumerate(generic.getDpsInputOperands()))
    if (BlockArgument arg = generic.getMatchingBlockArgument(input);
        width > 1 && !arg.use_empty() && vectorized(*input))
      vectorInputs.push_back({unsigned(i), arg});
  auto vectorLoad = [&](unsigned i, BlockArgument arg) -> FailureOr<std::string> {
    FailureOr<std::string> index = operandIndex(*generic.getDpsInputOperand(i), vectorDims);
    if (failed(index))
      return generic.emitOpError("has an indexing map the CUDA backend cannot emit");
    return "coda::rt::load8(p" + std::to_string(i) + ", " + *index + ")";
  };

  if (publishing) {
    os << "__device__ __forceinline__ void " << name << "_row(long long point, int lane, "
       << paramList << ") {\n";
  } else if (blockFold) {
    os << "__global__ void " << name << "(" << paramList << ") {\n  // One block of "
       << kFoldBlock << " threads per output point.\n";
    os << "  long long point = blockIdx.x;\n  int lane = threadIdx.x;\n";
  } else if (folds) {
    os << "__global__ void " << name << "(" << paramList << ") {\n  // One warp per output point.\n";
    os << "  long long point = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;\n";
    os << "  int lane = threadIdx.x % 32;\n";
  } else {
    os << "__global__ void " << name << "(" << paramList << ") {\n";
    os << "  long long point = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n";
  }
  emitIndices();

  // Running values of the outputs, read only when the body uses them.
  unsigned firstInit = numInputs;
  for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
    BlockArgument arg = generic.getMatchingBlockArgument(&init);
    FailureOr<std::string> type = cType(generic, arg.getType());
    FailureOr<std::string> index = operandIndex(init, vectorDims);
    if (failed(type) || failed(index))
      return generic.emitOpError("has an indexing map the CUDA backend cannot emit");
    std::string p = "p" + std::to_string(firstInit + i);
    if (folds)
      os << "  " << *type << " " << valueName(arg) << " = " << (*folds)[i].identity
         << "; // this lane's part\n";
    else if (vectorized(init))
      os << "  coda::rt::Vec8 " << vectorName(arg)
         << (arg.use_empty() ? "" : " = coda::rt::load8(" + p + ", " + *index + ")") << ";\n";
    else
      os << "  " << *type << " " << valueName(arg)
         << (arg.use_empty() ? "" : " = coda::rt::load(" + p + ", " + *index + ")") << ";\n";
  }
  std::string inner = "  ";
  for (unsigned d = 0; d < ranges.size(); ++d)
    if (iterators[d] != utils::IteratorType::parallel) {
      if (folds)
        os << inner << "for (long long " << vectorDims[d] << " = lane * " << width << "LL; "
           << vectorDims[d] << " < " << ranges[d] << "LL; " << vectorDims[d]
           << " += " << foldThreads * width << ") {\n";
      else
        os << inner << "for (long long " << dims[d] << " = 0; " << dims[d] << " < " << ranges[d]
           << "LL; ++" << dims[d] << ") {\n";
      inner += "  ";
    }
  // Vector loads at the vector's first element, then one step per element.
  if (width > 1) {
    for (auto [i, arg] : vectorInputs) {
      FailureOr<std::string> load = vectorLoad(i, arg);
      if (failed(load))
        return failure();
      os << inner << "coda::rt::Vec8 " << vectorName(arg) << " = " << *load << ";\n";
    }
    os << inner << "#pragma unroll\n"
       << inner << "for (int e = 0; e < " << width << "; ++e) {\n";
    inner += "  ";
    bool indexed = false;
    generic.walk([&](linalg::IndexOp index) { indexed |= index.getDim() == last; });
    if (indexed)
      os << inner << "long long " << dims[last] << " = " << vectorDims[last] << " + e;\n";
  }
  indent = inner;
  for (auto [i, input] : llvm::enumerate(generic.getDpsInputOperands())) {
    BlockArgument arg = generic.getMatchingBlockArgument(input);
    if (arg.use_empty())
      continue;
    FailureOr<std::string> type = cType(generic, arg.getType());
    FailureOr<std::string> index = operandIndex(*input, dims);
    if (failed(type) || failed(index))
      return generic.emitOpError("has an indexing map the CUDA backend cannot emit");
    os << inner << *type << " " << valueName(arg) << " = "
       << (vectorized(*input) ? vectorName(arg) + ".v[e]"
                              : "coda::rt::load(p" + std::to_string(i) + ", " + *index + ")")
       << ";\n";
  }
  if (width > 1 && !folds)
    for (OpOperand &init : generic.getDpsInitsMutable())
      if (BlockArgument arg = generic.getMatchingBlockArgument(&init); !arg.use_empty())
        os << inner << "float " << valueName(arg) << " = " << vectorName(arg) << ".v[e];\n";
  for (Operation &op : body.without_terminator()) {
    if (folds && llvm::any_of(*folds, [&](const WarpCombine &f) { return f.op == &op; }))
      continue; // folded below, into this lane's part
    // Constants from above are used inside; everything else is a scalar op of the body.
    for (Value v : op.getOperands())
      if (auto c = v.getDefiningOp<arith::ConstantOp>(); c && !names.count(v) &&
                                                          !generic->isProperAncestor(c))
        if (failed(emitScalarOp(*c)))
          return failure();
    LogicalResult r =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](linalg::IndexOp index) -> LogicalResult {
              os << inner << "long long " << valueName(index) << " = " << dims[index.getDim()]
                 << ";\n";
              return success();
            })
            .Case([&](tensor::ExtractOp extract) -> LogicalResult {
              SmallVector<std::string> indices;
              for (Value i : extract.getIndices())
                indices.push_back(valueName(i));
              unsigned p = generic.getNumDpsInputs() +
                           llvm::find(captured, extract.getTensor()) - captured.begin();
              FailureOr<std::string> type = cType(&op, extract.getType());
              if (failed(type))
                return failure();
              os << inner << *type << " " << valueName(extract) << " = coda::rt::load(p" << p
                 << ", " << linearIndex(extract.getTensor().getType(), indices) << ");\n";
              return success();
            })
            .Default([&](Operation *other) { return emitScalarOp(*other); });
    if (failed(r))
      return failure();
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
    BlockArgument arg = generic.getMatchingBlockArgument(&init);
    std::string out = valueName(arg);
    if (folds)
      os << inner << out << " = " << combineExpr((*folds)[i], out, valueName((*folds)[i].value))
         << ";\n";
    else if (vectorized(init))
      os << inner << vectorName(arg) << ".v[e] = " << valueName(yield.getValues()[i]) << ";\n";
    else
      os << inner << out << " = " << valueName(yield.getValues()[i]) << ";\n";
  }
  while (inner.size() > 2) {
    inner.resize(inner.size() - 2);
    os << inner << "}\n";
  }
  indent = "  ";
  if (folds) {
    // The lanes' parts, combined in a fixed butterfly order, then folded into the output; in a
    // block, the warps' parts go through shared memory to the first warp, which combines them
    // the same way.
    auto butterfly = [&] {
      os << "  for (int offset = 16; offset > 0; offset /= 2) {\n";
      for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
        std::string out = valueName(generic.getMatchingBlockArgument(&init));
        os << "    " << out << " = "
           << combineExpr((*folds)[i], out, "__shfl_xor_sync(0xffffffffu, " + out + ", offset)")
           << ";\n";
      }
      os << "  }\n";
    };
    butterfly();
    if (blockFold) {
      int64_t warps = kFoldBlock / 32;
      for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
        BlockArgument arg = generic.getMatchingBlockArgument(&init);
        os << "  __shared__ " << *cType(generic, arg.getType()) << " " << valueName(arg)
           << "w[" << warps << "];\n";
        os << "  if (lane % 32 == 0) " << valueName(arg) << "w[lane / 32] = " << valueName(arg)
           << ";\n";
      }
      os << "  __syncthreads();\n  if (lane >= 32) return;\n";
      for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
        std::string out = valueName(generic.getMatchingBlockArgument(&init));
        os << "  " << out << " = lane < " << warps << " ? " << out << "w[lane] : "
           << (*folds)[i].identity << ";\n";
      }
      butterfly();
    }
    os << "  if (lane != 0) return;\n";
  }
  for (auto [i, init] : llvm::enumerate(generic.getDpsInitsMutable())) {
    BlockArgument arg = generic.getMatchingBlockArgument(&init);
    std::string out = valueName(arg);
    std::string index = *operandIndex(init, vectorDims);
    std::string p = "p" + std::to_string(firstInit + i);
    if (linalg::FillOp fill = folds ? foldedFill(generic, init) : linalg::FillOp())
      out = combineExpr((*folds)[i], fillLiteral(fill), out);
    else if (folds)
      out = combineExpr((*folds)[i], "coda::rt::load(" + p + ", " + index + ")", out);
    if (vectorized(init) && !folds)
      os << "  coda::rt::store8(" << p << ", " << index << ", " << vectorName(arg) << ");\n";
    else
      os << "  coda::rt::store(" << p << ", " << index << ", " << out << ");\n";
  }
  os << "}\n\n";
  if (publishing) {
    os << "// One warp per output point.\n__global__ void " << name << "(" << paramList << ") {\n";
    os << "  " << name << "_row((blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32, "
       << "threadIdx.x % 32, " << argList << ");\n}\n\n";
    os << "// " << name << ", handing its rows to the GEMM launched beside it a row block at a time "
       << "(coda/Runtime/Overlap.cuh).\n";
    os << "__global__ void __launch_bounds__(1024) " << name << "_published(" << paramList
       << ", unsigned *__restrict__ done, int tileM, long long early, int side) {\n";
    os << "  coda::rt::publishRows(" << units << "LL, tileM, early, side, done, "
       << "[&](long long point, int lane) { " << name << "_row(point, lane, " << argList
       << "); });\n}\n\n";
  }
  return success();
}

/// A copy kernel between a box of a larger tensor and a whole smaller one (insert_slice with
/// unit strides, extract_slice with static offsets and strides). Where the box's rows are
/// contiguous in both, start at a multiple of 8 elements and hold whole groups of 8, a thread
/// copies 8 elements at once (16-byte accesses for 16-bit types; the launcher checks the
/// pointers). Returns the elements a thread copies.
int64_t CudaEmitter::emitSliceKernel(StringRef name, RankedTensorType small,
                                     RankedTensorType large, ArrayRef<int64_t> offsets,
                                     bool insert, ArrayRef<int64_t> strides) {
  std::string elem = *bufferElement(small.getElementType());
  unsigned last = small.getRank() - 1;
  int64_t width = small.getDimSize(last) % kVector == 0 && large.getDimSize(last) % kVector == 0 &&
                          offsets[last] % kVector == 0 && (strides.empty() || strides[last] == 1) &&
                          storageBits(small.getElementType()) % 8 == 0
                      ? kVector
                      : 1;
  os << "// " << name << ": " << (insert ? "tensor.insert_slice" : "tensor.extract_slice")
     << (width > 1 ? ", 8 elements per thread" : "") << ".\n";
  os << "__global__ void " << name << "(const " << elem << " *__restrict__ src, " << elem
     << " *__restrict__ dst) {\n";
  os << "  long long point = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n";
  os << "  if (point >= " << small.getNumElements() / width << "LL) return;\n";
  SmallVector<std::string> smallIdx, largeIdx;
  int64_t below = small.getNumElements() / width;
  for (unsigned d = 0; d < small.getRank(); ++d) {
    int64_t size = d == last ? small.getDimSize(d) / width : small.getDimSize(d);
    below /= size;
    std::string i = "i" + std::to_string(d);
    os << "  long long " << i << " = point / " << below << "LL % " << size << "LL"
       << (d == last && width > 1 ? " * " + std::to_string(width) + "LL" : "") << ";\n";
    smallIdx.push_back(i);
    int64_t stride = strides.empty() ? 1 : strides[d];
    largeIdx.push_back("(" + (stride == 1 ? i : i + " * " + std::to_string(stride) + "LL") + " + " +
                       std::to_string(offsets[d]) + "LL)");
  }
  std::string s = linearIndex(small, smallIdx), l = linearIndex(large, largeIdx);
  std::string to = insert ? l : s, from = insert ? s : l;
  if (width > 1)
    os << "  coda::rt::copy8(dst + " << to << ", src + " << from << ");\n}\n\n";
  else
    os << "  dst[" << to << "] = src[" << from << "];\n}\n\n";
  return width;
}
