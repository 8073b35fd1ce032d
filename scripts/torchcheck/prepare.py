#!/usr/bin/env python3
"""Prepares the folder that `scripts/torch-check run` checks on a GPU machine.

Runs where Sinter is built (it needs build/bin/sinterc and NumPy). A model
file that is a PyTorch module in the layout of KernelBench problems (a .py
file with Model, get_inputs() and get_init_inputs(), e.g.
bench/torch_models/*.py) is first exported with `python -m sinter export`
(needs torch) into <out>/exported/<file>.sinter. For every model file
(default: examples/*.sinter) it
  - generates the model's CUDA code and PyTorch extension
    (sinterc -emit=cuda --emit-torch -o gen/<model>, runtime included);
  - runs the f64 interpreter with every symbolic dim set to --size
    (sinterc run --precision=f64 --seed=1 --save-inputs --out-dir);
  - keeps each input and param of at most --threshold MiB as .npy; a larger
    one (the 8192 x 8192 weights of the examples) is recorded by its init
    hint and the checksum of the saved values, and the GPU side draws it
    again exactly as `sinterc run` did (scripts/gpucheck/gpucheck.h), so that
    nothing large travels;
  - keeps every output of the interpreter (f64, or i64 for indices).
It copies the GPU side beside the cases:

  <out>/
    torch_check.py                  the GPU side (scripts/torchcheck/)
    draw.cpp, gpucheck.h            draws the large tensors again
    gen/<model>/                    sinterc --emit-torch output
    cases/<model>/case.json         dims, params, inputs, outputs (below)
    cases/<model>/data/<name>.npy   inputs and params (<f4) kept as data
    cases/<model>/ref/<name>.npy    the interpreter's outputs (<f8, <i8)

case.json: {"model": C name, "source": file, "seed": 1, "dims": {name: size},
"params" and "inputs": [{"name", "shape", "symbolic" (per dim), "sizes" (per
dim: the header's C expression), and "file" or "hint", "args", "checksum"}]
in the order of the C API (PARAM_NAMES, INPUT_NAMES),
"outputs": [{"name", "dtype": "f32"|"i64", "shape", "sizes", "file"}],
"emptying": the dims whose value 0 empties every output (an empty batch)}.
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(SCRIPT_DIR))
GPUCHECK_DIR = os.path.join(ROOT, "scripts", "gpucheck")
SEED = 1


def load_gpucheck():
    """scripts/gpucheck/prepare.py: header parsing, shapes and checksums."""
    spec = importlib.util.spec_from_file_location(
        "gpucheck_prepare", os.path.join(GPUCHECK_DIR, "prepare.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gpucheck = load_gpucheck()


def prepare_model(sinterc, source, out, size, threshold):
    """Generates and runs one model; returns its C name."""
    with tempfile.TemporaryDirectory() as scratch:
        gen = os.path.join(scratch, "gen")
        gpucheck.run([sinterc, source, "-emit=cuda", "--emit-torch", "-o", gen])
        header = [f for f in os.listdir(gen) if f.endswith(".h")][0]
        model, dims, inputs, params, outputs = gpucheck.parse_header(
            os.path.join(gen, header))
        target = os.path.join(out, "gen", model)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(gen, target)

        values = {d: size for d in dims}
        saved, results = os.path.join(scratch, "in"), os.path.join(scratch, "out")
        command = [sinterc, "run", source, "--seed=%d" % SEED, "--precision=f64",
                   "--save-inputs", saved, "--out-dir", results]
        for d in dims:
            command += ["--dim", "%s=%d" % (d, size)]
        gpucheck.run(command)

        case = os.path.join(out, "cases", model)
        shutil.rmtree(case, ignore_errors=True)
        os.makedirs(os.path.join(case, "data"))
        os.makedirs(os.path.join(case, "ref"))
        doc = {"model": model, "source": os.path.relpath(source, ROOT), "seed": SEED,
               "dims": values, "params": [], "inputs": [], "outputs": [],
               "emptying": gpucheck.parse_emptying_dims(os.path.join(gen, header))}
        for kind, tensors in (("params", params), ("inputs", inputs)):
            for t in tensors:
                shape = gpucheck.evaluate_shape(t["shape"], values)
                data = np.load(os.path.join(saved, t["user"] + ".npy"))
                if list(data.shape) != shape or data.dtype != np.float32:
                    sys.exit("torch-check prepare: %s: saved %s %s, header float%s"
                             % (t["user"], data.dtype, list(data.shape), shape))
                symbolic = [not size.isdigit()
                            for size in re.findall(r"\[([^\]]*)\]", t["shape"])]
                entry = {"name": t["user"], "shape": shape, "symbolic": symbolic,
                         "sizes": re.findall(r"\[([^\]]*)\]", t["shape"])}
                if data.nbytes <= threshold:
                    entry["file"] = "data/%s.npy" % t["user"]
                    np.save(os.path.join(case, entry["file"]), data.astype("<f4"))
                else:
                    hint, args = "randn", []
                    if kind == "params":
                        match = re.match(r"(\w+)\((.*)\)", t["init"])
                        hint = match.group(1)
                        args = [float(a) for a in match.group(2).split(",") if a.strip()]
                    entry.update(hint=hint, args=args,
                                 checksum=str(gpucheck.checksum(data.ravel())))
                doc[kind].append(entry)
        for o in outputs:
            shape = gpucheck.evaluate_shape(o["shape"], values)
            data = np.load(os.path.join(results, o["user"] + ".npy"))
            if list(data.shape) != shape:
                sys.exit("torch-check prepare: %s: interpreter shape %s, header %s"
                         % (o["user"], list(data.shape), shape))
            entry = {"name": o["user"], "dtype": o["type"], "shape": shape,
                     "sizes": re.findall(r"\[([^\]]*)\]", o["shape"]),
                     "file": "ref/%s.npy" % o["user"]}
            np.save(os.path.join(case, entry["file"]),
                    data.astype("<i8" if o["type"] == "i64" else "<f8"))
            doc["outputs"].append(entry)
        with open(os.path.join(case, "case.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
    return model


def export_module(path, out):
    """Exports a KernelBench-layout file with `python -m sinter export`;
    returns the .sinter file."""
    folder = os.path.join(out, "exported")
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(
        folder, os.path.splitext(os.path.basename(path))[0] + ".sinter")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(ROOT, "python")] + [p for p in [env.get("PYTHONPATH")] if p])
    subprocess.run([sys.executable, "-m", "sinter", "export", path, "-o", target],
                   env=env, check=True)
    return target


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="the folder to write")
    parser.add_argument("--size", type=int, default=5,
                        help="the value of every symbolic dim (default 5)")
    parser.add_argument("--threshold", type=float, default=1.0,
                        help="MiB above which a tensor is drawn again on the GPU "
                        "side instead of saved (default 1)")
    parser.add_argument("--sinterc", default=os.path.join(ROOT, "build", "bin", "sinterc"))
    parser.add_argument("models", nargs="*",
                        help="model files: .sinter, .mlir, or .py (a PyTorch "
                        "module, KernelBench layout); default: examples/*.sinter")
    args = parser.parse_args()
    models = args.models or sorted(
        os.path.join(ROOT, "examples", f) for f in os.listdir(os.path.join(ROOT, "examples"))
        if f.endswith(".sinter"))
    os.makedirs(os.path.join(args.out, "cases"), exist_ok=True)
    shutil.copy(os.path.join(SCRIPT_DIR, "torch_check.py"), args.out)
    shutil.copy(os.path.join(SCRIPT_DIR, "draw.cpp"), args.out)
    shutil.copy(os.path.join(GPUCHECK_DIR, "gpucheck.h"), args.out)
    for source in models:
        print("torch-check prepare: %s" % os.path.relpath(source, ROOT), flush=True)
        if source.endswith(".py"):
            source = export_module(source, args.out)
        prepare_model(args.sinterc, os.path.abspath(source), args.out, args.size,
                      int(args.threshold * 2**20))
    size = gpucheck.folder_size(args.out)
    print("torch-check prepare: wrote %s (%.1f MiB); on the GPU machine: "
          "python3 %s/torch_check.py %s" % (args.out, size / 2**20, args.out, args.out))


if __name__ == "__main__":
    main()
