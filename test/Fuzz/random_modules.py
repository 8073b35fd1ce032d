#!/usr/bin/env python3
# ===- random_modules.py - Seeded generator of random sinter modules -------===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
# ===----------------------------------------------------------------------===#
#
# Generates random, verifier-valid modules in the sinter dialect for the IR
# fuzzer (irfuzz.py). Wider than the differential test's generator
# (test/Differential/random_models.py), whose type helpers it shares:
#   - values of rank 1 to 4, static dims of 1 and odd sizes, and up to two
#     symbolic dims (B, T) in any position, the same symbol in several;
#   - every op of the dialect: constants (splat and dense), transpose,
#     reshape, matmuls with transposed and batched operands (rank 3, either
#     side broadcast), computed matmul operands, every elementwise op with
#     broadcasting in both directions, every reduction (argmax/argmin too)
#     over any dims, softmax/log_softmax over any dim, every norm, and
#     sinter.kernel regions written by hand;
#   - several results, results that are inputs or params or repeat each
#     other, unused params and inputs;
#   - with `hostile`, names that C, C++, CUDA, Python or the runtime reserve
#     (keywords, runtime names, leading double underscores), and on half of
#     those seeds names that are not identifiers (quotes, newlines, spaces,
#     comment closers, paths, non-ASCII): the name policy of issue 19
#     (sinter/Support/Names.h) renames the first and refuses the second.
# Values are kept in the domain of each op (log, sqrt, rsqrt, pow and div see
# positive inputs bounded away from 0; exp sees a tanh), so that the f32 and
# f64 interpreter runs of a module are comparable. The same seed always gives
# the same module.
#
# ===----------------------------------------------------------------------===#

import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "Differential"))
from random_models import BINARY, POSITIVE_UNARY, UNARY  # noqa: E402

REDUCTIONS = ["sum", "mean", "max", "min", "prod", "logsumexp", "var",
              "argmax", "argmin"]
SIZES = [1, 1, 2, 3, 4, 5, 6, 8, 12]
SYMBOLS = ["B", "T"]
# Identifiers that collide with what C, C++, CUDA, Python, the runtime or
# the generated code declare, or that they reserve (a leading double
# underscore): sinterc renames them (sinter/Support/Names.h), so a module
# named only with these compiles.
RESERVED_NAMES = [
    "class", "int", "float", "sinter_rt", "cudaStream_t", "expf", "_", "ctx",
    "stream", "scratch", "n", "i", "x" * 200, "None", "self", "forward",
    "__x", "__init__", "sinter_rt_check_pointer", "import",
]
# Names that are valid in a module but not identifiers (quotes, newlines,
# spaces, comment closers, escapes, non-ASCII): sinterc refuses them at
# their location.
NON_IDENTIFIER_NAMES = [
    "x y", "a\"b", "new\nline", "1x", "a-b", "a.b", "import os",
    "\u00e9t\u00e9", "\\", "*/ int evil; /*", "'''", "${HOME}",
]
# Module names: identifiers that collide with generated names, and names
# that are not identifiers (paths, comment closers).
RESERVED_MODULE_NAMES = ["sinter_rt", "class", "forward", "main", "__m"]
NON_IDENTIFIER_MODULE_NAMES = ["a b", "../up", "x/y", "*/evil", "\\n",
                               "../../escaped"]


def tensor_type(shape, element="f32"):
    dims = "x".join("?" if isinstance(d, str) else str(d) for d in shape)
    return f"tensor<{dims}x{element}>" if shape else f"tensor<{element}>"


