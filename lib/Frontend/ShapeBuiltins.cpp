//===- ShapeBuiltins.cpp - Matrix products and shape builtins of .sinter --===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Matrix products (matmul, mm, bmm, linear), transposes and permutations,
// reshapes (reshape, view, flatten, unsqueeze, squeeze) and pooling with
// kernel = stride, which is a reshape and a reduction.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

static FailureOr<Value> lowerMatmulBuiltin(const Arguments &args) {
  StringRef second = args.call.name == "matmul" ? "other" : "mat2";
  FailureOr<Value> input = args.tensor("input");
  FailureOr<Value> other =
      failed(input) ? FailureOr<Value>() : args.tensor(second);
  if (failed(other))
    return failure();
  // mm takes matrices and bmm batches of matrices, without broadcasting.
  int64_t rank = args.call.name == "mm" ? 2 : 3;
  if (args.call.name != "matmul")
    for (auto [param, value] :
         {std::pair{StringRef("input"), *input}, {second, *other}})
      if (getRank(value) != rank)
        return args.lowering.emitError(args.get(param)->loc)
               << args.call.name << "() needs " << rank
               << "-D tensors, got rank " << getRank(value) << " for '" << param
               << "'"
               << (rank == 2 ? "; matmul() broadcasts batches"
                             : "; mm() multiplies matrices");
  return args.lowering.lowerMatmul(args.getLoc(), *input, *other, false, false);
}

/// linear(x, w, b) = matmul(x, w) transpose_b + b.
static FailureOr<Value> lowerLinear(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<Value> weight =
      failed(input) ? FailureOr<Value>() : args.tensor("weight");
  FailureOr<Value> bias =
      failed(weight) ? FailureOr<Value>() : args.optionalTensor("bias");
  if (failed(bias))
    return failure();
  FailureOr<Value> product =
      args.lowering.lowerMatmul(args.getLoc(), *input, *weight, false, true);
  if (failed(product) || !*bias)
    return product;
  return args.lowering.create<AddOp>(args.getLoc(), {*product, *bias});
}

//===----------------------------------------------------------------------===//
// Transposes and reshapes
//===----------------------------------------------------------------------===//

static FailureOr<Value> transposeBy(const Arguments &args, Value input,
                                    ArrayRef<int64_t> perm) {
  return args.lowering.create<TransposeOp>(args.getLoc(), {input},
                                           {args.i64s("perm", perm)});
}

/// Reshapes `input` to `shape`, whose dynamic dims are named by `names`.
static FailureOr<Value> reshapeTo(const Arguments &args, Value input,
                                  ArrayRef<int64_t> shape,
                                  SmallVector<std::string> names) {
  auto inputType = cast<RankedTensorType>(input.getType());
  FailureOr<Value> result = args.lowering.create<ReshapeOp>(
      args.getLoc(), {input}, {}, inputType.clone(shape));
  if (succeeded(result))
    args.lowering.setDimNames(*result, std::move(names));
  return result;
}

static FailureOr<Value> lowerTransposeBuiltin(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  int64_t rank = getRank(*input);
  FailureOr<int64_t> dim0 = args.dim("dim0", rank);
  FailureOr<int64_t> dim1 =
      failed(dim0) ? FailureOr<int64_t>() : args.dim("dim1", rank);
  if (failed(dim1))
    return failure();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[*dim0], perm[*dim1]);
  return args.lowering.create<TransposeOp>(args.getLoc(), {*input},
                                           {args.i64s("perm", perm)});
}

