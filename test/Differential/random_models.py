#!/usr/bin/env python3
# ===- random_models.py - Seeded generator of random sinter models ---------===#
#
# Part of the Sinter project: a fusion compiler from model descriptions to
# CUDA, built on MLIR.
#
# ===----------------------------------------------------------------------===#
#
# Generates random but valid model modules in the sinter dialect: chains and
# DAGs over every op (comparisons, select, slices and concats included), with a symbolic batch dim, static dims of 1 and odd
# sizes, params with init hints, and one or two results. The same seed always
# gives the same model. Values are kept in the domain of each op (log, sqrt,
# rsqrt, pow and div see positive inputs bounded away from 0), so that the f32
# and f64 runs of a model are comparable.
#
# ===----------------------------------------------------------------------===#

import random

UNARY = ["neg", "abs", "exp", "tanh", "sigmoid", "relu", "silu", "mish",
         "selu", "hardsigmoid", "hardswish", "softsign", "gelu", "gelu_tanh",
         "leaky_relu", "softplus", "elu", "hardtanh", "clamp", "erf", "expm1",
         "sign", "exp2", "sin", "cos"]
POSITIVE_UNARY = ["log", "sqrt", "rsqrt", "log1p", "log2", "log10"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow"]
REDUCTIONS = ["sum", "mean", "max", "min", "prod", "logsumexp", "var"]
FEATURE_SIZES = [1, 2, 3, 4, 5, 7, 8, 12, 16, 33]


def tensor_type(shape):
    dims = "x".join("?" if d in (None, "T") else str(d) for d in shape)
    return f"tensor<{dims}xf32>" if shape else "tensor<f32>"


def broadcast(a, b):
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
            raise ValueError("not broadcastable")
    return out


class ModelBuilder:
    """Emits the body of @forward while tracking value shapes."""

    def __init__(self, rng, name):
        self.rng = rng
        self.name = name
        self.lines = []
        self.arguments = []  # (ssa, shape, attrs)
        self.counter = 0
        self.params = 0
        self.batch = 1  # the value of the symbolic dim B
        self.second_dim = None  # the value of the symbolic dim T, if used
        # Results beside the last value (argmax/argmin), and the SSA names
        # of the values with i64 elements.
        self.extra_results = []
        self.index_values = set()

    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text, shape):
        ssa = self.fresh()
        self.lines.append(f"    {ssa} = {text}")
        return (ssa, shape)

    def argument(self, role, shape, dim_names, init=None):
        index = len(self.arguments)
        if role == "param":
            self.params += 1
            name = f"p{self.params}"
        else:
            name = f"x{index}"
        attrs = [f'sinter.role = "{role}"', f'sinter.name = "{name}"',
                 "sinter.dim_names = [" +
                 ", ".join(f'"{n}"' for n in dim_names) + "]"]
        if init:
            kind, args = init
            attrs.append("sinter.init = {kind = \"%s\", args = [%s]}" % (
                kind, ", ".join(f"{a:.6e}" for a in args)))
        ssa = f"%arg{index}"
        self.arguments.append((ssa, shape, "{" + ", ".join(attrs) + "}"))
        return (ssa, shape)

    def param(self, shape, init=("uniform", (-1.0, 1.0))):
        return self.argument("param", shape, [""] * len(shape), init)

    def constant(self, value):
        return self.emit(f"sinter.constant dense<{value:.6e}> : tensor<f32>",
                         [])

    # --- ops -------------------------------------------------------------
    def unary(self, op, value, attrs=""):
        ssa, shape = value
        return self.emit(f"sinter.{op} {ssa}{attrs} : {tensor_type(shape)}",
                         shape)

    def binary(self, op, lhs, rhs):
        shape = broadcast(lhs[1], rhs[1])
        return self.emit(
            f"sinter.{op} {lhs[0]}, {rhs[0]} : {tensor_type(lhs[1])}, "
            f"{tensor_type(rhs[1])}", shape)

    def positive(self, value):
        """abs(x) + 0.5: bounded away from zero."""
        return self.binary("add", self.unary("abs", value),
                           self.constant(0.5))

    def reduction(self, op, value, dims, keepdim, extra=""):
        ssa, shape = value
        out = [(1 if keepdim else None) if i in dims else d
               for i, d in enumerate(shape)]
        if not keepdim:
            out = [d for i, d in enumerate(shape) if i not in dims]
        else:
            out = [1 if i in dims else d for i, d in enumerate(shape)]
        kd = " keepdim" if keepdim else ""
        dl = ", ".join(str(d) for d in dims)
        return self.emit(f"sinter.{op} {ssa} dims [{dl}]{kd}{extra} : "
                         f"{tensor_type(shape)}", out)

    def matmul(self, value, n):
        ssa, shape = value
        k = shape[-1]
        w = self.param([n, k], ("linear_default", (float(k),)))
        return self.emit(f"sinter.matmul {ssa}, {w[0]} transpose_b : "
                         f"{tensor_type(shape)}, {tensor_type(w[1])}",
                         shape[:-1] + [n])

    def input_of_shape(self, shape):
        """An input argument of `shape`, or None."""
        for ssa, arg_shape, attrs in self.arguments:
            if arg_shape == shape and 'sinter.role = "input"' in attrs:
                return (ssa, arg_shape)
        return None

    def reshape(self, value, shape):
        return self.emit(f"sinter.reshape {value[0]} : "
                         f"{tensor_type(value[1])} -> {tensor_type(shape)}",
                         shape)


