//===- Interpreter.cpp - Reference semantics of the sinter dialect --------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Walks a function body op by op, binding every SSA value to a host tensor,
// dispatching each op once to its evaluator (OpEvaluators.h) and releasing a
// value after its last use. sinter.kernel bodies run as nested blocks.
//
//===----------------------------------------------------------------------===//

#include "sinter/Interpreter/Interpreter.h"

#include "OpEvaluators.h"

#include "sinter/Dialect/Sinter/IR/ModelSignature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <memory>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::interp;

//===----------------------------------------------------------------------===//
// HostTensor and shape helpers
//===----------------------------------------------------------------------===//

std::optional<int64_t>
mlir::sinter::getCheckedNumElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    if (dim == 0)
      return 0;
  }
  for (int64_t dim : shape) {
    if (count > kMaxTensorElements / dim)
      return std::nullopt;
    count *= dim;
  }
  return count;
}

HostTensor::HostTensor(ArrayRef<int64_t> shape, bool isInteger)
    : shape(shape), data(getCheckedNumElements(shape).value_or(0)),
      isInteger(isInteger) {}

int64_t HostTensor::numElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

FailureOr<HostTensor>
interp::allocateResult(Operation *op, ArrayRef<int64_t> shape, bool isInteger) {
  if (!getCheckedNumElements(shape))
    return op->emitOpError("result of shape ")
           << formatShape(shape) << " exceeds the interpreter's limit of "
           << kMaxTensorElements << " elements";
  return HostTensor(shape, isInteger);
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

/// Returns true if the interpreter can hold values of `type` (floats that a
/// double represents exactly, and i64 indices).
static bool isSupportedElementType(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return llvm::APFloat::isRepresentableBy(floatType.getFloatSemantics(),
                                            llvm::APFloat::IEEEdouble());
  return type.isInteger(64);
}

void mlir::sinter::roundToElementType(HostTensor &tensor, Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType || floatType.isF64() || !isSupportedElementType(type))
    return;
  if (floatType.isF32()) {
    for (double &value : tensor.data)
      value = static_cast<double>(static_cast<float>(value));
    return;
  }
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  for (double &value : tensor.data) {
    bool losesInfo = false;
    APFloat rounded(value);
    rounded.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    value = rounded.convertToDouble();
  }
}

bool mlir::sinter::isRepresentableAs(const HostTensor &tensor,
                                     Type elementType) {
  auto floatType = dyn_cast<FloatType>(elementType);
  if (!floatType || floatType.isF64() || !isSupportedElementType(elementType))
    return true;
  if (floatType.isF32())
    return llvm::all_of(tensor.data, [](double value) {
      return std::isnan(value) ||
             static_cast<double>(static_cast<float>(value)) == value;
    });
  HostTensor rounded = tensor;
  roundToElementType(rounded, elementType);
  return llvm::equal(rounded.data, tensor.data, [](double a, double b) {
    return a == b || (std::isnan(a) && std::isnan(b));
  });
}

/// Checks that `tensor`, computed for a value of type `type` (`what`), has
/// its rank, static dims and kind of element.
static LogicalResult checkAgainstType(Operation *op, const HostTensor &tensor,
                                      Type type, const Twine &what) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return op->emitError() << what << " has type " << type
                           << ", which the interpreter does not support";
  if (!isSupportedElementType(tensorType.getElementType()))
    return op->emitError() << what << " has element type "
                           << tensorType.getElementType()
                           << ", which the interpreter does not support";
  bool matches =
      tensorType.getRank() == static_cast<int64_t>(tensor.shape.size());
  for (auto [actual, expected] : llvm::zip(tensor.shape, tensorType.getShape()))
    if (!ShapedType::isDynamic(expected) && actual != expected)
      matches = false;
  if (!matches)
    return op->emitError() << what << " has shape " << formatShape(tensor.shape)
                           << " at run time but its type is " << type;
  bool isInteger = isa<IntegerType>(tensorType.getElementType());
  if (tensor.isInteger != isInteger)
    return op->emitError() << what << " holds "
                           << (tensor.isInteger ? "integer" : "float")
                           << " values but its type is " << type;
  if (static_cast<int64_t>(tensor.data.size()) != tensor.numElements())
    return op->emitError() << what << " holds " << tensor.data.size()
                           << " values for shape " << formatShape(tensor.shape);
  return success();
}

//===----------------------------------------------------------------------===//
// Executor
//===----------------------------------------------------------------------===//

namespace {
using TensorRef = std::shared_ptr<const HostTensor>;

/// Runs blocks of ops: a function body or a sinter.kernel body.
class Executor {
public:
  explicit Executor(Precision precision) : precision(precision) {}

