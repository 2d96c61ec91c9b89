//===- EmitGemm.cpp - coda.gemm as a CUTLASS sm90 kernel ------------------===//
//
// One coda.gemm as a CUTLASS 4.2 GemmUniversal with the sm90 TMA warp-specialized mainloop
// and an Epilogue Visitor Tree: the epilogue region as a __device__ function, a functor per
// value stream, the kernel's traits and DAG, and its extern "C" launcher and workspace size.
//
//===----------------------------------------------------------------------===//

#include "CudaEmitter.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SaveAndRestore.h"

#include <set>

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

LogicalResult CudaEmitter::emitEpilogueFunction(GemmOp op, StringRef name,
                                                const KernelConfig &config) {
  names.clear();
  nextName = 0;
  llvm::SaveAndRestore divide(fullDivision, config.fullDivision);
  Block &body = op.getEpilogue().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  os << "// The epilogue region of " << name << " in fp32: one call per "
     << (op.getInArity() == 2 ? "column pair" : "accumulator element") << ", "
     << yield.getValues().size() << " value(s) out.\n";
  os << "__device__ __forceinline__ void " << name << "_epilogue(";
  for (BlockArgument arg : body.getArguments()) {
    FailureOr<std::string> type = cType(op, arg.getType());
    if (failed(type))
      return failure();
    os << *type << " " << valueName(arg) << ", ";
  }
  os << "float *out) {\n";
  for (Operation &inner : body.without_terminator())
    if (failed(emitScalarOp(inner)))
      return failure();
  for (auto [index, value] : llvm::enumerate(yield.getValues()))
    os << "  out[" << index << "] = " << valueName(value) << ";\n";
  os << "}\n\n";
  return success();
}

void CudaEmitter::emitStreamFunctor(GemmOp op, StringRef name, const KernelPlan &plan,
                                    unsigned stream) {
  auto [r, part] = plan.streams[stream];
  ResultModeAttr mode = op.getMode(r);
  unsigned outArity = op.getOutArity();
  bool pairs = op.getInArity() == 2;
  bool square = mode.isReduce() && mode.getCombiner() == Combiner::SumSq;
  unsigned numYields = cast<YieldOp>(op.getEpilogue().front().getTerminator()).getValues().size();

  os << "// Value stream " << stream << ": result #" << r;
  if (outArity == 2)
    os << (plan.pairwise == PairwiseMode::Rotate ? " (even and odd column of each pair)"
                                                 : (part == 0 ? " (even output column)" : " (odd output column)"));
  if (square)
    os << ", squared for the sum of squares";
  if (mode.isAccumulate())
    os << ", added to the init";
  os << ".\n";
  os << "template <int F> struct " << name << "_v" << stream << " {\n";
  os << "  CUTLASS_DEVICE cutlass::Array<float, F> operator()(cutlass::Array<int, F> const &rows, "
        "cutlass::Array<int, F> const &cols, cutlass::Array<float, F> const &acc";
  if (plan.hasSource)
    os << ", cutlass::Array<float, F> const &init";
  for (unsigned i = 0, e = plan.operandElements.size(); i < e; ++i)
    os << ", cutlass::Array<float, F> const &x" << i;
  os << ") const {\n    cutlass::Array<float, F> v;\n    float out[" << numYields << "];\n";
  // One call of the region: on element e (and e + 1 for pairs).
  auto call = [&](const char *e) {
    os << name << "_epilogue(acc[" << e << "]";
    if (pairs)
      os << ", acc[" << e << " + 1]";
    for (unsigned i = 0, n = plan.operandElements.size(); i < n; ++i) {
      os << ", x" << i << "[" << e << "]";
      if (op.getNumRegionArgsForRole(op.getRole(i)) == 2)
        os << ", x" << i << "[" << e << " + 1]";
    }
    os << ", rows[" << e << "], " << (pairs ? "cols[" + std::string(e) + "] / 2" : "cols[" + std::string(e) + "]")
       << ", out);\n";
  };
  auto value = [&](unsigned yieldIndex, const std::string &at) {
    std::string v = "out[" + std::to_string(yieldIndex) + "]";
    if (square)
      v = v + " * " + v;
    if (mode.isAccumulate())
      v = "init[" + at + "] + " + v;
    return v;
  };
  if (!pairs) {
    os << "    CUTLASS_PRAGMA_UNROLL\n    for (int e = 0; e < F; ++e) {\n      ";
    call("e");
    os << "      v[e] = " << value(r * outArity + part, "e") << ";\n    }\n";
  } else {
    os << "    coda::rt::checkPairs(rows, cols);\n";
    os << "    CUTLASS_PRAGMA_UNROLL\n    for (int e = 0; e < F; e += 2) {\n      ";
    call("e");
    if (outArity == 2) { // rotate: the pair's two output columns
      os << "      v[e] = " << value(r * 2, "e") << ";\n";
      os << "      v[e + 1] = " << value(r * 2 + 1, "e + 1") << ";\n";
    } else { // contract: the pair's value at the even column
      os << "      v[e] = " << value(r, "e") << ";\n";
      os << "      v[e + 1] = "
         << (mode.isReduce() ? std::string(identityOf(mode.getCombiner())) : std::string("v[e]")) << ";\n";
    }
    os << "    }\n";
  }
  os << "    return v;\n  }\n};\n\n";
}

