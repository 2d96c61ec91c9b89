//===- CodaOps.cpp - coda operations ----------------------------*- C++ -*-===//

#include "coda/Dialect/Coda/IR/CodaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::coda;

//===----------------------------------------------------------------------===//
// Shape helpers shared by the builder, the verifier and the accessors
//===----------------------------------------------------------------------===//

static unsigned inArityOf(std::optional<PairwiseMode> mode) {
  return mode && (*mode == PairwiseMode::Contract || *mode == PairwiseMode::Rotate) ? 2 : 1;
}

static unsigned outArityOf(std::optional<PairwiseMode> mode) {
  return mode && (*mode == PairwiseMode::Rotate || *mode == PairwiseMode::Expand) ? 2 : 1;
}

static unsigned regionArgsForRole(OperandRole role, std::optional<PairwiseMode> mode) {
  return role == OperandRole::Col || role == OperandRole::Matrix || role == OperandRole::Tiled
             ? inArityOf(mode)
             : 1;
}

/// Region argument types: accumulator(s), operand value(s), then the two indices.
static SmallVector<Type> regionArgTypes(Builder &b, TypeRange extraTypes,
                                        ArrayRef<OperandRole> roles,
                                        std::optional<PairwiseMode> mode) {
  SmallVector<Type> types(inArityOf(mode), b.getF32Type());
  for (auto [type, role] : llvm::zip(extraTypes, roles))
    types.append(regionArgsForRole(role, mode), cast<ShapedType>(type).getElementType());
  types.append(2, b.getIndexType());
  return types;
}

static bool isGemmInputElementType(Type t) { return t.isBF16() || t.isF16() || t.isF32(); }

//===----------------------------------------------------------------------===//
// GemmOp accessors
//===----------------------------------------------------------------------===//

bool GemmOp::hasOwnBatch(unsigned index) {
  OperandRole role = getRole(index);
  if (!isBatched() || role == OperandRole::Scalar)
    return false;
  unsigned rank = cast<RankedTensorType>(getExtras()[index].getType()).getRank();
  unsigned own = role == OperandRole::Matrix || role == OperandRole::Tiled ? 2 : 1;
  return rank != own;
}

int64_t GemmOp::getBatchSize() { return isBatched() ? getA().getType().getDimSize(0) : 1; }

int64_t GemmOp::getM() {
  ArrayRef<int64_t> shape = getA().getType().getShape().take_back(2);
  return getTransposeA() ? shape[1] : shape[0];
}

int64_t GemmOp::getK() {
  ArrayRef<int64_t> shape = getA().getType().getShape().take_back(2);
  return getTransposeA() ? shape[0] : shape[1];
}

int64_t GemmOp::getN() {
  ArrayRef<int64_t> shape = getB().getType().getShape().take_back(2);
  return getTransposeB() ? shape[0] : shape[1];
}

unsigned GemmOp::getInArity() { return inArityOf(getPairwise()); }
unsigned GemmOp::getOutArity() { return outArityOf(getPairwise()); }

int64_t GemmOp::getNumOutputColumns() {
  return getN() / getInArity() * getOutArity();
}

OperandRole GemmOp::getRole(unsigned extraIndex) {
  return cast<OperandRoleAttr>(getRoles()[extraIndex]).getValue();
}

ResultModeAttr GemmOp::getMode(unsigned resultIndex) {
  return cast<ResultModeAttr>(getModes()[resultIndex]);
}

unsigned GemmOp::getNumRegionArgsForRole(OperandRole role) {
  return regionArgsForRole(role, getPairwise());
}

SmallVector<Type> GemmOp::getExpectedRegionArgTypes() {
  Builder b(getContext());
  SmallVector<OperandRole> roles;
  for (unsigned i = 0, e = getExtras().size(); i < e; ++i)
    roles.push_back(getRole(i));
  return regionArgTypes(b, getExtras().getTypes(), roles, getPairwise());
}

Type GemmOp::getExpectedResultType(unsigned resultIndex) {
  ResultModeAttr mode = getMode(resultIndex);
  SmallVector<int64_t> shape;
  if (isBatched())
    shape.push_back(getBatchSize());
  if (!mode.isReduce()) {
    shape.append({getM(), getNumOutputColumns()});
    Type elementType = cast<ShapedType>(getResult(resultIndex).getType()).getElementType();
    return RankedTensorType::get(shape, elementType);
  }
  shape.push_back(mode.getDim() == ReduceDim::Row ? getM() : getNumOutputColumns());
  return RankedTensorType::get(shape, Float32Type::get(getContext()));
}

