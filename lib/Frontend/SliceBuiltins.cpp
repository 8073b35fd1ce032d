//===- SliceBuiltins.cpp - cat, chunk, split and narrow in .sinter --------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// cat lowers to sinter.concat; chunk, split and narrow (and subscripts,
// Subscripts.cpp) to sinter.slice. Both need the dim they cut or join to be
// static: a part of a symbolic dim has no size the generated code could
// name.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::frontend;
using llvm::SMLoc;

FailureOr<int64_t> ModelLowering::getStaticDimSize(SMLoc loc, Value tensor,
                                                   int64_t dim,
                                                   StringRef what) {
  int64_t size = cast<RankedTensorType>(tensor.getType()).getDimSize(dim);
  if (!ShapedType::isDynamic(size))
    return size;
  std::string name = getDimNames(tensor)[dim];
  return emitError(loc) << what << " dim " << dim << " ("
                        << (name.empty() ? "computed at run time" : name)
                        << "), which is symbolic; only dims of a static size "
                           "are sliced or joined";
}

FailureOr<Value> ModelLowering::createSlice(SMLoc loc, Value input, int64_t dim,
                                            int64_t start, int64_t end) {
  return create<SliceOp>(
      loc, {input},
      {builder.getNamedAttr("dim", builder.getI64IntegerAttr(dim)),
       builder.getNamedAttr("start", builder.getI64IntegerAttr(start)),
       builder.getNamedAttr("end", builder.getI64IntegerAttr(end))});
}

/// Slices `input` along `dim` into consecutive parts of `sizes`.
static FailureOr<SmallVector<Value>> sliceInto(const Arguments &args,
                                               Value input, int64_t dim,
                                               ArrayRef<int64_t> sizes) {
  SmallVector<Value> parts;
  int64_t start = 0;
  for (int64_t size : sizes) {
    FailureOr<Value> part = args.lowering.createSlice(args.getLoc(), input, dim,
                                                      start, start + size);
    if (failed(part))
      return failure();
    parts.push_back(*part);
    start += size;
  }
  return parts;
}

/// The input tensor, its normalized `dim` and that dim's static size.
struct CutDim {
  Value input;
  int64_t dim;
  int64_t size;
};

static FailureOr<CutDim> getCutDim(const Arguments &args,
                                   StringRef inputParam) {
  FailureOr<Value> input = args.tensor(inputParam);
  if (failed(input))
    return failure();
  FailureOr<int64_t> dim = args.dim("dim", getRank(*input));
  if (failed(dim))
    return failure();
  FailureOr<int64_t> size = args.lowering.getStaticDimSize(
      args.getLoc(), *input, *dim, (args.call.name + "() of").str());
  if (failed(size))
    return failure();
  return CutDim{*input, *dim, *size};
}

/// chunk(input, chunks, dim=0): parts of ceil(size / chunks), the last one
/// smaller, as in PyTorch (fewer than `chunks` parts when they run out).
static FailureOr<SmallVector<Value>> lowerChunk(const Arguments &args) {
  FailureOr<CutDim> cut = getCutDim(args, "input");
  FailureOr<int64_t> chunks =
      failed(cut) ? FailureOr<int64_t>() : args.integer("chunks");
  if (failed(chunks))
    return failure();
  if (*chunks < 1)
    return args.lowering.emitError(args.get("chunks")->loc)
           << "chunk() needs chunks >= 1, got " << *chunks;
  int64_t step = (cut->size + *chunks - 1) / *chunks;
  SmallVector<int64_t> sizes;
  for (int64_t start = 0; start < cut->size; start += step)
    sizes.push_back(std::min(step, cut->size - start));
  return sliceInto(args, cut->input, cut->dim, sizes);
}