def random_unary(b, value):
    rng = b.rng
    op = rng.choice(UNARY + POSITIVE_UNARY)
    if op in POSITIVE_UNARY:
        return b.unary(op, b.positive(value))
    if op in ("exp", "expm1", "exp2"):
        return b.unary(op, b.unary("tanh", value))
    if op == "gelu_tanh":
        return b.unary("gelu", value, " approximate = tanh")
    attrs = {
        "leaky_relu": lambda: f" alpha = {rng.choice([0.01, 0.2]):.6e}",
        "softplus": lambda: rng.choice(
            ["", f" beta = 2.000000e+00 threshold = 1.000000e+00"]),
        "elu": lambda: rng.choice(["", " alpha = 5.000000e-01"]),
        "hardtanh": lambda: rng.choice(["", " min = -5.000000e-01"]),
        "clamp": lambda: rng.choice([" min = -2.500000e-01",
                                     " max = 5.000000e-01",
                                     " min = -1.000000e+00 max = 1.000000e+00"]),
    }.get(op, lambda: "")()
    return b.unary(op, value, attrs)


def random_operand_like(b, value, live):
    """Another operand that broadcasts against `value`."""
    rng = b.rng
    shape = value[1]
    candidates = [v for v in live if v is not value]
    compatible = []
    for v in candidates:
        try:
            if broadcast(shape, v[1]) == shape:
                compatible.append(v)
        except ValueError:
            pass
    choice = rng.random()
    if compatible and choice < 0.4:
        return rng.choice(compatible)
    if choice < 0.6:
        return b.constant(rng.choice([2.0, 0.5, -1.5, 3.0, 1.0, 0.0]))
    if len(shape) >= 1 and shape[-1] is not None and choice < 0.85:
        return b.param([shape[-1]], ("normal", (0.0, 1.0)))
    return b.param([1] * len(shape[:-1]) + [shape[-1] or 1] if shape else [],
                   ("uniform", (0.5, 1.5)))


def random_binary(b, value, live):
    rng = b.rng
    op = rng.choice(BINARY)
    other = random_operand_like(b, value, live)
    if rng.random() < 0.5:
        lhs, rhs = value, other
    else:
        lhs, rhs = other, value
    if op == "div":
        rhs = b.positive(rhs)
    if op == "pow":
        lhs = b.positive(lhs)
        rhs = b.constant(rng.choice([2.0, 0.5, 3.0, -1.0]))
    result = b.binary(op, lhs, rhs)
    if result[1] != value[1]:
        return value
    return result