Value GemmOp::getInitFor(unsigned resultIndex) {
  if (!getMode(resultIndex).isAccumulate())
    return nullptr;
  unsigned initIndex = 0;
  for (unsigned i = 0; i < resultIndex; ++i)
    initIndex += getMode(i).isAccumulate();
  return getInits()[initIndex];
}

Block::BlockArgListType GemmOp::getAccumulatorArgs() {
  return getEpilogue().front().getArguments().take_front(getInArity());
}

Block::BlockArgListType GemmOp::getExtraArgs(unsigned extraIndex) {
  unsigned first = getInArity();
  for (unsigned i = 0; i < extraIndex; ++i)
    first += getNumRegionArgsForRole(getRole(i));
  return getEpilogue().front().getArguments().slice(
      first, getNumRegionArgsForRole(getRole(extraIndex)));
}

BlockArgument GemmOp::getRowIndexArg() {
  Block &block = getEpilogue().front();
  return block.getArgument(block.getNumArguments() - 2);
}

BlockArgument GemmOp::getColIndexArg() {
  Block &block = getEpilogue().front();
  return block.getArgument(block.getNumArguments() - 1);
}

/// The region's index arguments range over the product's rows and its columns (column pairs
/// in contract and rotate mode; the shapes are static); the results are tensors.
void GemmOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                               SetIntRangeFn setResultRange) {
  auto setBelow = [&](BlockArgument arg, int64_t count) {
    if (count < 1) // the region never runs
      return;
    unsigned width = IndexType::kInternalStorageBitWidth;
    setResultRange(arg, ConstantIntRanges::fromSigned(APInt(width, 0), APInt(width, count - 1)));
  };
  setBelow(getRowIndexArg(), getM());
  setBelow(getColIndexArg(), getN() / getInArity());
}

//===----------------------------------------------------------------------===//
// GemmOp builder
//===----------------------------------------------------------------------===//

/// The properties the builder and the parser set alike.
static void setGemmProperties(Builder &builder, GemmOp::Properties &props, size_t numExtras,
                              size_t numInits, ArrayRef<Attribute> roles,
                              ArrayRef<Attribute> modes, bool transposeA, bool transposeB,
                              std::optional<PairwiseMode> pairwise) {
  props.operandSegmentSizes = {1, 1, static_cast<int32_t>(numExtras),
                               static_cast<int32_t>(numInits)};
  props.roles = builder.getArrayAttr(roles);
  props.modes = builder.getArrayAttr(modes);
  if (transposeA)
    props.transpose_a = builder.getUnitAttr();
  if (transposeB)
    props.transpose_b = builder.getUnitAttr();
  if (pairwise)
    props.pairwise = PairwiseModeAttr::get(builder.getContext(), *pairwise);
}

void GemmOp::build(OpBuilder &builder, OperationState &state, TypeRange resultTypes, Value a,
                   Value b, ValueRange extras, ArrayRef<OperandRole> roles, ValueRange inits,
                   ArrayRef<ResultModeAttr> modes, bool transposeA, bool transposeB,
                   std::optional<PairwiseMode> pairwise,
                   function_ref<void(OpBuilder &, Location, ValueRange)> bodyBuilder) {
  state.addOperands({a, b});
  state.addOperands(extras);
  state.addOperands(inits);
  state.addTypes(resultTypes);
  MLIRContext *ctx = builder.getContext();
  setGemmProperties(
      builder, state.getOrAddProperties<Properties>(), extras.size(), inits.size(),
      llvm::to_vector(llvm::map_range(
          roles, [&](OperandRole r) -> Attribute { return OperandRoleAttr::get(ctx, r); })),
      llvm::to_vector(llvm::map_range(modes, [](ResultModeAttr m) -> Attribute { return m; })),
      transposeA, transposeB, pairwise);

  // createBlock moves the insertion point; the op itself must still go where the caller is.
  OpBuilder::InsertionGuard guard(builder);
  Region *region = state.addRegion();
  SmallVector<Type> argTypes = regionArgTypes(builder, extras.getTypes(), roles, pairwise);
  SmallVector<Location> argLocs(argTypes.size(), state.location);
  Block *block = builder.createBlock(region, region->end(), argTypes, argLocs);
  if (bodyBuilder)
    bodyBuilder(builder, state.location, block->getArguments());
}

//===----------------------------------------------------------------------===//
// GemmOp canonicalization
//===----------------------------------------------------------------------===//

