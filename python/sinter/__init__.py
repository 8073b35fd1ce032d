"""Sinter's PyTorch front door.

    import sinter
    text = sinter.export(module, (x,), dynamic_shapes=({0: sinter.Dim("B")},))
    fast = sinter.compile(module, (x,))  # an nn.Module running Sinter's CUDA

`export` writes a .sinter model (torch.export, core ATen); `compile` also
runs sinterc and builds the PyTorch extension it writes. See README.md
("From PyTorch") and python/README.md.
"""

from .errors import CompileError, ExportError, UnsupportedOpError

__version__ = "0.1.0"


def __getattr__(name):
    # torch is imported on first use, so that `import sinter` stays cheap.
    if name in ("export", "export_program", "Exported", "Dim"):
        from . import exporter
        return getattr(exporter, name)
    if name in ("compile", "generate", "load_generated", "SinterModule"):
        from . import compiler
        return getattr(compiler, name)
    if name == "SUPPORTED_OPS":
        from .aten import SUPPORTED_OPS
        return SUPPORTED_OPS
    raise AttributeError(f"module 'sinter' has no attribute {name!r}")


__all__ = ["export", "export_program", "Exported", "Dim", "compile",
           "generate", "load_generated", "SinterModule", "SUPPORTED_OPS",
           "ExportError", "UnsupportedOpError", "CompileError"]