def broadcast(a, b):
    """NumPy broadcasting of shapes whose entries are sizes or symbols."""
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + list(a)
    b = [1] * (rank - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def attr_string(text):
    """`text` as an MLIR string literal."""
    escaped = "".join(
        "\\\\" if c == "\\" else '\\"' if c == '"' else
        f"\\{ord(c):02X}" if ord(c) < 0x20 else c for c in text)
    return f'"{escaped}"'


class Value:
    def __init__(self, ssa, shape, element="f32"):
        self.ssa = ssa
        self.shape = list(shape)
        self.element = element
        # Zero-mean by construction (a centering norm, x - mean(x)): its sum
        # is rounding noise, which no relative error bound holds.
        self.centered = False

    @property
    def type(self):
        return tensor_type(self.shape, self.element)

    @property
    def rank(self):
        return len(self.shape)


class ModuleBuilder:
    """Writes the body of @forward while tracking value shapes."""

    def __init__(self, rng, hostile_names):
        self.rng = rng
        self.hostile_names = hostile_names
        self.lines = []
        self.arguments = []  # (Value, attrs text)
        self.counter = 0
        self.names = set()
        self.symbols = {s: rng.choice([1, 2, 3, 5]) for s in SYMBOLS}

    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text, shape, element="f32"):
        value = Value(self.fresh(), shape, element)
        self.lines.append(f"    {value.ssa} = {text}")
        return value

    def name(self, default):
        name = default
        if self.hostile_names and self.rng.random() < 0.5:
            name = self.rng.choice(self.hostile_names)
        if name in self.names:
            name += str(len(self.names))
        self.names.add(name)
        return name

    def argument(self, role, shape, init=None):
        index = len(self.arguments)
        name = self.name(("p" if role == "param" else "x") + str(index))
        dim_names = ", ".join(attr_string(d) if isinstance(d, str) else '""'
                              for d in shape)
        attrs = [f"sinter.role = \"{role}\"", f"sinter.name = {attr_string(name)}",
                 f"sinter.dim_names = [{dim_names}]"]
        if init:
            kind, args = init
            attrs.append("sinter.init = {kind = \"%s\", args = [%s]}" % (
                kind, ", ".join(f"{a:.6e}" for a in args)))
        value = Value(f"%arg{index}", shape)
        self.arguments.append((value, "{" + ", ".join(attrs) + "}"))
        return value

    def param(self, shape, init=("uniform", (-1.0, 1.0))):
        return self.argument("param", shape, init)

    def input(self, shape):
        return self.argument("input", shape)

    def constant(self, value, shape=()):
        return self.emit(f"sinter.constant dense<{value:.6e}> : "
                         f"{tensor_type(shape)}", shape)

    def dense_constant(self, shape):
        count = 1
        for d in shape:
            count *= d
        values = [self.rng.choice([-1.5, -0.5, 0.0, 0.25, 1.0, 2.0])
                  for _ in range(count)]

        def nest(values, shape):
            if not shape:
                return f"{values[0]:.6e}"
            step = len(values) // shape[0]
            return "[" + ", ".join(nest(values[i * step:(i + 1) * step],
                                        shape[1:])
                                   for i in range(shape[0])) + "]"
        return self.emit(f"sinter.constant dense<{nest(values, shape)}> : "
                         f"{tensor_type(shape)}", shape)

    # --- ops -------------------------------------------------------------
    def unary(self, op, value, attrs=""):
        return self.emit(f"sinter.{op} {value.ssa}{attrs} : {value.type}",
                         value.shape)

    def binary(self, op, lhs, rhs):
        shape = broadcast(lhs.shape, rhs.shape)
        assert shape is not None, (lhs.shape, rhs.shape)
        return self.emit(f"sinter.{op} {lhs.ssa}, {rhs.ssa} : {lhs.type}, "
                         f"{rhs.type}", shape)

    def positive(self, value):
        """abs(x) + 0.5: bounded away from zero."""
        return self.binary("add", self.unary("abs", value), self.constant(0.5))

    def bounded(self, value):
        """tanh(x): keeps long chains finite."""
        return self.unary("tanh", value)

    def reduction(self, op, value, dims, keepdim, extra=""):
        if keepdim:
            out = [1 if i in dims else d for i, d in enumerate(value.shape)]
        else:
            out = [d for i, d in enumerate(value.shape) if i not in dims]
        kd = " keepdim" if keepdim else ""
        element = "i64" if op in ("argmax", "argmin") else "f32"
        return self.emit(f"sinter.{op} {value.ssa} dims "
                         f"[{', '.join(map(str, dims))}]{kd}{extra} : "
                         f"{value.type}", out, element)

    def reshape(self, value, shape):
        return self.emit(f"sinter.reshape {value.ssa} : {value.type} -> "
                         f"{tensor_type(shape)}", shape)

    def transpose(self, value, perm):
        return self.emit(f"sinter.transpose {value.ssa} perm "
                         f"[{', '.join(map(str, perm))}] : {value.type}",
                         [value.shape[p] for p in perm])

    def size(self, dim):
        return self.symbols[dim] if isinstance(dim, str) else dim


