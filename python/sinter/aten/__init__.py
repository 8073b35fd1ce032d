"""Core ATen ops and the .sinter they become.

Each handler takes the translation, the node and its arguments bound by
name (the op's schema, defaults filled in) and returns the node's value
(see values.py): usually `t.emit(expr, shape)`, one statement; an alias of
an operand for identities such as clone; a `Multi` for ops with several
results (`max.dim`: values and indices). A handler that meets a use it
cannot express raises `t.unsupported(reason)`; an op without a handler is
unsupported as a whole, with the reason from `REASONS` where there is one.
The handlers live beside the ops they translate: elementwise.py (and the
matrix products), reductions.py (and softmax, the norms), shapes.py (views,
identities, pooling, constants).
"""

import operator

import torch

from . import elementwise, reductions, shapes
from .values import SYMBOLIC, bind, op_name

#: ATen op (overload name) -> handler.
HANDLERS = {**elementwise.HANDLERS, **reductions.HANDLERS, **shapes.HANDLERS}

#: Every ATen op (overload) the exporter translates.
SUPPORTED_OPS = sorted(HANDLERS)

#: Why some ops that torch.export produces are not supported.
REASONS = {
    "aten.native_dropout.default": "dropout in training mode (random); call "
                                   "module.eval() first",
    "aten.cumsum.default": ".sinter has no scan (cumulative) op",
    "aten.convolution.default": ".sinter has no convolution",
    "aten.embedding.default": ".sinter has no gather (indexing) op",
    "aten.index.Tensor": ".sinter has no gather (indexing) op",
    "aten.sin.default": ".sinter has no trigonometric ops",
    "aten.cos.default": ".sinter has no trigonometric ops",
}


def translate(t, node):
    """The value of call_function `node` (see the module's doc)."""
    val = node.meta.get("val")
    if node.target is operator.getitem:
        return shapes.getitem(t, node)
    if isinstance(val, (int, torch.SymInt)):
        return SYMBOLIC
    name = op_name(node)
    handler = HANDLERS.get(name)
    if handler is None:
        if name.startswith("aten.logical"):
            raise t.unsupported(".sinter has no boolean tensors; comparisons "
                                "give 0/1 masks: combine them with * "
                                "(and), maximum (or) and 1 - m (not)")
        raise t.unsupported(REASONS.get(
            name, "no .sinter op or builtin computes it"))
    is_mask = getattr(handler, "makes_mask", False)
    if isinstance(val, torch.Tensor) and val.dtype not in (
            torch.float32, torch.int64) and not (
                is_mask and val.dtype == torch.bool):
        raise t.unsupported(f"its result is {val.dtype}; .sinter computes "
                            "float32 (and int64 indices)")
    return handler(t, bind(node))