namespace {
/// The same value passed twice with the same role (one row statistic feeding two terms of an
/// epilogue) is read once: the second operand goes, its region arguments become the first's.
struct ReadOperandOnce : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op, PatternRewriter &rewriter) const override {
    unsigned n = op.getExtras().size(), first = 0, second = 0;
    for (unsigned j = 1; j < n && !second; ++j)
      for (unsigned i = 0; i < j; ++i)
        if (op.getExtras()[i] == op.getExtras()[j] && op.getRole(i) == op.getRole(j)) {
          first = i;
          second = j;
          break;
        }
    if (!second)
      return failure();
    SmallVector<Value> extras;
    SmallVector<OperandRole> roles;
    for (unsigned i = 0; i < n; ++i)
      if (i != second) {
        extras.push_back(op.getExtras()[i]);
        roles.push_back(op.getRole(i));
      }
    SmallVector<ResultModeAttr> modes;
    for (unsigned r = 0, e = op->getNumResults(); r < e; ++r)
      modes.push_back(op.getMode(r));
    Block &old = op.getEpilogue().front();
    auto deduped = GemmOp::create(
        rewriter, op.getLoc(), op->getResultTypes(), op.getA(), op.getB(), extras, roles,
        op.getInits(), modes, op.getTransposeA(), op.getTransposeB(), op.getPairwise(),
        [&](OpBuilder &b, Location, ValueRange args) {
          // Old region arguments in order, with the second operand's skipped in `args`.
          IRMapping mapping;
          unsigned next = 0;
          SmallVector<Value> firstArgs;
          for (unsigned a = 0, e = old.getNumArguments(); a < e; ++a) {
            Value arg = old.getArgument(a);
            bool ofSecond = llvm::is_contained(op.getExtraArgs(second), arg);
            if (!ofSecond)
              mapping.map(arg, args[next++]);
          }
          for (auto [s, f] : llvm::zip(op.getExtraArgs(second), op.getExtraArgs(first)))
            mapping.map(s, mapping.lookup(f));
          for (Operation &inner : old)
            b.clone(inner, mapping);
        });
    deduped.setHalvesAttr(op.getHalvesAttr());
    for (NamedAttribute attr : op->getDiscardableAttrs())
      deduped->setAttr(attr.getName(), attr.getValue());
    rewriter.replaceOp(op, deduped->getResults());
    return success();
  }
};
} // namespace

void GemmOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<ReadOperandOnce>(context);
}

//===----------------------------------------------------------------------===//
// GemmOp assembly format
//===----------------------------------------------------------------------===//
//
//   coda.gemm %a, %b [transpose_a] [transpose_b] [pairwise(contract|rotate[, halves T]|expand)]
//       : type(a), type(b)
//       [with(%x as row : type, ...)]
//       -> (store type, accumulate(%init) type, reduce<row, sum> type, ...)
//       [attributes {...}]
//       epilogue(%acc: f32, ..., %i: index, %j: index) { ... }

