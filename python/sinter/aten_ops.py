"""Core ATen ops and the .sinter they become.

Each handler takes the translation, the node and its arguments bound by
name (the op's schema, defaults filled in) and returns the node's value:
a `Value` (usually `t.emit(expr, shape)`, one statement), an alias of an
operand (identities such as clone), or a `Multi` for ops with several
results (`max.dim`: values and indices). A handler that meets a use it
cannot express raises `t.unsupported(reason)`; an op without a handler is
unsupported as a whole. `SUPPORTED_OPS` lists the handled ops.
"""

import operator
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Value:
    """A value of the model: `name` is a .sinter name, an inline expression
    (`w.T`) or, when `literal`, a number that fills `shape` (torch.full)."""

    name: str
    shape: tuple
    dtype: str = "f32"
    literal: bool = False
    #: An expand whose result only broadcasting ops may consume.
    broadcast_only: bool = False


class Multi:
    """The results of an op with several: each an expression (with its
    dtype) or None when .sinter has no way to compute it, with the reason."""

    def __init__(self, results):
        self.results = results  # list of (expr, dtype) or (None, reason)


#: Marks integer (SymInt) nodes: shape arithmetic torch.export records for
#: view sizes; reshapes read their sizes from the result's shape instead.
SYMBOLIC = Value("<symbolic size>", ())

_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def op_name(node):
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    return getattr(target, "__name__", str(target))


def format_type(shape, dtype):
    return f"{dtype}[{', '.join(str(s) for s in shape)}]"


def describe_operand(t, arg):
    """An operand as an error message shows it: a tensor's type, a number."""
    if isinstance(arg, torch.fx.Node):
        val = arg.meta.get("val")
        if isinstance(val, torch.Tensor):
            dtype = {torch.float32: "f32", torch.float64: "f64",
                     torch.int64: "i64", torch.bool: "bool"}.get(
                         val.dtype, str(val.dtype).replace("torch.", ""))
            shape = [("?" if s is None else s) for s in t.shape_of(arg)]
            return format_type(shape, dtype)
        return arg.name
    if isinstance(arg, (list, tuple)):
        return "[" + ", ".join(describe_operand(t, a) for a in arg) + "]"
    return repr(arg)


def _bind(node):
    """The node's arguments by schema name, defaults filled in."""
    schema = node.target._schema
    bound = {}
    for index, argument in enumerate(schema.arguments):
        if index < len(node.args) and not argument.kwarg_only:
            bound[argument.name] = node.args[index]
        elif argument.name in node.kwargs:
            bound[argument.name] = node.kwargs[argument.name]
        elif argument.has_default_value():
            bound[argument.name] = argument.default_value
        else:
            bound[argument.name] = None
    return bound


def _number(t, value, what):
    from .exporter import _format_number
    try:
        return _format_number(value)
    except ValueError as error:
        raise t.unsupported(f"{what}: {error}") from None


def _tensor(t, arg, what="operand"):
    """The Value of a tensor operand, checked to be usable as a tensor."""
    value = t.values[arg]
    if value.literal:
        raise t.unsupported(
            f"the constant tensor {what} ({value.name} filling "
            f"{format_type(value.shape, value.dtype)}) is used where a "
            "tensor of its own shape is needed; .sinter has no full()")
    if value.broadcast_only:
        raise t.unsupported(
            f"an expanded tensor ({what}) reaches an op that is not a "
            "broadcasting elementwise op; .sinter has no expand, only "
            "broadcasting")
    if value.dtype != "f32":
        raise t.unsupported(f"the {what} is {value.dtype}; .sinter computes "
                            "on float32 only (indices can only be returned)")
    return value


def _out_shape(t):
    return t.shape_of(t.node)


def _broadcast(a, b):
    """NumPy broadcasting of two shapes of ints and dim names, or None."""
    result = []
    for index in range(1, max(len(a), len(b)) + 1):
        x = a[-index] if index <= len(a) else 1
        y = b[-index] if index <= len(b) else 1
        if x == 1 or x == y:
            result.append(y)
        elif y == 1:
            result.append(x)
        else:
            return None
    return tuple(reversed(result))


