//===- EmitHost.cpp - Whole-function launchers ----------------------------===//
//
// Whole functions: a launcher that runs a function's ops in order on the device (GEMMs,
// coda's own kernels, calls, copies) with its intermediates in one workspace; with separable
// weight preparation also a launcher that prepares the weights once and one that reads them.
//
//===----------------------------------------------------------------------===//

#include "CudaEmitter.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::coda;
using namespace mlir::coda::cuda;

/// Why the function cannot run as a launcher (an op outside what the backend emits), or
/// success.
LogicalResult CudaEmitter::checkFunction(func::FuncOp func, std::string &why) {
  if (func.isExternal()) {
    why = "it has no body";
    return failure();
  }
  auto tensorOk = [&](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.hasStaticShape() && succeeded(bufferElement(tensor.getElementType()));
  };
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(), func.getResultTypes()))
    if (!tensorOk(t)) {
      why = "its signature has a non-tensor or dynamic type";
      return failure();
    }
  for (Operation &op : func.getBody().front()) {
    bool ok = llvm::TypeSwitch<Operation *, bool>(&op)
                  .Case<GemmOp, AttentionOp, AppendOp, tensor::EmptyOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                        func::ReturnOp, arith::ConstantOp>([](auto) { return true; })
                  .Case([&](func::CallOp call) { return launchers.contains(call.getCallee()); })
                  .Case([&](tensor::InsertSliceOp s) { return s.hasUnitStride() && s.getSourceType().hasStaticShape() && s.getOffsets().empty(); })
                  .Case([&](tensor::ExtractSliceOp s) {
                    return s.getType().hasStaticShape() && s.getOffsets().empty() &&
                           s.getStrides().empty() && s.getSourceType().getRank() == s.getType().getRank();
                  })
                  .Case([&](tensor::ConcatOp c) { return c.getResultType().hasStaticShape(); })
                  .Case([&](linalg::GenericOp g) { return g.hasPureTensorSemantics(); })
                  .Case([&](linalg::FillOp f) {
                    return f.hasPureTensorSemantics() && f.value().getDefiningOp<arith::ConstantOp>();
                  })
                  .Default([](Operation *) { return false; });
    if (!ok) {
      why = "'" + op.getName().getStringRef().str() + "' runs outside coda kernels";
      return failure();
    }
    for (Type t : op.getResultTypes())
      if (isa<TensorType>(t) && !tensorOk(t)) {
        why = "a tensor has a dynamic shape or an unsupported element type";
        return failure();
      }
  }
  return success();
}

SmallVector<Operation *> cuda::preparationsOf(func::FuncOp func) {
  SmallVector<Operation *> ops;
  if (!func.isExternal())
    for (Operation &op : func.getBody().front())
      if (op.hasAttr(kPreparesAttr))
        ops.push_back(&op);
  return ops;
}

LogicalResult CudaEmitter::emitFunction(func::FuncOp func) {
  SmallVector<Operation *> preparations = preparationsOf(func);
  if (failed(emitFunctionLauncher(func, LauncherKind::Run, preparations)))
    return failure();
  if (!preparations.empty() &&
      (failed(emitFunctionLauncher(func, LauncherKind::Prepare, preparations)) ||
       failed(emitFunctionLauncher(func, LauncherKind::RunPrepared, preparations))))
    return failure();
  launchers.insert(func.getSymName());
  return success();
}

