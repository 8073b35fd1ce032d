"""Exports every module of Inputs/modules.py and checks it against PyTorch.

For each case: sinter.export with dim 0 of every input symbolic (B), then
sinterc compiles the model to CUDA (-o) and to fused MLIR (-emit=fused),
and the interpreter (`sinterc run --precision=f64`) runs both the .sinter
model and the fused MLIR at B = 3 and B = 5 on .npy inputs and on the
module's params (written under their .sinter names, read with
--params-dir), against the module in float64 in PyTorch on the same data.
Prints one line per case, the ATen ops seen, and `N passed, N failed`;
exits 1 on any failure.

    python3 check_export.py --sinterc build/bin/sinterc --work /tmp/w [CASE...]
"""

import argparse
import copy
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import modules  # noqa: E402

import sinter  # noqa: E402  (PYTHONPATH has the source tree's python/)
from sinter import aten  # noqa: E402

BATCHES = (3, 5)
# Relative error norm, float64 against float64. Not 1e-15: the number
# literals of a .sinter model are f32 constants (0.1 is 0.1f), so a model
# with literals differs from PyTorch's float64 by up to ~1e-7.
TOLERANCE = 1e-6


def run_interpreter(sinterc, model, batch, inputs, params_dir, out_dir):
    command = [sinterc, "run", model, "--precision=f64", f"--dim=B={batch}",
               f"--params-dir={params_dir}", f"--out-dir={out_dir}"]
    if inputs:
        command += ["--inputs"] + inputs
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}\n{result.stderr}")
    names = [line.split()[0] for line in result.stdout.splitlines() if line]
    return [np.load(os.path.join(out_dir, f"{name}.npy")) for name in names]


def compare(got, want):
    """An error message, or None when `got` matches `want`."""
    want = want.detach().numpy()
    if got.shape != want.shape:
        return f"shape {got.shape}, PyTorch {want.shape}"
    if want.dtype == np.int64:
        return None if np.array_equal(got, want) else "indices differ"
    norm = np.linalg.norm(want.ravel())
    error = np.linalg.norm((got - want).ravel()) / max(norm, 1e-300)
    if not error <= TOLERANCE:
        return f"relative error {error:.3g} > {TOLERANCE}"
    return None


def check_case(name, make, sizes, sinterc, work):
    torch.manual_seed(0)
    module = make().float()
    batch = sinter.Dim("B")
    example = [torch.randn(*[4 if s == "B" else s for s in shape])
               for shape in sizes]
    dynamic = tuple({0: batch} if shape[0] == "B" else None
                    for shape in sizes)
    exported = sinter.export_program(copy.deepcopy(module), tuple(example),
                                     dynamic_shapes=dynamic)
    folder = os.path.join(work, name)
    params_dir = os.path.join(folder, "params")
    os.makedirs(params_dir, exist_ok=True)
    model = os.path.join(folder, "model.sinter")
    with open(model, "w") as f:
        f.write(exported.text)
    for pname, tensor in zip(exported.params,
                             exported.param_tensors(module)):
        np.save(os.path.join(params_dir, f"{pname}.npy"),
                tensor.detach().double().numpy())
    fused = os.path.join(folder, "model.fused.mlir")
    for command in ([sinterc, model, "-o", os.path.join(folder, "gen")],
                    [sinterc, model, "-emit=fused", "-o", fused]):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}\n{result.stderr}")

    generator = torch.Generator().manual_seed(1)
    for n in BATCHES:
        inputs = [torch.randn(*[n if s == "B" else s for s in shape],
                              generator=generator, dtype=torch.float64)
                  for shape in sizes]
        paths = []
        for index, x in enumerate(inputs):
            paths.append(os.path.join(folder, f"input{index}_B{n}.npy"))
            np.save(paths[-1], x.numpy())
        reference = copy.deepcopy(module).double()
        with torch.no_grad():
            want = reference(*inputs)
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        for stage in (model, fused):
            out_dir = os.path.join(folder, f"out_B{n}_{len(paths)}")
            got = run_interpreter(sinterc, stage, n, paths, params_dir,
                                  out_dir)
            if len(got) != len(want):
                return f"{len(got)} outputs, PyTorch {len(want)}"
            for index, (g, w) in enumerate(zip(got, want)):
                problem = compare(g, w)
                if problem:
                    return (f"B={n} {os.path.basename(stage)} output "
                            f"{index}: {problem}")
    return None, set(exported.ops)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sinterc", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--shard", default="1/1",
                        help="I/N: run every N-th case from the I-th")
    parser.add_argument("cases", nargs="*")
    options = parser.parse_args()
    os.makedirs(options.work, exist_ok=True)
    passed = failed = 0
    seen = set()
    index, count = (int(n) for n in options.shard.split("/"))
    cases = modules.CASES[index - 1::count]
    for name, make, sizes in cases:
        if options.cases and name not in options.cases:
            continue
        try:
            result = check_case(name, make, sizes, options.sinterc,
                                options.work)
        except Exception as error:  # reported per case
            result = f"{type(error).__name__}: {error}"
        if isinstance(result, tuple):
            seen |= result[1]
            passed += 1
            print(f"PASS {name}")
        else:
            failed += 1
            print(f"FAIL {name}: {result}")
    if not options.cases and count == 1:
        handled = set(aten.SUPPORTED_OPS)
        print("ATen ops exercised:", ", ".join(sorted(seen & handled)))
        missing = sorted(handled - seen)
        print("supported ATen ops not exercised here:",
              ", ".join(missing) or "none")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