def _operand(t, arg, out_shape, what):
    """An operand of an elementwise op: (text, shape). Numbers and constant
    tensors that broadcast into the result become number literals."""
    if not isinstance(arg, torch.fx.Node):
        return _number(t, arg, what), ()
    value = t.values[arg]
    if value.literal:
        if _broadcast(value.shape, out_shape) != tuple(out_shape):
            raise t.unsupported(f"the constant {what} would enlarge the "
                                "result; .sinter has no full()")
        return value.name, ()
    if value.broadcast_only:
        return value.name, value.shape
    return _tensor(t, arg, what).name, value.shape


def _elementwise(t, args, render):
    """An elementwise op of `args`: checks that broadcasting the operands
    as written (expands undone) gives the result's shape."""
    out = _out_shape(t)
    operands = [_operand(t, a, out, f"operand {i}")
                for i, a in enumerate(args)]
    shape = ()
    for _, operand_shape in operands:
        shape = _broadcast(shape, operand_shape) if shape is not None else None
    if shape != tuple(out):
        raise t.unsupported(
            "the operands broadcast to "
            f"{'nothing' if shape is None else format_type(shape, 'f32')}, "
            f"not to the result's {format_type(out, 'f32')} (an expand "
            "that broadcasting does not express)")
    return t.emit(render(*[text for text, _ in operands]), out)


def _scaled(text, factor):
    return text if factor in (1, 1.0) else f"{text} * {factor!r}"


# --- elementwise -----------------------------------------------------------


def _binary(symbol):
    def handler(t, a):
        alpha = a.get("alpha", 1)
        return _elementwise(
            t, [a["self"], a["other"]],
            lambda x, y: f"{x} {symbol} {_scaled(y, alpha)}")
    return handler


def _call(fn, **fixed):
    """fn(operands..., key=value...) of the tensor and number arguments."""
    def handler(t, a):
        names = [n for n in ("self", "other", "exponent") if n in a]
        extra = "".join(f", {k}={v}" for k, v in fixed.items())
        return _elementwise(t, [a[n] for n in names],
                            lambda *xs: f"{fn}({', '.join(xs)}{extra})")
    return handler


def _unary(fn, *params):
    """fn(x, param=value, ...) with the op's numeric arguments by name;
    `params` pairs the ATen argument with the builtin's."""
    def handler(t, a):
        x = _tensor(t, a["self"], "input").name
        extra = "".join(f", {sinter}={_number(t, a[aten], aten)}"
                        for aten, sinter in params)
        return t.emit(f"{fn}({x}{extra})", _out_shape(t))
    return handler


def _neg(t, a):
    return t.emit(f"-{_tensor(t, a['self'], 'input').name}", _out_shape(t))


def _reciprocal(t, a):
    return t.emit(f"1.0 / {_tensor(t, a['self'], 'input').name}",
                  _out_shape(t))


def _square(t, a):
    return t.emit(f"pow({_tensor(t, a['self'], 'input').name}, 2)",
                  _out_shape(t))


def _rsub(t, a):
    return _elementwise(
        t, [a["self"], a["other"]],
        lambda x, y: f"{y} - {_scaled(x, a.get('alpha', 1))}")


def _gelu(t, a):
    x = _tensor(t, a["self"], "input").name
    extra = ', approximate="tanh"' if a["approximate"] == "tanh" else ""
    return t.emit(f"gelu({x}{extra})", _out_shape(t))


def _elu(t, a):
    x = _tensor(t, a["self"], "input").name
    alpha, scale, input_scale = a["alpha"], a["scale"], a["input_scale"]
    if input_scale != 1:
        raise t.unsupported(f"elu with input_scale={input_scale!r}: .sinter's "
                            "elu has no input scale")
    if abs(alpha - _SELU_ALPHA) < 1e-12 and abs(scale - _SELU_SCALE) < 1e-12:
        return t.emit(f"selu({x})", _out_shape(t))
    expr = f"elu({x}, alpha={_number(t, alpha, 'alpha')})"
    if scale != 1:
        expr = f"{expr} * {_number(t, scale, 'scale')}"
    return t.emit(expr, _out_shape(t))