LogicalResult CudaEmitter::emitFunctionLauncher(func::FuncOp func, LauncherKind kind,
                                                ArrayRef<Operation *> preparations) {
  std::string fname = func.getSymName().str();
  std::string launcher = fname + (kind == LauncherKind::Run       ? "_run"
                                  : kind == LauncherKind::Prepare ? "_prepare"
                                                                  : "_run_prepared");
  Block &block = func.getBody().front();
  // Buffers: arguments, results, and intermediates at the offsets of the plan's workspace
  // layout, before the scratch that kernels and callees share (they run one after the other on
  // the stream).
  StringRef key = launcherKey(kind);
  auto totals = func->getAttrOfType<DictionaryAttr>(kWorkspaceBytesAttr);
  IntegerAttr total = totals ? totals.getAs<IntegerAttr>(key) : IntegerAttr();
  if (!total)
    return func.emitError("has no workspace layout for its '")
           << key << "' launcher (--coda-plan-workspace writes one)";
  int64_t intermediates = total.getInt();
  DenseMap<Value, std::string> buffer;
  auto ptr = [&](Value v) {
    auto result = dyn_cast<OpResult>(v);
    auto layout = result && !buffer.count(v)
                      ? result.getOwner()->getAttrOfType<DictionaryAttr>(kWorkspaceAttr)
                      : DictionaryAttr();
    auto offsets = layout ? layout.getAs<DenseI64ArrayAttr>(key) : DenseI64ArrayAttr();
    if (offsets && offsets[result.getResultNumber()] >= 0)
      buffer[v] = "reinterpret_cast<" +
                  *bufferElement(cast<RankedTensorType>(v.getType()).getElementType()) +
                  " *>(ws + " + std::to_string(offsets[result.getResultNumber()]) + ")";
    return buffer.lookup(v);
  };
  for (BlockArgument arg : block.getArguments())
    buffer[arg] = "static_cast<const " +
                  *bufferElement(cast<RankedTensorType>(arg.getType()).getElementType()) +
                  " *>(arg" + std::to_string(arg.getArgNumber()) + ")";
  // Prepared weights: outputs of the prepare launcher, inputs of the prepared run.
  SmallVector<Value> prepared = preparedValues(preparations);
  for (auto [i, v] : llvm::enumerate(prepared))
    if (kind != LauncherKind::Run)
      buffer[v] = std::string(kind == LauncherKind::Prepare ? "static_cast<" : "static_cast<const ") +
                  *bufferElement(cast<RankedTensorType>(v.getType()).getElementType()) +
                  " *>(prepared" + std::to_string(i) + ")";
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  for (OpOperand &returned : ret->getOpOperands()) {
    Value v = kind == LauncherKind::Prepare ? Value() : writtenToResult(returned);
    if (v && !buffer.count(v))
      buffer[v] = "static_cast<" + *bufferElement(cast<RankedTensorType>(v.getType()).getElementType()) +
                  " *>(result" + std::to_string(returned.getOperandNumber()) + ")";
  }

  std::string kernels;
  llvm::raw_string_ostream kos(kernels);
  std::string body;
  llvm::raw_string_ostream bos(body);
  SmallVector<std::string> scratch; // workspace-size expressions of kernels and callees
  SmallVector<std::string> aligned; // buffers that generic kernels access 16 bytes at a time
  // Kernels that a reduction just before them hands their rows to: its `done` counts and split.
  DenseMap<Operation *, std::pair<std::string, std::string>> handover;
  auto launch = [&](const std::string &kernel, int64_t n, const std::string &args) {
    bos << "  " << kernel << "<<<" << (n + 255) / 256 << ", 256, 0, stream>>>(" << args
        << ");\n  if (cudaGetLastError() != cudaSuccess) return CODA_LAUNCH_FAILED;\n";
  };
  // 16-byte accesses need 16-byte aligned buffers: checked before anything runs.
  auto requireAligned = [&](const std::string &p) {
    if (!llvm::is_contained(aligned, p))
      aligned.push_back(p);
  };
  // A copy of `elements` from src to dst, `width` elements per thread.
  auto launchCopy = [&](const std::string &kernel, int64_t elements, int64_t width,
                        const std::string &src, const std::string &dst) {
    if (width > 1) {
      requireAligned(src);
      requireAligned(dst);
    }
    launch(kernel, elements / width, src + ", " + dst);
  };
  // The ops in launch order (--coda-schedule-launches put them so).
  for (Operation &op : block.without_terminator()) {
    if (isa<arith::ConstantOp>(op))
      continue; // used inside generic bodies, emitted there
    // The prepare launcher runs only the preparations; the prepared run skips them.
    if (!runsIn(&op, kind))
      continue;
    if (isa<tensor::EmptyOp>(op))
      continue;
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
      buffer[op.getResult(0)] = ptr(op.getOperand(0)); // dense row-major: the same bytes
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op); fill && fillFolded(fill))
      continue; // its readers start from the constant
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op); slice && readInPlace(slice)) {
      // Heads read in place: the column block starts c0 elements into each row.
      buffer[slice.getResult()] = "(" + ptr(slice.getSource()) + " + " +
                                  std::to_string(slice.getStaticOffsets()[1]) + ")";
      continue;
    }
    for (Value r : op.getResults())
      ptr(r);
    if (auto gemm = dyn_cast<GemmOp>(op)) {
      std::string name = kernelName(gemm);
      int64_t m = gemm.getM(), n = gemm.getN(), k = gemm.getK();
      auto rows = handover.find(gemm);
      bool handed = rows != handover.end();
      bos << "  // coda.gemm " << name << ".\n";
      bos << "  if (int s = " << name << (handed ? "_launch(" : "(") << ptr(gemm.getA()) << ", "
          << ptr(gemm.getB());
      for (Value x : gemm.getExtras())
        bos << ", " << ptr(x);
      for (Value x : gemm.getInits())
        bos << ", " << ptr(x);
      for (Value r : gemm->getResults())
        bos << ", " << ptr(r);
      bos << ", " << m << ", " << n << ", " << k << ", "
          << (gemm.isBatched() ? std::to_string(gemm.getBatchSize()) + ", " : std::string())
          << (gemm.getTransposeA() ? m : k) << ", "
          << (gemm.getTransposeB() ? k : n) << ", " << n << ", scratch, stream";
      if (handed) {
        const std::string &split = rows->second.second;
        bos << ", " << split << ".side > 0 ? " << rows->second.first << " : nullptr, " << split
            << ".sms";
      }
      bos << ")) return s;\n";
      scratch.push_back(name + "_workspace_size(" + std::to_string(m) + ", " + std::to_string(n) +
                        ", " + std::to_string(k) + ")");
    } else if (auto attention = dyn_cast<AttentionOp>(op)) {
      std::string name = kernelName(attention);
      CudaEmitter attentionEmitter(kos, options);
      if (failed(attentionEmitter.emitAttentionProblem(attention, name)))
        return failure();
      std::string out = ptr(attention.getOut());
      for (const std::string &p : {ptr(attention.getQ()), ptr(attention.getK()),
                                   ptr(attention.getV()), out})
        requireAligned(p);
      std::string operands = ptr(attention.getQ()) + ", " + ptr(attention.getK()) + ", " +
                             ptr(attention.getV()) + ", " + out + ", " +
                             (attention.getLse() ? ptr(attention.getLse()) : "nullptr") + ", ";
      if (Value lens = attention.getCacheLens()) {
        // Over a KV cache: the decode kernel, its split partials in the scratch.
        bos << "  // coda.attention " << name << " over a KV cache (decode kernel).\n";
        bos << "  if (coda::rt::attention::decode::launch<" << name << ">(" << operands
            << ptr(lens) << ", "
            << (attention.getPages() ? ptr(attention.getPages()) : std::string("nullptr"))
            << ", scratch, stream) != cudaSuccess)\n    return CODA_LAUNCH_FAILED;\n";
        scratch.push_back("coda::rt::attention::decode::workspaceSize<" + name + ">()");
        continue;
      }
      bos << "  // coda.attention " << name << ".\n";
      bos << "  if (coda::rt::attention::launch<" << name << ">(" << operands
          << (attention.getLens() ? ptr(attention.getLens()) : std::string("nullptr")) << ", "
          << (attention.getBlocks() ? ptr(attention.getBlocks()) : std::string("nullptr"))
          << ", "
          << (attention.getBits()
                  ? "reinterpret_cast<const unsigned *>(" + ptr(attention.getBits()) + ")"
                  : std::string("nullptr"))
          << ", stream) != cudaSuccess)\n    return CODA_LAUNCH_FAILED;\n";
    } else if (auto append = dyn_cast<AppendOp>(op)) {
      // In place when the caller passes the cache's buffer as the result too.
      RankedTensorType cacheType = append.getCache().getType();
      std::string element = *bufferElement(cacheType.getElementType());
      std::string pos = *bufferElement(cast<RankedTensorType>(append.getPos().getType()).getElementType());
      std::string dst = ptr(append.getResult()), src = ptr(append.getCache());
      int64_t d = cacheType.getDimSize(3), width = 16 / (storageBits(cacheType.getElementType()) / 8);
      if (d % width != 0)
        width = 1;
      if (width > 1) {
        requireAligned(ptr(append.getNewRows()));
        requireAligned(dst);
      }
      bos << "  // coda.append: " << append.getNumNewRows() << " new row(s) per sequence and head at pos[b].\n";
      bos << "  if (static_cast<const void *>(" << dst << ") != static_cast<const void *>(" << src
          << "))\n    cudaMemcpyAsync(" << dst << ", " << src << ", " << numBytes(cacheType)
          << ", cudaMemcpyDeviceToDevice, stream);\n";
      bos << "  if (coda::rt::attention::decode::append<" << element << ", " << pos << ", " << width
          << ", " << (append.isHeadMajor() ? "true" : "false") << ">(" << ptr(append.getNewRows())
          << ", " << dst << ", " << ptr(append.getPos()) << ", "
          << (append.hasSharedPosition() ? 0 : 1) << ", "
          << (append.getPages() ? ptr(append.getPages()) : std::string("nullptr")) << ", "
          << cacheType.getDimSize(append.getSeqDim()) << ", " << append.getBatchSize() << ", "
          << cacheType.getDimSize(append.getHeadDim()) << ", " << append.getNumNewRows() << ", "
          << append.getCapacity() << ", " << d << ", stream) != cudaSuccess)\n    return CODA_LAUNCH_FAILED;\n";
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      bos << "  // " << (cast<func::FuncOp>(SymbolTable::lookupNearestSymbolFrom(func, call.getCalleeAttr()))
                              ->hasAttr("coda.weight_prep") ? "weight preparation " : "")
          << "@" << call.getCallee() << ".\n";
      bos << "  if (int s = " << call.getCallee() << "_run(";
      for (Value x : llvm::concat<Value>(call.getOperands(), call.getResults()))
        bos << ptr(x) << ", ";
      bos << "scratch, stream)) return s;\n";
      scratch.push_back(call.getCallee().str() + "_run_workspace_size()");
    } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      std::string name = kernelName(generic);
      SmallVector<Value> params;
      SmallVector<unsigned> vectorParams;
      int64_t threads = 0;
      GemmOp consumer = handsRowsTo(generic);
      bool publishing = static_cast<bool>(consumer);
      CudaEmitter genericEmitter(kos, options);
      if (failed(genericEmitter.emitGenericKernel(
              generic, name, params, vectorParams, threads,
              publishing ? GenericRole::Publishing : GenericRole::Kernel)))
        return failure();
      // Outputs start from their init, unless it is fresh.
      for (auto [init, result] : llvm::zip(generic.getDpsInitsMutable(), generic->getResults()))
        if (!init.get().getDefiningOp<tensor::EmptyOp>() && !foldedFill(generic, init))
          bos << "  cudaMemcpyAsync(" << ptr(result) << ", " << ptr(init.get()) << ", "
              << numBytes(cast<RankedTensorType>(init.get().getType()))
              << ", cudaMemcpyDeviceToDevice, stream);\n";
      // The kernel writes its outputs into the results' buffers (by position: two outputs
      // may start from the same init).
      unsigned firstInit = params.size() - generic.getNumDpsInits();
      auto argPtr = [&](unsigned i) {
        return ptr(i >= firstInit ? generic->getResult(i - firstInit) : params[i]);
      };
      std::string args;
      for (unsigned i = 0, e = params.size(); i < e; ++i)
        args += (args.empty() ? "" : ", ") + argPtr(i);
      for (unsigned i : vectorParams)
        requireAligned(argPtr(i));
      if (!publishing || nextLaunch(&op, kind) != consumer.getOperation()) {
        launch(name, threads, args);
        continue;
      }
      // The kernel right after reads these rows: it starts beside this reduction, which hands
      // them over a row block at a time through `done` (when the GPU has SMs to spare for it).
      std::string kernel = kernelName(consumer);
      int64_t tileM = getKernelConfig(consumer).getTileM();
      int64_t blocks = awaitedRowBlocks(consumer);
      auto counts = generic->getAttrOfType<DictionaryAttr>(kRowsDoneAttr);
      IntegerAttr at = counts ? counts.getAs<IntegerAttr>(key) : IntegerAttr();
      if (!at)
        return generic.emitError("hands its rows on but has no place for their counts in the '")
               << key << "' launcher's workspace (--coda-plan-workspace)";
      std::string done = "reinterpret_cast<unsigned *>(ws + " + std::to_string(at.getInt()) + ")";
      std::string split = kernel + "_rows";
      bos << "  // " << name << " hands its rows to " << kernel << ", which runs beside it.\n";
      bos << "  coda::rt::RowsOverlap " << split << " = " << kernel << "_rows_overlap("
          << consumer.getM() << ", " << consumer.getN() << ");\n";
      bos << "  if (" << split << ".side > 0) {\n";
      bos << "    if (cudaMemsetAsync(" << done << ", 0, " << blocks * 4
          << ", stream) != cudaSuccess)\n      return CODA_LAUNCH_FAILED;\n";
      bos << "    " << name << "_published<<<" << split << ".sms + " << split << ".side, 1024, 0, stream>>>("
          << args << ", " << done << ", " << tileM << ", " << split << ".early, " << split
          << ".side);\n";
      bos << "  } else {\n";
      bos << "    " << name << "<<<" << (threads + 255) / 256 << ", 256, 0, stream>>>(" << args << ");\n";
      bos << "  }\n";
      bos << "  if (cudaGetLastError() != cudaSuccess) return CODA_LAUNCH_FAILED;\n";
      handover[consumer] = {done, split};
    } else if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      std::string name = kernelName(fill);
      auto type = cast<RankedTensorType>(fill.result().getType());
      std::string literal = fillLiteral(fill);
      kos << "// " << name << ": linalg.fill.\n__global__ void " << name << "("
          << *bufferElement(type.getElementType()) << " *__restrict__ dst) {\n";
      kos << "  long long point = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n";
      kos << "  if (point < " << type.getNumElements() << "LL) coda::rt::store(dst, point, "
          << literal << ");\n}\n\n";
      launch(name, type.getNumElements(), ptr(fill.result()));
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      std::string name = kernelName(insert);
      int64_t width = CudaEmitter(kos, options).emitSliceKernel(
          name, insert.getSourceType(), insert.getType(), insert.getStaticOffsets(), true);
      bos << "  cudaMemcpyAsync(" << ptr(insert) << ", " << ptr(insert.getDest()) << ", "
          << numBytes(insert.getType()) << ", cudaMemcpyDeviceToDevice, stream);\n";
      launchCopy(name, insert.getSourceType().getNumElements(), width, ptr(insert.getSource()),
                 ptr(insert));
    } else if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
      // One copy per input, at its offset along the concatenated dimension.
      int64_t offset = 0;
      for (auto [piece, input] : llvm::enumerate(concat.getInputs())) {
        auto type = cast<RankedTensorType>(input.getType());
        SmallVector<int64_t> offsets(type.getRank(), 0);
        offsets[concat.getDim()] = offset;
        offset += type.getDimSize(concat.getDim());
        std::string name = kernelName(concat, piece);
        int64_t width = CudaEmitter(kos, options).emitSliceKernel(
            name, type, concat.getResultType(), offsets, true);
        launchCopy(name, type.getNumElements(), width, ptr(input), ptr(concat));
      }
    } else if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op)) {
      std::string name = kernelName(extract);
      int64_t width = CudaEmitter(kos, options).emitSliceKernel(
          name, extract.getType(), extract.getSourceType(), extract.getStaticOffsets(), false,
          extract.getStaticStrides());
      launchCopy(name, extract.getType().getNumElements(), width, ptr(extract.getSource()),
                 ptr(extract));
    }
  }
  // Results that did not go straight to their pointer.
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (kind == LauncherKind::Prepare)
      break;
    std::string target = "result" + std::to_string(i);
    if (StringRef(ptr(v)).contains("(" + target + ")"))
      continue;
    bos << "  cudaMemcpyAsync(" << target << ", " << ptr(v) << ", "
        << numBytes(cast<RankedTensorType>(v.getType())) << ", cudaMemcpyDeviceToDevice, stream);\n";
  }

  if (kind == LauncherKind::Run) // (the other launchers reuse these kernels)
    os << kernels;
  os << "// Bytes of device memory " << launcher << " needs as its workspace.\n";
  os << "extern \"C\" size_t " << launcher << "_workspace_size() {\n  size_t scratch = 0;\n";
  for (const std::string &s : scratch)
    os << "  scratch = std::max(scratch, " << s << ");\n";
  os << "  return " << intermediates << " + scratch;\n}\n\n";
  os << "// @" << fname << " on the device: ";
  if (kind == LauncherKind::Run)
    os << "its ops in order on `stream`";
  else if (kind == LauncherKind::Prepare)
    os << "only its weight preparation (run once, at load time), into `prepared`";
  else
    os << "its ops in order with the weights `" << fname << "_prepare` made";
  if (func->hasAttr("coda.weight_prep"))
    os << " (run-once weight preparation: call it at load time)";
  os << ". Returns a coda_status.\n";
  os << "extern \"C\" int " << launcher << "(";
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    os << "const void *arg" << i << ", ";
  for (unsigned i = 0, e = kind == LauncherKind::Run ? 0 : prepared.size(); i < e; ++i)
    os << (kind == LauncherKind::Prepare ? "void *prepared" : "const void *prepared") << i << ", ";
  for (unsigned i = 0, e = kind == LauncherKind::Prepare ? 0 : func.getNumResults(); i < e; ++i)
    os << "void *result" << i << ", ";
  os << "void *workspace, cudaStream_t stream) {\n";
  os << "  [[maybe_unused]] char *ws = static_cast<char *>(workspace);\n";
  os << "  [[maybe_unused]] void *scratch = ws + " << intermediates << ";\n";
  if (!aligned.empty()) {
    os << "  if (";
    llvm::interleave(aligned, os, [&](const std::string &p) { os << "!coda_aligned(" << p << ")"; },
                     " || ");
    os << ")\n    return CODA_MISALIGNED;\n";
  }
  os << body;
  os << "  return CODA_OK;\n}\n\n";
  return success();
}