ParseResult GemmOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  Builder &builder = parser.getBuilder();
  OpAsmParser::UnresolvedOperand a, b;
  if (parser.parseOperand(a) || parser.parseComma() || parser.parseOperand(b))
    return failure();

  bool transposeA = false, transposeB = false;
  std::optional<PairwiseMode> pairwise;
  IntegerAttr halves;
  while (true) {
    if (succeeded(parser.parseOptionalKeyword("transpose_a"))) {
      transposeA = true;
    } else if (succeeded(parser.parseOptionalKeyword("transpose_b"))) {
      transposeB = true;
    } else if (succeeded(parser.parseOptionalKeyword("pairwise"))) {
      StringRef name;
      llvm::SMLoc loc = parser.getCurrentLocation();
      if (parser.parseLParen() || parser.parseKeyword(&name))
        return failure();
      pairwise = symbolizePairwiseMode(name);
      if (!pairwise)
        return parser.emitError(loc) << "unknown pairwise mode '" << name
                                     << "'; expected 'contract', 'rotate' or 'expand'";
      if (succeeded(parser.parseOptionalComma())) {
        int64_t period = 0;
        if (parser.parseKeyword("halves") || parser.parseInteger(period))
          return failure();
        halves = builder.getI64IntegerAttr(period);
      }
      if (parser.parseRParen())
        return failure();
    } else {
      break;
    }
  }

  Type aType, bType;
  if (parser.parseColon() || parser.parseType(aType) || parser.parseComma() ||
      parser.parseType(bType))
    return failure();

  SmallVector<OpAsmParser::UnresolvedOperand> extras;
  SmallVector<Type> extraTypes;
  SmallVector<Attribute> roles;
  if (succeeded(parser.parseOptionalKeyword("with"))) {
    auto parseExtra = [&]() -> ParseResult {
      OpAsmParser::UnresolvedOperand operand;
      StringRef roleName;
      Type type;
      llvm::SMLoc loc;
      if (parser.parseOperand(operand) || parser.parseKeyword("as") ||
          parser.getCurrentLocation(&loc) || parser.parseKeyword(&roleName) ||
          parser.parseColon() || parser.parseType(type))
        return failure();
      std::optional<OperandRole> role = symbolizeOperandRole(roleName);
      if (!role)
        return parser.emitError(loc) << "unknown operand role '" << roleName
                                     << "'; expected 'scalar', 'row', 'col', 'matrix' or 'tiled'";
      extras.push_back(operand);
      extraTypes.push_back(type);
      roles.push_back(OperandRoleAttr::get(ctx, *role));
      return success();
    };
    if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseExtra))
      return failure();
  }

  SmallVector<OpAsmParser::UnresolvedOperand> inits;
  SmallVector<Type> initTypes, resultTypes;
  SmallVector<Attribute> modes;
  auto parseResult = [&]() -> ParseResult {
    ResultModeAttr mode = ResultModeAttr::parseBody(parser);
    if (!mode)
      return failure();
    Type type;
    if (mode.isAccumulate()) {
      OpAsmParser::UnresolvedOperand init;
      if (parser.parseLParen() || parser.parseOperand(init) || parser.parseRParen() ||
          parser.parseType(type))
        return failure();
      inits.push_back(init);
      initTypes.push_back(type);
    } else if (parser.parseType(type)) {
      return failure();
    }
    modes.push_back(mode);
    resultTypes.push_back(type);
    return success();
  };
  if (parser.parseArrow() ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseResult))
    return failure();

  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();

  SmallVector<OpAsmParser::Argument> regionArgs;
  if (parser.parseKeyword("epilogue") ||
      parser.parseArgumentList(regionArgs, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true))
    return failure();
  Region *region = result.addRegion();
  if (parser.parseRegion(*region, regionArgs))
    return failure();

  llvm::SMLoc operandsLoc = parser.getNameLoc();
  if (parser.resolveOperand(a, aType, result.operands) ||
      parser.resolveOperand(b, bType, result.operands) ||
      parser.resolveOperands(extras, extraTypes, operandsLoc, result.operands) ||
      parser.resolveOperands(inits, initTypes, operandsLoc, result.operands))
    return failure();
  result.addTypes(resultTypes);

  setGemmProperties(builder, result.getOrAddProperties<Properties>(), extras.size(),
                    inits.size(), roles, modes, transposeA, transposeB, pairwise);
  result.getOrAddProperties<Properties>().halves = halves;
  return success();
}

void GemmOp::print(OpAsmPrinter &p) {
  p << " " << getA() << ", " << getB();
  if (getTransposeA())
    p << " transpose_a";
  if (getTransposeB())
    p << " transpose_b";
  if (std::optional<PairwiseMode> mode = getPairwise())
    p << " pairwise(" << stringifyPairwiseMode(*mode)
      << (getHalves() ? ", halves " + std::to_string(*getHalves()) : "") << ")";
  p << " : " << getA().getType() << ", " << getB().getType();
  p.increaseIndent();
  if (!getExtras().empty()) {
    p.printNewline();
    p << "with(";
    llvm::interleaveComma(llvm::enumerate(getExtras()), p, [&](auto it) {
      p << it.value() << " as " << stringifyOperandRole(getRole(it.index())) << " : "
        << it.value().getType();
    });
    p << ")";
  }
  p.printNewline();
  p << "-> (";
  llvm::interleaveComma(llvm::enumerate(getResults()), p, [&](auto it) {
    ResultModeAttr mode = getMode(it.index());
    mode.printBody(p.getStream());
    if (mode.isAccumulate())
      p << "(" << getInitFor(it.index()) << ")";
    p << " " << it.value().getType();
  });
  p << ")";
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getRolesAttrName(), getModesAttrName(), getTransposeAAttrName(),
                            getTransposeBAttrName(), getPairwiseAttrName(), getHalvesAttrName(),
                            getOperandSegmentSizesAttrName()});
  p.printNewline();
  p << "epilogue(";
  llvm::interleaveComma(getEpilogue().front().getArguments(), p,
                        [&](BlockArgument arg) { p.printRegionArgument(arg); });
  p << ") ";
  p.decreaseIndent();
  p.printRegion(getEpilogue(), /*printEntryBlockArgs=*/false);
}