def _clamp(t, a):
    x = _tensor(t, a["self"], "input").name
    bounds = [(key, a.get(key)) for key in ("min", "max")]
    extra = ", ".join(f"{key}={_number(t, value, key)}"
                      for key, value in bounds if value is not None)
    if not extra:
        return t.values[a["self"]]
    return t.emit(f"clamp({x}, {extra})", _out_shape(t))


def _clamp_tensor(t, a):
    """clamp with tensor bounds: maximum(x, min), then minimum(., max)."""
    x = a["self"]
    out = _out_shape(t)
    text = _operand(t, x, out, "input")[0]
    for key, fn in (("min", "maximum"), ("max", "minimum")):
        if a.get(key) is not None:
            text = f"{fn}({text}, {_operand(t, a[key], out, key)[0]})"
    return t.emit(text, out)


def _hardtanh(t, a):
    x = _tensor(t, a["self"], "input").name
    low = _number(t, a.get("min_val", 0), "min_val")
    high = _number(t, a.get("max_val", 6), "max_val")
    return t.emit(f"hardtanh({x}, min_val={low}, max_val={high})",
                  _out_shape(t))


# --- linear algebra --------------------------------------------------------


def _matmul(t, a):
    x = _tensor(t, a["self"], "input").name
    y = _tensor(t, a["mat2"] if "mat2" in a else a["other"], "other").name
    return t.emit(f"{x} @ {y}", _out_shape(t))


def _addmm(t, a):
    x = _tensor(t, a["mat1"], "mat1").name
    y = _tensor(t, a["mat2"], "mat2").name
    bias = _operand(t, a["self"], _out_shape(t), "self")[0]
    product = _scaled(f"{x} @ {y}", a["alpha"])
    return t.emit(f"{product} + {_scaled(bias, a['beta'])}", _out_shape(t))


def _linear(t, a):
    x = _tensor(t, a["input"], "input").name
    w = _tensor(t, a["weight"], "weight").name
    b = "" if a["bias"] is None else f", {_tensor(t, a['bias'], 'bias').name}"
    return t.emit(f"linear({x}, {w}{b})", _out_shape(t))


# --- reductions ------------------------------------------------------------


def _dims_text(dims):
    if dims is None:
        return ""
    if isinstance(dims, int):
        return f", dim={dims}"
    dims = list(dims)
    if not dims:
        return ""
    return f", dim={dims[0]}" if len(dims) == 1 else f", dim={dims}"


def _keepdim(a):
    return ", keepdim=true" if a.get("keepdim") else ""


def _check_dtype(t, a):
    if a.get("dtype") not in (None, torch.float32):
        raise t.unsupported(f"a reduction to {a['dtype']}; .sinter reduces "
                            "float32 to float32")


def _reduction(fn):
    def handler(t, a):
        _check_dtype(t, a)
        x = _tensor(t, a["self"], "input").name
        dims = a.get("dim")
        return t.emit(f"{fn}({x}{_dims_text(dims)}{_keepdim(a)})",
                      _out_shape(t))
    return handler


def _arg_reduction(fn):
    def handler(t, a):
        if a["dim"] is None:
            raise t.unsupported(f"{fn} over every dim (dim=None); .sinter's "
                                f"{fn} needs a dim (flatten first)")
        x = _tensor(t, a["self"], "input").name
        return t.emit(f"{fn}({x}, dim={a['dim']}{_keepdim(a)})",
                      _out_shape(t), "i64")
    return handler


def _max_min_dim(fn):
    def handler(t, a):
        x = _tensor(t, a["self"], "input").name
        suffix = f", dim={a['dim']}{_keepdim(a)})"
        return Multi([(f"{fn}({x}{suffix}", "f32"),
                      (f"arg{fn}({x}{suffix}", "i64")])
    return handler


