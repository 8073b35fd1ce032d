"""Generates, compiles and links every model of the given files.

Usage: compile_models.py [--jobs N] [--compile-only] [--skip MODEL]...
                         <sinterc> <nvcc>
                         <libsinter_rt.a> <runtime include> <out dir>
                         <model.sinter|model.mlir>...

Each file holds one model or several (`model NAME {` in .sinter, `module
@NAME` in .mlir; with several, each is compiled with --model). For each
model: `sinterc -emit=cuda -o <out>/<file>.<model>` (twice: the two outputs
must be byte-identical), `nvcc -arch=sm_90 -Werror all-warnings -c` on the
.cu, and, unless --compile-only, a C99 driver compiled with -Wall -Wextra
-Werror -pedantic against the header (the header is C), linked with the
runtime and cuBLAS, and run: the calls it makes need no GPU (a null params
pointer, a null model, every dim 0 (an empty batch where the header
documents each dim "at least 0", else an error), workspace sizes, lending
to a null model, destroying NULL) and must return the documented statuses.
--skip leaves out a model the emitter does not support yet (f16). Models
compile on N threads (default 4); prints one line per model, in the order
given, and exits 1 after the first failure's output.
"""

import argparse
import concurrent.futures
import filecmp
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..",
                                "scripts", "gpucheck"))
from prepare import parse_emptying_dims, parse_header  # noqa: E402


class Failure(Exception):
    """A step of one model failed; the message says which and why."""


def run(command, env=None):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    if result.returncode != 0:
        raise Failure("FAILED: %s\n%s" % (" ".join(command), result.stdout))
    return result.stdout


def list_models(source):
    """The models of `source`: [None] for a file of one model (no --model),
    else the names of its models."""
    pattern = r'^\s*module\s+@"?([A-Za-z0-9_]+)' if source.endswith(".mlir") \
        else r"^\s*model\s+([A-Za-z0-9_]+)\s*\{"
    with open(source) as f:
        names = re.findall(pattern, f.read(), re.MULTILINE)
    return names if len(names) > 1 else [None]


def write_driver(path, model, dims, inputs, outputs, emptying):
    def call(dim_value, null_model):
        args = ["NULL" if null_model else "model"]
        args += [str(dim_value)] * len(dims)
        args += ["NULL"] * (len(inputs) + len(outputs))
        return "%s_forward(%s, 0)" % (model, ", ".join(args))

    dims_of = lambda value: ", ".join([str(value)] * len(dims) + ["&bytes"])
    lines = [
        "/* Calls every function of the C API of '%s' from C99. */" % model,
        '#include "%s.h"' % model,
        "#include <stdio.h>",
        "",
        "static int expect(sinter_status got, sinter_status want, const char *what) {",
        "  if (got == want)",
        "    return 0;",
        '  printf("%s: got %s, expected %s\\n", what, sinter_status_name(got),',
        "         sinter_status_name(want));",
        "  return 1;",
        "}",
        "",
        "int main(void) {",
        "  %s *model = NULL;" % model,
        "  size_t bytes = 0;",
        "  int failures = 0;",
        "  failures += expect(%s_create(&model, NULL, 0), SINTER_ERROR_NULL_POINTER,"
        % model,
        '                     "create with null params");',
        "  failures += expect(%s, SINTER_ERROR_NULL_POINTER," % call(1, True),
        '                     "forward on a null model");',
    ]
    if dims:
        # Every dim 0: an empty batch (no workspace) when each of them empties
        # every output, an error otherwise.
        empty = set(dims) == set(emptying)
        lines += [
            "  bytes = 1;",
            "  failures += expect(%s_workspace_bytes(%s), %s,"
            % (model, dims_of(0), "SINTER_OK" if empty else "SINTER_ERROR_BAD_DIM"),
            '                     "workspace_bytes with every dim 0");',
        ]
        if empty:
            lines += [
                "  if (bytes != 0) {",
                '    printf("empty batch: workspace of %zu bytes, expected 0\\n", bytes);',
                "    failures += 1;",
                "  }",
            ]
    lines += [
        "  failures += expect(%s_workspace_bytes(%s), SINTER_OK," % (model, dims_of(3)),
        '                     "workspace_bytes");',
        "  failures += expect(%s_set_workspace(NULL, NULL, 0), SINTER_ERROR_NULL_POINTER,"
        % model,
        '                     "set_workspace on a null model");',
        "  failures += expect(%s_destroy(NULL), SINTER_OK, \"destroy(NULL)\");" % model,
        '  printf("%s: C API ok, workspace %%zu bytes at dims = 3\\n", bytes);' % model,
        "  return failures;",
        "}",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def compile_model(args, source, name, env, cuda_include):
    """Generates, compiles and (unless --compile-only) links and runs the C
    API driver of model `name` of `source`; returns the line to print."""
    stem = os.path.splitext(os.path.basename(source))[0]
    label = stem + ("." + name if name else "")
    first = os.path.join(args.out, label)
    second = first + ".again"
    select = ["--model=" + name] if name else []
    run([args.sinterc, source, "-emit=cuda", "-o", first] + select)
    run([args.sinterc, source, "-emit=cuda", "-o", second] + select)
    header = [f for f in os.listdir(first) if f.endswith(".h")][0]
    model = header[:-2]
    for ext in (".h", ".cu"):
        if not filecmp.cmp(os.path.join(first, model + ext),
                           os.path.join(second, model + ext), shallow=False):
            raise Failure("FAILED: %s%s differs between two runs" % (model, ext))
    run([args.nvcc, "-std=c++17", "-arch=sm_90", "-Werror", "all-warnings",
         "-Xcompiler", "-Wall,-Wextra,-Werror", "-I", first, "-I", args.include,
         "-c", os.path.join(first, model + ".cu"),
         "-o", os.path.join(first, model + ".o")])
    if args.compile_only:
        return "%s: compiled\n" % model
    _, dims, inputs, _, outputs = parse_header(os.path.join(first, header))
    driver = os.path.join(first, "driver.c")
    write_driver(driver, model, dims, inputs, outputs,
                 parse_emptying_dims(os.path.join(first, header)))
    run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
         "-I", first, "-I", args.include, "-isystem", cuda_include,
         "-c", driver, "-o", driver + ".o"])
    binary = os.path.join(first, "driver")
    run([args.nvcc, "-cudart", "shared", driver + ".o", os.path.join(first, model + ".o"),
         args.library, "-lcublasLt", "-lcublas", "-o", binary])
    return run([binary], env=env)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--compile-only", action="store_true")
    parser.add_argument("--skip", action="append", default=[])
    for name in ("sinterc", "nvcc", "library", "include", "out"):
        parser.add_argument(name)
    parser.add_argument("sources", nargs="+")
    args = parser.parse_args()
    cuda = os.path.dirname(os.path.dirname(os.path.realpath(args.nvcc)))
    cuda_include = os.path.join(cuda, "include")
    cuda_libs = [os.path.join(cuda, d) for d in ("lib64", "targets/x86_64-linux/lib")]
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(cuda_libs + [env.get("LD_LIBRARY_PATH", "")])
    models = [(source, name) for source in args.sources
              for name in list_models(source) if name not in args.skip]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(compile_model, args, source, name, env, cuda_include)
                   for source, name in models]
        for future in futures:
            try:
                sys.stdout.write(future.result())
            except Failure as failure:
                print(failure)
                for other in futures:
                    other.cancel()
                sys.exit(1)
    print("compile_models: %d models ok" % len(models))


if __name__ == "__main__":
    main()