def random_reduction(b, value):
    rng = b.rng
    shape = value[1]
    if not shape:
        return value
    op = rng.choice(REDUCTIONS)
    rank = len(shape)
    dims = sorted(rng.sample(range(rank), rng.randint(1, rank)))
    keepdim = rng.random() < 0.7
    extra = ""
    if op == "prod":
        value = b.binary("add", b.unary("sigmoid", value), b.constant(0.5))
    if op == "var":
        extra = rng.choice(["", " unbiased = false"])
        # The unbiased variance of one element is NaN (PyTorch too).
        count = 1
        for d in dims:
            count *= shape[d] if shape[d] is not None else 2
        if count < 2 or any(shape[d] is None for d in dims):
            extra = " unbiased = false"
    reduced = b.reduction(op, value, dims, keepdim, extra)
    if keepdim and rng.random() < 0.6:
        # Broadcast the statistic back over the rows (x - mean(x) etc.).
        return b.binary(rng.choice(["sub", "mul", "add"]), value, reduced)
    return reduced


# Reduced dims of a [B, C, H] or [B, C, H, W] view, by geometry: leading,
# middle ([A, R, C] reducing R), strided (batch_norm over N, H, W) and all.
VOLUME_DIMS = {3: [[0], [1], [0, 2], [0, 1], [0, 1, 2]],
               4: [[1], [1, 2], [0, 2, 3], [1, 3], [0, 2], [0, 1, 2, 3]]}


def random_mask(b, value):
    """where(x > t, x, other) or (x > t) * x: a comparison's 0/1 mask used by
    sinter.select or by arithmetic. The threshold is a constant or a
    normal(0, 1) param, so that the f32 and f64 runs of a model choose alike
    (ties are as unlikely as an exact hit of a random threshold)."""
    rng = b.rng
    shape = value[1]
    pred = rng.choice(["lt", "le", "gt", "ge"])
    if shape and shape[-1] is not None and rng.random() < 0.5:
        threshold = b.param([shape[-1]], ("normal", (0.0, 1.0)))
    else:
        threshold = b.constant(rng.choice([0.0, 0.25, -0.5]))
    mask = b.emit(f"sinter.compare {pred}, {value[0]}, {threshold[0]} : "
                  f"{tensor_type(shape)}, {tensor_type(threshold[1])}", shape)
    if rng.random() < 0.3:
        return b.binary("mul", mask, value)
    other = rng.choice([b.constant(rng.choice([0.0, -1.0])),
                        b.unary("tanh", value)])
    return b.emit(f"sinter.select {mask[0]}, {value[0]}, {other[0]} : "
                  f"{tensor_type(shape)}, {tensor_type(shape)}, "
                  f"{tensor_type(other[1])}", shape)


def random_slices(b, value):
    """Rotates the last dim: concat(x[..., k:], x[..., :k]), or doubles a
    slice back to full size, concat(x[..., :h], x[..., :n-h] * 2), both of
    the same shape, so that what follows composes as before."""
    rng = b.rng
    shape = value[1]
    if not shape or shape[-1] is None or shape[-1] < 2:
        return value
    n, dim = shape[-1], len(shape) - 1

    def slice_of(start, end):
        return b.emit(f"sinter.slice {value[0]} dim {dim} start {start} "
                      f"end {end} : {tensor_type(shape)}",
                      shape[:-1] + [end - start])
    k = rng.randint(1, n - 1)
    first, second = slice_of(k, n), slice_of(0, k)
    if rng.random() < 0.5:
        second = b.binary("mul", second, b.constant(2.0))
    return b.emit(f"sinter.concat {first[0]}, {second[0]} dim {dim} : "
                  f"{tensor_type(first[1])}, {tensor_type(second[1])}", shape)


