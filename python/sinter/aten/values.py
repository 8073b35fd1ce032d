"""The values of a translation and the helpers every handler uses.

A handler returns a `Value` (a .sinter name, an inline expression such as
`w.T`, or a number literal that fills a shape), or a `Multi` for ops with
several results. The operand helpers check what .sinter can take: float32
tensors, numbers, constants that broadcast into their consumer, and
expands that broadcasting undoes.
"""

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


#: The dtype of a comparison's result: a bool tensor in PyTorch, a 0/1
#: float mask in .sinter (elementwise arithmetic and where() take it).
MASK = "mask"

#: Marks integer (SymInt) nodes: shape arithmetic torch.export records for
#: view sizes; reshapes read their sizes from the result's shape instead.
SYMBOLIC = Value("<symbolic size>", ())



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


def bind(node):
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


def format_number(value):
    """A .sinter number literal for a Python scalar."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if value != value:
        raise ValueError(f"{value} has no .sinter literal")
    # Infinities (a mask's fill before a softmax) as math.inf, which the
    # .sinter frontend folds.
    if value in (float("inf"), float("-inf")):
        return "math.inf" if value > 0 else "-math.inf"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value)}.0"
    return repr(value)


def number(t, value, what):
    """The literal of a number argument; refused (NaN) with
    `what` named."""
    try:
        return format_number(value)
    except ValueError as error:
        raise t.unsupported(f"{what}: {error}") from None


def tensor(t, arg, what="operand"):
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
    if value.dtype == MASK:
        raise t.unsupported(f"the {what} is a comparison's bool result, "
                            "which .sinter holds as a 0/1 float mask for "
                            "elementwise ops and where(); convert it with "
                            ".float() first")
    if value.dtype != "f32":
        raise t.unsupported(f"the {what} is {value.dtype}; .sinter computes "
                            "on float32 only (indices can only be returned)")
    return value


def out_shape(t):
    return t.shape_of(t.node)


def broadcast(a, b):
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


def operand(t, arg, out_shape, what):
    """An operand of an elementwise op: (text, shape). Numbers and constant
    tensors that broadcast into the result become number literals."""
    if not isinstance(arg, torch.fx.Node):
        return number(t, arg, what), ()
    value = t.values[arg]
    if value.literal:
        if broadcast(value.shape, out_shape) != tuple(out_shape):
            raise t.unsupported(f"the constant {what} would enlarge the "
                                "result; .sinter has no full()")
        return value.name, ()
    if value.broadcast_only or value.dtype == MASK:
        # A comparison's bool result is a 0/1 mask in .sinter: arithmetic
        # on it promotes to float as PyTorch does (the result dtype check
        # refuses bool results such as bool + bool, a logical or).
        return value.name, value.shape
    return tensor(t, arg, what).name, value.shape


def elementwise(t, args, render, dtype="f32"):
    """An elementwise op of `args`: checks that broadcasting the operands
    as written (expands undone) gives the result's shape; the result has
    `dtype`."""
    out = out_shape(t)
    operands = [operand(t, a, out, f"operand {i}")
                for i, a in enumerate(args)]
    shape = ()
    for _, operand_shape in operands:
        shape = broadcast(shape, operand_shape) if shape is not None else None
    if shape != tuple(out):
        raise t.unsupported(
            "the operands broadcast to "
            f"{'nothing' if shape is None else format_type(shape, 'f32')}, "
            f"not to the result's {format_type(out, 'f32')} (an expand "
            "that broadcasting does not express)")
    return t.emit(render(*[text for text, _ in operands]), out, dtype)


def scaled(text, factor):
    return text if factor in (1, 1.0) else f"{text} * {factor!r}"


def dims_text(dims):
    if dims is None:
        return ""
    if isinstance(dims, int):
        return f", dim={dims}"
    dims = list(dims)
    if not dims:
        return ""
    return f", dim={dims[0]}" if len(dims) == 1 else f", dim={dims}"
