//===- ScalarEmitter.cpp - One element of a kernel value as C++ -----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "ScalarEmitter.h"

#include "OpClasses.h"
#include "sinter/Target/CUDA/ElementwiseFormula.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

//===----------------------------------------------------------------------===//
// Coordinates
//===----------------------------------------------------------------------===//

unsigned Coords::getDepth() const {
  unsigned depth = linear ? linear->depth : 0;
  for (const Expr &index : indices)
    depth = std::max(depth, index.depth);
  return depth;
}

Expr cuda::sizeExpr(const DimExpr &size) { return Expr(size.str()); }

Expr cuda::linearize(const Coords &coords, ArrayRef<DimExpr> shape) {
  if (coords.linear && ArrayRef<DimExpr>(coords.linearShape) == shape)
    return *coords.linear;
  Expr linear("0");
  DimExpr stride;
  for (size_t d = shape.size(); d-- > 0;) {
    linear = addIndex(mulIndex(coords.indices[d], sizeExpr(stride)), linear);
    stride = stride * shape[d];
  }
  return linear;
}

Coords cuda::delinearize(const Expr &linear, ArrayRef<DimExpr> shape) {
  Coords coords;
  coords.indices.resize(shape.size());
  DimExpr stride;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d].isConstant(1)) {
      coords.indices[d] = Expr("0");
      continue;
    }
    Expr index = divIndex(linear, sizeExpr(stride));
    // The leading non-unit dim needs no remainder: the linear index is in
    // range.
    bool isLeading = llvm::all_of(shape.take_front(d), [](const DimExpr &dim) {
      return dim.isConstant(1);
    });
    coords.indices[d] = isLeading ? index : remIndex(index, sizeExpr(shape[d]));
    stride = stride * shape[d];
  }
  coords.linear = linear;
  coords.linearShape.assign(shape.begin(), shape.end());
  return coords;
}

Coords cuda::interleaveCoords(const Expr &keptLinear, const Expr &reducedLinear,
                              ArrayRef<DimExpr> shape,
                              ArrayRef<int64_t> reducedDims) {
  auto isReduced = [&](size_t d) {
    return llvm::is_contained(reducedDims, static_cast<int64_t>(d));
  };
  // Interleaves the coordinates of the kept and of the reduced dims (or of
  // their runs) in dim order.
  auto interleave = [&](ArrayRef<DimExpr> sizes, ArrayRef<bool> reduced) {
    Shape keptSizes, reducedSizes;
    for (auto [size, isReducedDim] : llvm::zip(sizes, reduced))
      (isReducedDim ? reducedSizes : keptSizes).push_back(size);
    Coords kept = delinearize(keptLinear, keptSizes);
    Coords reducedCoords = delinearize(reducedLinear, reducedSizes);
    Coords coords;
    size_t k = 0, r = 0;
    for (bool isReducedDim : reduced)
      coords.indices.push_back(isReducedDim ? reducedCoords.indices[r++]
                                            : kept.indices[k++]);
    return coords;
  };
  SmallVector<bool> dimReduced, runReduced;
  Shape runs;
  for (size_t d = 0; d < shape.size(); ++d) {
    dimReduced.push_back(isReduced(d));
    if (d > 0 && isReduced(d) == isReduced(d - 1)) {
      runs.back() = runs.back() * shape[d];
      continue;
    }
    runs.push_back(shape[d]);
    runReduced.push_back(isReduced(d));
  }
  Coords coords = interleave(shape, dimReduced);
  if (runs.size() < shape.size()) {
    coords.linear = linearize(interleave(runs, runReduced), runs);
    coords.linearShape.assign(shape.begin(), shape.end());
  }
  return coords;
}

Coords cuda::addLaneOffset(const Coords &base, const Expr &offset,
                           Expr lastIndex) {
  Coords lane = base;
  lane.indices.back() = addIndex(lastIndex, offset);
  lane.linear.reset();
  lane.laneBase = std::make_shared<const Coords>(base);
  lane.laneOffset = offset;
  return lane;
}