//===----------------------------------------------------------------------===//
// GemmOp verification
//===----------------------------------------------------------------------===//

/// Describes a shape for diagnostics, e.g. "[16, 64]" ("?" for a dynamic size).
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os, [&](int64_t size) {
    if (ShapedType::isDynamic(size))
      os << "?";
    else
      os << size;
  });
  os << "]";
  return s;
}

LogicalResult GemmOp::verify() {
  RankedTensorType aType = getA().getType(), bType = getB().getType();
  if (aType.getRank() != bType.getRank() || aType.getRank() < 2 || aType.getRank() > 3)
    return emitOpError("expects A and B of rank 2, or rank 3 with a leading batch dimension; got "
                       "ranks ")
           << aType.getRank() << " and " << bType.getRank();
  for (Value v : getOperands()) {
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return emitOpError("requires static shapes; operand ")
             << v.getType() << " has a dynamic dimension";
  }
  if (!isGemmInputElementType(aType.getElementType()))
    return emitOpError("unsupported element type ")
           << aType.getElementType() << " for A; expected bf16, f16 or f32";
  if (aType.getElementType() != bType.getElementType())
    return emitOpError("A and B element types differ: ")
           << aType.getElementType() << " vs " << bType.getElementType();

  int64_t kA = getK();
  ArrayRef<int64_t> bShape = bType.getShape().take_back(2);
  int64_t kB = getTransposeB() ? bShape[1] : bShape[0];
  if (kA != kB)
    return emitOpError("contraction dimension mismatch: A has K = ")
           << kA << ", B has K = " << kB;
  if (isBatched() && aType.getDimSize(0) != bType.getDimSize(0))
    return emitOpError("batch size mismatch: A has ")
           << aType.getDimSize(0) << ", B has " << bType.getDimSize(0);

  int64_t batch = getBatchSize(), m = getM(), n = getN();
  if (getInArity() == 2 && n % 2 != 0)
    return emitOpError("pairwise(") << stringifyPairwiseMode(*getPairwise())
                                    << ") needs an even number of columns, got N = " << n;

  // Operand roles.
  if (getRoles().size() != getExtras().size())
    return emitOpError("has ") << getExtras().size() << " epilogue operands but "
                               << getRoles().size() << " roles";
  for (auto [index, extra] : llvm::enumerate(getExtras())) {
    auto type = cast<RankedTensorType>(extra.getType());
    OperandRole role = getRole(index);
    SmallVector<int64_t> expected;
    // In a batched product an operand has its own batch dimension, or none: shared by every
    // batch (a bias).
    if (hasOwnBatch(index))
      expected.push_back(batch);
    if (role == OperandRole::Row || role == OperandRole::Matrix || role == OperandRole::Tiled)
      expected.push_back(m);
    if (role == OperandRole::Col || role == OperandRole::Matrix)
      expected.push_back(n);
    if (role == OperandRole::Tiled) {
      // The period is the operand's own last dimension.
      int64_t period = type.getRank() == static_cast<int64_t>(expected.size()) + 1
                           ? type.getShape().back()
                           : 0;
      if (period <= 0)
        return emitOpError("operand #")
               << index << " has role 'tiled' and needs shape " << shapeStr(expected)
               << " followed by a period, got " << shapeStr(type.getShape());
      if (getInArity() == 2 && period % 2 != 0)
        return emitOpError("operand #") << index << " is tiled with an odd period " << period
                                        << "; pairwise columns need an even period";
      expected.push_back(period);
    }
    if (type.getShape() != ArrayRef<int64_t>(expected)) {
      InFlightDiagnostic diag = emitOpError("operand #")
                                << index << " has role '" << stringifyOperandRole(role)
                                << "' and needs shape " << shapeStr(expected);
      if (role != OperandRole::Scalar && role != OperandRole::Tiled && isBatched())
        diag << " (or " << shapeStr(ArrayRef<int64_t>(expected).drop_front())
             << ", shared by the batch)";
      return diag << ", got " << shapeStr(type.getShape());
    }
    Type elementType = type.getElementType();
    if (!isa<FloatType, IntegerType>(elementType))
      return emitOpError("operand #") << index << " has unsupported element type "
                                      << elementType << "; expected a float or an integer";
  }

  // Results and their modes.
  if (getNumResults() == 0)
    return emitOpError("expects at least one result");
  if (getModes().size() != getNumResults())
    return emitOpError("has ") << getNumResults() << " results but " << getModes().size()
                               << " result modes";
  unsigned numAccumulate = 0;
  for (unsigned i = 0, e = getNumResults(); i < e; ++i)
    numAccumulate += getMode(i).isAccumulate();
  if (numAccumulate != getInits().size())
    return emitOpError("has ") << numAccumulate << " accumulate results but "
                               << getInits().size() << " init operands";
  for (unsigned i = 0, e = getNumResults(); i < e; ++i) {
    ResultModeAttr mode = getMode(i);
    auto type = cast<RankedTensorType>(getResult(i).getType());
    auto expected = cast<RankedTensorType>(getExpectedResultType(i));
    Type elementType = type.getElementType();
    if (mode.isReduce() && !elementType.isF32())
      return emitOpError("result #") << i << " is a reduction and must be f32, got "
                                     << elementType;
    if (!mode.isReduce() && !isGemmInputElementType(elementType))
      return emitOpError("result #") << i << " has unsupported element type " << elementType
                                     << "; expected bf16, f16 or f32";
    if (type.getShape() != expected.getShape())
      return emitOpError("result #") << i << " (" << mode << ") needs shape "
                                     << shapeStr(expected.getShape()) << ", got "
                                     << shapeStr(type.getShape());
    if (Value init = getInitFor(i); init && init.getType() != type)
      return emitOpError("result #") << i << " accumulates into an init of type "
                                     << init.getType() << " but has type " << type;
  }

  // Rotating into halves moves output columns: only results indexed by rows may see them.
  if (std::optional<uint64_t> halves = getHalves()) {
    if (getPairwise() != PairwiseMode::Rotate)
      return emitOpError("halves ") << *halves << " needs pairwise(rotate)";
    if (*halves % 2 != 0 || n % static_cast<int64_t>(*halves) != 0)
      return emitOpError("halves ") << *halves
                                    << " must be an even number of columns dividing N = " << n;
    for (unsigned i = 0, e = getNumResults(); i < e; ++i) {
      ResultModeAttr mode = getMode(i);
      if (!mode.isStore() && !(mode.isReduce() && mode.getDim() == ReduceDim::Row))
        return emitOpError("result #") << i << " (" << mode
                                       << ") reads output columns, which halves " << *halves
                                       << " moves; expected store or reduce<row, ...>";
    }
  }
  return success();
}