/// reshape(input, shape): sizes, at most one -1, and dim names. A -1 is
/// computed at compile time when the symbolic dims of both shapes cancel.
static FailureOr<Value> lowerReshape(const Arguments &args) {
  const EvalValue *shapeArg = args.get("shape");
  if (shapeArg->kind == EvalValue::Kind::Number && shapeArg->isInteger &&
      args.call.name == "view" && shapeArg->integer != -1)
    return args.emitWrongKind("shape", "a list of sizes (or -1)");
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  auto inputType = cast<RankedTensorType>(input->getType());
  ArrayRef<EvalValue> elements(*shapeArg);
  if (shapeArg->kind == EvalValue::Kind::List)
    elements = shapeArg->list;
  if (elements.size() > kMaxRank)
    return args.lowering.emitError(shapeArg->loc)
           << "reshape() to " << elements.size() << " dims; the limit is "
           << kMaxRank;

  // The symbolic dims of the input still to be matched by the result.
  SmallVector<std::string> unmatched;
  bool inputFullyNamed = true;
  int64_t inputCount = 1, resultCount = 1;
  for (auto [size, name] :
       llvm::zip(inputType.getShape(), args.lowering.getDimNames(*input))) {
    if (!ShapedType::isDynamic(size))
      inputCount *= size;
    else if (name.empty())
      inputFullyNamed = false;
    else
      unmatched.push_back(name);
  }

  SmallVector<int64_t> shape;
  SmallVector<std::string> names;
  std::optional<size_t> inferred;
  bool resultMatched = true;
  for (const EvalValue &element : elements) {
    if (element.kind == EvalValue::Kind::Dim) {
      auto it = llvm::find(unmatched, element.text);
      if (it != unmatched.end())
        unmatched.erase(it);
      else
        resultMatched = false;
      shape.push_back(ShapedType::kDynamic);
      names.push_back(element.text);
      continue;
    }
    if (element.kind != EvalValue::Kind::Number || !element.isInteger)
      return args.emitWrongKind("shape",
                                "a list of sizes, dim names and one -1");
    if (element.integer == -1) {
      if (inferred)
        return args.lowering.emitError(element.loc)
               << "reshape() can infer only one dim (-1)";
      inferred = shape.size();
    } else if (element.integer < 1) {
      return args.lowering.emitError(element.loc)
             << "reshape() sizes must be at least 1 (or -1), got "
             << element.integer;
    } else if (llvm::MulOverflow(resultCount, element.integer, resultCount)) {
      return args.lowering.emitError(element.loc)
             << "reshape() shape has too many elements";
    }
    shape.push_back(element.integer);
    names.push_back("");
  }

  bool known = inputFullyNamed && resultMatched && unmatched.empty();
  if (known && inferred) {
    if (inputCount % resultCount != 0)
      return args.lowering.emitError(args.getLoc())
             << "reshape() cannot infer the -1 dim: " << inputCount
             << " elements are not a multiple of " << resultCount;
    shape[*inferred] = inputCount / resultCount;
  } else if (known && inputCount != resultCount) {
    return args.lowering.emitError(args.getLoc())
           << "reshape() changes the element count: the input has "
           << inputCount << " elements (per symbolic dim), the shape "
           << resultCount;
  } else if (inferred) {
    shape[*inferred] = ShapedType::kDynamic;
  }

  return reshapeTo(args, *input, shape, std::move(names));
}

/// t(x): the transpose of a matrix; vectors and scalars stay as they are.
static FailureOr<Value> lowerT(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  int64_t rank = getRank(*input);
  if (rank > 2)
    return args.lowering.emitError(args.getLoc())
           << "t() expects a tensor with at most 2 dims, got rank " << rank
           << "; use transpose(x, dim0, dim1) or permute(x, dims)";
  if (rank < 2)
    return *input;
  return transposeBy(args, *input, {1, 0});
}

static FailureOr<Value> lowerPermute(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  int64_t rank = getRank(*input);
  FailureOr<SmallVector<int64_t>> perm = args.dims("dims", rank);
  if (failed(perm))
    return failure();
  if (static_cast<int64_t>(perm->size()) != rank)
    return args.lowering.emitError(args.get("dims")->loc)
           << "permute() needs all " << rank << " dims of the input, got "
           << perm->size();
  return transposeBy(args, *input, *perm);
}

/// unsqueeze(x, dim): a size-1 dim inserted at `dim` (-rank-1 to rank).
static FailureOr<Value> lowerUnsqueeze(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  FailureOr<int64_t> dim = args.dim("dim", getRank(*input) + 1);
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(
      cast<RankedTensorType>(input->getType()).getShape());
  SmallVector<std::string> names = args.lowering.getDimNames(*input);
  shape.insert(shape.begin() + *dim, 1);
  names.insert(names.begin() + *dim, "");
  return reshapeTo(args, *input, shape, std::move(names));
}

/// squeeze(x, dim=None): drops the given dims (all when None) of static size
/// 1; others stay, as in PyTorch.
static FailureOr<Value> lowerSqueeze(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  FailureOr<SmallVector<int64_t>> dims = args.dims("dim", getRank(*input));
  if (failed(dims))
    return failure();
  SmallVector<int64_t> shape;
  SmallVector<std::string> names;
  for (auto [index, size, name] :
       llvm::enumerate(cast<RankedTensorType>(input->getType()).getShape(),
                       args.lowering.getDimNames(*input))) {
    if (size == 1 && llvm::is_contained(*dims, static_cast<int64_t>(index)))
      continue;
    shape.push_back(size);
    names.push_back(name);
  }
  return reshapeTo(args, *input, shape, std::move(names));
}

