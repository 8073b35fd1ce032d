#!/usr/bin/env python3
"""Checks every op of the interpreter against a NumPy float64 reference.

Usage: numpy_check.py <path to sinterc> [case-name-substring ...]

For every case it writes a one-op model (.mlir), or for the builtins that
the frontend composes from several ops a one-statement .sinter model
(`sinter-` cases), draws random inputs with
NumPy, runs `sinterc run --inputs ... --out-dir ...` and compares the output
with NumPy's float64 implementation of PyTorch's definition of the op:

  f64 mode, float64 inputs:             |got - ref| <= 1e-6 |ref| + 1e-12 max|ref|
  f32 mode, inputs rounded to float32:  the same bound; the interpreter
                                        computes in double and rounds each
                                        op's result once, so a single op is
                                        within half an ulp of fp32.

Prints one line per failure and ends with 'N passed, N failed'; exits 1 if
any case failed.
"""

import math
import os
import subprocess
import sys
import tempfile

import numpy as np

RTOL = 1e-6
ATOL_SCALE = 1e-12

# ---------------------------------------------------------------------------
# Reference definitions (PyTorch's, in float64)
# ---------------------------------------------------------------------------

erf = np.vectorize(math.erf, otypes=[np.float64])


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softplus(x, beta=1.0, threshold=20.0):
    with np.errstate(over="ignore"):
        soft = np.log1p(np.exp(x * beta)) / beta
    return np.where(x * beta > threshold, x, soft)


def elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def selu(x):
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def gelu_tanh(x):
    beta = math.sqrt(2.0 / math.pi)
    return 0.5 * x * (1.0 + np.tanh(beta * (x + 0.044715 * x**3)))


