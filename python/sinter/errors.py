"""The errors of sinter.export and sinter.compile."""


class ExportError(Exception):
    """The module cannot be written as a .sinter model."""


class UnsupportedOpError(ExportError):
    """An ATen op (or a use of one) that .sinter cannot express.

    Attributes: `op` (the ATen op, e.g. "aten.cumsum.default"), `operands`
    (their shapes or values, as text), `source` (`file:line  code` of the
    user's module, or None) and `reason`.
    """

    def __init__(self, op, operands, source, reason):
        self.op, self.operands, self.source, self.reason = (op, operands,
                                                            source, reason)
        where = f"\n  at {source}" if source else \
            "\n  at (no source line recorded by torch.export)"
        super().__init__(
            f"sinter.export: unsupported ATen op {op}({', '.join(operands)})"
            f"{where}\n  {reason}")

    @classmethod
    def for_node(cls, translation, node, reason):
        from .exporter import _source_line
        from .aten.values import describe_operand, op_name
        operands = [describe_operand(translation, arg) for arg in node.args]
        operands += [f"{key}={describe_operand(translation, value)}"
                     for key, value in node.kwargs.items()
                     if key not in ("device", "layout", "pin_memory")]
        return cls(op_name(node), operands, _source_line(node), reason)


class CompileError(Exception):
    """sinterc or the C++ extension build failed."""
