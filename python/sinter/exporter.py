"""torch.export to .sinter: walks an ExportedProgram and writes a model.

`export_program` runs `torch.export.export`, decomposes to core ATen with
`run_decompositions` (keeping, undecomposed, the composite ops that .sinter
has as builtins: linear, silu, the norms, softmax, ...; see
`_preserved_ops`), and translates every node with the handlers of
`sinter.aten`. The result is an `Exported`: the text, and the mapping from
each `param` to the state_dict entry (or lifted constant) it came from.
"""

import os
import re
from dataclasses import dataclass, field

import torch
from torch.export import Dim

from . import aten
from .aten.values import Value, format_type
from .errors import ExportError, UnsupportedOpError

#: Words that cannot name a value in .sinter.
_KEYWORDS = {"model", "dim", "input", "param", "return", "true", "false"}

#: Model names the PyTorch extension cannot build (they name runtime sources).
_RESERVED_MODEL_NAMES = {"context", "gemm", "gemm_epilogue"}


def _preserved_ops():
    """Composite ops that .sinter has as builtins: run_decompositions keeps
    them, so that the model reads as written and sinterc sees the norm."""
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
        op = getattr(getattr(torch.ops.aten, packet, None), overload, None)
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
    #: What the translation dropped on purpose (buffer updates), a line each.
    notes: list = field(default_factory=list)
    #: The lifted constants of the program, by their names.
    constants: dict = field(default_factory=dict)
    #: The ATen ops of the decomposed program that the model computes.
    ops: list = field(default_factory=list)

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
        """The JSON-able description that sinter.compile stores."""
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


def _model_name(class_name):
    """The default model name: the class name in snake_case (`MLPBlock` ->
    `mlp_block`), `torch_` before a keyword or a runtime name (`Model` ->
    `torch_model`)."""
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", class_name)
    name = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", name).lower()
    if name in _KEYWORDS or name in _RESERVED_MODEL_NAMES:
        name = "torch_" + name
    return sanitize(name)


def _source_line(node):
    """`file:line  code` of the innermost frame of the user's code in the
    node's stack trace, or None."""
    trace = node.meta.get("stack_trace") or ""
    torch_dir = os.path.dirname(torch.__file__)
    frames = re.findall(r'File "([^"]+)", line (\d+), in [^\n]*\n([^\n]*)',
                        trace)
    for path, line, code in reversed(frames):
        if path.startswith((torch_dir, "torch/")):
            continue
        return f"{os.path.basename(path)}:{line}  {code.strip()}"
    return None


class Translation:
    """State of one translation: names, values, statements."""

    def __init__(self, dim_names):
        self.dim_names = dim_names  # sympy symbol name -> .sinter dim name
        self.used_names = set()
        self.values = {}  # fx.Node -> Value (or a Multi)
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
        shape = []
        for size in node.meta["val"].shape:
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
        return Value(name, shape, dtype)

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


def _live_nodes(roots):
    """The nodes the outputs depend on."""
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


def _user_outputs(signature, out_node):
    """The module's outputs, and a note per buffer update left out."""
    from torch.export.graph_signature import OutputKind
    outputs, notes = [], []
    for spec, arg in zip(signature.output_specs, out_node.args[0]):
        if spec.kind == OutputKind.USER_OUTPUT:
            outputs.append(arg)
        elif spec.kind == OutputKind.BUFFER_MUTATION:
            notes.append(f"buffer {spec.target} is updated by PyTorch but not "
                         "by this model (Sinter models do not write state)")
        else:
            raise ExportError(
                f"sinter.export: the program has an output of kind "
                f"{spec.kind.name} ({spec.target}); only forward outputs and "
                "buffer updates are handled")
    return outputs, notes


def _declare(t, exported, program, node, spec):
    """The declaration of placeholder `node` (an input or a param), which
    also becomes the node's value."""
    from torch.export.graph_signature import InputKind
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        raise ExportError(
            f"sinter.export: input {node.name} is a {type(val).__name__}; "
            ".sinter models take tensors only")
    if val.dtype != torch.float32:
        raise ExportError(
            f"sinter.export: {spec.target or node.name} is {val.dtype}; "
            ".sinter models are float32 (call module.float() and pass "
            "float32 inputs)")
    shape = t.shape_of(node)
    if None in shape:
        raise ExportError(f"sinter.export: input {node.name} has a shape "
                          f"with a computed size: {tuple(val.shape)}")
    if spec.kind == InputKind.USER_INPUT:
        name = t.fresh_name(node.name)
        exported.inputs.append(name)
        declaration = f"input {name}: {format_type(shape, 'f32')}"
    elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER,
                       InputKind.CONSTANT_TENSOR):
        name = t.fresh_name(spec.target)
        if spec.kind == InputKind.CONSTANT_TENSOR:
            exported.params[name] = ("constant", spec.target)
            exported.constants[spec.target] = program.constants[spec.target]
        else:
            exported.params[name] = ("state", spec.target)
        declaration = (f"param {name}: {format_type(shape, 'f32')}  "
                       f"# {spec.target}")
    else:
        raise ExportError(f"sinter.export: input {node.name} of kind "
                          f"{spec.kind.name} is not supported")
    t.values[node] = Value(name, shape, "f32")
    return declaration