/// flatten(x, start_dim=0, end_dim=-1): dims start_dim..end_dim merged.
static FailureOr<Value> lowerFlatten(const Arguments &args) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  int64_t rank = std::max<int64_t>(getRank(*input), 1);
  FailureOr<int64_t> start = args.dim("start_dim", rank);
  FailureOr<int64_t> end =
      failed(start) ? FailureOr<int64_t>() : args.dim("end_dim", rank);
  if (failed(end))
    return failure();
  if (*start > *end)
    return args.lowering.emitError(args.getLoc())
           << "flatten() has start_dim " << *start << " after end_dim " << *end;
  ArrayRef<int64_t> inputShape =
      cast<RankedTensorType>(input->getType()).getShape();
  SmallVector<std::string> inputNames = args.lowering.getDimNames(*input);
  if (inputShape.empty())
    return reshapeTo(args, *input, {1}, {""});
  SmallVector<int64_t> shape(inputShape.take_front(*start));
  SmallVector<std::string> names(inputNames.begin(),
                                 inputNames.begin() + *start);
  int64_t merged = 1;
  for (int64_t dim = *start; dim <= *end; ++dim)
    merged =
        ShapedType::isDynamic(inputShape[dim]) || ShapedType::isDynamic(merged)
            ? ShapedType::kDynamic
            : merged * inputShape[dim];
  shape.push_back(merged);
  names.push_back(*start == *end ? inputNames[*start] : "");
  llvm::append_range(shape, inputShape.drop_front(*end + 1));
  names.append(inputNames.begin() + *end + 1, inputNames.end());
  return reshapeTo(args, *input, shape, std::move(names));
}

//===----------------------------------------------------------------------===//
// Pooling with kernel = stride
//===----------------------------------------------------------------------===//

/// Checks that the pooling options of PyTorch that change the result keep
/// their defaults, and returns the kernel sizes (`spatial` of them).
static FailureOr<SmallVector<int64_t>> getPoolKernel(const Arguments &args,
                                                     unsigned spatial) {
  FailureOr<SmallVector<int64_t>> kernel = args.sizes("kernel_size");
  if (failed(kernel))
    return failure();
  if (kernel->size() == 1)
    kernel->resize(spatial, kernel->front());
  if (kernel->size() != spatial)
    return args.emitWrongKind(
        "kernel_size", spatial == 1 ? "an integer" : "an integer or a pair");
  if (const EvalValue *stride = args.get("stride")) {
    FailureOr<SmallVector<int64_t>> strides = args.sizes("stride");
    if (failed(strides))
      return failure();
    if (strides->size() == 1)
      strides->resize(spatial, strides->front());
    if (*strides != *kernel)
      return args.lowering.emitError(stride->loc)
             << args.call.name
             << "() supports only stride = kernel_size (windows that do "
                "not overlap); omit stride";
  }
  for (StringRef param : {"padding", "dilation"}) {
    const EvalValue *value = args.get(param);
    int64_t expected = param == "padding" ? 0 : 1;
    if (value && (value->kind != EvalValue::Kind::Number ||
                  value->integer != expected || !value->isInteger))
      return args.lowering.emitError(value->loc)
             << args.call.name << "() supports only " << param << "="
             << expected;
  }
  for (StringRef param : {"ceil_mode", "return_indices"}) {
    if (!args.get(param))
      continue;
    FailureOr<bool> flag = args.boolean(param);
    if (failed(flag))
      return failure();
    if (*flag)
      return args.lowering.emitError(args.get(param)->loc)
             << args.call.name << "() with " << param
             << "=True is not supported";
  }
  if (args.get("divisor_override"))
    return args.lowering.emitError(args.get("divisor_override")->loc)
           << args.call.name << "() with divisor_override is not supported";
  return kernel;
}

/// Pooling over the trailing `spatial` dims with kernel = stride: each
/// spatial dim of size L becomes (L / k, k) by a reshape, the window dims
/// move to the end, and a mean (avg) or max reduces them.
template <typename ReduceOp>
static FailureOr<Value> lowerPool(const Arguments &args, unsigned spatial) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<SmallVector<int64_t>> kernel =
      failed(input) ? FailureOr<SmallVector<int64_t>>()
                    : getPoolKernel(args, spatial);
  if (failed(kernel))
    return failure();
  ArrayRef<int64_t> inputShape =
      cast<RankedTensorType>(input->getType()).getShape();
  int64_t rank = inputShape.size();
  if (rank != spatial + 1 && rank != spatial + 2)
    return args.lowering.emitError(args.getLoc())
           << args.call.name << "() expects a tensor of rank " << spatial + 1
           << " or " << spatial + 2 << ", got rank " << rank;
  int64_t lead = rank - spatial;
  SmallVector<int64_t> shape(inputShape.take_front(lead));
  SmallVector<std::string> names(args.lowering.getDimNames(*input));
  names.resize(lead);
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, lead));
  SmallVector<int64_t> windowDims;
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t size = inputShape[lead + i], k = (*kernel)[i];
    if (ShapedType::isDynamic(size))
      return args.lowering.emitError(args.getLoc())
             << args.call.name << "() needs static spatial dims";
    if (size % k != 0)
      return args.lowering.emitError(args.get("kernel_size")->loc)
             << args.call.name << "(): spatial size " << size
             << " is not a multiple of kernel_size " << k
             << " (PyTorch drops the last " << size % k
             << " elements; slice them off first)";
    shape.append({size / k, k});
    names.append({"", ""});
    perm.push_back(lead + 2 * i);
  }
  for (unsigned i = 0; i < spatial; ++i) {
    perm.push_back(lead + 2 * i + 1);
    windowDims.push_back(lead + spatial + i);
  }
  FailureOr<Value> windows = reshapeTo(args, *input, shape, std::move(names));
  if (succeeded(windows) && spatial > 1)
    windows = transposeBy(args, *windows, perm);
  if (failed(windows))
    return failure();
  return args.lowering.create<ReduceOp>(args.getLoc(), {*windows},
                                        {args.i64s("dims", windowDims)});
}

