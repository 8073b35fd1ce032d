"""Reductions, softmax and the norms as .sinter builtins."""

import torch

from .values import Multi, dims_text, number, out_shape, tensor


def _keepdim(a):
    return ", keepdim=true" if a.get("keepdim") else ""


def _check_dtype(t, a):
    if a.get("dtype") not in (None, torch.float32):
        raise t.unsupported(f"a reduction to {a['dtype']}; .sinter reduces "
                            "float32 to float32")


def _reduction(fn):
    def handler(t, a):
        _check_dtype(t, a)
        x = tensor(t, a["self"], "input").name
        dims = a.get("dim")
        return t.emit(f"{fn}({x}{dims_text(dims)}{_keepdim(a)})",
                      out_shape(t))
    return handler


def _arg_reduction(fn):
    def handler(t, a):
        if a["dim"] is None:
            raise t.unsupported(f"{fn} over every dim (dim=None); .sinter's "
                                f"{fn} needs a dim (flatten first)")
        x = tensor(t, a["self"], "input").name
        return t.emit(f"{fn}({x}, dim={a['dim']}{_keepdim(a)})",
                      out_shape(t), "i64")
    return handler


def _max_min_dim(fn):
    def handler(t, a):
        x = tensor(t, a["self"], "input").name
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
        x = tensor(t, a["self"], "input").name
        unbiased = _correction(t, a)
        expr = (f"var({x}{dims_text(a.get('dim'))}, unbiased={unbiased}"
                f"{_keepdim(a)})")
        return t.emit(expr if fn == "var" else f"sqrt({expr})", out_shape(t))
    return handler


def _var_mean(t, a):
    """var_mean: the variance and the mean over the same dims."""
    x = tensor(t, a["self"], "input").name
    dims = dims_text(a.get("dim"))
    return Multi([(f"var({x}{dims}, unbiased={_correction(t, a)}"
                   f"{_keepdim(a)})", "f32"),
                  (f"mean({x}{dims}{_keepdim(a)})", "f32")])


def _softmax(fn):
    def handler(t, a):
        if a.get("half_to_float") or a.get("dtype") not in (None,
                                                            torch.float32):
            raise t.unsupported(f"{fn} with a dtype change")
        x = tensor(t, a["self"], "input").name
        return t.emit(f"{fn}({x}, dim={a['dim']})", out_shape(t))
    return handler


def _optional(t, a, key, as_name=None):
    if a.get(key) is None:
        return ""
    return f", {as_name or key}={tensor(t, a[key], key).name}"


def _layer_norm_expr(t, a):
    x = tensor(t, a["input"], "input").name
    shape = list(a["normalized_shape"])
    return (f"layer_norm({x}, {shape}{_optional(t, a, 'weight')}"
            f"{_optional(t, a, 'bias')}, eps={number(t, a['eps'], 'eps')})")


def _group_norm_expr(t, a, groups):
    x = tensor(t, a["input"], "input").name
    return (f"group_norm({x}, num_groups={groups}"
            f"{_optional(t, a, 'weight')}{_optional(t, a, 'bias')}, "
            f"eps={number(t, a['eps'], 'eps')})")


def _batch_norm_expr(t, a, training):
    x = tensor(t, a["input"], "input").name
    eps = number(t, a["eps"], "eps")
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
    x = tensor(t, a["input"], "input").name
    eps = number(t, a["eps"], "eps")
    return t.emit(f"instance_norm({x}{_optional(t, a, 'weight')}"
                  f"{_optional(t, a, 'bias')}, eps={eps})", out_shape(t))


HANDLERS = {
    # reductions
    "aten.sum.dim_IntList": _reduction("sum"),
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
    "aten.var.correction": _var("var"),
    "aten.std.correction": _var("std"), "aten.std.dim": _var("std"),
    "aten.var_mean.correction": _var_mean,
    "aten._softmax.default": _softmax("softmax"),
    "aten.softmax.int": _softmax("softmax"),
    "aten._log_softmax.default": _softmax("log_softmax"),
    "aten.log_softmax.int": _softmax("log_softmax"),
    # normalization
    "aten.layer_norm.default":
    lambda t, a: t.emit(_layer_norm_expr(t, a), out_shape(t)),
    "aten.native_layer_norm.default":
    lambda t, a: _norm_multi(_layer_norm_expr(t, a), 3),
    "aten.group_norm.default": lambda t, a: t.emit(
        _group_norm_expr(t, a, a["num_groups"]), out_shape(t)),
    "aten.native_group_norm.default":
    lambda t, a: _norm_multi(_group_norm_expr(t, a, a["group"]), 3),
    "aten._native_batch_norm_legit_no_training.default":
    lambda t, a: _norm_multi(_batch_norm_expr(t, a, False), 3),
    "aten._native_batch_norm_legit_functional.default":
    _batch_norm_functional,
    "aten._native_batch_norm_legit.no_stats":
    lambda t, a: _norm_multi(_batch_norm_expr(t, a, True), 3),
    "aten.instance_norm.default": _instance_norm,
}