LogicalResult CudaEmitter::emitKernel(GemmOp op, StringRef name) {
  auto dispatch = op->getAttrOfType<ArrayAttr>(kDispatchAttr);
  if (!dispatch)
    return emitKernelOfConfig(op, name);
  if (op->hasAttr(kAwaitsRowsAttr))
    return op.emitOpError("a kernel that awaits a row reduction's rows cannot dispatch on M: "
                          "the hand-off follows one configuration's tile order");
  // The ranges of M (lo, hi], hi 0 for the last; neighbours with one configuration merged.
  struct Range {
    int64_t lo, hi, planned;
    KernelConfigAttr kernel;
  };
  SmallVector<Range> ranges;
  int64_t lo = 0;
  for (auto entry : dispatch.getAsRange<DictionaryAttr>()) {
    auto maxM = entry.getAs<IntegerAttr>("max_m");
    Range range{lo, maxM ? maxM.getInt() : 0, entry.getAs<IntegerAttr>("planned_m").getInt(),
                entry.getAs<KernelConfigAttr>("kernel")};
    if (!ranges.empty() && ranges.back().kernel == range.kernel)
      ranges.back().hi = range.hi;
    else
      ranges.push_back(range);
    lo = range.hi;
  }
  KernelConfigAttr own = getKernelConfig(op);
  Attribute tuning = op->getAttr(kTuningAttr);
  Builder b(op.getContext());
  auto variantName = [&](const Range &r) {
    return (name + "_m" + Twine(r.lo + 1) + (r.hi ? "_" + Twine(r.hi) : Twine("_up"))).str();
  };
  LogicalResult emitted = success();
  for (const Range &r : ranges) {
    op->setAttr(KernelConfigAttr::getAttrName(), r.kernel);
    // The kernel's own configuration keeps its reasons; another was planned at another M.
    if (r.kernel == own && tuning)
      op->setAttr(kTuningAttr, tuning);
    else
      op->setAttr(kTuningAttr,
                  b.getDictionaryAttr(
                      {b.getNamedAttr("chosen_by", b.getStringAttr("dispatch")),
                       b.getNamedAttr("planned_m", b.getI64IntegerAttr(r.planned))}));
    if (failed(emitKernelOfConfig(op, variantName(r)))) {
      emitted = failure();
      break;
    }
  }
  op->setAttr(KernelConfigAttr::getAttrName(), own);
  if (tuning)
    op->setAttr(kTuningAttr, tuning);
  else
    op->removeAttr(kTuningAttr);
  if (failed(emitted))
    return failure();

  // The launcher and workspace size the function launchers and the binding call: the
  // configuration of the range M falls in.
  auto emitDispatch = [&](StringRef suffix, StringRef callArgs) {
    for (const Range &r : ranges) {
      os << "  " << (r.hi ? "if (m <= " + std::to_string(r.hi) + ") " : std::string())
         << "return " << variantName(r) << suffix << "(" << callArgs << ");\n";
    }
    os << "}\n\n";
  };
  os << "// Runs " << name << " in the configuration planned for the range of M it is called "
     << "with. Returns a coda_status.\n";
  os << "extern \"C\" int " << name << "(";
  llvm::interleaveComma(launcherParams(op), os);
  os << ") {\n";
  emitDispatch("", llvm::join(launcherArgs(op), ", "));
  os << "// Bytes of device memory " << name << " needs as its workspace at this M.\n";
  os << "extern \"C\" size_t " << name << "_workspace_size(int m, int n, int k) {\n";
  emitDispatch("_workspace_size", "m, n, k");
  return success();
}

