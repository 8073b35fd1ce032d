"""torch.export to .sinter: walks an ExportedProgram and writes a model.

`export_program` runs `torch.export.export`, decomposes to core ATen with
`run_decompositions` (keeping, undecomposed, the composite ops that .sinter
has as builtins: linear, silu, the norms, softmax, ...; see
`_PRESERVED_OPS`), and translates every node with the table of
`aten_ops.py`. The result is an `Exported`: the text, and the mapping from
each `param` to the state_dict entry (or lifted constant) it came from.
"""

import os
import re
from dataclasses import dataclass, field

import torch
from torch.export import Dim

from . import aten_ops
from .errors import ExportError, UnsupportedOpError

#: Words that cannot name a value in .sinter.
_KEYWORDS = {"model", "dim", "input", "param", "return", "true", "false"}

#: Model names the PyTorch extension cannot build (they name runtime sources).
_RESERVED_MODEL_NAMES = {"context", "gemm", "gemm_epilogue"}


def _preserved_ops():
    """Composite ops that .sinter has as builtins: run_decompositions keeps
    them, so that the model reads as written and sinterc sees the norm."""
    aten = torch.ops.aten
    names = [
        "linear.default", "silu.default", "mish.default", "hardswish.default",
        "hardsigmoid.default", "softplus.default", "selu.default",
        "logsumexp.default", "layer_norm.default", "group_norm.default",
        "instance_norm.default", "softmax.int", "log_softmax.int",
        "std.dim", "std.correction",
    ]
    ops = []
    for name in names:
        packet, overload = name.split(".")
        op = getattr(getattr(aten, packet, None), overload, None)
        if op is not None:
            ops.append(op)
    return ops


@dataclass
class Exported:
    """A module exported to .sinter."""

    #: The .sinter text.
    text: str
    #: The model's name.
    name: str
    #: param name -> ("state", state_dict key) or ("constant", lifted name).
    params: dict = field(default_factory=dict)
    #: The model's inputs, in order (the module's tensor arguments).
    inputs: list = field(default_factory=list)
    #: The model's outputs, in order, and whether the module returns a tuple.
    outputs: list = field(default_factory=list)
    returns_tuple: bool = False
    #: Symbolic dims: name -> the example's size.
    dims: dict = field(default_factory=dict)
    #: Things the translation dropped on purpose (buffer updates), one line each.
    notes: list = field(default_factory=list)
    #: The lifted constants of the program, by their names.
    constants: dict = field(default_factory=dict)

    def param_tensors(self, module):
        """The current values of the params, in the model's order, read from
        `module` (state_dict entries) and the program (lifted constants)."""
        state = module.state_dict(keep_vars=True)
        tensors = []
        for kind, key in self.params.values():
            tensors.append(state[key] if kind == "state" else
                           self.constants[key])
        return tensors

    def manifest(self):
        """The JSON-able description sinter.compile stores beside the sources."""
        return {
            "name": self.name,
            "params": {k: list(v) for k, v in self.params.items()},
            "inputs": self.inputs,
            "outputs": self.outputs,
            "returns_tuple": self.returns_tuple,
            "dims": self.dims,
        }


def sanitize(name):
    """A .sinter identifier for `name` (state_dict keys: `layers.0.weight` ->
    `layers_0_weight`)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not name or name[0].isdigit():
        name = "v" + name
    if name in _KEYWORDS:
        name += "_"
    return name


def _snake_case(name):
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    name = sanitize(name)
    if name in _KEYWORDS or name in _RESERVED_MODEL_NAMES:
        name = "torch_" + name
    return name


def _format_number(value):
    """A .sinter number literal for a Python scalar."""
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{value} has no .sinter literal")
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value)}.0"
    return repr(value)


def _source_line(node):
    """`file:line  code` of the innermost frame of the user's code in the
    node's stack trace, or None."""
    trace = node.meta.get("stack_trace") or ""
    torch_dir = os.path.dirname(torch.__file__)
    frames = re.findall(r'File "([^"]+)", line (\d+), in [^\n]*\n([^\n]*)',
                        trace)
    for path, line, code in reversed(frames):
        if path.startswith(torch_dir) or "/torch/" in path:
            continue
        return f"{os.path.basename(path)}:{line}  {code.strip()}"
    return None


