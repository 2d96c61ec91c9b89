//===- EmitAttention.cpp - coda.attention as the block-wise kernel --------===//
//
// A coda.attention that the plan gives the attention kernel (cuda::hasAttentionKernel) becomes
// a `Problem` struct for coda::rt::attention::kernel (coda/Runtime/Attention.cuh): its shapes
// and strides as constants, the mask (#coda.mask) as index arithmetic in three forms (one
// element, the keys a block of rows may see, whether a block is fully visible), and the score
// region as a device function.
//
//===----------------------------------------------------------------------===//

#include "CudaEmitter.h"

#include "llvm/Support/SaveAndRestore.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

LogicalResult CudaEmitter::emitAttentionProblem(AttentionOp op, StringRef name) {
  MaskAttr mask = op.getMaskOrDense();
  int64_t b = op.getBatchSize(), hq = op.getNumHeads(), hkv = op.getNumKvHeads();
  int64_t sq = op.getQueryLen(), sk = op.getKeyLen(), d = op.getHeadSize();
  bool headMajor = op.isHeadMajor();
  std::string element = *bufferElement(op.getQ().getType().getElementType());

  os << "// " << name << ": coda.attention, B " << b << ", Hq " << hq << ", Hkv " << hkv
     << ", Sq " << sq << ", Sk " << sk << ", d " << d << " (" << element << ", layout "
     << stringifyAttentionLayout(op.getLayout()) << ")";
  if (!mask.isDense() || mask.getSinks() || mask.getGlobal()) {
    os << ", mask ";
    Attribute(mask).print(os);
  }
  os << ".\nstruct " << name << " {\n";
  os << "  using Element = " << element << ";\n";
  Value lens = op.getSequenceLens();
  bool cache = static_cast<bool>(op.getCacheLens());
  os << "  using Length = "
     << (lens ? *bufferElement(cast<RankedTensorType>(lens.getType()).getElementType())
              : std::string("int"))
     << ";\n";
  os << "  static constexpr int B = " << b << ", Hq = " << hq << ", Hkv = " << hkv
     << ", Sq = " << sq << ", Sk = " << sk << ", D = " << d << ";\n";
  os << "  static constexpr float scale = " << floatLiteral(op.getScale()) << ";\n";
  // Rows of one head are D apart in [B, H, S, d], H·D apart in [B, S, H, d], or as wide as the
  // tensor that token-major heads are read from in place (the QKV kernel's output).
  int64_t qStride = attentionRowStride(op, op.getQ()), kvStride = attentionRowStride(op, op.getK());
  int64_t outStride = headMajor ? d : hq * d;
  os << "  static constexpr long long qStride = " << qStride << ", kvStride = " << kvStride
     << ", outStride = " << outStride << ";\n";
  auto offset = [&](StringRef fn, StringRef head, int64_t heads, int64_t seq, int64_t stride) {
    os << "  static __host__ __device__ __forceinline__ long long " << fn << "(int b, int " << head
       << ") {\n    return ";
    if (headMajor)
      os << "(static_cast<long long>(b) * " << heads << " + " << head << ") * " << seq * d;
    else
      os << "static_cast<long long>(b) * " << seq * stride << " + static_cast<long long>("
         << head << ") * " << d;
    os << ";\n  }\n";
  };
  offset("qOffset", "h", hq, sq, qStride);
  offset("kvOffset", "g", hkv, sk, kvStride);
  offset("outOffset", "h", hq, sq, outStride);
  // Over a KV cache: where row j of (sequence b, KV head g) lies, in a paged cache on the page
  // that the sequence's table row names.
  if (cache) {
    int64_t page = op.getPageSize(), maxPages = op.getPages() ? sk / page : 1;
    os << "  static constexpr bool paged = " << (op.getPages() ? "true" : "false")
       << ";\n  static constexpr int pageSize = " << page << ", maxPages = " << maxPages << ";\n";
    os << "  static __device__ __forceinline__ long long kvAt(int b, int g, int j, const int *table) {\n";
    if (!op.getPages()) {
      os << "    return kvOffset(b, g) + static_cast<long long>(j) * kvStride;\n  }\n";
    } else {
      os << "    long long page = table[b * maxPages + j / pageSize];\n    return ";
      if (headMajor)
        os << "((page * " << hkv << " + g) * pageSize + j % pageSize) * " << d;
      else
        os << "(page * pageSize + j % pageSize) * " << hkv * d << " + static_cast<long long>(g) * "
           << d;
      os << ";\n  }\n";
    }
  }

  // Query row i sits at key position r = i + Sk - Sq, or i + len - Sq in a KV cache.
  int64_t shift = sk - sq;
  auto position = [&](StringRef i) {
    if (cache)
      return "(" + i.str() + " + len - " + std::to_string(sq) + ")";
    return shift == 0 ? i.str() : "(" + i.str() + " + " + std::to_string(shift) + ")";
  };
  auto floorDiv = [&](const std::string &x, int64_t c) {
    return "((" + x + ") >= 0 ? (" + x + ") / " + std::to_string(c) + " : ((" + x + ") - " +
           std::to_string(c - 1) + ") / " + std::to_string(c) + ")";
  };
  // The band at one element, then the keys it adds (sinks, global tokens).
  SmallVector<std::string> band;
  std::string r = position("i");
  if (mask.getCausal())
    band.push_back("j <= " + r);
  if (mask.getLeft() >= 0)
    band.push_back("j >= " + r + " - " + std::to_string(mask.getLeft()));
  if (mask.getRight() >= 0)
    band.push_back("j <= " + r + " + " + std::to_string(mask.getRight()));
  if (mask.getDilation() > 1)
    band.push_back("(" + r + " - j) % " + std::to_string(mask.getDilation()) + " == 0");
  if (mask.getChunk() > 0)
    band.push_back(floorDiv("j", mask.getChunk()) + " == " + floorDiv(r, mask.getChunk()));
  std::string visible = band.empty() ? "true" : llvm::join(band, " && ");
  if (mask.getSinks() > 0)
    visible = "(" + visible + ") || (j < " + std::to_string(mask.getSinks()) +
              (mask.getCausal() ? " && j <= " + r : std::string()) + ")";
  if (mask.getGlobal() > 0)
    visible = "(" + visible + ") || j < " + std::to_string(mask.getGlobal()) + " || " + r +
              " < " + std::to_string(mask.getGlobal());
  // With lengths, rows and keys at or past the sequence's length see nothing; in a cache,
  // keys past its length and rows before the sequence's start.
  if (lens)
    visible = "(" + visible + ") && " + (cache ? r + " >= 0" : std::string("i < len")) +
              " && j < len";
  os << "  static __device__ __forceinline__ bool visible(int" << (lens ? " len" : "")
     << ", int i, int j) { return " << visible << "; }\n";

  // The keys [k0, k1) that rows [q0, q1) may see (sinks and global tokens widen it to all
  // keys before the band's end, or to all keys).
  std::string r0 = position("q0"), r1 = position("q1 - 1");
  os << "  static __device__ __forceinline__ void keyRange(int" << (lens ? " len" : "")
     << ", int q0, int q1, int &k0, int &k1) {\n";
  os << "    k0 = 0;\n    k1 = "
     << (cache ? r1 + " >= 0 ? min(len, Sk) : 0" : lens ? "q0 < len ? len : 0" : "Sk") << ";\n";
  bool widened = mask.getSinks() > 0 || mask.getGlobal() > 0;
  if (!widened && mask.getLeft() >= 0)
    os << "    k0 = max(k0, " << r0 << " - " << mask.getLeft() << ");\n";
  if (!widened && mask.getChunk() > 0)
    os << "    k0 = max(k0, " << floorDiv(r0, mask.getChunk()) << " * " << mask.getChunk()
       << ");\n";
  if (mask.getGlobal() == 0) {
    if (mask.getCausal())
      os << "    k1 = min(k1, " << r1 << " + 1);\n";
    if (mask.getRight() >= 0)
      os << "    k1 = min(k1, " << r1 << " + " << mask.getRight() + 1 << ");\n";
    if (mask.getChunk() > 0)
      os << "    k1 = min(k1, (" << floorDiv(r1, mask.getChunk()) << " + 1) * "
         << mask.getChunk() << ");\n";
  }
  os << "  }\n";

  // Split into residue classes, the kernel asks only of keys in the query's class, where the
  // dilation holds.
  int64_t classes = attentionResidueClasses(op);
  os << "  static constexpr int dilation = " << classes << ";\n";
  os << "  static constexpr bool cache = " << (cache ? "true" : "false") << ";\n";
  os << "  static constexpr bool rowWise = " << (op->hasAttr(kRowWiseAttr) ? "true" : "false")
     << ";\n";

  // Every element of rows [q0, q1) × keys [k0, k1) in the band (then visible whatever the
  // sinks and global tokens add).
  SmallVector<std::string> full;
  if (mask.getDilation() > 1 && classes == 1)
    full.push_back("false");
  if (mask.getCausal())
    full.push_back("k1 - 1 <= " + r0);
  if (mask.getLeft() >= 0)
    full.push_back("k0 >= " + r1 + " - " + std::to_string(mask.getLeft()));
  if (mask.getRight() >= 0)
    full.push_back("k1 - 1 <= " + r0 + " + " + std::to_string(mask.getRight()));
  if (mask.getChunk() > 0) {
    int64_t c = mask.getChunk();
    full.push_back(floorDiv("k0", c) + " == " + floorDiv("k1 - 1", c) + " && " +
                   floorDiv("k0", c) + " == " + floorDiv(r0, c) + " && " + floorDiv("k0", c) +
                   " == " + floorDiv(r1, c));
  }
  if (lens)
    full.push_back(cache ? "k1 <= len && " + r0 + " >= 0" : "k1 <= len && q1 <= len");
  os << "  static __device__ __forceinline__ bool fullBlock(int" << (lens ? " len" : "")
     << ", int q0, int q1, int k0, int k1) {\n    return "
     << (full.empty() ? "true" : llvm::join(full, " && ")) << ";\n  }\n";

  // Whether any element of rows [q0, q1) × keys [k0, k1) may be visible: the band meets the
  // block, or the block holds sinks or global tokens (blocks that fail are never visited).
  SmallVector<std::string> meets;
  if (mask.getCausal())
    meets.push_back("k0 <= " + r1);
  if (mask.getLeft() >= 0)
    meets.push_back("k1 - 1 >= " + r0 + " - " + std::to_string(mask.getLeft()));
  if (mask.getRight() >= 0)
    meets.push_back("k0 <= " + r1 + " + " + std::to_string(mask.getRight()));
  if (mask.getChunk() > 0) {
    int64_t c = mask.getChunk();
    meets.push_back(floorDiv("k0", c) + " <= " + floorDiv(r1, c) + " && " +
                    floorDiv("k1 - 1", c) + " >= " + floorDiv(r0, c));
  }
  std::string any = meets.empty() ? "true" : llvm::join(meets, " && ");
  if (mask.getSinks() > 0)
    any = "(" + any + ") || (k0 < " + std::to_string(mask.getSinks()) +
          (mask.getCausal() ? " && k0 <= " + r1 : std::string()) + ")";
  if (mask.getGlobal() > 0)
    any = "(" + any + ") || k0 < " + std::to_string(mask.getGlobal()) + " || " + r0 + " < " +
          std::to_string(mask.getGlobal());
  if (lens)
    any = "(" + any + ") && k0 < len && " + (cache ? r1 + " >= 0" : std::string("q0 < len"));
  os << "  static __device__ __forceinline__ bool anyVisible(int" << (lens ? " len" : "")
     << ", int q0, int q1, int k0, int k1) {\n    return " << any << ";\n  }\n";

  // A runtime mask: its batch and head counts (1: broadcast).
  Value blocks = op.getBlocks();
  auto blocksType = blocks ? cast<RankedTensorType>(blocks.getType()) : RankedTensorType();
  os << "  static constexpr bool hasBlocks = " << (blocks ? "true" : "false") << ";\n";
  os << "  static constexpr int maskBatch = " << (blocks ? blocksType.getDimSize(0) : 1)
     << ", maskHeads = " << (blocks ? blocksType.getDimSize(1) : 1) << ";\n";

  // The score region, or the identity.
  os << "  static constexpr bool hasScore = " << (op.getScore().empty() ? "false" : "true")
     << ";\n";
  os << "  static __device__ __forceinline__ float score(float s, int b, int h, int i, int j) {\n";
  if (op.getScore().empty()) {
    os << "    return s;\n  }\n};\n\n";
    return success();
  }
  names.clear();
  nextName = 0;
  Block &body = op.getScore().front();
  const char *argNames[] = {"s", "b", "h", "i", "j"};
  for (auto [arg, argName] : llvm::zip(body.getArguments(), argNames)) {
    if (arg.use_empty())
      continue;
    FailureOr<std::string> type = cType(op, arg.getType());
    if (failed(type))
      return failure();
    os << "    " << *type << " " << valueName(arg) << " = " << argName << ";\n";
  }
  llvm::SaveAndRestore scope(indent, std::string("    "));
  for (Operation &inner : body.without_terminator())
    if (failed(emitScalarOp(inner)))
      return failure();
  os << "    return " << valueName(cast<YieldOp>(body.getTerminator()).getValues()[0])
     << ";\n  }\n};\n\n";
  return success();
}