LogicalResult CudaEmitter::emitKernelOfConfig(GemmOp op, StringRef name) {
  FailureOr<KernelPlan> planned = planKernel(op);
  if (failed(planned))
    return failure();
  KernelPlan &plan = *planned;
  // The configuration first (the epilogue function's division depends on it); its comments go
  // with the kernel's below.
  KernelConfig config = toKernelConfig(getKernelConfig(op));
  // A row hand-off follows the persistent scheduler's tile order, which split-K's is not.
  if (config.splits > 1 && op->hasAttr(kAwaitsRowsAttr))
    return op.emitOpError("a split-K kernel (splits ")
           << config.splits << ") cannot await the rows of a reduction run beside it";
  std::string configComments;
  llvm::raw_string_ostream configStream(configComments);
  emitConfigComments(op, config, configStream);
  if (failed(emitEpilogueFunction(op, name, config)))
    return failure();
  for (unsigned s = 0, e = plan.streams.size(); s < e; ++s)
    emitStreamFunctor(op, name, plan, s);

  unsigned numOperands = plan.operandElements.size();
  std::string traits = (name + "_kernel").str();
  std::string inElem = *cutlassElement(op.getA().getType().getElementType());
  std::string dElem = plan.dResult >= 0 ? plan.results[plan.dResult].element : "void";
  // The element CUTLASS's collective takes D to be when the kernel has none (coda::rt::WithoutD).
  const char *noDElement = "cutlass::bfloat16_t";

  os << "// " << name << ": A" << (op.getTransposeA() ? "ᵀ" : "") << " · B"
     << (op.getTransposeB() ? "ᵀ" : "");
  if (plan.pairwise)
    os << ", pairwise(" << stringifyPairwiseMode(*plan.pairwise) << ")";
  os << "; results:";
  for (auto [r, result] : llvm::enumerate(plan.results)) {
    os << " #" << r << " ";
    ResultModeAttr mode = result.mode;
    if (mode.isReduce())
      os << "reduce<" << stringifyReduceDim(mode.getDim()) << ", "
         << stringifyCombiner(mode.getCombiner()) << ">";
    else
      os << (mode.isAccumulate() ? "accumulate" : "store");
    os << (result.sink == Sink::D        ? " (TMA store)"
           : result.sink == Sink::Halves ? " (TMA store into the heads' halves)"
           : result.sink == Sink::Contract ? " (TMA store of N/2 columns)"
           : result.sink == Sink::Store  ? " (direct store)"
                                         : " (tile partials)");
  }
  os << ".\n" << configComments;
  // Unsplit kernels read the rows of a reduction computed just before them as they come.
  bool awaits = op->hasAttr(kAwaitsRowsAttr);
  os << "struct " << traits << " {\n";
  os << "  using TileShape = cute::Shape<cute::_" << config.tileM << ", cute::_" << config.tileN
     << ", cute::_" << config.tileK << ">;\n";
  os << "  using ClusterShape = cute::Shape<cute::_" << config.clusterM << ", cute::_"
     << config.clusterN << ", cute::_1>;\n";
  os << "  static constexpr int kTileM = " << config.tileM << ", kTileN = " << config.tileN << ";\n";
  os << "  using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecialized"
     << (config.pingpong ? "Pingpong" : "Cooperative") << ";\n";
  os << "  using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized"
     << (config.pingpong ? "" : "Cooperative") << ";\n";
  os << "  using ElementIn = " << inElem << ";\n  using ElementD = " << dElem << ";\n";
  os << "  static constexpr int kAlignD = " << (plan.dResult >= 0 ? "16 / sizeof(ElementD)" : "8")
     << ";\n";
  // A StagedStore and a TableLoad stage subtiles of their own shape: the configuration's (by
  // default CUTLASS's automatic choice), spelled out.
  bool tables = false;
  for (unsigned i = 0; i < numOperands; ++i)
    tables |= tableByTma(op, i);
  std::string epilogueTile = "cutlass::epilogue::collective::EpilogueTileAuto";
  if (plan.stagesStores() || tables || config.epilogueN) {
    os << "  using EpilogueTile = cute::Shape<cute::_" << config.epilogueTileM() << ", cute::_"
       << config.epilogueTileN() << ">;\n";
    epilogueTile = "EpilogueTile";
  }
  if (plan.stagesStores())
    os << "  static constexpr int kStoreStages = 2; // CUTLASS's store stages for sm90 TMA epilogues\n";
  os << "  using LayoutA = cutlass::layout::" << (op.getTransposeA() ? "ColumnMajor" : "RowMajor")
     << "; // A is " << (op.getTransposeA() ? "[K, M]" : "[M, K]") << "\n";
  os << "  using LayoutB = cutlass::layout::" << (op.getTransposeB() ? "ColumnMajor" : "RowMajor")
     << "; // B is " << (op.getTransposeB() ? "[N, K]" : "[K, N]") << "\n";
  os << "  using LayoutD = cutlass::layout::RowMajor;\n";
  if (plan.hasSource)
    os << "  using ElementC = ElementD; // the init, read through the collective's C\n";
  else if (plan.sourceOperand >= 0)
    os << "  using ElementC = " << plan.operandElements[plan.sourceOperand] << "; // operand #"
       << plan.sourceOperand << ", read through the collective's C\n";
  else
    os << "  using ElementC = void;\n";
  if (tables)
    os << "  // The tables' TMA loads go through the collective's load pipeline: its stages.\n"
          "  static constexpr int kLoadStages = decltype(cutlass::epilogue::collective::detail::\n"
          "      sm90_get_tma_dispatch_policy<TileShape, EpilogueTile, ElementC, "
       << (plan.dResult >= 0 ? "ElementD" : noDElement) << ", EpilogueSchedule>())::StagesC;\n";

  // The DAG's nodes, in topological order.
  SmallVector<std::string> nodes;
  SmallVector<std::string> edges;
  std::string fusion = "cutlass::epilogue::fusion::";
  if (plan.hasSource) {
    nodes.push_back(fusion + "Sm90SrcFetch<ElementC>");
    edges.push_back("cute::seq<>");
  }
  for (unsigned i = 0; i < numOperands; ++i) {
    const std::string &t = plan.operandElements[i];
    switch (op.getRole(i)) {
    case OperandRole::Scalar:
      nodes.push_back(fusion + "Sm90ScalarBroadcast<" + t + ">");
      break;
    case OperandRole::Col: // one value per column, broadcast along the rows
      nodes.push_back(fusion + "Sm90RowBroadcast<0, TileShape, " + t + ", float" +
                      (op.hasOwnBatch(i) ? ", cute::Stride<cute::_0, cute::_1, int64_t>" : "") + ">");
      break;
    case OperandRole::Row: // one value per row, broadcast along the columns
      nodes.push_back(awaits ? "coda::rt::AwaitedRows<" + fusion + "Sm90ColBroadcast<0, TileShape, " +
                                   t + ", float>>"
                             : fusion + "Sm90ColBroadcast<0, TileShape, " + t + ", float" +
                                   (op.hasOwnBatch(i) ? ", cute::Stride<cute::_1, cute::_0, int64_t>" : "") +
                                   ">");
      break;
    case OperandRole::Matrix:
      nodes.push_back(int(i) == plan.sourceOperand ? fusion + "Sm90SrcFetch<ElementC>"
                                                   : "coda::rt::GlobalLoad<" + t + ">");
      break;
    case OperandRole::Tiled: {
      std::string period = std::to_string(periodOf(op, i));
      nodes.push_back(tableByTma(op, i)
                          ? "coda::rt::TableLoad<kLoadStages, EpilogueTile, " + t + ", " + period + ">"
                          : "coda::rt::GlobalLoad<" + t + ", " + period + ">");
      break;
    }
    }
    edges.push_back("cute::seq<>");
  }
  std::string leafEdges;
  for (unsigned i = 0, e = plan.numLeaves(); i < e; ++i)
    leafEdges += (i ? ", " : "") + std::to_string(i);
  for (unsigned s = 0, e = plan.streams.size(); s < e; ++s) {
    nodes.push_back("coda::rt::IndexedCompute<" + (name + "_v" + Twine(s)).str() + ">");
    edges.push_back("cute::seq<" + leafEdges + ">");
  }
  unsigned firstSink = nodes.size();
  SmallVector<int> sinkNode(plan.results.size(), -1);
  for (auto [r, result] : llvm::enumerate(plan.results)) {
    if (result.sink == Sink::D)
      continue;
    std::string in;
    for (unsigned v : result.values)
      in += (in.empty() ? "" : ", ") + std::to_string(plan.streamNode(v));
    if (result.sink == Sink::Halves) {
      nodes.push_back("coda::rt::HalvesStore<kStoreStages, EpilogueTile, " + result.element +
                      ", " + std::to_string(*op.getHalves()) + ">");
    } else if (result.sink == Sink::Contract) {
      nodes.push_back("coda::rt::ContractStore<kStoreStages, EpilogueTile, " + result.element + ">");
    } else if (result.sink == Sink::Store) {
      const char *columns = plan.pairwise == PairwiseMode::Contract ? "Contract"
                            : plan.pairwise == PairwiseMode::Expand ? "Expand"
                                                                    : "Same";
      nodes.push_back("coda::rt::GlobalStore<" + result.element + ", coda::rt::Columns::" + columns + ">");
    } else {
      Combiner c = result.mode.getCombiner();
      std::string comb = std::string("coda::rt::") + combinerName(c);
      std::string partial = c == Combiner::LogSumExp ? "coda::rt::MaxSum" : "float";
      bool row = result.mode.getDim() == ReduceDim::Row;
      // Reducing along a row gives a column vector: CUTLASS's ColReduction, and vice versa.
      nodes.push_back(fusion + (row ? "Sm90ColReduction<" : "Sm90RowReduction<") + comb + ", " +
                      comb + ", " + comb + ", 0, TileShape, float, " + partial +
                      ", cutlass::FloatRoundStyle::round_to_nearest, " +
                      (row ? "cute::Stride<cute::_1, cute::_0, cute::_0>"
                           : "cute::Stride<cute::_0, cute::_1, cute::_0>") +
                      ", 4, true, /*FinalReduction=*/false>");
    }
    sinkNode[r] = nodes.size() - 1;
    edges.push_back("cute::seq<" + in + ">");
  }
  // The root passes the D stream (or any stream, when no result goes through D) to the collective.
  std::string rootEdges = std::to_string(
      plan.streamNode(plan.dResult >= 0 ? plan.results[plan.dResult].values[0] : 0));
  for (unsigned i = firstSink, e = nodes.size(); i < e; ++i)
    rootEdges += ", " + std::to_string(i);
  nodes.push_back(fusion + "Sm90Compute<coda::rt::TakeFirst, " +
                  (plan.dResult >= 0 ? "ElementD" : "float") +
                  ", float, cutlass::FloatRoundStyle::round_to_nearest>");
  edges.push_back("cute::seq<" + rootEdges + ">");

  if (nodes.size() == 2) {
    // The root over one stream (no operands, no other sink). CUTLASS's topological visitor
    // needs three nodes or more (with two, its tuple of fragments degenerates to one array):
    // a tree instead. Every other sink makes a third node; a kernel without D has one.
    assert(plan.dResult >= 0 && "a two-node DAG has a D");
    os << "  using EVT = " << fusion << "Sm90EVT<\n      " << nodes[1] << ",  // 1\n      "
       << nodes[0] << ">;  // 0\n";
  } else {
    os << "  using EVT = "
       << (plan.dResult < 0 ? "coda::rt::WithoutD<" + std::string(noDElement) + ", " : "")
       << fusion << "Sm90TopologicalVisitor<float, cute::tuple<\n";
    for (auto [i, edge] : llvm::enumerate(edges))
      os << "      " << edge << (i + 1 == edges.size() ? ">,\n" : ",\n");
    for (auto [i, node] : llvm::enumerate(nodes))
      os << "      " << node << (i + 1 == nodes.size() ? (plan.dResult < 0 ? ">>;" : ">;") : ",")
         << "  // " << i << "\n";
  }
  os << "  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<\n"
        "      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,\n"
        "      " << epilogueTile << ", float, float, ElementC, LayoutD, kAlignD,\n"
        "      ElementD, LayoutD, kAlignD, EpilogueSchedule, EVT>::CollectiveOp;\n";
  if (plan.stagesStores())
    os << "  static_assert(CollectiveEpilogue::DispatchPolicy::StagesD == kStoreStages,\n"
          "                \"a StagedStore's stages are the collective's store stages\");\n";
  if (tables)
    os << "  static_assert(CollectiveEpilogue::DispatchPolicy::StagesC == kLoadStages,\n"
          "                \"a TableLoad's stages are the collective's load stages\");\n";
  // The stages fill the shared memory the epilogue leaves.
  os << R"cu(  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementIn, LayoutA,
      16 / sizeof(ElementIn), ElementIn, LayoutB, 16 / sizeof(ElementIn), float, TileShape,
      ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename CollectiveEpilogue::SharedStorage))>,
      MainloopSchedule>::CollectiveOp;
)cu";
  // Split-K runs on CUTLASS's stream-K scheduler in split-K mode; else the persistent default.
  os << "  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>,\n"
        "      CollectiveMainloop, CollectiveEpilogue"
     << (config.splits > 1 ? ", cutlass::gemm::StreamKScheduler" : "") << ">;\n";
  os << "  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;\n};\n\n";
  emitLauncher(op, name, plan, nodes.size(), config);
  return success();
}