LogicalResult GemmOp::verifyRegions() {
  Block &block = getEpilogue().front();
  SmallVector<Type> expected = getExpectedRegionArgTypes();
  if (block.getNumArguments() != expected.size())
    return emitOpError("epilogue expects ")
           << expected.size() << " arguments (" << getInArity() << " accumulator, "
           << expected.size() - getInArity() - 2 << " for the operands, row and column index), got "
           << block.getNumArguments();
  for (auto [index, arg, type] : llvm::enumerate(block.getArguments(), expected)) {
    if (arg.getType() != type)
      return emitOpError("epilogue argument #")
             << index << " must have type " << type << ", got " << arg.getType();
  }

  for (Operation &op : block.without_terminator()) {
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return op.emitOpError("is not allowed in a coda.gemm epilogue: it may only hold "
                            "side-effect-free scalar ops");
    for (Type t : op.getResultTypes()) {
      if (!t.isIntOrIndexOrFloat())
        return op.emitOpError("produces ") << t << "; a coda.gemm epilogue computes on scalars";
    }
  }

  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return block.getTerminator()->emitOpError("cannot end a coda.gemm epilogue; expected "
                                              "coda.yield");
  unsigned expectedYields = getNumResults() * getOutArity();
  if (yield.getValues().size() != expectedYields)
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values but the gemm expects " << expectedYields
           << " (" << getNumResults() << " results x " << getOutArity()
           << " output columns per invocation)";
  for (auto [index, value] : llvm::enumerate(yield.getValues())) {
    if (!value.getType().isF32())
      return yield.emitOpError("value #") << index << " must be f32, got " << value.getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp verification
//===----------------------------------------------------------------------===//

/// One i32 or i64 length per sequence: tensor<Bxi32> or tensor<Bxi64>.
static bool isSequenceLengths(RankedTensorType type, int64_t batch) {
  return type.getRank() == 1 && type.getDimSize(0) == batch &&
         (type.getElementType().isInteger(32) || type.getElementType().isInteger(64));
}

/// A page table: tensor<BxPxi32>, P >= 1.
static LogicalResult verifyPageTable(Operation *op, RankedTensorType table, int64_t batch) {
  if (table.getRank() != 2 || table.getDimSize(0) != batch || table.getDimSize(1) < 1 ||
      !table.getElementType().isInteger(32))
    return op->emitOpError("pages must be tensor<")
           << batch << "xPxi32> (a page table row per sequence); got " << table;
  return success();
}

LogicalResult AttentionOp::verify() {
  RankedTensorType q = getQ().getType(), k = getK().getType(), v = getV().getType();
  for (Value operand : getOperands())
    if (!cast<RankedTensorType>(operand.getType()).hasStaticShape())
      return emitOpError("requires static shapes; operand ")
             << operand.getType() << " has a dynamic dimension";
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4)
    return emitOpError("expects Q, K and V of rank 4 (") << (isHeadMajor() ? "[B, H, S, d]" : "[B, S, H, d]")
           << " for layout " << stringifyAttentionLayout(getLayout()) << "); got ranks "
           << q.getRank() << ", " << k.getRank() << " and " << v.getRank();
  Type element = q.getElementType();
  if (!isGemmInputElementType(element) || k.getElementType() != element ||
      v.getElementType() != element)
    return emitOpError("expects Q, K and V of one element type among bf16, f16 and f32; got ")
           << q.getElementType() << ", " << k.getElementType() << " and " << v.getElementType();
  unsigned h = getHeadDim(), s = getSeqDim();
  if (getPages()) {
    if (!getCacheLens())
      return emitOpError("pages describe a paged KV cache: they need cache(...) lengths");
    if (failed(verifyPageTable(getOperation(), cast<RankedTensorType>(getPages().getType()),
                               getBatchSize())))
      return failure();
    if (v.getDimSize(0) != k.getDimSize(0))
      return emitOpError("expects K and V pools of as many pages; got ")
             << shapeStr(k.getShape()) << " and " << shapeStr(v.getShape());
  } else if (k.getDimSize(0) != q.getDimSize(0) || v.getDimSize(0) != q.getDimSize(0)) {
    return emitOpError("expects one batch size B; Q, K and V have ")
           << shapeStr(q.getShape()) << ", " << shapeStr(k.getShape()) << " and "
           << shapeStr(v.getShape());
  }
  if (k.getDimSize(h) != v.getDimSize(h) || k.getDimSize(s) != v.getDimSize(s))
    return emitOpError("expects K and V with the same heads and keys; got ")
           << shapeStr(k.getShape()) << " and " << shapeStr(v.getShape());
  if (k.getDimSize(3) != q.getDimSize(3))
    return emitOpError("expects Q and K with the same head size d; got ")
           << q.getDimSize(3) << " and " << k.getDimSize(3);
  if (k.getDimSize(h) == 0 || q.getDimSize(h) % k.getDimSize(h) != 0)
    return emitOpError("expects the query heads (")
           << q.getDimSize(h) << ") to be a multiple of the key/value heads ("
           << k.getDimSize(h) << ")";

  SmallVector<int64_t> outShape(q.getShape());
  outShape[3] = v.getDimSize(3);
  auto outType = RankedTensorType::get(outShape, element);
  if (getOut().getType() != outType)
    return emitOpError("result must be ") << outType << " (Q's layout with V's head size); got "
                                          << getOut().getType();
  if (Value lse = getLse()) {
    auto lseType = RankedTensorType::get(
        {getBatchSize(), getNumHeads(), getQueryLen()}, Float32Type::get(getContext()));
    if (lse.getType() != lseType)
      return emitOpError("lse result must be ") << lseType << " ([B, Hq, Sq]); got "
                                                << lse.getType();
  }
  if (getLens() && getCacheLens())
    return emitOpError("takes either lens (padded self-attention) or cache (a KV cache's "
                       "lengths), not both");
  if (Value lens = getSequenceLens()) {
    auto type = cast<RankedTensorType>(lens.getType());
    if (!isSequenceLengths(type, getBatchSize()))
      return emitOpError(getLens() ? "lens" : "cache lengths")
             << " must be tensor<" << getBatchSize() << "xi32> or tensor<" << getBatchSize()
             << "xi64>; got " << type;
    if (getLens() && getQueryLen() != getKeyLen())
      return emitOpError("lens describe self-attention over padded sequences: Sq (")
             << getQueryLen() << ") must equal Sk (" << getKeyLen() << ")";
  }
  if (Value blocks = getBlocks()) {
    if (!getBits())
      return emitOpError("a runtime mask needs both blocks and bits");
    auto bt = cast<RankedTensorType>(blocks.getType());
    auto wt = cast<RankedTensorType>(getBits().getType());
    int64_t mb = bt.getRank() == 4 ? bt.getDimSize(0) : -1;
    int64_t mh = bt.getRank() == 4 ? bt.getDimSize(1) : -1;
    bool broadcastOk = (mb == 1 || mb == getBatchSize()) && (mh == 1 || mh == getNumHeads());
    if (!bt.getElementType().isInteger(8) || bt.getRank() != 4 || !broadcastOk ||
        bt.getDimSize(2) != getMaskTiles(getQueryLen()) ||
        bt.getDimSize(3) != getMaskTiles(getKeyLen()))
      return emitOpError("blocks must be tensor<MbxMhx") << getMaskTiles(getQueryLen()) << "x"
             << getMaskTiles(getKeyLen()) << "xi8> (Mb 1 or " << getBatchSize() << ", Mh 1 or "
             << getNumHeads() << ": a class per tile of " << kMaskTile << "x" << kMaskTile
             << "); got " << bt;
    SmallVector<int64_t> bitsShape{mb, mh, getQueryLen(), getMaskWords(getKeyLen())};
    if (wt != RankedTensorType::get(bitsShape, IntegerType::get(getContext(), 32)))
      return emitOpError("bits must be ")
             << RankedTensorType::get(bitsShape, IntegerType::get(getContext(), 32))
             << " (a bit per key, the batch and heads of blocks); got " << wt;
  }
  return success();
}

LogicalResult AttentionOp::verifyRegions() {
  Region &region = getScore();
  if (region.empty())
    return success();
  if (!region.hasOneBlock())
    return emitOpError("score region must have one block");
  Block &block = region.front();
  Type f32 = Float32Type::get(getContext()), index = IndexType::get(getContext());
  SmallVector<Type> expected = {f32, index, index, index, index};
  if (TypeRange(block.getArgumentTypes()) != TypeRange(expected))
    return emitOpError("score region takes (f32 score, index b, index h, index i, index j); "
                       "got ")
           << block.getNumArguments() << " arguments";
  for (Operation &op : block.without_terminator())
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op) ||
        !llvm::all_of(op.getResultTypes(), [](Type t) { return t.isIntOrIndexOrFloat(); }))
      return op.emitOpError("is not allowed in a coda.attention score region: it may only hold "
                            "side-effect-free scalar ops");
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield || yield.getValues().size() != 1 || !yield.getValues()[0].getType().isF32())
    return emitOpError("score region must end with a coda.yield of one f32");
  return success();
}