# --- random pieces ---------------------------------------------------------

def random_shape(b, rank=None):
    rng = b.rng
    rank = rank or rng.choice([1, 2, 2, 3, 3, 4])
    shape = [rng.choice(SIZES) for _ in range(rank)]
    for symbol in SYMBOLS:
        if rng.random() < 0.4:
            shape[rng.randrange(rank)] = symbol
    return shape


def random_unary(b, value):
    rng = b.rng
    op = rng.choice(UNARY + POSITIVE_UNARY)
    if op in POSITIVE_UNARY:
        return b.unary(op, b.positive(value))
    if op in ("exp", "exp2"):
        return b.unary(op, b.bounded(value))
    if op == "gelu_tanh":
        return b.unary("gelu", value, " approximate = tanh")
    attrs = {
        "leaky_relu": lambda: f" alpha = {rng.choice([0.01, 0.2]):.6e}",
        "softplus": lambda: rng.choice(
            ["", " beta = 2.000000e+00 threshold = 1.000000e+00"]),
        "elu": lambda: rng.choice(["", " alpha = 5.000000e-01"]),
        "hardtanh": lambda: rng.choice(["", " min = -5.000000e-01",
                                         " max = 2.000000e+00"]),
        "clamp": lambda: rng.choice([" min = -2.500000e-01",
                                     " max = 5.000000e-01",
                                     " min = -1.000000e+00 max = 1.000000e+00"]),
    }.get(op, lambda: "")()
    return b.unary(op, value, attrs)


def broadcast_partner(b, value, live):
    """Another operand that broadcasts with `value` (either direction)."""
    rng = b.rng
    compatible = [v for v in live if v is not value and v.element == "f32"
                  and broadcast(value.shape, v.shape) is not None]
    choice = rng.random()
    if compatible and choice < 0.35:
        return rng.choice(compatible)
    if choice < 0.5:
        return b.constant(rng.choice([2.0, 0.5, -1.5, 3.0, 1.0, 0.0, -0.0]))
    # A param or constant over a suffix of the dims, with some dims 1.
    suffix = value.shape[rng.randrange(value.rank + 1):] if value.rank else []
    shape = [1 if isinstance(d, str) or rng.random() < 0.3 else d
             for d in suffix]
    if rng.random() < 0.2:
        # The other side broadcasts: a size-1 dim of `value` meets a size.
        shape = [rng.choice([2, 3]) if d == 1 and not isinstance(d, str)
                 else d for d in shape]
        if broadcast(value.shape, shape) is None:
            shape = [1] * len(shape)
    if rng.random() < 0.3 and shape and all(
            isinstance(d, int) for d in shape) and len(shape) <= 2:
        return b.dense_constant(shape)
    return b.param(shape, ("normal", (0.0, 1.0)))


def random_binary(b, value, live):
    rng = b.rng
    op = rng.choice(BINARY)
    other = broadcast_partner(b, value, live)
    lhs, rhs = (value, other) if rng.random() < 0.5 else (other, value)
    if op == "div":
        rhs = b.positive(rhs)
    if op == "pow":
        lhs = b.positive(lhs)
        rhs = b.constant(rng.choice([2.0, 0.5, 3.0, -1.0, 1.5]))
    if op in ("mul", "pow"):
        lhs = b.bounded(lhs)
    return b.binary(op, lhs, rhs)