  /// Runs `block` on `arguments` and returns the operands of its
  /// terminator (func.return or sinter.yield).
  FailureOr<SmallVector<TensorRef>> runBlock(Block &block,
                                             ArrayRef<TensorRef> arguments);

private:
  /// Evaluates `op`, whose operands are bound in `values`.
  FailureOr<SmallVector<TensorRef>>
  evaluate(Operation &op, const DenseMap<Value, TensorRef> &values);

  /// Evaluates a single-result op of the sinter dialect.
  FailureOr<HostTensor> evaluateSinterOp(Operation &op, ValueLookup lookup);

  Precision precision;
};
} // namespace

FailureOr<SmallVector<TensorRef>>
Executor::runBlock(Block &block, ArrayRef<TensorRef> arguments) {
  DenseMap<Value, TensorRef> values;
  for (auto [argument, tensor] : llvm::zip(block.getArguments(), arguments))
    values[argument] = tensor;
  // Free every value after the op that reads it last.
  DenseMap<Value, Operation *> lastUser;
  for (Operation &op : block)
    for (Value operand : op.getOperands())
      lastUser[operand] = &op;

  for (Operation &op : block.without_terminator()) {
    FailureOr<SmallVector<TensorRef>> results = evaluate(op, values);
    if (failed(results))
      return failure();
    for (auto [result, tensor] : llvm::zip(op.getResults(), *results))
      if (!result.use_empty())
        values[result] = std::move(tensor);
    for (Value operand : op.getOperands())
      if (lastUser.lookup(operand) == &op)
        values.erase(operand);
  }

  Operation *terminator = block.getTerminator();
  if (!isa<func::ReturnOp, YieldOp>(terminator))
    return terminator->emitOpError("is not supported by the interpreter");
  SmallVector<TensorRef> results;
  for (Value operand : terminator->getOperands())
    results.push_back(values.lookup(operand));
  return results;
}

FailureOr<SmallVector<TensorRef>>
Executor::evaluate(Operation &op, const DenseMap<Value, TensorRef> &values) {
  if (auto kernel = dyn_cast<KernelOp>(op)) {
    SmallVector<TensorRef> operands;
    for (Value input : kernel.getInputs())
      operands.push_back(values.lookup(input));
    FailureOr<SmallVector<TensorRef>> results =
        runBlock(kernel.getBody().front(), operands);
    if (failed(results))
      return failure();
    for (auto [index, tensor] : llvm::enumerate(*results))
      if (failed(checkAgainstType(&op, *tensor, op.getResult(index).getType(),
                                  "result #" + Twine(index))))
        return failure();
    return results;
  }

  if (op.getNumResults() != 1 || op.getNumRegions() != 0 ||
      !isa<SinterDialect>(op.getDialect()))
    return op.emitOpError("is not supported by the interpreter");
  for (Type type : op.getResultTypes())
    if (!isSupportedElementType(getElementTypeOrSelf(type)))
      return op.emitOpError("has a result of type ")
             << type << ", which the interpreter does not support";
  auto lookup = [&](Value value) -> const HostTensor * {
    return value ? values.lookup(value).get() : nullptr;
  };
  FailureOr<HostTensor> result = evaluateSinterOp(op, lookup);
  if (failed(result))
    return failure();
  Type type = op.getResult(0).getType();
  if (failed(checkAgainstType(&op, *result, type, "the result")))
    return failure();
  if (precision == Precision::F32)
    roundToElementType(*result, getElementTypeOrSelf(type));
  return SmallVector<TensorRef>{
      std::make_shared<const HostTensor>(std::move(*result))};
}

FailureOr<HostTensor> Executor::evaluateSinterOp(Operation &op,
                                                 ValueLookup lookup) {
  using Result = FailureOr<HostTensor>;
  auto operand = [&](unsigned index) -> const HostTensor & {
    return *lookup(op.getOperand(index));
  };
  if (isElementwiseUnary(&op))
    return evaluateUnary(&op, operand(0));
  if (isElementwiseBinary(&op))
    return evaluateBinary(&op, operand(0), operand(1));
  if (isElementwiseTernary(&op))
    return evaluateSelect(&op, operand(0), operand(1), operand(2));
  if (auto reduction = dyn_cast<ReductionOpInterface>(&op))
    return evaluateReduction(reduction, operand(0));
  return llvm::TypeSwitch<Operation *, Result>(&op)
      .Case<SoftmaxOp, LogSoftmaxOp>([&](Operation *softmax) {
        return evaluateSoftmax(softmax, operand(0));
      })
      .Case([&](LayerNormOp norm) { return evaluateLayerNorm(norm, lookup); })
      .Case([&](RmsNormOp norm) { return evaluateRmsNorm(norm, lookup); })
      .Case([&](GroupNormOp norm) { return evaluateGroupNorm(norm, lookup); })
      .Case([&](InstanceNormOp norm) {
        return evaluateInstanceNorm(norm, lookup);
      })
      .Case([&](BatchNormOp norm) { return evaluateBatchNorm(norm, lookup); })
      .Case([&](MatmulOp matmul) {
        return evaluateMatmul(matmul, operand(0), operand(1));
      })
      .Case([&](TransposeOp transpose) {
        return evaluateTranspose(transpose, operand(0));
      })
      .Case([&](ReshapeOp reshape) {
        return evaluateReshape(reshape, operand(0));
      })
      .Case([&](SliceOp slice) { return evaluateSlice(slice, operand(0)); })
      .Case([&](ConcatOp concat) { return evaluateConcat(concat, lookup); })
      .Case([&](ConstantOp constant) { return evaluateConstant(constant); })
      .Case([&](FillOp fill) { return evaluateFill(fill, lookup); })
      .Default([&](Operation *) -> Result {
        return op.emitOpError("is not supported by the interpreter");
      });
}

