#!/usr/bin/env python3
"""Prepares the folder that `scripts/gpu-check run` checks on a GPU machine.

Runs where Sinter is built (it needs build/bin/sinterc and NumPy). For every
model file it
  - generates the model's CUDA code (sinterc -emit=cuda -o cases/<model>/gen);
  - runs the f64 interpreter at every batch size (sinterc run --precision f64
    --save-inputs --out-dir, seed 1, every symbolic dim set to the size);
  - records, per size, how each input and param was drawn with a checksum of
    the saved values (the GPU side draws them again and checks the sum, so
    no large tensor travels) and keeps the reference outputs of at most
    24 rows of the leading dim (first 8, last 8 and 8 spread between);
  - writes the model's driver (driver.cpp, see gpucheck.h).
It copies the runtime sources and the GPU-side tools beside the cases:

  <out>/
    tools/gpucheck.h, tools/run.py     the GPU side
    runtime/                           runtime/ without its tests, but for
                                       the 3xTF32 GEMM's GPU test (its
                                       accuracy and inf/NaN against SGEMM)
    cases/<model>/gen/<model>.{cu,h}   generated code
    cases/<model>/driver.cpp           the model's driver
    cases/<model>/B<k>/case.txt        dims, how to draw inputs and params
    cases/<model>/B<k>/<output>.npy    f64 (i8) reference rows
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(SCRIPT_DIR))
SEED = 1
MAX_ROWS = 24
# The runtime's own GPU tests that `gpu-check run` builds and runs too.
RUNTIME_TESTS = ("tf32x3_gpu_test.cu", "tf32x3_specials.h")


def checksum(values):
    """The checksum of gpucheck.h: sum of word[i] * (i * K | 1) mod 2^64."""
    words = np.ascontiguousarray(values, dtype="<f4").view("<u4").astype(np.uint64)
    index = np.arange(words.size, dtype=np.uint64)
    with np.errstate(over="ignore"):
        factors = (index * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)
        return int(np.sum(words * factors, dtype=np.uint64))


def parse_header(path):
    """Reads the model's interface from the generated header."""
    text = open(path).read()
    model = os.path.splitext(os.path.basename(path))[0]
    signature = re.search(r"sinter_status %s_forward\((.*?)\);" % re.escape(model),
                          text, re.S).group(1)
    docs = {}
    for name, kind, shape, renamed in re.findall(
            r"^/// (\w+): (input|output), ((?:float|int64_t)(?:\[[^\]]*\])*)"
            r"(?:, '([^']*)' in the model)?\.$", text, re.M):
        docs[name] = (shape, renamed or name)
    params = []
    struct = re.search(r"typedef struct %s_params \{(.*?)\}" % re.escape(model),
                       text, re.S).group(1)
    for name, shape, init, renamed in re.findall(
            r"const float \*(\w+); /\*\*< (float(?:\[[^\]]*\])*)"
            r"(?:, init ([\w]+\([^)]*\)))?(?:, '([^']*)' in the model)? \*/",
            struct):
        params.append({"name": name, "user": renamed or name,
                       "shape": shape, "init": init})
    dims, inputs, outputs = [], [], []
    for param in [p.strip() for p in signature.split(",")][1:-1]:
        kind, name = param.rsplit(None, 1)
        name = name.lstrip("*")
        kind = kind + (" *" if param.split()[-1].startswith("*") else "")
        if kind == "int64_t":
            dims.append(name)
        elif kind.startswith("const float"):
            inputs.append({"name": name, "user": docs[name][1],
                           "shape": docs[name][0]})
        else:
            outputs.append({"name": name, "user": docs[name][1],
                            "shape": docs[name][0],
                            "type": "i64" if kind.startswith("int64_t") else "f32"})
    return model, dims, inputs, params, outputs


def parse_emptying_dims(path):
    """The dims of the generated header whose value 0 empties every output
    (documented "at least 0"): an empty batch, which returns at once."""
    return re.findall(r"^/// (\w+): a symbolic dim, at least 0\b", open(path).read(), re.M)


def evaluate_shape(shape, dims):
    """'float[B][4097]' with B=3 -> [3, 4097]."""
    sizes = re.findall(r"\[([^\]]*)\]", shape)
    return [int(eval(size, {"__builtins__": {}}, dims)) for size in sizes]