def random_reduction(b, value):
    rng = b.rng
    if not value.rank:
        return value
    op = rng.choice(REDUCTIONS)
    dims = sorted(rng.sample(range(value.rank),
                             rng.randint(1, value.rank)))
    keepdim = rng.random() < 0.6
    extra = ""
    if op == "prod":
        value = b.binary("add", b.unary("sigmoid", value), b.constant(0.5))
    if op in ("sum", "mean") and value.centered:
        # The sum of a zero-mean value cancels to rounding noise, whose f32
        # error against f64 is unbounded (seed 7328: a sum of a group_norm);
        # shifted by 1, the sum is the element count plus a small term.
        value = b.binary("add", value, b.constant(1.0))
    if op == "var":
        count = 1
        for d in dims:
            count *= b.size(value.shape[d])
        extra = rng.choice(["", " unbiased = false"])
        if count < 2:
            # The unbiased variance of one element is NaN (PyTorch too).
            extra = " unbiased = false"
    if op in ("argmax", "argmin"):
        # Indices: a model result, never an operand of float ops.
        dims = [rng.randrange(value.rank)]
        b.index_results.append(b.reduction(op, value, dims, keepdim))
        return value
    reduced = b.reduction(op, value, dims, keepdim, extra)
    if keepdim and rng.random() < 0.6:
        combine = rng.choice(["sub", "mul", "add"])
        combined = b.binary(combine, value, reduced)
        combined.centered = combine == "sub" and op == "mean"
        return combined
    return reduced


def random_softmax(b, value):
    if not value.rank:
        return value
    kind = b.rng.choice(["softmax", "log_softmax"])
    dim = b.rng.randrange(value.rank)
    return b.emit(f"sinter.{kind} {value.ssa} dim {dim} : {value.type}",
                  value.shape)


def affine_operands(b, shape, names):
    """Optional weight/bias params of `shape`, as the norms' operand text."""
    text = ""
    for name in names:
        if b.rng.random() < 0.6:
            init = ("normal", (1.0, 0.1)) if name == "weight" else \
                ("normal", (0.0, 0.1))
            p = b.param(shape, init)
            text += f" {name}({p.ssa} : {p.type})"
    return text


def centered(value):
    """`value`, marked zero-mean (the output of a centering norm)."""
    value.centered = True
    return value


def random_norm(b, value):
    rng = b.rng
    shape = value.shape
    kind = rng.choice(["layer_norm", "rms_norm", "group_norm", "batch_norm",
                       "batch_norm_inference", "instance_norm"])
    eps = rng.choice(["", " eps = 1.000000e-03"])
    if kind in ("layer_norm", "rms_norm"):
        count = rng.randint(1, value.rank) if value.rank else 0
        normalized = shape[value.rank - count:]
        if not count or any(isinstance(d, str) for d in normalized):
            return value
        affine = affine_operands(b, normalized, ["weight", "bias"]
                                 if kind == "layer_norm" else ["weight"])
        n = ", ".join(map(str, normalized))
        result = b.emit(f"sinter.{kind} {value.ssa}{affine} shape [{n}]{eps} "
                        f": {value.type}", shape)
        return centered(result) if kind == "layer_norm" else result
    if value.rank < 2 or isinstance(shape[1], str):
        return value
    channels = shape[1]
    if kind == "group_norm":
        groups = rng.choice([g for g in range(1, channels + 1)
                             if channels % g == 0])
        affine = affine_operands(b, [channels], ["weight", "bias"])
        return centered(b.emit(f"sinter.group_norm {value.ssa} groups "
                               f"{groups}{affine}{eps} : {value.type}", shape))
    if kind == "instance_norm":
        if value.rank < 3:
            return value
        affine = affine_operands(b, [channels], ["weight", "bias"])
        return centered(b.emit(f"sinter.instance_norm {value.ssa}{affine}"
                               f"{eps} : {value.type}", shape))
    count = 1
    for i, d in enumerate(shape):
        if i != 1:
            count *= b.size(d)
    if kind == "batch_norm" and count >= 2:
        affine = affine_operands(b, [channels], ["weight", "bias"])
        return centered(b.emit(f"sinter.batch_norm {value.ssa}{affine} "
                               f"training{eps} : {value.type}", shape))
    mean = b.param([channels], ("normal", (0.0, 0.5)))
    var = b.param([channels], ("uniform", (0.5, 1.5)))
    affine = affine_operands(b, [channels], ["weight", "bias"])
    return b.emit(f"sinter.batch_norm {value.ssa} mean({mean.ssa} : "
                  f"{mean.type}) var({var.ssa} : {var.type}){affine}{eps} : "
                  f"{value.type}", shape)


