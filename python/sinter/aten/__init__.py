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
        return shapes.getitem(t, node)
    if isinstance(val, (int, torch.SymInt)):
        return SYMBOLIC
    name = op_name(node)
    handler = HANDLERS.get(name)
    if handler is None:
        if name.startswith(("aten.eq", "aten.ne", "aten.gt", "aten.ge",
                            "aten.lt", "aten.le", "aten.logical")):
            raise t.unsupported(".sinter has no comparisons (no boolean "
                                "tensors)")
        raise t.unsupported(REASONS.get(
            name, "no .sinter op or builtin computes it"))
    if isinstance(val, torch.Tensor) and val.dtype not in (torch.float32,
                                                            torch.int64):
        raise t.unsupported(f"its result is {val.dtype}; .sinter computes "
                            "float32 (and int64 indices)")
    return handler(t, bind(node))