def _correction(t, a):
    if "correction" in a:
        correction = 1 if a["correction"] is None else a["correction"]
    else:
        correction = 1 if a.get("unbiased", True) else 0
    if correction not in (0, 1):
        raise t.unsupported(f"correction={correction!r}; .sinter's var is "
                            "biased (0) or unbiased (1)")
    return "true" if correction == 1 else "false"


def _var(fn):
    def handler(t, a):
        x = _tensor(t, a["self"], "input").name
        unbiased = _correction(t, a)
        expr = (f"var({x}{_dims_text(a.get('dim'))}, unbiased={unbiased}"
                f"{_keepdim(a)})")
        return t.emit(expr if fn == "var" else f"sqrt({expr})", _out_shape(t))
    return handler


def _softmax(fn):
    def handler(t, a):
        if a.get("half_to_float") or a.get("dtype") not in (None,
                                                            torch.float32):
            raise t.unsupported(f"{fn} with a dtype change")
        x = _tensor(t, a["self"], "input").name
        return t.emit(f"{fn}({x}, dim={a['dim']})", _out_shape(t))
    return handler


# --- normalization ---------------------------------------------------------


def _optional(t, a, key, as_name=None):
    if a.get(key) is None:
        return ""
    return f", {as_name or key}={_tensor(t, a[key], key).name}"


def _layer_norm_expr(t, a):
    x = _tensor(t, a["input"], "input").name
    shape = list(a["normalized_shape"])
    return (f"layer_norm({x}, {shape}{_optional(t, a, 'weight')}"
            f"{_optional(t, a, 'bias')}, eps={_number(t, a['eps'], 'eps')})")


def _group_norm_expr(t, a, groups):
    x = _tensor(t, a["input"], "input").name
    return (f"group_norm({x}, num_groups={groups}"
            f"{_optional(t, a, 'weight')}{_optional(t, a, 'bias')}, "
            f"eps={_number(t, a['eps'], 'eps')})")


def _batch_norm_expr(t, a, training):
    x = _tensor(t, a["input"], "input").name
    eps = _number(t, a["eps"], "eps")
    stats = ""
    if not training:
        if a.get("running_mean") is None or a.get("running_var") is None:
            raise t.unsupported("inference batch_norm without running stats")
        stats = (_optional(t, a, "running_mean") +
                 _optional(t, a, "running_var"))
    return (f"batch_norm({x}{stats}{_optional(t, a, 'weight')}"
            f"{_optional(t, a, 'bias')}, "
            f"training={'true' if training else 'false'}, eps={eps})")


_STATS = "the saved mean/rstd of a norm (used by autograd; .sinter computes " \
         "only the normalized output)"


def _norm_multi(expr, count):
    return Multi([(expr, "f32")] + [(None, _STATS)] * (count - 1))


def _batch_norm_functional(t, a):
    expr = _batch_norm_expr(t, a, bool(a["training"]))
    running = ("the updated running stats (PyTorch writes them back into the "
               "module's buffers; .sinter models do not update state)")
    return Multi([(expr, "f32"), (None, _STATS), (None, _STATS),
                  (None, running), (None, running)])


def _instance_norm(t, a):
    if not a["use_input_stats"]:
        raise t.unsupported("instance_norm with use_input_stats=False")
    x = _tensor(t, a["input"], "input").name
    eps = _number(t, a["eps"], "eps")
    return t.emit(f"instance_norm({x}{_optional(t, a, 'weight')}"
                  f"{_optional(t, a, 'bias')}, eps={eps})", _out_shape(t))


# --- shapes and identities -------------------------------------------------


def _reshape(t, a):
    source = a["self"]
    value = _tensor(t, source, "input")
    out = _out_shape(t)
    if tuple(out) == tuple(value.shape):
        return value
    sizes = [-1 if s is None else s for s in out]
    if sizes.count(-1) > 1:
        raise t.unsupported(f"a reshape to {format_type(out, 'f32')} has "
                            "more than one size that is an expression of "
                            "the symbolic dims; .sinter can infer only one")
    text = ", ".join(str(s) for s in sizes)
    return t.emit(f"reshape({value.name}, [{text}])", out)