template <typename ReduceOp, unsigned Spatial>
static FailureOr<Value> lowerPoolNd(const Arguments &args) {
  return lowerPool<ReduceOp>(args, Spatial);
}

void frontend::addShapeBuiltins(std::vector<Builtin> &builtins) {
  auto add = [&](StringRef name, std::vector<StringRef> params,
                 StringRef mirrors, StringRef summary, bool isMethod,
                 LowerFn lower) {
    builtins.push_back(
        {name, std::move(params), mirrors, summary, isMethod, lower});
  };
  add("matmul", {"input", "other"}, "torch.matmul",
      "matrix product; a rank-3 operand is a batch, broadcast", true,
      lowerMatmulBuiltin);
  add("mm", {"input", "mat2"}, "torch.mm", "product of two matrices", true,
      lowerMatmulBuiltin);
  add("bmm", {"input", "mat2"}, "torch.bmm",
      "product of two batches of matrices", true, lowerMatmulBuiltin);
  add("linear", {"input", "weight", "bias=None"}, "torch.nn.functional.linear",
      "x @ weight.T + bias", false, lowerLinear);
  add("transpose", {"input", "dim0", "dim1"}, "torch.transpose",
      "swaps two dims", true, lowerTransposeBuiltin);
  add("t", {"input"}, "torch.t", "transpose of a matrix (at most 2 dims)", true,
      lowerT);
  add("permute", {"input", "dims"}, "torch.permute",
      "result dim i is input dim dims[i]", true, lowerPermute);
  add("reshape", {"input", "shape"}, "torch.reshape",
      "same elements, new shape: sizes, dim names, one -1", true, lowerReshape);
  add("view", {"input", "shape"}, "torch.Tensor.view",
      "reshape (every tensor is contiguous)", true, lowerReshape);
  add("flatten", {"input", "start_dim=0", "end_dim=-1"}, "torch.flatten",
      "merges dims start_dim..end_dim", true, lowerFlatten);
  add("unsqueeze", {"input", "dim"}, "torch.unsqueeze",
      "inserts a size-1 dim at dim", true, lowerUnsqueeze);
  add("squeeze", {"input", "dim=None"}, "torch.squeeze",
      "drops size-1 dims (the given ones, or all)", true, lowerSqueeze);
  // PyTorch's pooling signatures; avg_pool2d also has divisor_override.
  std::vector<StringRef> avgPool = {
      "input",     "kernel_size",     "stride=None",
      "padding=0", "ceil_mode=False", "count_include_pad=True"};
  std::vector<StringRef> maxPool = {
      "input",      "kernel_size",     "stride=None",         "padding=0",
      "dilation=1", "ceil_mode=False", "return_indices=False"};
  add("avg_pool1d", avgPool, "torch.nn.functional.avg_pool1d",
      "mean over windows of the last dim (stride = kernel_size)", false,
      lowerPoolNd<MeanOp, 1>);
  add("max_pool1d", maxPool, "torch.nn.functional.max_pool1d",
      "max over windows of the last dim (stride = kernel_size)", false,
      lowerPoolNd<MaxOp, 1>);
  avgPool.push_back("divisor_override=None");
  add("avg_pool2d", avgPool, "torch.nn.functional.avg_pool2d",
      "mean over windows of the last two dims (stride = kernel_size)", false,
      lowerPoolNd<MeanOp, 2>);
  add("max_pool2d", maxPool, "torch.nn.functional.max_pool2d",
      "max over windows of the last two dims (stride = kernel_size)", false,
      lowerPoolNd<MaxOp, 2>);
}