/// A kernel's inputs, in the order of its launcher and of its PyTorch function: A, B, the
/// operands, the inits of accumulated results.
SmallVector<std::string> cuda::kernelInputs(GemmOp op) {
  SmallVector<std::string> inputs{"a", "b"};
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    inputs.push_back("operand" + std::to_string(i));
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r)
    if (op.getMode(r).isAccumulate())
      inputs.push_back("init" + std::to_string(r));
  return inputs;
}

/// The launcher's parameter list.
SmallVector<std::string> CudaEmitter::launcherParams(GemmOp op) {
  SmallVector<std::string> params;
  for (const std::string &input : kernelInputs(op))
    params.push_back("const void *" + input);
  for (unsigned r = 0, e = op.getNumResults(); r < e; ++r)
    params.push_back("void *result" + std::to_string(r));
  params.append({"int m", "int n", "int k"});
  if (op.isBatched()) // the number of products
    params.push_back("int l");
  params.append({"long long lda", "long long ldb", "long long ldd", "void *workspace",
                 "cudaStream_t stream"});
  return params;
}

SmallVector<std::string> CudaEmitter::launcherArgs(GemmOp op) {
  SmallVector<std::string> args;
  for (const std::string &param : launcherParams(op))
    args.push_back(param.substr(param.find_last_of(" *") + 1));
  return args;
}