class Translation:
    """State of one translation: names, values, statements."""

    def __init__(self, program, dim_names):
        self.program = program
        self.dim_names = dim_names  # sympy symbol name -> .sinter dim name
        self.used_names = set()
        self.values = {}  # fx.Node -> aten_ops.Value (or a tuple of them)
        self.statements = []  # (name, expr, comment)
        self.node = None  # the node being translated

    def fresh_name(self, base):
        name = sanitize(base)
        candidate, suffix = name, 1
        while candidate in self.used_names:
            candidate = f"{name}_{suffix}"
            suffix += 1
        self.used_names.add(candidate)
        return candidate

    def shape_of(self, node):
        """The shape of an fx node's value: ints and dim names (None for a
        size that is an expression of dims)."""
        val = node.meta.get("val")
        return self.shape_from(val.shape)

    def shape_from(self, sizes):
        shape = []
        for size in sizes:
            if isinstance(size, int):
                shape.append(size)
                continue
            expr = size.node.expr
            if expr.is_Integer:
                shape.append(int(expr))
            elif expr.is_Symbol and str(expr) in self.dim_names:
                shape.append(self.dim_names[str(expr)])
            else:
                shape.append(None)
        return tuple(shape)

    def emit(self, expr, shape, dtype="f32", name=None):
        """Assigns `expr` to a new value named `name` (by default after the
        current node)."""
        name = self.fresh_name(name or self.node.name)
        self.statements.append((name, expr, _source_line(self.node)))
        return aten_ops.Value(name, shape, dtype)

    def unsupported(self, reason):
        return UnsupportedOpError.for_node(self, self.node, reason)


def _dim_names(module, dynamic_shapes, user_inputs):
    """Maps each symbol of the user inputs' shapes to a dim name: the
    torch.export.Dim's name where the dynamic_shapes spec gives one."""
    specs = []
    if isinstance(dynamic_shapes, dict):
        import inspect
        names = list(inspect.signature(module.forward).parameters)
        specs = [dynamic_shapes.get(name) for name in names]
    elif dynamic_shapes is not None:
        specs = list(dynamic_shapes)
    result = {}
    for index, node in enumerate(user_inputs):
        spec = specs[index] if index < len(specs) else None
        items = {}
        if isinstance(spec, dict):
            items = spec
        elif isinstance(spec, (list, tuple)):
            items = dict(enumerate(spec))
        for axis, size in enumerate(node.meta["val"].shape):
            if isinstance(size, int) or not size.node.expr.is_Symbol:
                continue
            symbol = str(size.node.expr)
            if symbol in result:
                continue
            dim = items.get(axis)
            name = getattr(dim, "__name__", None) or f"D{len(result)}"
            result[symbol] = sanitize(name)
    return result


def _live_nodes(graph, roots):
    live, stack = set(), list(roots)
    while stack:
        node = stack.pop()
        if node in live:
            continue
        live.add(node)
        stack.extend(node.all_input_nodes)
    return live


def _run_export(module, args, dynamic_shapes):
    try:
        program = torch.export.export(module, tuple(args),
                                      dynamic_shapes=dynamic_shapes)
        table = torch.export.default_decompositions()
        for op in _preserved_ops():
            table.pop(op, None)
        return program.run_decompositions(table)
    except Exception as error:  # torch's own message, without its traceback
        lines = str(error).strip().splitlines() or [""]
        message = lines[0]
        raise ExportError(
            f"torch.export could not trace {type(module).__name__}: "
            f"{type(error).__name__}: {message}") from None


