"""python -m sinter: the command line of the PyTorch front door.

    python -m sinter export problem.py [--class Model] -o model.sinter

reads a file in the layout of KernelBench problems (an nn.Module class,
`get_inputs()` and `get_init_inputs()`), builds the module with
`Model(*get_init_inputs())`, exports it on `get_inputs()` and writes the
.sinter model. Dim 0 of the inputs becomes the symbolic dim B when every
tensor input has the same size there (`--static` keeps every size fixed).
Exit status: 0 success, 1 the module cannot be exported, 2 usage errors.
"""

import argparse
import importlib.util
import os
import sys

from .errors import ExportError
from .exporter import batch_dynamic_shapes


def load_problem(path, class_name):
    """(module, inputs) of a KernelBench-layout file."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location(
        "sinter_problem_" + os.path.splitext(os.path.basename(path))[0], path)
    problem = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(problem)
    for name in (class_name, "get_inputs", "get_init_inputs"):
        if not hasattr(problem, name):
            raise AttributeError(
                f"{path} defines no {name!r} (a problem file defines the "
                "module class, get_inputs() and get_init_inputs())")
    cls = getattr(problem, class_name)
    module = cls(*problem.get_init_inputs())
    return module, list(problem.get_inputs())


def _file_model_name(path):
    """The default model name: the file's name in snake_case
    (`12_Gemm_Relu.py` -> `m12_gemm_relu`)."""
    from .exporter import sanitize
    stem = os.path.splitext(os.path.basename(path))[0].lower().strip("_")
    name = sanitize(stem)
    return "m" + name[1:] if name.startswith("v") and name[1:2].isdigit() \
        else name


def export_command(options):
    from .exporter import export_program
    module, inputs = load_problem(options.file, options.class_name)
    if options.eval:
        module.eval()
    dynamic = None if options.static else batch_dynamic_shapes(inputs)
    name = options.name or _file_model_name(options.file)
    exported = export_program(module, tuple(inputs), dynamic_shapes=dynamic,
                              name=name)
    if options.output == "-":
        sys.stdout.write(exported.text)
    else:
        with open(options.output, "w") as f:
            f.write(exported.text)
    for note in exported.notes:
        print(f"sinter export: note: {note}", file=sys.stderr)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m sinter",
        description="Sinter's PyTorch front door (see README.md, "
                    "'From PyTorch').")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser(
        "export", help="write the .sinter model of a KernelBench-layout file",
        description=__doc__.split("\n\n")[1].strip())
    export.add_argument("file", help="a .py file: the module class, "
                        "get_inputs(), get_init_inputs()")
    export.add_argument("--class", dest="class_name", default="Model",
                        help="the nn.Module class to export (default: Model)")
    export.add_argument("-o", dest="output", default="-",
                        help="the .sinter file to write ('-': stdout)")
    export.add_argument("--name", help="the model's name (default: the "
                        "class name in snake_case)")
    export.add_argument("--static", action="store_true",
                        help="keep dim 0 of the inputs fixed")
    export.add_argument("--eval", action="store_true",
                        help="call module.eval() before exporting")
    options = parser.parse_args(argv)
    try:
        return export_command(options)
    except ExportError as error:
        print(error, file=sys.stderr)
        return 1
    except (FileNotFoundError, AttributeError) as error:
        print(f"python -m sinter export: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