void CudaEmitter::emitLauncher(GemmOp op, StringRef name, const KernelPlan &plan,
                               unsigned numNodes, const KernelConfig &config) {
  std::string traits = (name + "_kernel").str();
  bool contract = plan.pairwise == PairwiseMode::Contract;
  bool exactFp32 = getKernelConfig(op).getExactFp32();
  SmallVector<unsigned> reductions;
  for (auto [r, result] : llvm::enumerate(plan.results))
    if (result.sink == Sink::Reduce)
      reductions.push_back(r);

  // Where the per-tile partials of each reduction live, after the GEMM's own workspace.
  if (!reductions.empty()) {
  os << "// Byte offsets of " << name << "'s per-tile partials in its workspace; returns their size.\n";
  os << "static size_t " << name << "_partials(int m, int n, size_t *offsets) {\n";
  os << "  using K = " << traits << ";\n";
  os << "  size_t tilesM = (m + K::kTileM - 1) / K::kTileM, tilesN = (n + K::kTileN - 1) / K::kTileN;\n";
  os << "  size_t at = 0;\n";
  for (auto [i, r] : llvm::enumerate(reductions)) {
    ResultModeAttr mode = plan.results[r].mode;
    std::string partial = mode.getCombiner() == Combiner::LogSumExp ? "coda::rt::MaxSum" : "float";
    os << "  offsets[" << i << "] = at; // result #" << r << "\n";
    if (mode.getDim() == ReduceDim::Row)
      os << "  at += coda_round_up(tilesM * K::kTileM * tilesN * sizeof(" << partial << "));\n";
    else
      os << "  at += coda_round_up(tilesM * tilesN * K::kTileN * sizeof(" << partial << "));\n";
  }
  os << "  return at;\n}\n\n";
  }

  // The scheduler's arguments: set wherever the workspace is sized or the tiles' order matters
  // (the launcher, whole waves, the rows' handover). The swizzle groups the tiles in flight so
  // that they share A and B in L2.
  auto emitScheduler = [&] {
    if (config.swizzle > 1)
      os << "  args.scheduler.max_swizzle_size = coda_swizzle(m, n, " << config.tileM << ", "
         << config.tileN << ", " << config.clusterM << ", " << config.clusterN << ", "
         << config.swizzle << ");\n";
    if (config.raster != KernelConfig::Raster::Heuristic)
      os << "  args.scheduler.raster_order = cutlass::gemm::kernel::detail::RasterOrderOptions::"
         << (config.raster == KernelConfig::Raster::AlongM ? "AlongM" : "AlongN") << ";\n";
    // The splits size the workspace (partial tiles and their locks).
    if (config.splits > 1)
      os << "  args.scheduler.splits = " << config.splits << ";\n"
         << "  args.scheduler.decomposition_mode = "
            "cutlass::gemm::kernel::detail::DecompositionMode::SplitK;\n";
  };
  // The scheduler's tiling of (m, n) as coda::rt's planners (Overlap.cuh) take it, after
  // emitScheduler.
  std::string tiling = llvm::formatv("m, n, K::kTileM, K::kTileN, {0}, {1}, "
                                     "args.scheduler.max_swizzle_size, args.scheduler.raster_order",
                                     config.clusterM, config.clusterN)
                           .str();
  // The body of a function of (m, n, k) returning the bytes of CUTLASS's workspace and the
  // partials.
  auto emitGemmWorkspace = [&] {
    os << "  using G = " << traits << "::Gemm;\n";
    if (exactFp32)
      os << "  k = 3 * k; // the split inputs' K\n";
    os << "  typename G::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {m, n, k, 1}, {}, {}};\n";
    emitScheduler();
    if (!reductions.empty())
      os << "  size_t offsets[" << reductions.size() << "];\n  return coda_round_up(G::get_workspace_size(args)) + "
         << name << "_partials(m, n, offsets);\n}\n\n";
    else
      os << "  return coda_round_up(G::get_workspace_size(args));\n}\n\n";
  };
  // A rotation into halves that no HalvesStore writes is staged in the workspace, then copied.
  std::optional<uint64_t> halves =
      plan.halvesResult < 0 ? op.getHalves() : std::optional<uint64_t>();
  if (halves) {
    os << "// Where " << name << "'s result waits with its pairs side by side, in its workspace: after "
          "the GEMM's own workspace and partials.\n";
    os << "static size_t " << name << "_staging_offset(int m, int n, int k) {\n";
    emitGemmWorkspace();
  }

  std::string runs = "// Runs " + name.str() +
                     " on device pointers (row-major, leading dimensions lda, ldb for A and B and "
                     "ldd for the first stored result and its init; other results and operands "
                     "packed). Returns a coda_status.\n";
  // A kernel that can wait for its row operands' rows, or run a row pass: the launcher behind
  // the public one also takes their row blocks' counts (null: ready) and the SMs to run on (0:
  // all), and the row pass's operands (null: none).
  bool awaits = op->hasAttr(kAwaitsRowsAttr);
  if (awaits) {
    os << "// How a reduction of " << name << "'s rows run just before it shares the GPU with it.\n";
    os << "static coda::rt::RowsOverlap " << name << "_rows_overlap(int m, int n) {\n";
    os << "  using K = " << traits << ";\n";
    os << "  typename K::Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {m, n, 1, 1}, {}, {}};\n";
    emitScheduler();
    os << "  return coda::rt::rowsOverlap(" << tiling << ");\n}\n\n";
  }
  if (awaits) {
    os << "static int " << name << "_launch(";
    llvm::interleaveComma(launcherParams(op), os);
    os << ", const unsigned *rowsDone, int sms) {\n";
  } else {
    os << runs << "extern \"C\" int " << name << "(";
    llvm::interleaveComma(launcherParams(op), os);
    os << ") {\n";
  }
  os << "  using K = " << traits << ";\n  using G = K::Gemm;\n";
  bool batched = op.isBatched();
  os << "  if (m < 1 || n < 1 || k < 1" << (batched ? " || l < 1" : "")
     << (op.getInArity() == 2 ? " || n % 2 != 0" : "");
  // Periods N must be a multiple of: the tables read through TMA (whole periods a tile) and
  // the heads rotated into halves. Tables read per thread take column j mod T at any N.
  std::set<int64_t> periods;
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    if (tableByTma(op, i))
      periods.insert(periodOf(op, i));
  if (std::optional<uint64_t> head = op.getHalves())
    periods.insert(*head);
  for (int64_t period : periods)
    os << " || n % " << period << " != 0";
  os << ")\n    return CODA_BAD_SHAPE;\n";
  // The result stored by TMA (the collective's D or a HalvesStore) is the one ldd describes.
  int tmaResult = plan.dResult >= 0 ? plan.dResult : plan.halvesResult;
  os << "  if (lda < " << (op.getTransposeA() ? "m" : "k") << " || ldb < "
     << (op.getTransposeB() ? "k" : "n") << (tmaResult >= 0 ? " || ldd < n" : "")
     << ")\n    return CODA_BAD_SHAPE;\n";
  // TMA needs 16-byte aligned rows. A, B, D (with its init) and a source operand whose rows
  // are not get aligned copies (coda::rt::Restaging); the buffers of the rarer TMA paths
  // (tables, halves, contracted pairs) are refused instead.
  bool stageD = plan.dResult >= 0 && !halves && plan.halvesResult < 0;
  os << "  // TMA needs 16-byte aligned rows: the kernel reads (writes) re-pitched copies of A, B"
     << (stageD ? (plan.hasSource ? ", D (and its init)" : ", D") : "")
     << (plan.sourceOperand >= 0 ? ", the residual" : "") << " where they have none.\n";
  os << "  coda::rt::Restaging restaged(stream);\n";
  if (exactFp32) {
    os << "  // fp32 to fp32's accuracy: A and B split into TF32 high and low parts along a K three\n"
          "  // times as long (aligned copies), so that one TF32 product is hi·hi + hi·lo + lo·hi.\n";
    os << "  if (coda::rt::splitTf32(restaged, a, lda, "
       << (op.getTransposeA() ? "k, m, true" : "m, k, false")
       << ", /*isA=*/true, stream) || coda::rt::splitTf32(restaged, b, ldb, "
       << (op.getTransposeB() ? "n, k, false" : "k, n, true")
       << ", /*isA=*/false, stream))\n    return CODA_LAUNCH_FAILED;\n";
    os << "  k = 3 * k;\n";
  }
  if (plan.sourceOperand >= 0)
    os << "  long long ldc = n; // the residual is packed\n";
  // A batch's matrices lie one after the other: its rows are copied as one matrix's.
  auto rows = [&](StringRef r, bool perBatchRows) {
    return (perBatchRows ? "l * (long long)" + r : r).str();
  };
  os << "  if (restaged.input(a, lda, " << rows(op.getTransposeA() ? "k" : "m", batched) << ", "
     << (op.getTransposeA() ? "m" : "k") << ", sizeof(K::ElementIn)) || restaged.input(b, ldb, "
     << rows(op.getTransposeB() ? "n" : "k", batched) << ", " << (op.getTransposeB() ? "k" : "n")
     << ", sizeof(K::ElementIn))";
  if (stageD)
    os << " ||\n      restaged.output(result" << plan.dResult << ", ldd, " << rows("m", batched)
       << ", n, sizeof(K::ElementD)"
       << (plan.hasSource ? ", &init" + std::to_string(plan.dResult) : std::string()) << ")";
  if (plan.sourceOperand >= 0)
    os << " ||\n      restaged.input(operand" << plan.sourceOperand << ", ldc, "
       << rows("m", op.hasOwnBatch(plan.sourceOperand)) << ", n, sizeof(K::ElementC))";
  os << ")\n    return CODA_LAUNCH_FAILED;\n";
  SmallVector<std::string> refused;
  if (plan.dResult >= 0 && !stageD)
    refused.push_back("ldd % K::kAlignD != 0 || !coda_aligned(result" +
                      std::to_string(plan.dResult) + ")" +
                      (plan.hasSource ? " || !coda_aligned(init" + std::to_string(plan.dResult) + ")"
                                      : std::string()));
  else if (plan.dResult < 0 && tmaResult >= 0)
    refused.push_back("ldd % (16 / sizeof(" + plan.results[tmaResult].element +
                      ")) != 0 || !coda_aligned(result" + std::to_string(tmaResult) + ")");
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i)
    if (tableByTma(op, i))
      refused.push_back("!coda_aligned(operand" + std::to_string(i) + ")");
  // A ContractStore's rows are N/2 elements, packed.
  if (plan.contractResult >= 0)
    refused.push_back("(n / 2) % (16 / sizeof(" + plan.results[plan.contractResult].element +
                      ")) != 0 || !coda_aligned(result" + std::to_string(plan.contractResult) + ")");
  if (!refused.empty()) {
    os << "  if (";
    llvm::interleave(refused, os, " || ");
    os << ")\n    return CODA_MISALIGNED;\n";
  }
  std::string l = batched ? "l" : "1";
  os << "  auto sA = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideA{}, {m, k, " << l << "});\n";
  os << "  auto sB = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideB{}, {n, k, " << l << "});\n";
  os << "  auto sD = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideD{}, {m, n, " << l << "});\n";
  os << "  cute::get<" << (op.getTransposeA() ? 1 : 0) << ">(sA) = lda;\n";
  os << "  cute::get<" << (op.getTransposeB() ? 0 : 1) << ">(sB) = ldb;\n";
  if (batched) // a batch's matrices one after the other
    os << "  cute::get<2>(sA) = int64_t(" << (op.getTransposeA() ? "k" : "m") << ") * lda;\n"
       << "  cute::get<2>(sB) = int64_t(" << (op.getTransposeB() ? "n" : "k") << ") * ldb;\n";
  if (halves) {
    os << "  // The pairs side by side, packed, after the GEMM's workspace and partials.\n";
    os << "  K::ElementD *staging = reinterpret_cast<K::ElementD *>(static_cast<char *>(workspace) + "
       << name << "_staging_offset(m, n, k));\n";
  } else {
    os << "  cute::get<0>(sD) = ldd;\n";
    if (batched)
      os << "  cute::get<2>(sD) = int64_t(m) * ldd;\n";
  }
  std::string dPtr = halves ? "staging"
                     : plan.dResult >= 0
                         ? "static_cast<K::ElementD *>(result" + std::to_string(plan.dResult) + ")"
                         : "nullptr";
  std::string cPtr = plan.hasSource ? "static_cast<const K::ElementC *>(init" +
                                          std::to_string(plan.dResult) + ")"
                     : plan.sourceOperand >= 0
                         ? "static_cast<const K::ElementC *>(operand" +
                               std::to_string(plan.sourceOperand) + ")"
                         : "nullptr";
  // An init shares D's leading dimension; an operand is packed.
  if (plan.sourceOperand >= 0) {
    os << "  auto sC = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideC{}, {m, n, 1});\n"
          "  cute::get<0>(sC) = ldc;\n";
    if (batched) // (0: every batch reads the same residual)
      os << "  cute::get<2>(sC) = " << (op.hasOwnBatch(plan.sourceOperand) ? "int64_t(m) * ldc" : "0")
         << ";\n";
  }
  os << "  typename G::Arguments args{cutlass::gemm::GemmUniversalMode::"
     << (batched ? "kBatched" : "kGemm") << ", {m, n, k, " << l << "},\n";
  os << "      {static_cast<const K::ElementIn *>(a), sA, static_cast<const K::ElementIn *>(b), sB},\n";
  os << "      {{}, " << cPtr << ", " << (plan.sourceOperand >= 0 ? "sC" : "sD") << ", " << dPtr
     << ", sD}};\n";
  emitScheduler();
  os << "  size_t gemmBytes = coda_round_up(G::get_workspace_size(args));\n";
  if (!reductions.empty()) {
    os << "  size_t offsets[" << reductions.size() << "];\n";
    os << "  " << name << "_partials(m, n, offsets);\n";
    os << "  char *partials = static_cast<char *>(workspace) + gemmBytes;\n";
  }
  // The DAG's arguments, node by node.
  SmallVector<std::string> nodeArgs;
  if (plan.hasSource)
    nodeArgs.push_back("{}");
  for (unsigned i = 0, e = op.getExtras().size(); i < e; ++i) {
    std::string ptr = "static_cast<const " + plan.operandElements[i] + " *>(operand" +
                      std::to_string(i) + ")";
    switch (op.getRole(i)) {
    case OperandRole::Scalar:
      nodeArgs.push_back("{{}, {" + ptr + "}}");
      break;
    case OperandRole::Row:
      nodeArgs.push_back(awaits        ? "{{" + ptr + "}, rowsDone}"
                         : op.hasOwnBatch(i) ? "{" + ptr + ", {}, {cute::_1{}, cute::_0{}, int64_t(m)}}"
                                       : "{" + ptr + "}");
      break;
    case OperandRole::Col:
      nodeArgs.push_back(op.hasOwnBatch(i) ? "{" + ptr + ", {}, {cute::_0{}, cute::_1{}, int64_t(n)}}"
                                     : "{" + ptr + "}");
      break;
    case OperandRole::Matrix:
      nodeArgs.push_back(int(i) == plan.sourceOperand ? "{}"
                         : op.hasOwnBatch(i)                ? "{" + ptr + ", n, (long long)m * n}"
                                                      : "{" + ptr + ", n}");
      break;
    case OperandRole::Tiled:
      nodeArgs.push_back(tableByTma(op, i)
                             ? "{" + ptr + "}"
                             : "{" + ptr + ", " + std::to_string(periodOf(op, i)) + "}");
      break;
    }
  }
  for (unsigned s = 0, e = plan.streams.size(); s < e; ++s)
    nodeArgs.push_back("{}");
  unsigned reductionIndex = 0;
  for (auto [r, result] : llvm::enumerate(plan.results)) {
    std::string out = "result" + std::to_string(r);
    if (result.sink == Sink::Halves) {
      nodeArgs.push_back("{static_cast<" + result.element + " *>(" + out + "), ldd}");
    } else if (result.sink == Sink::Contract) {
      nodeArgs.push_back("{static_cast<" + result.element + " *>(" + out + "), n / 2}");
    } else if (result.sink == Sink::Store) {
      const char *ld = contract ? "n / 2" : plan.pairwise == PairwiseMode::Expand ? "2 * n" : "n";
      nodeArgs.push_back("{static_cast<" + result.element + " *>(" + out + "), " + ld +
                         (batched ? ", (long long)m * n" : "") + "}");
    } else if (result.sink == Sink::Reduce) {
      Combiner c = result.mode.getCombiner();
      std::string identity = c == Combiner::LogSumExp ? "coda::rt::MaxSum{-INFINITY, 0.f}"
                                                : std::string(identityOf(c));
      nodeArgs.push_back("{partials + offsets[" + std::to_string(reductionIndex++) + "], " +
                         identity + "}");
    }
  }
  nodeArgs.push_back("{}");
  assert(nodeArgs.size() == numNodes && "one argument per DAG node");
  (void)numNodes;
  os << "  args.epilogue.thread = {";
  llvm::interleaveComma(nodeArgs, os);
  os << "};\n";
  // Whole waves: as many CTAs as the tiles need in as many waves as one per SM would take (or
  // the SMs a reduction beside the kernel leaves it).
  std::string waves = "coda::rt::wholeWaves(" + tiling + ")";
  // (A batch's tiles are more than one product's: the persistent grid covers every SM.)
  bool wholeWaves = getKernelConfig(op).getGrid() == GridSize::WholeWaves && !batched;
  if (config.splits > 1) // one CTA per unit; the SMs only bound the splits
    os << "  args.hw_info.sm_count = coda::rt::smCount();\n";
  else if (awaits) // (0: every SM)
    os << "  args.hw_info.sm_count = " << (wholeWaves ? "sms > 0 ? sms : " + waves : "sms")
       << ";\n";
  else if (wholeWaves)
    os << "  args.hw_info.sm_count = " << waves << ";\n";
  // CUTLASS also wants extents that are multiples of the alignment; TMA needs only the rows.
  os << "  auto padded = args;\n";
  os << "  padded.problem_shape = {coda::rt::tmaExtent(m), coda::rt::tmaExtent(n), coda::rt::tmaExtent(k), "
     << l << "};\n";
  os << "  if (G::can_implement(padded) != cutlass::Status::kSuccess) return CODA_UNSUPPORTED;\n";
  if (options.directLaunch) {
    os << "  if (coda::rt::launchGemm<G>(args, workspace, stream"
       << (awaits ? ", /*pdl=*/rowsDone != nullptr" : "")
       << ") != cudaSuccess) return CODA_LAUNCH_FAILED;\n";
  } else {
    os << "  G gemm;\n";
    os << "  if (gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess) return CODA_LAUNCH_FAILED;\n";
    if (awaits) // launched behind the reduction, which lets it start at once
      os << "  if (gemm.run(stream, nullptr, /*launch_with_pdl=*/rowsDone != nullptr) != "
            "cutlass::Status::kSuccess)\n    return CODA_LAUNCH_FAILED;\n";
    else
      os << "  if (gemm.run(stream) != cutlass::Status::kSuccess) return CODA_LAUNCH_FAILED;\n";
  }
  if (stageD)
    os << "  if (restaged.finish() != cudaSuccess) return CODA_LAUNCH_FAILED;\n";
  if (halves)
    os << "  if (coda::rt::launchPairsToHalves<K::ElementD, " << *halves << ">(staging, static_cast<K::ElementD *>(result"
       << plan.dResult << "), m, n, ldd, stream) != cudaSuccess)\n    return CODA_LAUNCH_FAILED;\n";
  if (!reductions.empty()) {
    os << "  // Combine the partials of every row (column) in tile order: deterministic.\n";
    os << "  long long tilesM = (m + K::kTileM - 1) / K::kTileM, tilesN = (n + K::kTileN - 1) / K::kTileN;\n";
    reductionIndex = 0;
    for (unsigned r : reductions) {
      ResultModeAttr mode = plan.results[r].mode;
      Combiner c = mode.getCombiner();
      std::string partial = c == Combiner::LogSumExp ? "coda::rt::MaxSum" : "float";
      bool row = mode.getDim() == ReduceDim::Row;
      os << "  if (coda::rt::launchCombine<coda::rt::Combiner::" << combinerName(c) << ", " << partial
         << ">(partials + offsets[" << reductionIndex++ << "], static_cast<float *>(result" << r
         << "), " << (row ? "m" : (contract ? "n / 2" : "n")) << ", "
         << (row ? "int(tilesN)" : "int(tilesM)") << ", "
         << (row ? "tilesM * K::kTileM" : "tilesN * K::kTileN") << ", "
         << (!row && contract ? 2 : 1) << ", stream) != cudaSuccess)\n";
      os << "    return CODA_LAUNCH_FAILED;\n";
    }
  }
  os << "  return CODA_OK;\n}\n\n";
  if (awaits) {
    os << runs << "extern \"C\" int " << name << "(";
    llvm::interleaveComma(launcherParams(op), os);
    os << ") {\n  return " << name << "_launch(";
    llvm::interleaveComma(launcherArgs(op), os);
    os << ", nullptr, 0);\n}\n\n";
  }

  os << "// Bytes of device memory " << name << " needs as its workspace.\n";
  os << "extern \"C\" size_t " << name << "_workspace_size(int m, int n, int k) {\n";
  if (halves) {
    os << "  return " << name << "_staging_offset(m, n, k) + coda_round_up(size_t(m) * n * sizeof("
       << traits << "::ElementD));\n}\n\n";
    return;
  }
  emitGemmWorkspace();
}