def export_program(module, args, dynamic_shapes=None, name=None):
    """Exports `module` called on `args` to .sinter; returns an `Exported`.

    `dynamic_shapes` is torch.export's: e.g. `({0: Dim("B")},)` makes dim 0
    of the first input a symbolic dim `B`. Raises `UnsupportedOpError` for an
    op .sinter cannot express, `ExportError` when torch.export fails.
    """
    from torch.export.graph_signature import InputKind, OutputKind

    if isinstance(args, torch.Tensor):
        args = (args,)
    program = _run_export(module, args, dynamic_shapes)
    signature = program.graph_signature
    graph = program.graph_module.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    specs = dict(zip((n.name for n in placeholders), signature.input_specs))
    user_inputs = [n for n in placeholders
                   if specs[n.name].kind == InputKind.USER_INPUT]
    dim_names = _dim_names(module, dynamic_shapes, user_inputs)

    out_node = next(n for n in graph.nodes if n.op == "output")
    out_args = list(out_node.args[0])
    user_outputs, notes = [], []
    for spec, arg in zip(signature.output_specs, out_args):
        if spec.kind == OutputKind.USER_OUTPUT:
            user_outputs.append(arg)
        elif spec.kind == OutputKind.BUFFER_MUTATION:
            notes.append(f"buffer {spec.target} is updated by PyTorch but not "
                         "by this model (Sinter models do not write state)")
        else:
            raise ExportError(
                f"sinter.export: the program has an output of kind "
                f"{spec.kind.name} ({spec.target}); only forward outputs and "
                "buffer updates are handled")
    live = _live_nodes(graph, [a for a in user_outputs
                               if isinstance(a, torch.fx.Node)])

    t = Translation(program, dim_names)
    exported = Exported(text="", name=name or _snake_case(
        type(module).__name__))
    exported.notes = notes
    header = []

    dims_seen = {}
    for node in user_inputs:
        for size, expr in zip(t.shape_of(node), node.meta["val"].shape):
            if isinstance(size, str) and size not in dims_seen:
                dims_seen[size] = int(expr.node.hint) if hasattr(
                    expr.node, "hint") and expr.node.hint is not None else 1
    for dim, value in dims_seen.items():
        t.used_names.add(dim)
        header.append(f"dim {dim} = {value}")
    exported.dims = dims_seen

    declarations = []
    for node in placeholders:
        spec = specs[node.name]
        val = node.meta.get("val")
        if node not in live and spec.kind != InputKind.USER_INPUT:
            continue
        if not isinstance(val, torch.Tensor):
            raise ExportError(
                f"sinter.export: input {node.name} is a "
                f"{type(val).__name__}; .sinter models take tensors only")
        if val.dtype != torch.float32:
            what = spec.target or node.name
            raise ExportError(
                f"sinter.export: {what} is {val.dtype}; .sinter models are "
                "float32 (call module.float() and pass float32 inputs)")
        shape = t.shape_of(node)
        if None in shape:
            raise ExportError(f"sinter.export: input {node.name} has a shape "
                              f"with a computed size: {tuple(val.shape)}")
        type_text = aten_ops.format_type(shape, "f32")
        if spec.kind == InputKind.USER_INPUT:
            vname = t.fresh_name(node.name)
            exported.inputs.append(vname)
            declarations.append(f"input {vname}: {type_text}")
        else:
            if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
                source = ("state", spec.target)
            elif spec.kind == InputKind.CONSTANT_TENSOR:
                source = ("constant", spec.target)
                exported.constants[spec.target] = program.constants[
                    spec.target]
            else:
                raise ExportError(f"sinter.export: input {node.name} of kind "
                                  f"{spec.kind.name} is not supported")
            vname = t.fresh_name(spec.target)
            exported.params[vname] = source
            declarations.append(
                f"param {vname}: {type_text}  # {spec.target}")
        t.values[node] = aten_ops.Value(vname, shape, "f32")

    for node in graph.nodes:
        if node.op != "call_function" or node not in live:
            continue
        t.node = node
        t.values[node] = aten_ops.translate(t, node)

    results = []
    for arg in user_outputs:
        value = t.values.get(arg) if isinstance(arg, torch.fx.Node) else None
        if not isinstance(value, aten_ops.Value) or value.literal:
            raise ExportError("sinter.export: every output of the module must "
                              "be a tensor computed from its inputs")
        results.append(value)
    exported.outputs = [v.name for v in results]
    out_tree = getattr(program.call_spec, "out_spec", None)
    exported.returns_tuple = not (out_tree is not None and
                                  out_tree.num_leaves == 1 and
                                  out_tree.type is None)

    lines = [f"# {exported.name}: exported from {type(module).__name__} by "
             f"sinter.export (torch {torch.__version__.split('+')[0]})"]
    for note in notes:
        lines.append(f"# note: {note}")
    lines.append(f"model {exported.name} {{")
    used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(
        [expr for _, expr, _ in t.statements] + [v.name for v in results])))
    declarations = [d for d in declarations if d.split()[1].rstrip(":") in used
                    or d.startswith("input ")]
    for name in [n for n in exported.params if n not in used]:
        del exported.params[name]
    declarations.sort(key=lambda d: not d.startswith("input "))
    for line in header + declarations:
        lines.append(f"  {line}")
    previous = None
    for vname, expr, comment in t.statements:
        location, _, code = (comment or "").partition("  ")
        if comment and comment != previous:
            lines.append(f"  # {location}: {code}")
        previous = comment
        suffix = f"  # {location}" if comment else ""
        lines.append(f"  {vname} = {expr}{suffix}")
    lines.append("  return " + ", ".join(v.name for v in results))
    lines.append("}")
    exported.text = "\n".join(lines) + "\n"
    return exported


def batch_dynamic_shapes(inputs):
    """dynamic_shapes with dim 0 of every tensor input the symbolic dim B,
    or None when the inputs disagree on that size (or it is 1)."""
    sizes = {x.shape[0] for x in inputs
             if isinstance(x, torch.Tensor) and x.dim() > 0}
    if len(sizes) != 1 or sizes == {1}:
        return None
    batch = Dim("B")
    return tuple({0: batch} if isinstance(x, torch.Tensor) and x.dim() > 0
                 else None for x in inputs)


def export(module, args, dynamic_shapes=None, name=None):
    """The .sinter text of `module` called on `args` (see export_program)."""
    return export_program(module, args, dynamic_shapes, name).text