def random_matmul(b, value, live):
    """value @ W (or W @ value), transposed and batched at random."""
    rng = b.rng
    if value.rank not in (2, 3) or isinstance(value.shape[-1], str):
        return value
    k = value.shape[-1]
    n = rng.choice([1, 2, 3, 5, 8])
    batch = value.shape[0] if value.rank == 3 else None
    # The other operand: a param, or a computed value (a tanh of one).
    rhs_shape = [k, n]
    if batch is not None and rng.random() < 0.4 and not isinstance(batch, str):
        rhs_shape = [rng.choice([1, batch]), k, n]
    elif batch is None and rng.random() < 0.2:
        rhs_shape = [rng.choice([1, 2]), k, n]
    transpose_b = rng.random() < 0.5
    if transpose_b:
        rhs_shape[-1], rhs_shape[-2] = rhs_shape[-2], rhs_shape[-1]
    rhs = b.param(rhs_shape, ("linear_default", (float(k),)))
    if rng.random() < 0.3:
        rhs = b.bounded(rhs)  # a computed operand
    lhs = value
    transpose_a = rng.random() < 0.3
    if transpose_a:
        perm = list(range(value.rank))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        lhs = b.transpose(value, perm)
    flags = (" transpose_a" if transpose_a else "") + \
        (" transpose_b" if transpose_b else "")
    lhs_rows = value.shape[-2]
    lead = broadcast(value.shape[:-2], rhs_shape[:-2])
    result = lead + [lhs_rows, n]
    return b.emit(f"sinter.matmul {lhs.ssa}, {rhs.ssa}{flags} : {lhs.type}, "
                  f"{rhs.type}", result)