def _render(exported, class_name, dims, declarations, statements, results):
    """The .sinter text: a header, the dims, the inputs, the params the
    statements read, the statements (each with its source line) and the
    return."""
    lines = [f"# {exported.name}: exported from {class_name} by "
             f"sinter.export (torch {torch.__version__.split('+')[0]})"]
    lines += [f"# note: {note}" for note in exported.notes]
    lines.append(f"model {exported.name} {{")
    lines += [f"  dim {dim} = {size}" for dim, size in dims.items()]
    used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(
        [expr for _, expr, _ in statements] + results)))
    for name in [n for n in exported.params if n not in used]:
        del exported.params[name]
    inputs = [d for d in declarations if d.startswith("input ")]
    params = [d for d in declarations if d.split()[1].rstrip(":") in
              exported.params]
    lines += [f"  {line}" for line in inputs + params]
    previous = None
    for name, expr, comment in statements:
        location, _, code = (comment or "").partition("  ")
        if comment and comment != previous:
            lines.append(f"  # {location}: {code}")
        previous = comment
        suffix = f"  # {location}" if comment else ""
        lines.append(f"  {name} = {expr}{suffix}")
    lines.append("  return " + ", ".join(results))
    lines.append("}")
    return "\n".join(lines) + "\n"


def export_program(module, args, dynamic_shapes=None, name=None):
    """Exports `module` called on `args` to .sinter; returns an `Exported`.

    `dynamic_shapes` is torch.export's: e.g. `({0: Dim("B")},)` makes dim 0
    of the first input a symbolic dim `B`. Raises `UnsupportedOpError` for an
    op .sinter cannot express, `ExportError` when torch.export fails.
    """
    from torch.export.graph_signature import InputKind

    if isinstance(args, torch.Tensor):
        args = (args,)
    program = _run_export(module, args, dynamic_shapes)
    graph = program.graph_module.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    specs = dict(zip(placeholders, program.graph_signature.input_specs))
    user_inputs = [n for n in placeholders
                   if specs[n].kind == InputKind.USER_INPUT]
    outputs, notes = _user_outputs(
        program.graph_signature,
        next(n for n in graph.nodes if n.op == "output"))
    live = _live_nodes([a for a in outputs if isinstance(a, torch.fx.Node)])

    t = Translation(_dim_names(module, dynamic_shapes, user_inputs))
    exported = Exported(text="", name=name or _model_name(
        type(module).__name__), notes=notes)
    for node in user_inputs:
        for size, example in zip(t.shape_of(node), node.meta["val"].shape):
            if isinstance(size, str) and size not in exported.dims:
                hint = example.node.hint
                exported.dims[size] = 1 if hint is None else int(hint)
                t.used_names.add(size)
    declarations = [_declare(t, exported, program, node, specs[node])
                    for node in placeholders
                    if node in live or specs[node].kind ==
                    InputKind.USER_INPUT]

    for node in graph.nodes:
        if node.op == "call_function" and node in live:
            t.node = node
            t.values[node] = aten.translate(t, node)
    exported.ops = sorted({aten.op_name(n) for n in live
                           if n.op == "call_function" and not isinstance(
                               n.meta.get("val"), (int, torch.SymInt))})

    results = []
    for arg in outputs:
        value = t.values.get(arg) if isinstance(arg, torch.fx.Node) else None
        if not isinstance(value, Value) or value.literal:
            raise ExportError("sinter.export: every output of the module must "
                              "be a tensor computed from its inputs")
        results.append(value.name)
    exported.outputs = results
    out_tree = getattr(program.call_spec, "out_spec", None)
    exported.returns_tuple = not (out_tree is not None and
                                  out_tree.num_leaves == 1 and
                                  out_tree.type is None)
    exported.text = _render(exported, type(module).__name__, exported.dims,
                            declarations, t.statements, results)
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