def _permute_value(t, source, perm):
    value = _tensor(t, source, "input")
    rank = len(value.shape)
    perm = [p % rank for p in perm] if rank else []
    out = _out_shape(t)
    if perm == list(range(rank)):
        return value
    if rank == 2:
        name = value.name[:-2] if value.name.endswith(".T") else \
            f"{value.name}.T"
        return Value(name, out)
    # A permutation as swaps: bring the right dim to each place in turn.
    current, text = list(range(rank)), value.name
    for position in range(rank):
        where = current.index(perm[position])
        if where != position:
            current[position], current[where] = current[where], current[
                position]
            text = f"transpose({text}, {position}, {where})"
    return t.emit(text, out)


def _permute(t, a):
    return _permute_value(t, a["self"], list(a["dims"]))


def _transpose(t, a):
    rank = len(t.values[a["self"]].shape)
    perm = list(range(rank))
    if rank:
        d0, d1 = a["dim0"] % rank, a["dim1"] % rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permute_value(t, a["self"], perm)


def _t(t, a):
    return _permute_value(t, a["self"], [1, 0] if len(
        t.values[a["self"]].shape) == 2 else [0])


def _expand(t, a):
    value = _tensor(t, a["self"], "input")
    return Value(value.name, value.shape, value.dtype, value.literal, True)


def _alias(t, a):
    source = a.get("self", a.get("input"))
    return t.values[source]


def _dropout(t, a):
    if a["train"]:
        raise t.unsupported("dropout in training mode (random); call "
                            "module.eval() first")
    return t.values[a["input"]]


def _to_copy(t, a):
    dtype = a.get("dtype")
    if dtype not in (None, torch.float32):
        raise t.unsupported(f"a conversion to {dtype}; .sinter models are "
                            "float32")
    return t.values[a["self"]]


def _full(t, value):
    return Value(_number(t, value, "fill value"), _out_shape(t), "f32", True)