//===----------------------------------------------------------------------===//
// Interpreter
//===----------------------------------------------------------------------===//

/// Names argument `index` of `func` for messages: `@forward argument #0
/// ('x')`.
static std::string describeArgument(func::FuncOp func, unsigned index) {
  std::string text =
      "@" + func.getSymName().str() + " argument #" + std::to_string(index);
  if (auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttrName))
    text += " ('" + name.str() + "')";
  return text;
}

/// Binds `argument` to a value of type `type` without copying it, unless
/// f32 mode must round it.
static TensorRef bindArgument(const HostTensor &argument, Type type,
                              Precision precision) {
  Type elementType = getElementTypeOrSelf(type);
  if (precision == Precision::F64 || isRepresentableAs(argument, elementType))
    return TensorRef(&argument, [](const HostTensor *) {});
  auto rounded = std::make_shared<HostTensor>(argument);
  roundToElementType(*rounded, elementType);
  return rounded;
}

/// Runs `func` on `arguments` after checking them against its type.
static FailureOr<SmallVector<TensorRef>>
runFunction(func::FuncOp func, ArrayRef<const HostTensor *> arguments,
            Precision precision) {
  if (failed(verify(func)))
    return failure();
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return func.emitError("the interpreter runs functions with a body of "
                          "one block");
  if (arguments.size() != func.getNumArguments())
    return func.emitError("@")
           << func.getSymName() << " expects " << func.getNumArguments()
           << " arguments, got " << arguments.size();
  SmallVector<TensorRef> bound;
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    Type type = func.getArgumentTypes()[index];
    if (failed(checkAgainstType(func, *argument, type,
                                describeArgument(func, index))))
      return failure();
    bound.push_back(bindArgument(*argument, type, precision));
  }
  return Executor(precision).runBlock(func.getBody().front(), bound);
}

/// Copies the values of `results` out.
static std::vector<HostTensor> copyResults(ArrayRef<TensorRef> results) {
  std::vector<HostTensor> outputs;
  for (const TensorRef &result : results)
    outputs.push_back(*result);
  return outputs;
}

FailureOr<std::vector<HostTensor>>
Interpreter::run(Operation *op, ArrayRef<HostTensor> arguments) {
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError("the interpreter runs func.func, not ")
           << op->getName();
  SmallVector<const HostTensor *> pointers;
  for (const HostTensor &argument : arguments)
    pointers.push_back(&argument);
  FailureOr<SmallVector<TensorRef>> results =
      runFunction(func, pointers, precision);
  if (failed(results))
    return failure();
  return copyResults(*results);
}

FailureOr<std::vector<HostTensor>>
Interpreter::runModel(ModuleOp module, ArrayRef<HostTensor> arguments) {
  FailureOr<ModelSignature> signature = getModelSignature(module);
  if (failed(signature))
    return failure();
  func::FuncOp forward = getForwardFunc(module);
  if (arguments.size() != signature->arguments.size())
    return forward.emitError("the model takes ")
           << signature->arguments.size() << " arguments, got "
           << arguments.size();

  // 1. P = @prepare(A[prepareArguments[0]], ...), once.
  SmallVector<TensorRef> prepared;
  if (signature->hasPrepare) {
    SmallVector<const HostTensor *> prepareArguments;
    for (unsigned original : signature->prepareArguments)
      prepareArguments.push_back(&arguments[original]);
    FailureOr<SmallVector<TensorRef>> results =
        runFunction(getPrepareFunc(module), prepareArguments, precision);
    if (failed(results))
      return failure();
    prepared = std::move(*results);
  }

  // 2. @forward(V...) with V[i] an original argument or a prepared value.
  SmallVector<const HostTensor *> forwardArguments;
  for (const ArgumentSource &source : signature->forwardArguments)
    forwardArguments.push_back(source.kind == ArgumentSource::Kind::Original
                                   ? &arguments[source.index]
                                   : prepared[source.index].get());
  FailureOr<SmallVector<TensorRef>> results =
      runFunction(forward, forwardArguments, precision);
  if (failed(results))
    return failure();
  return copyResults(*results);
}