def sample_rows(count):
    if count <= MAX_ROWS:
        return None
    rows = set(range(8)) | set(range(count - 8, count))
    rows |= {int(round(8 + i * (count - 17) / 7.0)) for i in range(8)}
    return sorted(rows)


def run(command, may_fail=False):
    """Runs `command`; returns (ok, output). Exits on failure unless `may_fail`."""
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    if result.returncode != 0 and not may_fail:
        sys.exit("gpu-check prepare: failed: %s\n%s" % (" ".join(command), result.stdout))
    return result.returncode == 0, result.stdout


def write_driver(path, model, dims, inputs, params, outputs, emptying):
    arguments = ['call.dim("%s")' % d for d in dims]
    arguments += ['call.input("%s")' % i["name"] for i in inputs]
    arguments += ['call.output<%s>("%s")' % ("int64_t" if o["type"] == "i64" else "float",
                                             o["name"]) for o in outputs]
    dim_arguments = ['call.dim("%s")' % d for d in dims]
    lines = [
        "// The gpu-check driver of model '%s' (generated by scripts/gpu-check "
        "prepare)." % model,
        '#include "%s.h"' % model,
        '#include "gpucheck.h"',
        "",
        "int main(int argc, char **argv) {",
        "  if (argc < 2)",
        '    gpucheck::fail("usage: driver <case dir> [--quick]");',
        "  gpucheck::Case c(argv[1], %d);" % SEED,
        '  bool quick = argc > 2 && std::string(argv[2]) == "--quick";',
        "  %s_params params = {};" % model,
    ]
    lines += ['  params.%s = c.param("%s");' % (p["name"], p["name"]) for p in params]
    lines += [
        "  gpucheck::Api api;",
        "  api.create = [&](void **model, cudaStream_t stream) {",
        "    return %s_create(reinterpret_cast<%s **>(model), &params, stream);"
        % (model, model),
        "  };",
        "  api.forward = [&](void *model, const gpucheck::Call &call,",
        "                    cudaStream_t stream) {",
        "    return %s_forward(static_cast<%s *>(model), %s, stream);"
        % (model, model, ", ".join(arguments)),
        "  };",
        "  api.workspaceBytes = [&](const gpucheck::Call &call, size_t *bytes) {",
        "    (void)call;",
        "    return %s_workspace_bytes(%s);" % (model, ", ".join(dim_arguments + ["bytes"])),
        "  };",
        "  api.destroy = [&](void *model) {",
        "    return %s_destroy(static_cast<%s *>(model));" % (model, model),
        "  };",
        "  api.emptyingDims = {%s};" % ", ".join('"%s"' % d for d in emptying),
        '  return gpucheck::run(c, api, std::string("%s ") + argv[1], quick);' % model,
        "}",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def prepare_model(sinterc, source, out, sizes):
    with tempfile.TemporaryDirectory() as scratch:
        gen = os.path.join(scratch, "gen")
        run([sinterc, source, "-emit=cuda", "-o", gen])
        headers = [f for f in os.listdir(gen) if f.endswith(".h")]
        model, dims, inputs, params, outputs = parse_header(os.path.join(gen, headers[0]))
        case = os.path.join(out, "cases", model)
        shutil.rmtree(case, ignore_errors=True)
        shutil.copytree(gen, os.path.join(case, "gen"))
        emptying = parse_emptying_dims(os.path.join(gen, headers[0]))
        write_driver(os.path.join(case, "driver.cpp"), model, dims, inputs, params, outputs,
                     emptying)
        param_sums = {}
        for size in sizes if dims else [sizes[0]]:
            values = {d: size for d in dims}
            saved, results = os.path.join(scratch, "in"), os.path.join(scratch, "out")
            for directory in (saved, results):
                shutil.rmtree(directory, ignore_errors=True)
            command = [sinterc, "run", source, "--seed=%d" % SEED, "--precision=f64",
                       "--save-inputs", saved, "--out-dir", results]
            for d in dims:
                command += ["--dim", "%s=%d" % (d, size)]
            ok, output = run(command, may_fail=True)
            directory = os.path.join(case, "B%d" % size)
            os.makedirs(directory)
            if not ok:
                # The model rejects this size (batch_norm in training mode
                # needs two rows): the GPU side reports it as skipped.
                message = [l for l in output.splitlines() if "error:" in l]
                with open(os.path.join(directory, "skip.txt"), "w") as f:
                    f.write((message[0] if message else output.strip()).split("error: ")[-1]
                            + "\n")
                continue
            lines = ["dim %s %d" % (d, size) for d in dims]
            for kind, tensors in (("input", inputs), ("param", params)):
                for t in tensors:
                    shape = evaluate_shape(t["shape"], values)
                    hint, args = "randn", "-"
                    if kind == "param":
                        match = re.match(r"(\w+)\((.*)\)", t["init"])
                        hint = match.group(1)
                        args = match.group(2).replace(" ", "") or "-"
                    if kind == "input" or t["name"] not in param_sums:
                        data = np.load(os.path.join(saved, t["user"] + ".npy"))
                        if list(data.shape) != shape:
                            sys.exit("gpu-check prepare: %s: saved shape %s, header %s"
                                     % (t["user"], list(data.shape), shape))
                        total = checksum(data.ravel())
                        if kind == "param":
                            param_sums[t["name"]] = total
                    else:
                        total = param_sums[t["name"]]
                    lines.append("%s %s %s %s %s %s %d" % (
                        kind, t["name"], t["user"], hint, args,
                        ",".join(map(str, shape)) or "-", total))
            for o in outputs:
                shape = evaluate_shape(o["shape"], values)
                data = np.load(os.path.join(results, o["user"] + ".npy"))
                if list(data.shape) != shape:
                    sys.exit("gpu-check prepare: %s: interpreter shape %s, header %s"
                             % (o["user"], list(data.shape), shape))
                rows = sample_rows(shape[0]) if shape else None
                kept = data[rows] if rows is not None else data
                np.save(os.path.join(directory, o["name"] + ".npy"),
                        kept.astype("<i8" if o["type"] == "i64" else "<f8"))
                lines.append("output %s %s %s %s" % (
                    o["name"], o["type"], ",".join(map(str, shape)) or "-",
                    ",".join(map(str, rows)) if rows is not None else "all"))
            with open(os.path.join(directory, "case.txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
    return model


def folder_size(path):
    return sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(path) for f in files)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="gpucheck", help="the folder to write")
    parser.add_argument("--sizes", default="1,3,64,1000",
                        help="the values of the symbolic dims (comma-separated)")
    parser.add_argument("--sinterc", default=os.path.join(ROOT, "build", "bin", "sinterc"))
    parser.add_argument("models", nargs="*", help="model files (default: examples/*.sinter "
                        "and test/Target/CUDA/Inputs/models/*.sinter)")
    args = parser.parse_args()
    models = args.models or sorted(
        [os.path.join(ROOT, "examples", f) for f in os.listdir(os.path.join(ROOT, "examples"))
         if f.endswith(".sinter")] +
        [os.path.join(ROOT, "test/Target/CUDA/Inputs/models", f)
         for f in os.listdir(os.path.join(ROOT, "test/Target/CUDA/Inputs/models"))
         if f.endswith(".sinter")])
    sizes = [int(s) for s in args.sizes.split(",")]
    os.makedirs(os.path.join(args.out, "cases"), exist_ok=True)
    for name in ("tools", "runtime"):
        shutil.rmtree(os.path.join(args.out, name), ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "runtime"), os.path.join(args.out, "runtime"),
                    ignore=shutil.ignore_patterns("test"))
    os.makedirs(os.path.join(args.out, "runtime", "test"))
    for test in RUNTIME_TESTS:
        shutil.copy(os.path.join(ROOT, "runtime", "test", test),
                    os.path.join(args.out, "runtime", "test"))
    os.makedirs(os.path.join(args.out, "tools"))
    for tool in ("gpucheck.h", "run.py"):
        shutil.copy(os.path.join(SCRIPT_DIR, tool), os.path.join(args.out, "tools"))
    for source in models:
        print("gpu-check prepare: %s" % os.path.relpath(source, ROOT), flush=True)
        prepare_model(args.sinterc, source, args.out, sizes)
    size = folder_size(args.out)
    print("gpu-check prepare: wrote %s (%.1f MiB)" % (args.out, size / 2**20))
    if size > 60 * 2**20:
        sys.exit("gpu-check prepare: the folder is over 60 MiB")


if __name__ == "__main__":
    main()