def _pool_expr(t, a, fn):
    """Pooling with kernel = stride as a reshape that splits each pooled dim
    into (windows, kernel) and a reduction over the kernel dims."""
    kernel = list(a["kernel_size"])
    stride = list(a["stride"]) or kernel
    padding = list(a["padding"]) if not isinstance(a["padding"], int) else [
        a["padding"]]
    if stride != kernel:
        raise t.unsupported(f"pooling with stride {stride} != kernel "
                            f"{kernel}; .sinter pools only windows that tile "
                            "the input (kernel = stride)")
    if any(padding) or any(d != 1 for d in a.get("dilation") or [1]):
        raise t.unsupported("pooling with padding or dilation")
    if a.get("divisor_override") is not None:
        raise t.unsupported("avg_pool with divisor_override")
    value = _tensor(t, a["self"], "input")
    shape = list(value.shape)
    pooled = shape[len(shape) - len(kernel):]
    split, dims = [], []
    for size, k in zip(pooled, kernel):
        if k == 1:
            split.append(size)
            continue
        if not isinstance(size, int) or size % k:
            raise t.unsupported(f"pooling a dim of size {size} with kernel "
                                f"{k}: windows must tile the dim exactly")
        split += [size // k, k]
        dims.append(len(shape) - len(kernel) + len(split) - 1)
    if not dims:
        return value.name
    lead = ["-1" if s is None else str(s)
            for s in shape[:len(shape) - len(kernel)]]
    reshaped = f"reshape({value.name}, [{', '.join(lead + [str(s) for s in split])}])"
    return f"{fn}({reshaped}{_dims_text(dims)})"


def _max_pool(t, a):
    return Multi([(_pool_expr(t, a, "max"), "f32"),
                  (None, "the indices of max pooling (.sinter returns the "
                   "maxima only)")])


def _avg_pool(t, a):
    return t.emit(_pool_expr(t, a, "mean"), _out_shape(t))


def _getitem(t, node):
    source, index = node.args
    multi = t.values[source]
    if not isinstance(multi, Multi):
        raise t.unsupported("an index into a value with one result")
    expr, second = multi.results[index]
    if expr is None:
        t.node = source
        raise t.unsupported(f"result {index} is used: {second}")
    return t.emit(expr, t.shape_of(node), second, name=expr.split("(")[0])


_HANDLERS = {
    # elementwise, binary
    "aten.add.Tensor": _binary("+"), "aten.add.Scalar": _binary("+"),
    "aten.sub.Tensor": _binary("-"), "aten.sub.Scalar": _binary("-"),
    "aten.rsub.Scalar": _rsub, "aten.rsub.Tensor": _rsub,
    "aten.mul.Tensor": _binary("*"), "aten.mul.Scalar": _binary("*"),
    "aten.div.Tensor": _binary("/"), "aten.div.Scalar": _binary("/"),
    "aten.pow.Tensor_Scalar": _call("pow"),
    "aten.pow.Tensor_Tensor": _call("pow"),
    "aten.maximum.default": _call("maximum"),
    "aten.minimum.default": _call("minimum"),
    # elementwise, unary
    "aten.neg.default": _neg, "aten.reciprocal.default": _reciprocal,
    "aten.square.default": _square,
    "aten.leaky_relu.default": _unary("leaky_relu",
                                      ("negative_slope", "negative_slope")),
    "aten.gelu.default": _gelu,
    "aten.softplus.default": _unary("softplus", ("beta", "beta"),
                                    ("threshold", "threshold")),
    "aten.elu.default": _elu,
    "aten.hardtanh.default": _hardtanh, "aten.relu6.default": _hardtanh,
    "aten.clamp.default": _clamp, "aten.clamp_min.default": _clamp,
    "aten.clamp_max.default": _clamp, "aten.clamp.Tensor": _clamp_tensor,
    "aten.clamp_min.Tensor": _clamp_tensor,
    "aten.clamp_max.Tensor": _clamp_tensor,
    # linear algebra
    "aten.mm.default": _matmul, "aten.bmm.default": _matmul,
    "aten.matmul.default": _matmul, "aten.addmm.default": _addmm,
    "aten.linear.default": _linear,
    # reductions
    "aten.sum.dim_IntList": _reduction("sum"),
    "aten.sum.default": _reduction("sum"),
    "aten.mean.dim": _reduction("mean"), "aten.mean.default":
    _reduction("mean"),
    "aten.amax.default": _reduction("max"),
    "aten.amin.default": _reduction("min"),
    "aten.max.default": _reduction("max"), "aten.min.default":
    _reduction("min"),
    "aten.max.dim": _max_min_dim("max"), "aten.min.dim": _max_min_dim("min"),
    "aten.prod.dim_int": _reduction("prod"),
    "aten.prod.default": _reduction("prod"),
    "aten.logsumexp.default": _reduction("logsumexp"),
    "aten.argmax.default": _arg_reduction("argmax"),
    "aten.argmin.default": _arg_reduction("argmin"),
    "aten.var.correction": _var("var"), "aten.var.dim": _var("var"),
    "aten.std.correction": _var("std"), "aten.std.dim": _var("std"),
    "aten._softmax.default": _softmax("softmax"),
    "aten.softmax.int": _softmax("softmax"),
    "aten._log_softmax.default": _softmax("log_softmax"),
    "aten.log_softmax.int": _softmax("log_softmax"),
    # normalization
    "aten.layer_norm.default":
    lambda t, a: t.emit(_layer_norm_expr(t, a), _out_shape(t)),
    "aten.native_layer_norm.default":
    lambda t, a: _norm_multi(_layer_norm_expr(t, a), 3),
    "aten.group_norm.default": lambda t, a: t.emit(
        _group_norm_expr(t, a, a["num_groups"]), _out_shape(t)),
    "aten.native_group_norm.default":
    lambda t, a: _norm_multi(_group_norm_expr(t, a, a["group"]), 3),
    "aten._native_batch_norm_legit_no_training.default":
    lambda t, a: _norm_multi(_batch_norm_expr(t, a, False), 3),
    "aten._native_batch_norm_legit_functional.default":
    _batch_norm_functional,
    "aten._native_batch_norm_legit.no_stats":
    lambda t, a: _norm_multi(_batch_norm_expr(t, a, True), 3),
    "aten.instance_norm.default": _instance_norm,
    # shapes and identities
    "aten.view.default": _reshape, "aten._unsafe_view.default": _reshape,
    "aten.reshape.default": _reshape, "aten.unsqueeze.default": _reshape,
    "aten.squeeze.dim": _reshape, "aten.squeeze.dims": _reshape,
    "aten.squeeze.default": _reshape, "aten.flatten.using_ints": _reshape,
    "aten.permute.default": _permute, "aten.transpose.int": _transpose,
    "aten.t.default": _t, "aten.expand.default": _expand,
    "aten.clone.default": _alias, "aten.alias.default": _alias,
    "aten.detach.default": _alias, "aten.lift_fresh_copy.default": _alias,
    "aten.contiguous.default": _alias, "aten.dropout.default": _dropout,
    "aten._to_copy.default": _to_copy,
    "aten.max_pool2d_with_indices.default": _max_pool,
    "aten.avg_pool2d.default": _avg_pool,
    # constants
    "aten.full.default": lambda t, a: _full(t, a["fill_value"]),
    "aten.full_like.default": lambda t, a: _full(t, a["fill_value"]),
    "aten.scalar_tensor.default": lambda t, a: _full(t, a["s"]),
    "aten.zeros_like.default": lambda t, a: _full(t, 0.0),
    "aten.ones_like.default": lambda t, a: _full(t, 1.0),
    "aten.zeros.default": lambda t, a: _full(t, 0.0),
    "aten.ones.default": lambda t, a: _full(t, 1.0),
}

for _name in ("abs", "exp", "log", "sqrt", "rsqrt", "relu", "sigmoid", "tanh",
              "silu", "mish", "selu", "hardsigmoid", "hardswish"):
    _HANDLERS[f"aten.{_name}.default"] = _unary(_name)

#: Every ATen op (overload) the exporter translates.
SUPPORTED_OPS = sorted(_HANDLERS)

#: Why some ops that torch.export produces are not supported.
_REASONS = {
    "aten.where.self": ".sinter has no select op (and no boolean tensors)",
    "aten.native_dropout.default": "dropout in training mode (random); call "
                                   "module.eval() first",
    "aten.cumsum.default": ".sinter has no scan (cumulative) op",
    "aten.convolution.default": ".sinter has no convolution",
    "aten.embedding.default": ".sinter has no gather (indexing) op",
    "aten.index.Tensor": ".sinter has no gather (indexing) op",
    "aten.slice.Tensor": ".sinter has no slicing op",
    "aten.cat.default": ".sinter has no concatenation op",
    "aten.sin.default": ".sinter has no trigonometric ops",
    "aten.cos.default": ".sinter has no trigonometric ops",
    "aten.log1p.default": ".sinter has no log1p (log(1 + x) would lose "
                          "accuracy near 0)",
    "aten.expm1.default": ".sinter has no expm1",
    "aten.erf.default": ".sinter has no erf (gelu has it inside)",
    "aten.sign.default": ".sinter has no sign",
}


def translate(t, node):
    """The value of call_function `node` (see the module's doc)."""
    val = node.meta.get("val")
    if node.target is operator.getitem:
        return _getitem(t, node)
    if isinstance(val, (int, torch.SymInt)):
        return SYMBOLIC
    name = op_name(node)
    handler = _HANDLERS.get(name)
    if handler is None:
        if name.startswith(("aten.eq", "aten.ne", "aten.gt", "aten.ge",
                            "aten.lt", "aten.le", "aten.logical")):
            raise t.unsupported(".sinter has no comparisons (no boolean "
                                "tensors)")
        raise t.unsupported(_REASONS.get(
            name, "no .sinter op or builtin computes it"))
    if isinstance(val, torch.Tensor) and val.dtype not in (torch.float32,
                                                            torch.int64):
        raise t.unsupported(f"its result is {val.dtype}; .sinter computes "
                            "float32 (and int64 indices)")
    return handler(t, _bind(node))