//===----------------------------------------------------------------------===//
// AppendOp verification
//===----------------------------------------------------------------------===//

LogicalResult AppendOp::verify() {
  RankedTensorType rows = getNewRows().getType(), cache = getCache().getType();
  auto pos = cast<RankedTensorType>(getPos().getType());
  for (RankedTensorType type : {rows, cache, pos})
    if (!type.hasStaticShape())
      return emitOpError("requires static shapes; operand ") << type << " has a dynamic dimension";
  StringRef form = isHeadMajor() ? "[B, H, S, d]" : "[B, S, H, d]";
  if (rows.getRank() != 4 || cache.getRank() != 4)
    return emitOpError("expects new rows and a cache of rank 4 (")
           << form << " for layout " << stringifyAttentionLayout(getLayout()) << "); got ranks "
           << rows.getRank() << " and " << cache.getRank();
  if (!isGemmInputElementType(cache.getElementType()))
    return emitOpError("expects a cache of bf16, f16 or f32; got ") << cache.getElementType();
  if (rows.getElementType() != cache.getElementType())
    return emitOpError("expects new rows of the cache's element type ")
           << cache.getElementType() << "; got " << rows.getElementType();
  unsigned seq = getSeqDim();
  bool paged = static_cast<bool>(getPages());
  for (unsigned d = paged ? 1 : 0; d < 4; ++d)
    if (d != seq && rows.getDimSize(d) != cache.getDimSize(d))
      return emitOpError("expects new rows ")
             << shapeStr(rows.getShape()) << " to match the cache " << shapeStr(cache.getShape())
             << " in every dimension but the sequence"
             << (paged ? " and the pages (" : " (") << form << ")";
  int64_t batch = rows.getDimSize(0);
  if (paged && failed(verifyPageTable(getOperation(),
                                      cast<RankedTensorType>(getPages().getType()), batch)))
    return failure();
  if (!isSequenceLengths(pos, batch) && !isSequenceLengths(pos, 1))
    return emitOpError("positions must be tensor<")
           << batch << "xi32> or tensor<" << batch
           << "xi64> (one per sequence), or of one element (shared); got " << pos;
  return success();
}

#define GET_OP_CLASSES
#include "coda/Dialect/Coda/IR/CodaOps.cpp.inc"