def random_volume(b, value):
    """Views [B, n] as [B, C, H(, W)] and reduces it over leading, middle,
    strided or all dims (or normalizes it with training batch_norm), then
    returns to [B, n] where the result is full-size. argmax/argmin read an
    input directly (so that the f32 and f64 runs compare the same values) and
    become extra results."""
    rng = b.rng
    shape = value[1]
    if len(shape) != 2 or shape[1] is None:
        return value
    n = shape[1]
    splits = [(c, n // c) for c in (2, 3, 4) if n % c == 0 and n // c >= 2]
    if not splits:
        return value
    c, rest = rng.choice(splits)
    view = [shape[0], c, rest]
    if rest % 2 == 0 and rest >= 4 and rng.random() < 0.5:
        view = [shape[0], c, 2, rest // 2]
    if rng.random() < 0.2:
        rows = b.batch if shape[0] is None else shape[0]
        source = b.reshape(value, view)
        if rows * (n // c) < 2:
            return value
        normed = b.emit(f"sinter.batch_norm {source[0]} training : "
                        f"{tensor_type(view)}", view)
        return b.reshape(normed, shape)
    dims = rng.choice(VOLUME_DIMS[len(view)])
    if rng.random() < 0.2:
        # argmax/argmin over one dim of an input, returned as is.
        raw = b.input_of_shape(shape)
        if raw is None:
            return value
        source = b.reshape(raw, view)
        op = rng.choice(["argmax", "argmin"])
        reduced = b.reduction(op, source, [rng.choice(dims)],
                              rng.random() < 0.5)
        b.index_values.add(reduced[0])
        b.extra_results.append(reduced)
        return value
    source = b.reshape(value, view)
    op = rng.choice(REDUCTIONS)
    extra = ""
    if op == "prod":
        source = b.binary("add", b.unary("sigmoid", source), b.constant(0.5))
    if op in ("sum", "mean"):
        # Positive terms: a sum of normalized (zero-mean) values is ~0, and
        # its relative error against f64 says nothing about the pipeline.
        source = b.positive(source)
    if op == "var":
        count = 1
        for d in dims:
            count *= view[d] if view[d] is not None else 2
        extra = rng.choice(["", " unbiased = false"])
        if count < 2 or any(view[d] is None for d in dims):
            extra = " unbiased = false"
    keepdim = rng.random() < 0.7
    reduced = b.reduction(op, source, dims, keepdim, extra)
    if keepdim and rng.random() < 0.6:
        # Broadcast the statistic back (x - mean(x) over the channels' rows).
        full = b.binary(rng.choice(["sub", "mul", "add"]), source, reduced)
        return b.reshape(full, shape)
    return reduced


def random_norm(b, value):
    rng = b.rng
    shape = value[1]
    if len(shape) != 2 or shape[1] is None:
        return value
    n = shape[1]
    kind = rng.choice(["layer_norm", "rms_norm", "softmax", "log_softmax",
                       "group_norm", "batch_norm", "batch_norm_inference",
                       "instance_norm"])
    t = tensor_type(shape)
    if kind in ("softmax", "log_softmax"):
        dim = rng.choice([0, 1])
        return b.emit(f"sinter.{kind} {value[0]} dim {dim} : {t}", shape)
    if kind == "layer_norm":
        w = b.param([n], ("normal", (1.0, 0.1)))
        bias = b.param([n], ("normal", (0.0, 0.1)))
        return b.emit(f"sinter.layer_norm {value[0]} weight({w[0]} : "
                      f"{tensor_type([n])}) bias({bias[0]} : "
                      f"{tensor_type([n])}) shape [{n}] : {t}", shape)
    if kind == "rms_norm":
        w = b.param([n], ("normal", (1.0, 0.1)))
        eps = rng.choice(["", " eps = 1.000000e-06"])
        return b.emit(f"sinter.rms_norm {value[0]} weight({w[0]} : "
                      f"{tensor_type([n])}) shape [{n}]{eps} : {t}", shape)
    if kind == "group_norm":
        groups = rng.choice([g for g in (1, 2, 3, 4, n) if n % g == 0])
        w = b.param([n], ("normal", (1.0, 0.1)))
        return b.emit(f"sinter.group_norm {value[0]} groups {groups} "
                      f"weight({w[0]} : {tensor_type([n])}) : {t}", shape)
    rows = b.batch if shape[0] is None else shape[0]
    if kind == "batch_norm" and rows < 2:
        # Training statistics need two rows (as in PyTorch).
        kind = "batch_norm_inference"
    if kind == "batch_norm":
        return b.emit(f"sinter.batch_norm {value[0]} training : {t}", shape)
    if kind == "batch_norm_inference":
        m = b.param([n], ("normal", (0.0, 0.5)))
        v = b.param([n], ("uniform", (0.5, 1.5)))
        return b.emit(f"sinter.batch_norm {value[0]} mean({m[0]} : "
                      f"{tensor_type([n])}) var({v[0]} : {tensor_type([n])})"
                      f" : {t}", shape)
    # instance_norm needs [B, C, L]: split the features.
    c = rng.choice([d for d in (1, 2, 3, 4) if n % d == 0])
    if n // c < 2:
        return value
    split = b.reshape(value, [shape[0], c, n // c])
    normed = b.emit(f"sinter.instance_norm {split[0]} : "
                    f"{tensor_type(split[1])}", split[1])
    return b.reshape(normed, shape)


def random_linear(b, value):
    rng = b.rng
    shape = value[1]
    if len(shape) != 2 or shape[1] is None:
        return value
    n = rng.choice(FEATURE_SIZES)
    out = b.matmul(value, n)
    if rng.random() < 0.5:
        out = b.binary("add", out, b.param([n], ("normal", (0.0, 0.5))))
    if rng.random() < 0.3:
        # The catalogue's favourite: a row sum of a linear layer.
        out = b.reduction(rng.choice(["sum", "mean"]), out, [1], True)
    return out


def random_algebra(b, value):
    """A pattern of the linear-map and constant rewrites (issue 15): a param
    (vector or scalar) added to or subtracted from a linear, or the linear
    subtracted from it, before a reduction; sum or mean over groups of
    adjacent or strided columns, alone or followed by a param matrix; a
    product with a param matrix of any width; scalar and column scales then
    a reduction; y * c + y and its mirrors; positive scales after relu and
    leaky_relu; a scale of a linear's input; training batch norm of a
    biased linear; values that cancel (x - x, x * 0); reductions and norms
    of constants; and a constant of shape [B, T] from two inputs."""
    rng = b.rng
    shape = value[1]
    if len(shape) != 2 or shape[1] is None:
        return value
    k = shape[1]
    case = rng.choice(["shift_reduce", "pool", "matmul_param", "pool_matmul",
                       "scale_reduce", "factor", "relu_scale", "input_scale",
                       "batch_norm", "cancel", "times_zero", "const_reduce",
                       "outer_zero"])
    if case == "outer_zero":
        return outer_zero(b, value)
    if case == "input_scale":
        value = b.binary("mul", value, b.param([k], ("uniform", (0.5, 1.5))))
    n = rng.choice([g for g in FEATURE_SIZES if g > 1])
    out = b.matmul(value, n)
    if case not in ("times_zero", "const_reduce") and rng.random() < 0.7:
        bias = b.param([n], ("normal", (0.0, 0.5)))
        out = b.binary("add", *rng.sample([out, bias], 2))
    if case == "shift_reduce":
        shift = b.param(rng.choice([[n], [1, n], []]), ("normal", (0.0, 1.0)))
        op = rng.choice(["sub", "add", "rsub"])
        out = (b.binary("sub", shift, out) if op == "rsub"
               else b.binary(op, out, shift))
        return b.reduction(rng.choice(["sum", "mean"]), out, [1],
                           rng.random() < 0.5)
    if case in ("pool", "pool_matmul"):
        g = rng.choice([d for d in (1, 2, 3, 4, n) if n % d == 0])
        # [B, n/g, g] reduced over g adjacent columns, or over the n/g
        # columns g apart.
        grouped = b.reshape(out, [None, n // g, g])
        dims = [rng.choice([1, 2])]
        if n % 4 == 0 and rng.random() < 0.3:
            # [B, 2, n/4, 2], reduced over any of the three parts.
            grouped = b.reshape(out, [None, 2, n // 4, 2])
            dims = sorted(rng.sample([1, 2, 3], rng.randint(1, 2)))
        pooled = b.reduction(rng.choice(["sum", "mean"]), grouped, dims,
                             case == "pool" and rng.random() < 0.3)
        if case == "pool":
            return pooled
        return param_matmul(b, pooled)
    if case == "matmul_param":
        return param_matmul(b, out)
    if case == "scale_reduce":
        if rng.random() < 0.5:
            out = b.binary("mul", b.constant(rng.choice([0.5, -2.0])), out)
        s = b.param([n], ("uniform", (-1.5, 1.5)))
        out = b.binary("mul", *rng.sample([out, s], 2))
        return b.reduction(rng.choice(["sum", "mean"]), out, [1],
                           rng.random() < 0.5)
    if case == "factor":
        c = rng.choice([b.constant(rng.choice([0.5, -1.5, 3.0])),
                        b.param([n], ("normal", (0.0, 1.0)))])
        scaled = b.binary("mul", *rng.sample([out, c], 2))
        return b.binary(rng.choice(["add", "sub"]), *rng.sample([scaled, out],
                                                                2))
    if case == "relu_scale":
        p = b.param([n], ("normal", (0.0, 0.5)))
        s = b.unary(rng.choice(["exp", "sigmoid"]), p)
        if rng.random() < 0.5:
            act = b.unary("relu", out)
        else:
            act = b.unary("leaky_relu", out, " alpha = 1.000000e-01")
        return b.binary("mul", *rng.sample([act, s], 2))
    if case == "batch_norm":
        # Training statistics need two rows (as in PyTorch).
        rows = b.batch if out[1][0] is None else out[1][0]
        if rows < 2:
            return out
        t = tensor_type(out[1])
        normed = b.emit(f"sinter.batch_norm {out[0]} training : {t}", out[1])
        # A sum over the batch of normalized values is exactly 0, which no
        # relative error can judge: gelu keeps it away from that.
        return b.unary("gelu", normed)
    if case == "cancel":
        zero = b.binary("sub", out, out)
        return b.binary("add", random_unary(b, zero), b.constant(0.5))
    if case == "const_reduce":
        return constant_reduction(b, out)
    return b.binary("mul", out, b.constant(0.0))


def param_matmul(b, value):
    """value @ V for a param V of any width: the fold into the weights
    happens only where it costs no more."""
    n = value[1][-1]
    p = b.rng.choice(FEATURE_SIZES)
    v = b.param([n, p], ("linear_default", (float(n),)))
    return b.emit(f"sinter.matmul {value[0]}, {v[0]} : "
                  f"{tensor_type(value[1])}, {tensor_type(v[1])}",
                  value[1][:-1] + [p])


def constant_reduction(b, value):
    """A reduction or norm of a constant (value * 0 + c), over the features
    or the batch."""
    rng = b.rng
    c = b.binary("add", b.binary("mul", value, b.constant(0.0)),
                 b.constant(rng.choice([1.0, 1.5, -0.75])))
    op = rng.choice(REDUCTIONS + ["std", "layer_norm", "softmax"])
    n = c[1][1]
    if op == "layer_norm":
        normed = b.emit(f"sinter.layer_norm {c[0]} shape [{n}] : "
                        f"{tensor_type(c[1])}", c[1])
        return b.binary("add", normed, b.constant(0.5))
    if op == "softmax":
        return b.emit(f"sinter.softmax {c[0]} dim {rng.choice([0, 1])} : "
                      f"{tensor_type(c[1])}", c[1])
    dims = [rng.choice([0, 1])]
    extra = ""
    if op in ("var", "std"):
        # The unbiased variance of one element is NaN (PyTorch too).
        rows = c[1][dims[0]]
        rows = b.batch if rows is None else rows
        extra = " unbiased = false" if rows < 2 else rng.choice(
            ["", " unbiased = false"])
    reduced = b.reduction("var" if op == "std" else op, c, dims,
                          rng.random() < 0.5, extra)
    if op in ("var", "std"):
        # A variance of a constant is exactly 0: 1 + it can be judged.
        if op == "std":
            reduced = b.unary("sqrt", reduced)
        return b.binary("add", reduced, b.constant(1.0))
    return reduced


def outer_zero(b, value):
    """(x @ y^T) * 0 + 0.5 for an input y of T rows: a constant of shape
    [B, T], whose dims come from two inputs. It is an extra result, and the
    chain goes on from `value`."""
    k = value[1][1]
    if b.second_dim is None:
        b.second_dim = b.rng.choice([1, 2, 4])
    y = b.argument("input", ["T", k], ["T", ""])
    h = b.emit(f"sinter.matmul {value[0]}, {y[0]} transpose_b : "
               f"{tensor_type(value[1])}, {tensor_type(y[1])}", [None, "T"])
    zero = b.binary("mul", h, b.constant(0.0))
    b.extra_results.append(b.binary("add", zero, b.constant(0.5)))
    return value


def generate(seed):
    """Returns (model name, MLIR text) of the model of `seed`."""
    rng = random.Random(seed)
    name = f"random_{seed}"
    b = ModelBuilder(rng, name)
    batch = rng.choice([1, 2, 3, 5, 8])
    b.batch = batch
    features = rng.choice(FEATURE_SIZES)
    x = b.argument("input", [None, features], ["B", ""])
    live = [x]
    if rng.random() < 0.3:
        live.append(b.argument("input", [None, features], ["B", ""]))
    steps = rng.randint(2, 9)
    for _ in range(steps):
        value = rng.choice(live[-3:])
        kind = rng.choices(["unary", "binary", "reduction", "norm", "linear",
                            "algebra", "volume", "mask", "slices"],
                           [4, 4, 2, 2, 2, 2, 2, 1, 1])[0]
        if kind == "unary":
            result = random_unary(b, value)
        elif kind == "binary":
            result = random_binary(b, value, live)
        elif kind == "reduction":
            result = random_reduction(b, value)
        elif kind == "norm":
            result = random_norm(b, value)
        elif kind == "linear":
            result = random_linear(b, value)
        elif kind == "algebra":
            result = random_algebra(b, value)
        elif kind == "mask":
            result = random_mask(b, value)
        elif kind == "slices":
            result = random_slices(b, value)
        else:
            result = random_volume(b, value)
        live.append(result)
    results = [live[-1]]
    if len(live) > 2 and rng.random() < 0.4:
        other = rng.choice(live[1:-1])
        if other[0] != results[0][0]:
            results.append(other)
    results += b.extra_results

    def dim_names(shape):
        names = {None: '"B"', "T": '"T"'}
        return "[" + ", ".join(names.get(d, '""') for d in shape) + "]"
    args = ",\n        ".join(f"{ssa}: {tensor_type(shape)} {attrs}"
                              for ssa, shape, attrs in b.arguments)
    def result_type(ssa, shape):
        text = tensor_type(shape)
        return text.replace("f32>", "i64>") if ssa in b.index_values else text
    rets = ", ".join(f"{result_type(v, s)} {{sinter.name = \"out{i}\", "
                     f"sinter.dim_names = {dim_names(s)}}}"
                     for i, (v, s) in enumerate(results))
    body = "\n".join(b.lines)
    ret_values = ", ".join(v for v, _ in results)
    ret_types = ", ".join(result_type(v, s) for v, s in results)
    dims = f"B = {batch} : i64"
    if b.second_dim is not None:
        dims += f", T = {b.second_dim} : i64"
    text = (f"module @{name} attributes {{sinter.dims = {{{dims}}}}} {{\n"
            f"  func.func @forward(\n        {args})\n      -> ({rets}) {{\n"
            f"{body}\n    return {ret_values} : {ret_types}\n  }}\n}}\n")
    return name, text


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0)[1])