def random_shape_op(b, value):
    rng = b.rng
    if value.rank >= 2 and rng.random() < 0.5:
        perm = list(range(value.rank))
        rng.shuffle(perm)
        return b.transpose(value, perm)
    # A reshape (at most one dynamic dim): merge two adjacent static dims,
    # split one, or add a 1.
    shape = list(value.shape)
    if sum(isinstance(d, str) for d in shape) > 1:
        return value
    choice = rng.random()
    if choice < 0.4 and value.rank >= 2:
        i = rng.randrange(value.rank - 1)
        if not isinstance(shape[i], str) and not isinstance(shape[i + 1], str):
            return b.reshape(value, shape[:i] + [shape[i] * shape[i + 1]] +
                             shape[i + 2:])
    if choice < 0.7:
        for i, d in enumerate(shape):
            if isinstance(d, int) and d % 2 == 0 and value.rank < 4:
                return b.reshape(value, shape[:i] + [2, d // 2] +
                                 shape[i + 1:])
    if value.rank < 4:
        i = rng.randrange(value.rank + 1)
        return b.reshape(value, shape[:i] + [1] + shape[i:])
    return value


def random_kernel(b, value, live):
    """A hand-written pointwise sinter.kernel around one or two ops."""
    other = broadcast_partner(b, value, live)
    shape = broadcast(value.shape, other.shape)
    result = Value(b.fresh(), shape)
    inner = b.rng.choice(["add", "mul", "maximum"])
    b.lines.append(
        f"    {result.ssa} = sinter.kernel pointwise({value.ssa}, {other.ssa})"
        f" : ({value.type}, {other.type}) -> {result.type} {{\n"
        f"    ^bb0(%k0: {value.type}, %k1: {other.type}):\n"
        f"      %k2 = sinter.{inner} %k0, %k1 : {value.type}, {other.type}\n"
        f"      %k3 = sinter.tanh %k2 : {result.type}\n"
        f"      sinter.yield %k3 : {result.type}\n"
        f"    }}")
    return result


def generate(seed, hostile=False):
    """Returns (module name, MLIR text) of the module of `seed`; `hostile`
    names its arguments, results and module with RESERVED_NAMES, and on
    every other such seed with NON_IDENTIFIER_NAMES too."""
    rng = random.Random(seed)
    names, module_names = RESERVED_NAMES, RESERVED_MODULE_NAMES
    if hostile and rng.random() < 0.5:
        names = names + NON_IDENTIFIER_NAMES
        module_names = module_names + NON_IDENTIFIER_MODULE_NAMES
    b = ModuleBuilder(rng, names if hostile else [])
    b.index_results = []
    name = f"fuzz_{seed}"
    if hostile and rng.random() < 0.5:
        name = rng.choice(module_names)
    live = [b.input(random_shape(b)) for _ in range(rng.randint(1, 3))]
    for _ in range(rng.randint(0, 2)):
        b.param(random_shape(b, rng.randint(1, 3)) if rng.random() < 0.1
                else [rng.choice(SIZES)])  # unused, some symbolic
    for _ in range(rng.randint(1, 10)):
        value = rng.choice(live[-3:])
        kind = rng.choices(
            ["unary", "binary", "reduction", "softmax", "norm", "matmul",
             "shape", "constant", "kernel"],
            [5, 5, 3, 2, 3, 3, 2, 1, 1])[0]
        if kind == "unary":
            result = random_unary(b, value)
        elif kind == "binary":
            result = random_binary(b, value, live)
        elif kind == "reduction":
            result = random_reduction(b, value)
        elif kind == "softmax":
            result = random_softmax(b, value)
        elif kind == "norm":
            result = random_norm(b, value)
        elif kind == "matmul":
            result = random_matmul(b, value, live)
        elif kind == "shape":
            result = random_shape_op(b, value)
        elif kind == "constant":
            result = b.binary("add", value, b.constant(
                rng.choice([0.0, 1.0, -2.0]), [1] * rng.randint(0, value.rank)))
        else:
            result = random_kernel(b, value, live)
        live.append(result)

    results = [live[-1]]
    candidates = live[:-1] + [a for a, _ in b.arguments] + b.index_results
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        results.append(rng.choice(candidates))  # inputs, params, repeats
    results += b.index_results[:1]

    def dim_names(shape):
        return "[" + ", ".join(attr_string(d) if isinstance(d, str) else '""'
                               for d in shape) + "]"
    args = ",\n        ".join(f"{v.ssa}: {v.type} {attrs}"
                              for v, attrs in b.arguments)
    rets = ", ".join(f"{v.type} {{sinter.name = "
                     f"{attr_string(b.name('out' + str(i)))}, "
                     f"sinter.dim_names = {dim_names(v.shape)}}}"
                     for i, v in enumerate(results))
    dims = ", ".join(f"{s} = {n} : i64" for s, n in b.symbols.items())
    body = "\n".join(b.lines)
    text = (f"module @{attr_string(name)} attributes {{sinter.dims = "
            f"{{{dims}}}}} {{\n"
            f"  func.func @forward(\n        {args})\n      -> ({rets}) {{\n"
            f"{body}\n    return {', '.join(v.ssa for v in results)} : "
            f"{', '.join(v.type for v in results)}\n  }}\n}}\n")
    return name, text


if __name__ == "__main__":
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    print(generate(seed, hostile="--hostile" in sys.argv)[1])