/// split(tensor, split_size_or_sections, dim=0): parts of one size (the last
/// one smaller) or of the listed sizes, which must add up to the dim.
static FailureOr<SmallVector<Value>> lowerSplit(const Arguments &args) {
  FailureOr<CutDim> cut = getCutDim(args, "tensor");
  if (failed(cut))
    return failure();
  const EvalValue *sections = args.get("split_size_or_sections");
  SmallVector<int64_t> sizes;
  if (sections->kind == EvalValue::Kind::Number && sections->isInteger) {
    if (sections->integer < 1)
      return args.lowering.emitError(sections->loc)
             << "split() needs a split size >= 1, got " << sections->integer;
    for (int64_t start = 0; start < cut->size; start += sections->integer)
      sizes.push_back(std::min(sections->integer, cut->size - start));
    return sliceInto(args, cut->input, cut->dim, sizes);
  }
  FailureOr<SmallVector<int64_t>> listed = args.sizes("split_size_or_sections");
  if (failed(listed))
    return failure();
  int64_t total = 0;
  for (int64_t size : *listed)
    total += size;
  if (total != cut->size)
    return args.lowering.emitError(sections->loc)
           << "split() sizes add up to " << total << ", but dim " << cut->dim
           << " has size " << cut->size;
  return sliceInto(args, cut->input, cut->dim, *listed);
}

/// narrow(input, dim, start, length): input[..., start:start+length, ...].
static FailureOr<Value> lowerNarrow(const Arguments &args) {
  FailureOr<CutDim> cut = getCutDim(args, "input");
  FailureOr<int64_t> start =
      failed(cut) ? FailureOr<int64_t>() : args.integer("start");
  FailureOr<int64_t> length =
      failed(start) ? FailureOr<int64_t>() : args.integer("length");
  if (failed(length))
    return failure();
  int64_t begin = *start < 0 ? *start + cut->size : *start;
  if (begin < 0 || *length < 1 || begin + *length > cut->size)
    return args.lowering.emitError(args.getLoc())
           << "narrow() of [" << *start << ", " << *start << " + " << *length
           << ") is not a non-empty range of dim " << cut->dim << " of size "
           << cut->size;
  return args.lowering.createSlice(args.getLoc(), cut->input, cut->dim, begin,
                                   begin + *length);
}

/// cat(tensors, dim=0): joins a list of tensors along a static dim.
static FailureOr<Value> lowerCat(const Arguments &args) {
  const EvalValue *tensors = args.get("tensors");
  if (tensors->kind != EvalValue::Kind::List || tensors->list.empty())
    return args.emitWrongKind("tensors", "a non-empty list of tensors");
  SmallVector<Value> inputs;
  for (const EvalValue &element : tensors->list) {
    if (element.kind != EvalValue::Kind::Tensor)
      return args.lowering.emitError(element.loc)
             << "elements of 'tensors' of " << args.call.name
             << "() must be tensors, got " << element.describe();
    inputs.push_back(element.tensor);
  }
  FailureOr<int64_t> dim = args.dim("dim", getRank(inputs.front()));
  if (failed(dim))
    return failure();
  for (auto [index, input] : llvm::enumerate(inputs))
    if (failed(args.lowering.getStaticDimSize(
            tensors->list[index].loc, input, *dim,
            (args.call.name + "() along").str())))
      return failure();
  return args.lowering.create<ConcatOp>(
      args.getLoc(), inputs,
      {args.builder.getNamedAttr("dim", args.builder.getI64IntegerAttr(*dim))});
}

void frontend::addSliceBuiltins(std::vector<Builtin> &builtins) {
  auto add = [&](StringRef name, std::vector<StringRef> params,
                 StringRef mirrors, StringRef summary, bool isMethod,
                 LowerFn lower, LowerTupleFn lowerTuple = nullptr) {
    builtins.push_back({name, std::move(params), mirrors, summary, isMethod,
                        lower, lowerTuple});
  };
  add("cat", {"tensors", "dim=0"}, "torch.cat",
      "joins tensors along a static dim", false, lowerCat);
  add("concat", {"tensors", "dim=0"}, "torch.concat", "the same as cat()",
      false, lowerCat);
  add("chunk", {"input", "chunks", "dim=0"}, "torch.chunk",
      "a tuple of parts of ceil(size / chunks) along a static dim", true,
      nullptr, lowerChunk);
  add("split", {"tensor", "split_size_or_sections", "dim=0"}, "torch.split",
      "a tuple of parts of one size, or of the listed sizes, along a static "
      "dim",
      true, nullptr, lowerSplit);
  add("narrow", {"input", "dim", "start", "length"}, "torch.narrow",
      "input[..., start:start+length] along a static dim", true, lowerNarrow);
}
