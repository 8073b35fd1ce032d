"""Shape ops, identities, pooling, constants and multi-result indexing."""

import torch

from .values import (MASK, Multi, Value, dims_text, format_type, number,
                     out_shape, tensor)


def _reshape(t, a):
    source = a["self"]
    value = tensor(t, source, "input")
    out = out_shape(t)
    if tuple(out) == tuple(value.shape):
        return value
    sizes = [-1 if s is None else s for s in out]
    if sizes.count(-1) > 1:
        raise t.unsupported(f"a reshape to {format_type(out, 'f32')} has "
                            "more than one size that is an expression of "
                            "the symbolic dims; .sinter can infer only one")
    text = ", ".join(str(s) for s in sizes)
    return t.emit(f"reshape({value.name}, [{text}])", out)


def _permute(t, a):
    """permute; `.T` for a matrix (and `.T` of `w.T` is `w`)."""
    value = tensor(t, a["self"], "input")
    rank = len(value.shape)
    perm = [p % rank for p in a["dims"]] if rank else []
    out = out_shape(t)
    if perm == list(range(rank)):
        return value
    if rank == 2:
        name = value.name[:-2] if value.name.endswith(".T") else \
            f"{value.name}.T"
        return Value(name, out)
    return t.emit(f"permute({value.name}, {perm})", out)


def _expand(t, a):
    value = tensor(t, a["self"], "input")
    # An expand to its own shape (the decomposition of a batched matmul
    # writes one before each operand's view) is the tensor itself.
    if tuple(out_shape(t)) == tuple(value.shape):
        return value
    return Value(value.name, value.shape, value.dtype, value.literal, True)


def _alias(t, a):
    source = a.get("self", a.get("input"))
    return t.values[source]


def _to_copy(t, a):
    dtype = a.get("dtype")
    value = t.values[a["self"]]
    if value.dtype == MASK and dtype == torch.float32:
        # A mask already holds 0.0 and 1.0: mask.float() is the mask.
        return Value(value.name, value.shape)
    if dtype not in (None, torch.float32):
        raise t.unsupported(f"a conversion to {dtype}; .sinter models are "
                            "float32")
    return value


def _full(t, value):
    return Value(number(t, value, "fill value"), out_shape(t), "f32", True)


def _static_dim(t, value, dim, what):
    """The size of dim `dim` of `value`, which slicing needs static."""
    size = value.shape[dim]
    if not isinstance(size, int):
        raise t.unsupported(f"{what} dim {dim}, whose size {size} is "
                            "symbolic; .sinter slices and joins only static "
                            "dims")
    return size


def _narrow(value, dim, start, end):
    return f"narrow({value.name}, {dim}, {start}, {end - start})"


def _slice(t, a):
    """slice.Tensor: a contiguous range of one dim (step 1)."""
    value = tensor(t, a["self"], "input")
    rank = len(value.shape)
    dim = a["dim"] % rank
    if a["step"] != 1:
        raise t.unsupported(f"slicing with step {a['step']}; .sinter slices "
                            "are contiguous")
    start = 0 if a["start"] is None else a["start"]
    end = a["end"]
    size = value.shape[dim]
    if start == 0 and (end is None or end >= 2**62):
        return value  # the whole dim, as x[:, 2:6] records for dim 0
    size = _static_dim(t, value, dim, "slicing")
    start, end = [min(max(b + size if b < 0 else b, 0), size)
                  for b in (start, size if end is None else end)]
    if (start, end) == (0, size):
        return value
    if start >= end:
        raise t.unsupported("an empty slice; .sinter has no empty tensors")
    return t.emit(_narrow(value, dim, start, end), out_shape(t))


def _split(t, a):
    """split.Tensor and split_with_sizes: parts of one static dim."""
    value = tensor(t, a["self"], "input")
    dim = a["dim"] % len(value.shape)
    size = _static_dim(t, value, dim, "splitting")
    sizes = a.get("split_sizes")
    if sizes is None:
        step = a["split_size"]
        sizes = [min(step, size - start) for start in range(0, size, step)]
    parts, start = [], 0
    for length in sizes:
        parts.append((_narrow(value, dim, start, start + length), "f32"))
        start += length
    return Multi(parts)


def _cat(t, a):
    values = [tensor(t, arg, f"tensor {i}")
              for i, arg in enumerate(a["tensors"])]
    dim = a["dim"] % len(values[0].shape)
    for value in values:
        _static_dim(t, value, dim, "concatenating along")
    names = ", ".join(value.name for value in values)
    return t.emit(f"cat([{names}], dim={dim})", out_shape(t))


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
    value = tensor(t, a["self"], "input")
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
    sizes = ", ".join(lead + [str(s) for s in split])
    reshaped = f"reshape({value.name}, [{sizes}])"
    return f"{fn}({reshaped}{dims_text(dims)})"


def _max_pool(t, a):
    return Multi([(_pool_expr(t, a, "max"), "f32"),
                  (None, "the indices of max pooling (.sinter returns the "
                   "maxima only)")])


def _avg_pool(t, a):
    return t.emit(_pool_expr(t, a, "mean"), out_shape(t))


def getitem(t, node):
    source, index = node.args
    multi = t.values[source]
    if not isinstance(multi, Multi):
        raise t.unsupported("an index into a value with one result")
    expr, second = multi.results[index]
    if expr is None:
        t.node = source
        raise t.unsupported(f"result {index} is used: {second}")
    return t.emit(expr, t.shape_of(node), second, name=expr.split("(")[0])


HANDLERS = {
    # shapes and identities
    "aten.view.default": _reshape, "aten.unsqueeze.default": _reshape,
    "aten.squeeze.dims": _reshape,
    "aten.permute.default": _permute, "aten.expand.default": _expand,
    "aten.clone.default": _alias, "aten.alias.default": _alias,
    "aten._to_copy.default": _to_copy,
    "aten.slice.Tensor": _slice, "aten.split.Tensor": _split,
    "aten.split_with_sizes.default": _split, "aten.cat.default": _cat,
    "aten.max_pool2d_with_indices.default": _max_pool,
    "aten.avg_pool2d.default": _avg_pool,
    # constants
    "aten.full.default": lambda t, a: _full(t, a["fill_value"]),
    "aten.full_like.default": lambda t, a: _full(t, a["fill_value"]),
    "aten.scalar_tensor.default": lambda t, a: _full(t, a["s"]),
}
