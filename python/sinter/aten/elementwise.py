"""Elementwise ATen ops and matrix products as .sinter expressions."""

from .values import (MASK, elementwise, number, operand, out_shape, scaled,
                     tensor)


_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def _binary(symbol):
    def handler(t, a):
        alpha = a.get("alpha", 1)
        return elementwise(
            t, [a["self"], a["other"]],
            lambda x, y: f"{x} {symbol} {scaled(y, alpha)}")
    return handler


def _compare(symbol):
    """A comparison: a 0/1 mask in .sinter (PyTorch's bool tensor)."""
    def handler(t, a):
        return elementwise(t, [a["self"], a["other"]],
                           lambda x, y: f"{x} {symbol} {y}", MASK)
    handler.makes_mask = True  # its bool result is allowed (a mask)
    return handler


def _where(t, a):
    return elementwise(t, [a["condition"], a["self"], a["other"]],
                       lambda c, x, y: f"where({c}, {x}, {y})")


def _call(fn, **fixed):
    """fn(operands..., key=value...) of the tensor and number arguments."""
    def handler(t, a):
        names = [n for n in ("self", "other", "exponent") if n in a]
        extra = "".join(f", {k}={v}" for k, v in fixed.items())
        return elementwise(t, [a[n] for n in names],
                            lambda *xs: f"{fn}({', '.join(xs)}{extra})")
    return handler


def _unary(fn, *params):
    """fn(x, param=value, ...) with the op's numeric arguments by name;
    `params` pairs the ATen argument with the builtin's."""
    def handler(t, a):
        x = tensor(t, a["self"], "input").name
        extra = "".join(f", {sinter}={number(t, a[aten], aten)}"
                        for aten, sinter in params)
        return t.emit(f"{fn}({x}{extra})", out_shape(t))
    return handler


def _neg(t, a):
    return t.emit(f"-{tensor(t, a['self'], 'input').name}", out_shape(t))


def _reciprocal(t, a):
    return t.emit(f"1.0 / {tensor(t, a['self'], 'input').name}",
                  out_shape(t))


def _gelu(t, a):
    x = tensor(t, a["self"], "input").name
    extra = ', approximate="tanh"' if a["approximate"] == "tanh" else ""
    return t.emit(f"gelu({x}{extra})", out_shape(t))


def _elu(t, a):
    x = tensor(t, a["self"], "input").name
    alpha, scale, input_scale = a["alpha"], a["scale"], a["input_scale"]
    if input_scale != 1:
        raise t.unsupported(f"elu with input_scale={input_scale!r}: .sinter's "
                            "elu has no input scale")
    if abs(alpha - _SELU_ALPHA) < 1e-12 and abs(scale - _SELU_SCALE) < 1e-12:
        return t.emit(f"selu({x})", out_shape(t))
    expr = f"elu({x}, alpha={number(t, alpha, 'alpha')})"
    if scale != 1:
        expr = f"{expr} * {number(t, scale, 'scale')}"
    return t.emit(expr, out_shape(t))


def _clamp(t, a):
    x = tensor(t, a["self"], "input").name
    bounds = [(key, a.get(key)) for key in ("min", "max")]
    extra = ", ".join(f"{key}={number(t, value, key)}"
                      for key, value in bounds if value is not None)
    if not extra:
        return t.values[a["self"]]
    return t.emit(f"clamp({x}, {extra})", out_shape(t))


def _clamp_tensor(t, a):
    """clamp with tensor bounds: maximum(x, min), then minimum(., max)."""
    x = a["self"]
    out = out_shape(t)
    text = operand(t, x, out, "input")[0]
    for key, fn in (("min", "maximum"), ("max", "minimum")):
        if a.get(key) is not None:
            text = f"{fn}({text}, {operand(t, a[key], out, key)[0]})"
    return t.emit(text, out)


def _hardtanh(t, a):
    x = tensor(t, a["self"], "input").name
    low = number(t, a.get("min_val", 0), "min_val")
    high = number(t, a.get("max_val", 6), "max_val")
    return t.emit(f"hardtanh({x}, min_val={low}, max_val={high})",
                  out_shape(t))


def _matmul(t, a):
    x = tensor(t, a["self"], "input").name
    y = tensor(t, a["mat2"], "mat2").name
    return t.emit(f"{x} @ {y}", out_shape(t))


def _addmm(t, a):
    x = tensor(t, a["mat1"], "mat1").name
    y = tensor(t, a["mat2"], "mat2").name
    bias = operand(t, a["self"], out_shape(t), "self")[0]
    product = scaled(f"{x} @ {y}", a["alpha"])
    return t.emit(f"{product} + {scaled(bias, a['beta'])}", out_shape(t))


def _linear(t, a):
    x = tensor(t, a["input"], "input").name
    w = tensor(t, a["weight"], "weight").name
    b = "" if a["bias"] is None else f", {tensor(t, a['bias'], 'bias').name}"
    return t.emit(f"linear({x}, {w}{b})", out_shape(t))


HANDLERS = {
    # elementwise, binary
    "aten.add.Tensor": _binary("+"), "aten.add.Scalar": _binary("+"),
    "aten.sub.Tensor": _binary("-"), "aten.sub.Scalar": _binary("-"),
    "aten.mul.Tensor": _binary("*"), "aten.mul.Scalar": _binary("*"),
    "aten.div.Tensor": _binary("/"), "aten.div.Scalar": _binary("/"),
    "aten.pow.Tensor_Scalar": _call("pow"),
    "aten.pow.Tensor_Tensor": _call("pow"),
    "aten.maximum.default": _call("maximum"),
    "aten.minimum.default": _call("minimum"),
    # comparisons and choices
    "aten.where.self": _where, "aten.where.ScalarSelf": _where,
    "aten.where.ScalarOther": _where, "aten.where.Scalar": _where,
    # elementwise, unary
    "aten.neg.default": _neg, "aten.reciprocal.default": _reciprocal,
    "aten.leaky_relu.default": _unary("leaky_relu",
                                      ("negative_slope", "negative_slope")),
    "aten.gelu.default": _gelu,
    "aten.softplus.default": _unary("softplus", ("beta", "beta"),
                                    ("threshold", "threshold")),
    "aten.elu.default": _elu,
    "aten.hardtanh.default": _hardtanh,
    "aten.clamp.default": _clamp, "aten.clamp.Tensor": _clamp_tensor,
    # linear algebra
    "aten.mm.default": _matmul, "aten.bmm.default": _matmul,
    "aten.addmm.default": _addmm,
    "aten.linear.default": _linear,
}
HANDLERS.update({f"aten.{name}.{overload}": _compare(symbol)
                 for name, symbol in (("lt", "<"), ("le", "<="), ("gt", ">"),
                                      ("ge", ">="), ("eq", "=="), ("ne", "!="))
                 for overload in ("Tensor", "Scalar")})
HANDLERS.update({f"aten.{name}.default": _unary(name) for name in (
    "abs", "exp", "log", "sqrt", "rsqrt", "relu", "sigmoid", "tanh", "silu",
    "mish", "selu", "hardsigmoid", "hardswish", "log1p", "expm1", "erf",
    "sign", "exp2", "log2", "log10", "sin", "cos", "floor", "ceil", "round",
    "trunc")})