Coords cuda::broadcastCoords(const Coords &coords,
                             ArrayRef<DimExpr> resultShape,
                             ArrayRef<DimExpr> operandShape) {
  if (resultShape == operandShape)
    return coords;
  // The lanes of a float4 group differ in their last coordinate only: where
  // the operand broadcasts the last dim, each lane reads the first lane's
  // element, whose index is computed once a group (a group_norm's channel
  // weight over [90, 320, 48, 48]: 0.68 of copy with an index a lane, 0.96
  // a group, on the H100).
  if (coords.laneBase &&
      (operandShape.empty() || operandShape.back().isConstant(1)))
    return broadcastCoords(*coords.laneBase, resultShape, operandShape);
  Coords result;
  size_t offset = resultShape.size() - operandShape.size();
  for (auto [d, size] : llvm::enumerate(operandShape)) {
    bool broadcasts = size.isConstant(1);
    result.indices.push_back(broadcasts ? Expr("0")
                                        : coords.indices[d + offset]);
  }
  if (coords.laneBase && !operandShape.empty() &&
      !operandShape.back().isConstant(1)) {
    result.laneBase = std::make_shared<const Coords>(
        broadcastCoords(*coords.laneBase, resultShape, operandShape));
    result.laneOffset = coords.laneOffset;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// ConstantPool
//===----------------------------------------------------------------------===//

std::string ConstantPool::getArray(DenseElementsAttr value) {
  auto it = names.find(value);
  if (it != names.end())
    return it->second;
  std::string name = prefix + "_const" + std::to_string(arrays.size());
  names[value] = name;
  arrays.emplace_back(name, value);
  return name;
}

std::string ConstantPool::getDeclarations() const {
  std::string text;
  for (const auto &[name, value] : arrays) {
    text += "__device__ const float " + name + "[" +
            std::to_string(value.getNumElements()) + "] = {";
    unsigned column = 0;
    for (APFloat element : value.getValues<APFloat>()) {
      text += column++ % 8 == 0 ? "\n    " : " ";
      text += formatFloatLiteral(element.convertToDouble()) + ",";
    }
    text += "\n};\n";
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Returns `fn(args...)`.
static std::string call(StringRef fn, ArrayRef<std::string> args) {
  return (fn + "(" + llvm::join(args, ", ") + ")").str();
}

/// Returns a float attribute as a literal.
static std::string literal(double value) { return formatFloatLiteral(value); }

std::optional<double> ScalarEmitter::getSplatValue(Value value) const {
  Operation *constant = getConstantDef(value);
  if (!constant)
    return std::nullopt;
  std::optional<APFloat> splat =
      getSplatFloat(cast<ConstantOp>(constant).getValue());
  if (!splat)
    return std::nullopt;
  return splat->convertToDouble();
}

/// pow(x, c) for a constant exponent, as ATen's pow_tensor_scalar kernel
/// special-cases it; std::nullopt for other exponents.
static std::optional<std::string> powByConstant(const std::string &base,
                                                double exponent) {
  if (exponent == 1.0)
    return base;
  if (exponent == 2.0)
    return base + " * " + base;
  if (exponent == 3.0)
    return base + " * " + base + " * " + base;
  if (exponent == 0.5)
    return call("sqrtf", {base});
  if (exponent == -0.5)
    return call("rsqrtf", {base});
  if (exponent == -1.0)
    return "1.0f / " + base;
  if (exponent == -2.0)
    return "1.0f / (" + base + " * " + base + ")";
  return std::nullopt;
}

/// The C operator of a comparison predicate.
static StringRef getComparisonOperator(ComparePredicate predicate) {
  switch (predicate) {
  case ComparePredicate::lt:
    return "<";
  case ComparePredicate::le:
    return "<=";
  case ComparePredicate::gt:
    return ">";
  case ComparePredicate::ge:
    return ">=";
  case ComparePredicate::eq:
    return "==";
  case ComparePredicate::ne:
    return "!=";
  }
  llvm_unreachable("unknown comparison predicate");
}

/// The element of a concat at `index` along its dim: a choice among the
/// inputs' elements `operands` by the input ranges that hold `index`.
static std::string emitConcatChoice(ConcatOp concat,
                                    ArrayRef<std::string> operands,
                                    const Expr &index) {
  std::string text = operands.back();
  for (size_t k = operands.size() - 1; k-- > 0;)
    text = index.text + " < " + std::to_string(concat.getOffset(k + 1)) +
           " ? " + operands[k] + " : " + (k + 2 < operands.size() ? "(" : "") +
           text + (k + 2 < operands.size() ? ")" : "");
  return text;
}

Coords ScalarEmitter::getOperandCoords(Operation *op, unsigned operand,
                                       const Coords &coords) {
  Value value = op->getOperand(operand);
  auto concat = dyn_cast<ConcatOp>(op);
  if (!concat)
    return broadcastCoords(coords, getShape(op->getResult(0)), getShape(value));
  // Every input is read at its index clamped into its own range; the choice
  // keeps the one whose range holds the index.
  int64_t dim = concat.getDim();
  int64_t offset = concat.getOffset(operand);
  int64_t last = *getShape(value)[dim].getConstant() - 1;
  Expr index = bindIndex(coords.indices[dim]);
  std::string shifted =
      offset == 0 ? index.text
                  : "(" + index.text + " - " + std::to_string(offset) + ")";
  std::string text = index.text + " < " + std::to_string(offset + last) +
                     " ? " + shifted + " : " + std::to_string(last);
  if (offset > 0)
    text =
        index.text + " < " + std::to_string(offset) + " ? 0 : (" + text + ")";
  Coords result;
  result.indices = coords.indices;
  result.indices[dim] = bindIndex(Expr(text, index.depth));
  return result;
}

FailureOr<std::string>
cuda::getElementwiseFormula(Operation *op, ArrayRef<std::string> operands,
                            std::optional<double> splatRhs) {
  const std::string &x = operands[0];
  auto binary = [&](StringRef symbol) {
    return (x + " " + symbol + " " + operands[1]).str();
  };
  return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case([&](AddOp) { return binary("+"); })
      .Case([&](SubOp) { return binary("-"); })
      .Case([&](MulOp) { return binary("*"); })
      .Case([&](DivOp) {
        // x / ±0 is x * ±inf for every x (NaN for 0 and NaN), written so
        // because nvcc warns on a division by a literal zero (#39-D).
        if (splatRhs && *splatRhs == 0.0)
          return x + " * " +
                 formatFloatLiteral(std::copysign(INFINITY, *splatRhs));
        return binary("/");
      })
      .Case([&](MaximumOp) { return call("dev::maximum", operands); })
      .Case([&](MinimumOp) { return call("dev::minimum", operands); })
      .Case([&](CompareOp compare) {
        return "(" + binary(getComparisonOperator(compare.getPredicate())) +
               " ? 1.0f : 0.0f)";
      })
      .Case([&](SelectOp) {
        return x + " != 0.0f ? " + operands[1] + " : " + operands[2];
      })
      .Case([&](PowOp pow) -> std::string {
        if (splatRhs)
          if (std::optional<std::string> text = powByConstant(x, *splatRhs))
            return *text;
        return call("powf", operands);
      })
      .Case([&](NegOp) { return x.front() == '-' ? "-(" + x + ")" : "-" + x; })
      .Case([&](AbsOp) { return call("fabsf", {x}); })
      .Case([&](ExpOp) { return call("expf", {x}); })
      .Case([&](LogOp) { return call("logf", {x}); })
      .Case([&](SqrtOp) { return call("sqrtf", {x}); })
      .Case([&](RsqrtOp) { return call("rsqrtf", {x}); })
      .Case([&](TanhOp) { return call("tanhf", {x}); })
      .Case([&](SigmoidOp) { return call("dev::sigmoid", {x}); })
      .Case([&](ReluOp) { return call("dev::relu", {x}); })
      .Case([&](SiluOp) { return call("dev::silu", {x}); })
      .Case([&](MishOp) { return call("dev::mish", {x}); })
      .Case([&](SeluOp) { return call("dev::selu", {x}); })
      .Case([&](HardsigmoidOp) { return call("dev::hardsigmoid", {x}); })
      .Case([&](HardswishOp) { return call("dev::hardswish", {x}); })
      .Case([&](SoftsignOp) { return call("dev::softsign", {x}); })
      .Case([&](ErfOp) { return call("erff", {x}); })
      .Case([&](Expm1Op) { return call("expm1f", {x}); })
      .Case([&](Log1pOp) { return call("log1pf", {x}); })
      .Case([&](Exp2Op) { return call("exp2f", {x}); })
      .Case([&](Log2Op) { return call("log2f", {x}); })
      .Case([&](Log10Op) { return call("log10f", {x}); })
      .Case([&](SinOp) { return call("sinf", {x}); })
      .Case([&](CosOp) { return call("cosf", {x}); })
      .Case([&](FloorOp) { return call("floorf", {x}); })
      .Case([&](CeilOp) { return call("ceilf", {x}); })
      // rintf rounds halfway cases to even, as torch.round.
      .Case([&](RoundOp) { return call("rintf", {x}); })
      .Case([&](TruncOp) { return call("truncf", {x}); })
      .Case([&](SignOp) { return call("dev::sign", {x}); })
      .Case([&](LeakyReluOp relu) {
        return call("dev::leakyRelu",
                    {x, literal(relu.getAlpha().convertToDouble())});
      })
      .Case([&](GeluOp gelu) {
        return call(gelu.getApproximate() == GeluApproximation::tanh
                        ? "dev::geluTanh"
                        : "dev::geluErf",
                    {x});
      })
      .Case([&](SoftplusOp softplus) {
        return call("dev::softplus",
                    {x, literal(softplus.getBeta().convertToDouble()),
                     literal(softplus.getThreshold().convertToDouble())});
      })
      .Case([&](EluOp elu) {
        return call("dev::elu", {x, literal(elu.getAlpha().convertToDouble())});
      })
      .Case([&](HardtanhOp hardtanh) {
        return call("dev::hardtanh",
                    {x, literal(hardtanh.getMin().convertToDouble()),
                     literal(hardtanh.getMax().convertToDouble())});
      })
      .Case([&](ClampOp clamp) -> std::string {
        std::optional<APFloat> lo = clamp.getMin(), hi = clamp.getMax();
        if (lo && hi)
          return call("dev::hardtanh", {x, literal(lo->convertToDouble()),
                                        literal(hi->convertToDouble())});
        // One bound: ATen's clamp_min / clamp_max, which keep NaN.
        std::string bound = literal((lo ? lo : hi)->convertToDouble());
        return x + " != " + x + " ? " + x + " : " +
               call(lo ? "fmaxf" : "fminf", {x, bound});
      })
      .Default([&](Operation *other) -> FailureOr<std::string> {
        return other->emitError("CUDA emitter: '")
               << other->getName() << "' is not elementwise";
      });
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Operation *ScalarEmitter::getConstantDef(Value value) const {
  auto it = outerValues.find(value);
  if (it != outerValues.end())
    value = it->second;
  Operation *def = value.getDefiningOp();
  return isa_and_nonnull<ConstantOp>(def) ? def : nullptr;
}

FailureOr<Expr> ScalarEmitter::emitConstant(Operation *constant, Value value,
                                            const Coords &coords) {
  auto attr =
      dyn_cast<DenseElementsAttr>(cast<ConstantOp>(constant).getValue());
  if (!attr || !isa<Float32Type>(attr.getElementType()))
    return constant->emitError(
        "CUDA emitter: constants must be dense f32 elements");
  if (std::optional<APFloat> splat = getSplatFloat(attr))
    return Expr(formatFloatLiteral(splat->convertToDouble()));
  Expr index = bindIndex(linearize(coords, getShape(value)));
  Expr element(constants.getArray(attr) + "[" + index.text + "]", index.depth);
  return writer.bind(element, "float", "v");
}

/// Whether `shape`'s last dim is a static multiple of 4.
static bool endsInFours(ArrayRef<DimExpr> shape) {
  std::optional<int64_t> last =
      shape.empty() ? std::nullopt : shape.back().getConstant();
  return last && *last % 4 == 0;
}

Coords ScalarEmitter::reshapeCoords(const Coords &coords,
                                    ArrayRef<DimExpr> result,
                                    ArrayRef<DimExpr> input) {
  if (!coords.laneBase || !endsInFours(result) || !endsInFours(input))
    return delinearize(linearize(coords, result), input);
  // The first lane's index is a multiple of 4 and both rows are: the four
  // lanes are four consecutive elements of one run of the input too.
  Coords base = delinearize(linearize(*coords.laneBase, result), input);
  Coords lane =
      addLaneOffset(base, *coords.laneOffset, bindIndex(base.indices.back()));
  // A reshape keeps the linear index (which the row writer matches).
  if (coords.linear && ArrayRef<DimExpr>(coords.linearShape) == result) {
    lane.linear = coords.linear;
    lane.linearShape.assign(input.begin(), input.end());
  }
  return lane;
}

std::optional<ScalarEmitter::Normalization>
ScalarEmitter::getNormalization(Operation *op) const {
  // A value the kernel computes itself with an op of type OpTy.
  auto computed = [&](Value value, auto opType) -> Operation * {
    using OpTy = decltype(opType);
    if (leaves.contains(value) || getConstantDef(value))
      return nullptr;
    return dyn_cast_or_null<OpTy>(value.getDefiningOp());
  };
  if (!isa<MulOp>(op))
    return std::nullopt;
  Normalization form;
  Operation *rsqrt = computed(op->getOperand(1), RsqrtOp());
  if (!rsqrt) {
    rsqrt = computed(op->getOperand(0), RsqrtOp());
    form.rsqrtFirst = true;
  }
  if (!rsqrt)
    return std::nullopt;
  form.add = computed(rsqrt->getOperand(0), AddOp());
  form.sub =
      exactFactor && computed(op->getOperand(form.rsqrtFirst ? 1 : 0), SubOp());
  return form;
}

SmallVector<std::pair<Value, Coords>, 4>
ScalarEmitter::getNormalizationInputs(Operation *op, const Coords &coords) {
  SmallVector<std::pair<Value, Coords>, 4> inputs;
  std::optional<Normalization> form = getNormalization(op);
  // `value` at `at`, or the two operands of its defining op if `expand`.
  auto addInputs = [&](Value value, const Coords &at, bool expand) {
    if (!expand) {
      inputs.emplace_back(value, at);
      return;
    }
    Operation *def = value.getDefiningOp();
    for (unsigned i = 0; i < 2; ++i)
      inputs.emplace_back(def->getOperand(i), getOperandCoords(def, i, at));
  };
  unsigned factor = form->rsqrtFirst ? 1 : 0;
  addInputs(op->getOperand(factor), getOperandCoords(op, factor, coords),
            form->sub);
  addInputs(op->getOperand(1 - factor).getDefiningOp()->getOperand(0),
            getOperandCoords(op, 1 - factor, coords), form->add);
  return inputs;
}

std::string ScalarEmitter::emitNormalization(const Normalization &form,
                                             const PendingValue &pending) {
  // The pair of inputs `first` (and `first + 1`, summed exactly, if `sum`).
  auto pair = [&](unsigned first, bool sum, bool negate) {
    unsigned depth = pending.depths[first];
    std::string text = "dev::FloatPair{" + pending.operands[first] + ", 0.f}";
    if (sum) {
      depth = std::max(depth, pending.depths[first + 1]);
      std::string rhs = pending.operands[first + 1];
      text = "dev::twoSum(" + pending.operands[first] + ", " +
             (negate ? "-(" + rhs + ")" : rhs) + ")";
    }
    return Expr(text, depth);
  };
  Expr variance = pair(form.sub ? 2 : 1, form.add, /*negate=*/false);
  variance = writer.bind(variance, "dev::FloatPair", "p");
  Expr scale =
      writer.bind(Expr("dev::rsqrtPair(" + variance.text + ")", variance.depth),
                  "dev::FloatPair", "p");
  Expr factor = pair(0, form.sub, /*negate=*/true);
  return "dev::mulPair(" + factor.text + ", " + scale.text + ")";
}

/// The memo key of coordinates: their index expressions.
static std::string getCoordsKey(const Coords &coords) {
  std::string key;
  for (const Expr &index : coords.indices)
    key += index.text + ",";
  if (coords.linear)
    key += "|" + coords.linear->text;
  return key;
}

FailureOr<std::optional<Expr>>
ScalarEmitter::resolve(Value value, Coords coords, PendingValue &pending) {
  while (true) {
    if (leaves.contains(value))
      return std::optional<Expr>(readLeaf(value, coords));
    if (Operation *constant = getConstantDef(value)) {
      FailureOr<Expr> element = emitConstant(constant, value, coords);
      if (failed(element))
        return failure();
      return std::optional<Expr>(*element);
    }
    Operation *op = value.getDefiningOp();
    if (!op)
      return emitError(value.getLoc(),
                       "CUDA emitter: a kernel argument has no buffer");
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      const Shape &input = getShape(reshape.getInput());
      coords = reshapeCoords(coords, getShape(value), input);
      value = reshape.getInput();
      continue;
    }
    if (auto slice = dyn_cast<SliceOp>(op)) {
      // Index `i` of the slice is index `start + i` of its input.
      Coords input;
      input.indices = coords.indices;
      int64_t dim = slice.getDim();
      input.indices[dim] =
          addIndex(coords.indices[dim], Expr(std::to_string(slice.getStart())));
      coords = std::move(input);
      value = slice.getInput();
      continue;
    }
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      Coords input;
      input.indices.resize(coords.indices.size());
      for (auto [d, source] : llvm::enumerate(transpose.getPerm()))
        input.indices[source] = coords.indices[d];
      coords = std::move(input);
      value = transpose.getInput();
      continue;
    }
    if (!isElementwiseOp(op) && !isa<ConcatOp>(op))
      return op->emitError("CUDA emitter: '")
             << op->getName()
             << "' cannot be computed element by element in this kernel";
    std::string key = getCoordsKey(coords);
    auto &emitted = memo[value];
    if (auto it = emitted.find(key); it != emitted.end())
      return std::optional<Expr>(it->second);
    pending = PendingValue{value, coords, std::move(key), {}, 0, {}, {}};
    if (getNormalization(op))
      pending.inputs = getNormalizationInputs(op, coords);
    return std::optional<Expr>();
  }
}

FailureOr<Expr> ScalarEmitter::emit(Value value, const Coords &coords) {
  // An explicit stack rather than recursion: a kernel may chain 100k ops.
  // The memo computes each value at each coordinates once (a DAG would
  // otherwise be walked once per path); it lives for one call, during
  // which no scope closes, so that every variable it names stays visible.
  memo.clear();
  std::vector<PendingValue> stack(1);
  FailureOr<std::optional<Expr>> first = resolve(value, coords, stack.back());
  if (failed(first))
    return failure();
  if (*first)
    return **first;
  while (true) {
    PendingValue &top = stack.back();
    Operation *op = top.value.getDefiningOp();
    // Operand coordinates are made in order, as their reads: a concat's
    // bind index variables.
    size_t next = top.operands.size();
    if (next <
        (top.inputs.empty() ? op->getNumOperands() : top.inputs.size())) {
      auto [operand, operandCoords] =
          top.inputs.empty()
              ? std::make_pair(op->getOperand(next),
                               getOperandCoords(op, next, top.coords))
              : top.inputs[next];
      PendingValue pending;
      FailureOr<std::optional<Expr>> element =
          resolve(operand, operandCoords, pending);
      if (failed(element))
        return failure();
      if (*element) {
        top.operands.push_back((*element)->text);
        top.depths.push_back((*element)->depth);
        top.depth = std::max(top.depth, (*element)->depth);
      } else {
        stack.push_back(std::move(pending));
      }
      continue;
    }
    FailureOr<std::string> text = failure();
    if (std::optional<Normalization> form = getNormalization(op)) {
      text = emitNormalization(*form, top);
    } else if (auto concat = dyn_cast<ConcatOp>(op)) {
      text = emitConcatChoice(concat, top.operands,
                              bindIndex(top.coords.indices[concat.getDim()]));
    } else {
      std::optional<double> splatRhs;
      if (isa<PowOp, DivOp>(op))
        splatRhs = getSplatValue(op->getOperand(1));
      text = getElementwiseFormula(op, top.operands, splatRhs);
    }
    if (failed(text))
      return failure();
    Expr result = writer.bind(Expr(*text, top.depth), "float", "v");
    memo[top.value][top.key] = result;
    stack.pop_back();
    if (stack.empty())
      return result;
    stack.back().operands.push_back(result.text);
    stack.back().depths.push_back(result.depth);
    stack.back().depth = std::max(stack.back().depth, result.depth);
  }
}