def logsumexp(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis):
    s = x - np.max(x, axis=axis, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


def normalize(x, axes, eps):
    mean = np.mean(x, axis=axes, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def channel(v, rank):
    """A per-channel vector shaped to broadcast over dim 1 of a rank-`rank` tensor."""
    return v.reshape((1, -1) + (1,) * (rank - 2))


def group_norm(x, groups, w, b, eps):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    y = normalize(g, (2,), eps).reshape(x.shape)
    return y * channel(w, x.ndim) + channel(b, x.ndim)


def batch_norm_train(x, w, b, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    return normalize(x, axes, eps) * channel(w, x.ndim) + channel(b, x.ndim)


def batch_norm_infer(x, m, v, w, b, eps):
    r = x.ndim
    return (x - channel(m, r)) / np.sqrt(channel(v, r) + eps) * channel(w, r) + channel(b, r)


def rms_norm(x, axes, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + eps) * w


def matmul(a, b, ta=False, tb=False):
    if ta:
        a = np.swapaxes(a, -1, -2)
    if tb:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


# ---------------------------------------------------------------------------
# Cases: (name, inputs {name: (shape, kind)}, MLIR body, reference)
# The body uses %<input name> and defines %y; {T:name} is replaced by the
# tensor type of an input and {R} by the result type.
# ---------------------------------------------------------------------------

X = {"a": ((6, 7), "normal")}
POS = {"a": ((6, 7), "positive")}
WIDE = {"a": ((6, 7), "wide")}


def unary(name, op, ref, inputs=X, attrs=""):
    body = "%y = sinter.{op} %a{attrs} : {{T:a}}".format(op=op, attrs=attrs)
    return (name, inputs, body, lambda a: ref(a))


def binary(op, ref, sa, sb, kind_a="normal", kind_b="normal"):
    inputs = {"a": (sa, kind_a), "b": (sb, kind_b)}
    body = "%y = sinter.{op} %a, %b : {{T:a}}, {{T:b}}".format(op=op)
    name = "{}-{}-{}".format(op, "x".join(map(str, sa)) or "scalar",
                             "x".join(map(str, sb)) or "scalar")
    return (name, inputs, body, ref)


def reduction(op, ref, dims, keepdim, shape=(3, 4, 5), extra=""):
    inputs = {"a": (shape, "normal")}
    body = "%y = sinter.{op} %a dims [{dims}]{keep}{extra} : {{T:a}}".format(
        op=op, dims=", ".join(map(str, dims)), keep=" keepdim" if keepdim else "",
        extra=extra)
    name = "{}-dims{}{}{}".format(op, "".join(map(str, dims)),
                                  "-keepdim" if keepdim else "", extra.replace(" ", ""))
    return (name, inputs, body, lambda a: ref(a, tuple(dims), keepdim))


CASES = [
    unary("neg", "neg", lambda a: -a),
    unary("abs", "abs", np.abs),
    unary("exp", "exp", np.exp),
    unary("log", "log", np.log, POS),
    unary("sqrt", "sqrt", np.sqrt, POS),
    unary("rsqrt", "rsqrt", lambda a: 1.0 / np.sqrt(a), POS),
    unary("tanh", "tanh", np.tanh),
    unary("sigmoid", "sigmoid", sigmoid, WIDE),
    unary("relu", "relu", lambda a: np.maximum(a, 0.0)),
    unary("leaky_relu", "leaky_relu", lambda a: np.where(a > 0, a, 0.01 * a)),
    unary("leaky_relu-alpha", "leaky_relu", lambda a: np.where(a > 0, a, 0.2 * a),
          attrs=" alpha = 2.000000e-01"),
    unary("gelu", "gelu", lambda a: a * 0.5 * (1.0 + erf(a / math.sqrt(2.0)))),
    unary("gelu-tanh", "gelu", gelu_tanh, attrs=" approximate = tanh"),
    unary("silu", "silu", lambda a: a * sigmoid(a), WIDE),
    unary("mish", "mish", lambda a: a * np.tanh(np.log1p(np.exp(a))), WIDE),
    unary("softplus", "softplus", softplus, WIDE),
    unary("softplus-beta-threshold", "softplus",
          lambda a: softplus(a, 2.0, 3.0), WIDE,
          attrs=" beta = 2.000000e+00 threshold = 3.000000e+00"),
    unary("elu", "elu", elu, WIDE),
    unary("elu-alpha", "elu", lambda a: elu(a, 0.5), WIDE,
          attrs=" alpha = 5.000000e-01"),
    unary("selu", "selu", selu, WIDE),
    unary("hardtanh", "hardtanh", lambda a: np.clip(a, -1.0, 1.0)),
    unary("hardtanh-bounds", "hardtanh", lambda a: np.clip(a, -0.5, 2.0),
          attrs=" min = -5.000000e-01 max = 2.000000e+00"),
    unary("hardsigmoid", "hardsigmoid", lambda a: np.clip(a / 6.0 + 0.5, 0.0, 1.0), WIDE),
    unary("hardswish", "hardswish", lambda a: a * np.clip(a + 3.0, 0.0, 6.0) / 6.0, WIDE),
    unary("softsign", "softsign", lambda a: a / (1.0 + np.abs(a))),
    unary("erf", "erf", erf, WIDE),
    unary("expm1", "expm1", np.expm1),
    unary("log1p", "log1p", np.log1p, POS),
    # ATen's (0 < x) - (x < 0); inputs "integer" include zeros.
    unary("sign", "sign", np.sign, {"a": ((6, 7), "integer")}),
    unary("clamp", "clamp", lambda a: np.clip(a, -0.5, 0.75),
          attrs=" min = -5.000000e-01 max = 7.500000e-01"),
    unary("clamp-min", "clamp", lambda a: np.maximum(a, -0.5),
          attrs=" min = -5.000000e-01"),
    unary("clamp-max", "clamp", lambda a: np.minimum(a, 0.25),
          attrs=" max = 2.500000e-01"),
]

for op, ref in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                ("div", np.divide), ("maximum", np.maximum),
                ("minimum", np.minimum)]:
    CASES.append(binary(op, ref, (6, 7), (6, 7)))
    CASES.append(binary(op, ref, (6, 7), (7,)))
    CASES.append(binary(op, ref, (6, 1), (1, 7)))
    CASES.append(binary(op, ref, (2, 6, 7), ()))
    CASES.append(binary(op, ref, (3, 1, 5), (4, 1)))
CASES.append(binary("pow", np.power, (6, 7), (6, 7), "positive"))
CASES.append(binary("pow", np.power, (6, 7), (), "normal", "integer"))
CASES.append(binary("pow", np.power, (6, 1), (7,), "positive"))


def var(unbiased):
    return lambda a, d, k: np.var(a, axis=d, keepdims=k, ddof=1 if unbiased else 0)


for dims in [[0], [1], [2], [0, 2], [2, 0], [0, 1, 2]]:
    for keepdim in [False, True]:
        CASES.append(reduction("sum", lambda a, d, k: np.sum(a, axis=d, keepdims=k), dims, keepdim))
        CASES.append(reduction("mean", lambda a, d, k: np.mean(a, axis=d, keepdims=k), dims, keepdim))
        CASES.append(reduction("max", lambda a, d, k: np.max(a, axis=d, keepdims=k), dims, keepdim))
        CASES.append(reduction("min", lambda a, d, k: np.min(a, axis=d, keepdims=k), dims, keepdim))
        CASES.append(reduction("prod", lambda a, d, k: np.prod(a, axis=d, keepdims=k), dims, keepdim))
        CASES.append(reduction("logsumexp", logsumexp, dims, keepdim))
        CASES.append(reduction("var", var(True), dims, keepdim))
        CASES.append(reduction("var", var(False), dims, keepdim, extra=" unbiased = false"))
for dim in [0, 1, 2]:
    for keepdim in [False, True]:
        CASES.append(reduction("argmax", lambda a, d, k: np.argmax(a, axis=d[0], keepdims=k), [dim], keepdim))
        CASES.append(reduction("argmin", lambda a, d, k: np.argmin(a, axis=d[0], keepdims=k), [dim], keepdim))

for dim in [0, 1, 2]:
    CASES.append(("softmax-dim{}".format(dim), {"a": ((3, 4, 5), "wide")},
                  "%y = sinter.softmax %a dim {} : {{T:a}}".format(dim),
                  lambda a, dim=dim: softmax(a, dim)))
    CASES.append(("log_softmax-dim{}".format(dim), {"a": ((3, 4, 5), "wide")},
                  "%y = sinter.log_softmax %a dim {} : {{T:a}}".format(dim),
                  lambda a, dim=dim: log_softmax(a, dim)))

CASES += [
    ("layer_norm", {"a": ((4, 3, 5), "normal"), "w": ((3, 5), "normal"), "b": ((3, 5), "normal")},
     "%y = sinter.layer_norm %a weight(%w : {T:w}) bias(%b : {T:b}) shape [3, 5] : {T:a}",
     lambda a, w, b: normalize(a, (1, 2), 1e-5) * w + b),
    ("layer_norm-plain-eps", {"a": ((4, 6), "normal")},
     "%y = sinter.layer_norm %a shape [6] eps = 1.000000e-01 : {T:a}",
     lambda a: normalize(a, (1,), 0.1)),
    ("rms_norm", {"a": ((4, 6), "small"), "w": ((6,), "normal")},
     "%y = sinter.rms_norm %a weight(%w : {T:w}) shape [6] : {T:a}",
     lambda a, w: rms_norm(a, (1,), w, float(np.finfo(np.float32).eps))),
    ("rms_norm-eps-2d", {"a": ((2, 3, 4), "normal")},
     "%y = sinter.rms_norm %a shape [3, 4] eps = 1.000000e-02 : {T:a}",
     lambda a: rms_norm(a, (1, 2), 1.0, 0.01)),
    ("group_norm", {"a": ((3, 6, 4), "normal"), "w": ((6,), "normal"), "b": ((6,), "normal")},
     "%y = sinter.group_norm %a groups 3 weight(%w : {T:w}) bias(%b : {T:b}) : {T:a}",
     lambda a, w, b: group_norm(a, 3, w, b, 1e-5)),
    ("group_norm-2d-eps", {"a": ((5, 8), "normal")},
     "%y = sinter.group_norm %a groups 2 eps = 1.000000e-01 : {T:a}",
     lambda a: group_norm(a, 2, np.ones(8), np.zeros(8), 0.1)),
    ("instance_norm", {"a": ((2, 3, 4, 5), "normal"), "w": ((3,), "normal"), "b": ((3,), "normal")},
     "%y = sinter.instance_norm %a weight(%w : {T:w}) bias(%b : {T:b}) : {T:a}",
     lambda a, w, b: group_norm(a, 3, w, b, 1e-5)),
    ("batch_norm-training", {"a": ((6, 4, 3), "normal"), "w": ((4,), "normal"), "b": ((4,), "normal")},
     "%y = sinter.batch_norm %a weight(%w : {T:w}) bias(%b : {T:b}) training : {T:a}",
     lambda a, w, b: batch_norm_train(a, w, b, 1e-5)),
    ("batch_norm-training-2d", {"a": ((8, 5), "normal")},
     "%y = sinter.batch_norm %a training eps = 1.000000e-03 : {T:a}",
     lambda a: batch_norm_train(a, np.ones(5), np.zeros(5), 1e-3)),
    ("batch_norm-inference", {"a": ((6, 4), "normal"), "m": ((4,), "normal"), "v": ((4,), "positive"),
                              "w": ((4,), "normal"), "b": ((4,), "normal")},
     "%y = sinter.batch_norm %a mean(%m : {T:m}) var(%v : {T:v}) weight(%w : {T:w}) bias(%b : {T:b}) : {T:a}",
     lambda a, m, v, w, b: batch_norm_infer(a, m, v, w, b, 1e-5)),
]

for sa, sb, ta, tb in [((5, 6), (6, 7), False, False), ((6, 5), (6, 7), True, False),
                       ((5, 6), (7, 6), False, True), ((6, 5), (7, 6), True, True),
                       ((9, 6), (6, 3), False, False), ((9, 6), (3, 6), False, True),
                       ((3, 5, 6), (6, 7), False, False), ((5, 6), (3, 6, 7), False, False),
                       ((3, 5, 6), (3, 7, 6), False, True), ((1, 6, 5), (4, 6, 7), True, False),
                       ((4, 5, 6), (1, 6, 7), False, False)]:
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    CASES.append(("matmul-{}-{}{}".format("x".join(map(str, sa)), "x".join(map(str, sb)),
                                         flags.replace(" ", "-")),
                  {"a": (sa, "normal"), "b": (sb, "normal")},
                  "%y = sinter.matmul %a, %b" + flags + " : {T:a}, {T:b}",
                  lambda a, b, ta=ta, tb=tb: matmul(a, b, ta, tb)))

CASES += [
    ("transpose-2d", {"a": ((5, 7), "normal")},
     "%y = sinter.transpose %a perm [1, 0] : {T:a}", lambda a: a.T),
    ("transpose-3d", {"a": ((2, 3, 4), "normal")},
     "%y = sinter.transpose %a perm [2, 0, 1] : {T:a}", lambda a: np.transpose(a, (2, 0, 1))),
    ("reshape", {"a": ((4, 6), "normal")},
     "%y = sinter.reshape %a : {T:a} -> tensor<2x3x4xf32>", lambda a: a.reshape(2, 3, 4)),
    ("reshape-dynamic", {"a": ((4, 6), "normal")},
     "%y = sinter.reshape %a : {T:a} -> tensor<?x8xf32>", lambda a: a.reshape(-1, 8)),
]


# Comparisons give 0/1 masks; "integer" inputs make ties (==, <=, >=) occur.
for pred, ref in [("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                  ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)]:
    CASES.append(("compare-" + pred, {"a": ((6, 7), "integer"), "b": ((7,), "integer")},
                  "%y = sinter.compare " + pred + ", %a, %b : {T:a}, {T:b}",
                  lambda a, b, ref=ref: ref(a, b).astype(np.float64)))

CASES += [
    ("select-broadcast", {"c": ((6, 1), "integer"), "a": ((6, 7), "normal"), "b": ((7,), "normal")},
     "%y = sinter.select %c, %a, %b : {T:c}, {T:a}, {T:b}",
     lambda c, a, b: np.where(c != 0, a, b)),
    ("slice-last", {"a": ((4, 9), "normal")},
     "%y = sinter.slice %a dim 1 start 2 end 7 : {T:a}", lambda a: a[:, 2:7]),
    ("slice-middle", {"a": ((3, 5, 4), "normal")},
     "%y = sinter.slice %a dim 1 start 1 end 4 : {T:a}", lambda a: a[:, 1:4]),
    ("slice-first", {"a": ((6, 3), "normal")},
     "%y = sinter.slice %a dim 0 start 5 end 6 : {T:a}", lambda a: a[5:6]),
    ("concat-last", {"a": ((4, 3), "normal"), "b": ((4, 5), "normal")},
     "%y = sinter.concat %a, %b dim 1 : {T:a}, {T:b}",
     lambda a, b: np.concatenate([a, b], axis=1)),
    ("concat-three-middle", {"a": ((2, 1, 4), "normal"), "b": ((2, 3, 4), "normal"),
                             "c": ((2, 2, 4), "normal")},
     "%y = sinter.concat %a, %b, %c dim 1 : {T:a}, {T:b}, {T:c}",
     lambda a, b, c: np.concatenate([a, b, c], axis=1)),
]

# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def sinter(name, inputs, expr, ref):
    """A .sinter case: `y = expr` over inputs declared with their shapes."""
    return ("sinter-" + name, inputs, ("sinter", expr), ref)


def pool(x, k, reduce, spatial):
    """Pooling with kernel = stride over the trailing `spatial` dims."""
    lead = x.shape[:x.ndim - spatial]
    shape = lead + sum(((d // k, k) for d in x.shape[x.ndim - spatial:]), ())
    windows = x.reshape(shape)
    axes = tuple(len(lead) + 2 * i + 1 for i in range(spatial))
    return reduce(windows, axis=axes)


def l2(x, axis=None, keepdims=False):
    return np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))


CASES += [
    sinter("relu6", WIDE, "F.relu6(a)", lambda a: np.clip(a, 0.0, 6.0)),
    sinter("logsigmoid", WIDE, "F.logsigmoid(a)", lambda a: -softplus(-a)),
    sinter("square", X, "torch.square(a)", lambda a: a * a),
    sinter("reciprocal", POS, "a.reciprocal()", lambda a: 1.0 / a),
    sinter("clamp_min", X, "a.clamp_min(-0.25)", lambda a: np.maximum(a, -0.25)),
    sinter("clamp_max", X, "torch.clamp_max(a, 0.5)", lambda a: np.minimum(a, 0.5)),
    sinter("erf", WIDE, "torch.erf(a)", erf),
    sinter("expm1", X, "a.expm1()", np.expm1),
    sinter("log1p", POS, "torch.log1p(a)", np.log1p),
    sinter("sign", {"a": ((6, 7), "integer")}, "a.sign()", np.sign),
    sinter("dropout", X, "F.dropout(a, p=0.3)", lambda a: a),
    sinter("norm-fro", X, "torch.norm(a)", lambda a: l2(a)),
    sinter("norm-dim", X, "a.norm(dim=1, keepdim=True)", lambda a: l2(a, 1, True)),
    sinter("norm-p1", X, "torch.norm(a, p=1, dim=0)", lambda a: np.sum(np.abs(a), axis=0)),
    sinter("normalize", X, "F.normalize(a, dim=-1)",
           lambda a: a / np.maximum(l2(a, -1, True), 1e-12)),
    sinter("amax", {"a": ((3, 4, 5), "normal")}, "torch.amax(a, dim=(0, 2))",
           lambda a: np.max(a, axis=(0, 2))),
    sinter("amin", {"a": ((3, 4, 5), "normal")}, "a.amin(1, keepdim=True)",
           lambda a: np.min(a, axis=1, keepdims=True)),
    sinter("max-indices", {"a": ((3, 5), "normal")}, "torch.max(a, 1)[1]",
           lambda a: np.argmax(a, axis=1)),
    sinter("min-values", {"a": ((3, 5), "normal")}, "a.min(dim=0).values",
           lambda a: np.min(a, axis=0)),
    sinter("mm", {"a": ((3, 4), "normal"), "b": ((4, 5), "normal")}, "torch.mm(a, b)",
           np.matmul),
    sinter("bmm", {"a": ((2, 3, 4), "normal"), "b": ((2, 4, 5), "normal")}, "a.bmm(b)",
           np.matmul),
    sinter("permute", {"a": ((2, 3, 4), "normal")}, "a.permute(2, 0, 1)",
           lambda a: np.transpose(a, (2, 0, 1))),
    sinter("unsqueeze-squeeze-flatten", {"a": ((2, 1, 3, 4), "normal")},
           "a.squeeze(1).unsqueeze(-1).flatten(1)", lambda a: a.reshape(2, 12)),
    sinter("view", {"a": ((2, 3, 4), "normal")}, "a.view(6, -1).t()",
           lambda a: a.reshape(6, 4).T),
    sinter("avg_pool1d", {"a": ((2, 3, 8), "normal")}, "F.avg_pool1d(a, 2)",
           lambda a: pool(a, 2, np.mean, 1)),
    sinter("max_pool1d", {"a": ((3, 8), "normal")}, "F.max_pool1d(a, kernel_size=4)",
           lambda a: pool(a, 4, np.max, 1)),
    sinter("avg_pool2d", {"a": ((2, 3, 4, 6), "normal")}, "F.avg_pool2d(a, (2, 2))",
           lambda a: pool(a, 2, np.mean, 2)),
    sinter("max_pool2d", {"a": ((1, 2, 6, 4), "normal")}, "F.max_pool2d(a, 2)",
           lambda a: pool(a, 2, np.max, 2)),
]


def tensor_type(shape, dynamic_first=False):
    dims = ["?" if dynamic_first and i == 0 else str(d) for i, d in enumerate(shape)]
    return "tensor<{}f32>".format("".join(d + "x" for d in dims))


def draw(rng, shape, kind):
    if kind == "positive":
        return np.abs(rng.standard_normal(shape)) + 0.1
    if kind == "wide":
        return rng.standard_normal(shape) * 8.0
    if kind == "small":
        return rng.standard_normal(shape) * 1e-4
    if kind == "integer":
        return rng.integers(-3, 4, size=shape).astype(np.float64)
    return rng.standard_normal(shape)


def build_model(body, inputs, result_shape, result_is_index):
    args = []
    for name, (shape, _) in inputs.items():
        args.append('%{n}: {t} {{sinter.role = "input", sinter.name = "{n}"}}'.format(
            n=name, t=tensor_type(shape)))
    text = body
    for name, (shape, _) in inputs.items():
        text = text.replace("{T:" + name + "}", tensor_type(shape))
    if "-> tensor<?x" in text:
        result_type = "tensor<?x{}>".format("".join(str(d) + "x" for d in result_shape[1:]) + "f32")
    elif result_is_index:
        result_type = "tensor<{}i64>".format("".join(str(d) + "x" for d in result_shape))
    else:
        result_type = tensor_type(result_shape)
    return ("module @check {{\n  func.func @forward({}) -> ({} {{sinter.name = \"y\"}}) {{\n"
            "    {}\n    return %y : {}\n  }}\n}}\n").format(
                ", ".join(args), result_type, text, result_type)


def build_sinter_model(expr, inputs):
    lines = ["model check {"]
    for name, (shape, _) in inputs.items():
        lines.append("  input {}: f32[{}]".format(name, ", ".join(map(str, shape))))
    lines += ["  y = " + expr, "  return y", "}", ""]
    return "\n".join(lines)


def run_case(sinterc, workdir, index, case, precision):
    name, inputs, body, ref = case
    rng = np.random.default_rng(1000 + index)
    values = {n: draw(rng, shape, kind) for n, (shape, kind) in inputs.items()}
    if precision == "f32":
        values = {n: v.astype(np.float32).astype(np.float64) for n, v in values.items()}
    expected = np.asarray(ref(*values.values()))
    is_index = expected.dtype.kind == "i"
    if isinstance(body, tuple):
        model = os.path.join(workdir, "case{}.sinter".format(index))
        text = build_sinter_model(body[1], inputs)
    else:
        model = os.path.join(workdir, "case{}.mlir".format(index))
        text = build_model(body, inputs, expected.shape, is_index)
    with open(model, "w") as f:
        f.write(text)
    files = []
    for n, v in values.items():
        path = os.path.join(workdir, "case{}-{}.npy".format(index, n))
        np.save(path, v)
        files.append(path)
    out = os.path.join(workdir, "out{}-{}".format(index, precision))
    command = [sinterc, "run", model, "--precision=" + precision, "--out-dir", out]
    if files:
        command += ["--inputs"] + files
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        return "sinterc exited with {}: {}".format(proc.returncode, proc.stderr.strip())
    got = np.load(os.path.join(out, "y.npy"))
    if got.shape != expected.shape:
        return "shape {} != expected {}".format(got.shape, expected.shape)
    if is_index:
        if got.dtype != np.int64 or not np.array_equal(got, expected):
            return "indices {} != expected {}".format(got.ravel(), expected.ravel())
        return None
    got = got.astype(np.float64)
    bound = RTOL * np.abs(expected) + ATOL_SCALE * np.max(np.abs(expected), initial=0.0)
    error = np.abs(got - expected)
    if not np.all(error <= bound):
        worst = np.argmax(error - bound)
        return "max error {:.3g} at {} (got {!r}, expected {!r})".format(
            error.ravel()[worst], np.unravel_index(worst, error.shape),
            got.ravel()[worst], expected.ravel()[worst])
    return None


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    sinterc, filters = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as workdir:
        for index, case in enumerate(CASES):
            if filters and not any(f in case[0] for f in filters):
                continue
            for precision in ["f64", "f32"]:
                problem = run_case(sinterc, workdir, index, case, precision)
                if problem:
                    failed += 1
                    print("FAIL {} ({}): {}".format(case[0], precision, problem))
                else:
                    passed += 1
    print("{} passed, {} failed".format(passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
