#!/usr/bin/env python3
"""Tests of the benchmark's Python, without a GPU.

  python3 bench/test_bench.py [-v]

  - bench/models.py matches examples/*.sinter (every example, dims, input and
    param names, shapes and init hints, in declaration order);
  - its forward functions compute PyTorch's definitions (checked against an
    independent NumPy float64 version on small random data; needs torch);
  - bench/run.py runs end to end on the CPU against a MOCK extension (a
    stand-in for gen/<model>/<model>_torch.py that computes the reference in
    float32) at dims / 16, in a temporary folder (needs torch);
  - bench/report.py turns a synthetic results JSON, marked as a test
    fixture, into the markdown and chart in a temporary folder, and refuses
    to write a fixture into bench/results/;
  - bench/prepare.sh lays out its folder with a fake sinterc;
  - bench/gemm/chart.py draws the GEMM benchmark's chart from a copy of its
    H100 results and links it from the table once.
Nothing here writes into the repository. Tests that need PyTorch or
matplotlib are skipped when they are missing.
"""

import copy
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import models  # noqa: E402
import summary  # noqa: E402

HAVE_TORCH = importlib.util.find_spec("torch") is not None
HAVE_MPL = importlib.util.find_spec("matplotlib") is not None


def parse_sinter(path):
    """The dims, inputs and params of a .sinter file (enough for the examples)."""
    with open(path) as f:
        text = f.read()
    name = re.search(r"^model (\w+)", text, re.M).group(1)
    dims = {k: int(v) for k, v in re.findall(r"^\s*dim (\w+) = (\d+)", text, re.M)}

    def shape(s):
        return tuple(dims[t] if t in dims else int(t)
                     for t in (x.strip() for x in s.split(",")))

    inputs = [(n, shape(s)) for n, s in
              re.findall(r"^\s*input (\w+): f32\[([^\]]*)\]", text, re.M)]
    params = []
    for n, s, kind, args in re.findall(
            r"^\s*param (\w+): f32\[([^\]]*)\] = (\w+)\(([^)]*)\)", text, re.M):
        hint = (kind,) + tuple(int(a) for a in args.split(",") if a.strip())
        params.append((n, shape(s), hint))
    return name, inputs, params


class ModelsMatchSinter(unittest.TestCase):
    def test_every_example(self):
        files = sorted(f for f in os.listdir(os.path.join(ROOT, "examples"))
                       if f.endswith(".sinter"))
        names = set()
        for f in files:
            name, inputs, params = parse_sinter(os.path.join(ROOT, "examples", f))
            names.add(name)
            ex = models.get(name)
            dims = ex.resolved_dims()
            self.assertEqual(ex.input_shapes(dims), inputs, name)
            self.assertEqual(ex.param_shapes(dims), params, name)
        self.assertEqual(names, set(models.NAMES))

    def test_limits(self):
        for ex in models.EXAMPLES:
            self.assertIn(ex.limit, ("gemm", "memory"))
            if ex.limit == "gemm":
                self.assertTrue(ex.gemms, ex.name)
        # softmax: read 16384x4096 once, write it once.
        ex = models.get("softmax")
        self.assertEqual(ex.minimal_bytes(ex.resolved_dims()), 2 * 4 * 16384 * 4096)
        ex = models.get("mlp_block")
        self.assertEqual(ex.gemm_flops(ex.resolved_dims()), 2 * 2 * 8192 * 4096 * 1024)


@unittest.skipUnless(HAVE_TORCH, "needs torch")
class ForwardSemantics(unittest.TestCase):
    """models.py against an independent NumPy float64 definition."""

    def test_against_numpy(self):
        import numpy as np
        import torch
        rng = np.random.default_rng(7)
        erf = np.vectorize(math.erf)

        def gelu(x, tanh=False):
            if tanh:
                return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
            return 0.5 * x * (1 + erf(x / math.sqrt(2)))

        def silu(x):
            return x / (1 + np.exp(-x))

        def lnorm(x, w, b, eps):
            mu = x.mean(-1, keepdims=True)
            var = ((x - mu) ** 2).mean(-1, keepdims=True)
            return (x - mu) / np.sqrt(var + eps) * w + b

        numpy_refs = {
            "gemm_divide_sum_scaling":
                lambda x, w: (x @ w.T / 2).sum(1, keepdims=True) * 1.5,
            "gemm_relu_divide": lambda x, w, b: np.maximum(x @ w.T + b, 0) / 2,
            "gemm_bias_relu": lambda x, w, b: np.maximum(x @ w.T + b, 0),
            "gemm_scale_batchnorm": lambda x, w, b, s, g, c: (
                lambda h: (h - h.mean(0)) / np.sqrt(h.var(0) + 1e-5) * g + c)(
                    (x @ w.T + b) * s),
            "matmul_swish_bias_groupnorm": lambda x, w, lb, b, g, c: (
                lambda h: (lambda hg: ((hg - hg.mean(2, keepdims=True))
                                       / np.sqrt(hg.var(2, keepdims=True) + 1e-5)
                                       ).reshape(h.shape) * g + c)(
                    h.reshape(h.shape[0], 64, -1)))(silu(x @ w.T + lb) + b),
            "softmax": lambda x: np.exp(x - x.max(1, keepdims=True))
            / np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True),
            "layer_norm": lambda x, w, b: lnorm(x, w, b, 1e-5),
            "rms_norm": lambda x, w: x / np.sqrt((x ** 2).mean(1, keepdims=True) + 1e-6) * w,
            "bias_gelu": lambda x, b: gelu(x + b, tanh=True),
            "row_statistics": lambda x: (
                x.mean(1, keepdims=True), x.var(1, keepdims=True),
                x.max(1, keepdims=True), x.min(1, keepdims=True),
                np.log(np.exp(x).sum(1, keepdims=True))),
            "mlp_block": lambda x, g, c, uw, ub, dw, db: x + gelu(
                lnorm(x, g, c, 1e-5) @ uw.T + ub) @ dw.T + db,
            "linear_avg_pool": lambda x, w, b: (x @ w.T + b).reshape(
                x.shape[0], -1, 8).mean(2),
            "linear_sub_mean": lambda x, w, b, o: (x @ w.T + b - o).mean(
                1, keepdims=True),
            "constant_output": lambda x, w: (
                np.full((x.shape[0], w.shape[0]), 0.5), x * 0.0),
        }
        self.assertEqual(set(numpy_refs), set(models.NAMES))
        for ex in models.EXAMPLES:
            dims = ex.resolved_dims(scale=64)
            arrays = [rng.standard_normal(s) for _, s in ex.input_shapes(dims)]
            arrays += [rng.standard_normal(s) for _, s, _ in ex.param_shapes(dims)]
            got = ex.run([torch.from_numpy(a) for a in arrays[:len(ex.inputs)]],
                         [torch.from_numpy(a) for a in arrays[len(ex.inputs):]])
            want = numpy_refs[ex.name](*arrays)
            want = want if isinstance(want, tuple) else (want,)
            self.assertEqual(len(got), len(want), ex.name)
            for g, w in zip(got, want):
                self.assertEqual(tuple(g.shape), w.shape, ex.name)
                np.testing.assert_allclose(g.numpy(), w, rtol=1e-9, atol=1e-9,
                                           err_msg=ex.name)

    def test_init_hints(self):
        import torch
        gen = torch.Generator().manual_seed(0)
        t = models.init_tensor((4096, 256), ("linear_default", 256), gen, "cpu")
        self.assertLessEqual(t.abs().max().item(), 1 / 16)
        self.assertGreater(t.abs().max().item(), 0.99 / 16)
        ones = models.init_tensor((4096,), ("ones",), gen, "cpu")
        zeros = models.init_tensor((4096,), ("zeros",), gen, "cpu")
        # Never all ones / all zeros (see models.py), but centred there.
        self.assertGreater(ones.std().item(), 0.05)
        self.assertAlmostEqual(ones.mean().item(), 1.0, delta=0.01)
        self.assertGreater(zeros.std().item(), 0.05)
        self.assertAlmostEqual(zeros.mean().item(), 0.0, delta=0.01)


# A stand-in for the bridge that `sinterc --emit-torch` writes: same load()
# signature and ext interface, computing the reference in float32 on the CPU.
MOCK_BRIDGE = textwrap.dedent('''\
    # MOCK of gen/{name}/{name}_torch.py for bench/test_bench.py (not Sinter).
    import os, sys, types
    sys.path.insert(0, {bench!r})
    import models

    def load(build_directory=None, verbose=False, extra_cuda_cflags=None):
        assert build_directory and os.path.isdir(build_directory)
        open(os.path.join(build_directory, "built"), "a").write("x")
        ex = models.get({name!r})
        ext = types.SimpleNamespace()
        ext.PARAM_NAMES = [n for n, _, _ in ex.params]
        ext.INPUT_NAMES = [n for n, _ in ex.inputs]
        ext.OUTPUT_NAMES = ["out%d" % i for i in range(len(ex.outputs))]

        class Model:
            def __init__(self, *params, **named):
                if named:
                    params = [named[n] for n in ext.PARAM_NAMES]
                assert len(params) == len(ext.PARAM_NAMES)
                self.params = [p.clone() for p in params]  # "@prepare"

            def forward(self, *inputs):
                outs = ex.run(list(inputs), self.params)
                return outs[0] if len(outs) == 1 else tuple(outs)

        ext.Model = Model
        return ext
''')


def write_mock_gen(folder, names):
    for name in names:
        os.makedirs(os.path.join(folder, name), exist_ok=True)
        with open(os.path.join(folder, name, name + "_torch.py"), "w") as f:
            f.write(MOCK_BRIDGE.format(name=name, bench=HERE))


@unittest.skipUnless(HAVE_TORCH, "needs torch")
class RunWithMock(unittest.TestCase):
    def run_bench(self, tmp, extra):
        command = [sys.executable, os.path.join(HERE, "run.py"), "--device", "cpu",
                   "--scale", "16", "--reps", "3", "--warmup", "1",
                   "--prepare-reps", "2", "--gen-dir", os.path.join(tmp, "gen"),
                   "--build-dir", os.path.join(tmp, "build"),
                   "--out", os.path.join(tmp, "results.json")] + extra
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, timeout=900)
        self.assertEqual(result.returncode, 0, result.stdout[-4000:])
        with open(os.path.join(tmp, "results.json")) as f:
            return json.load(f), result.stdout

    def test_all_examples_then_merge(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_mock_gen(os.path.join(tmp, "gen"), models.NAMES)
            doc, out = self.run_bench(tmp, ["--contestants", "eager,sinter,limit"])
            self.assertIn("targets (issue 6", out)
            self.assertEqual(set(doc["models"]), set(models.NAMES))
            for name, e in doc["models"].items():
                self.assertNotIn("error", e, name)
                s = e["contestants"]["sinter"]
                self.assertNotIn("error", s, (name, s.get("error")))
                self.assertLess(s["accuracy"]["rel_err"], 1e-4, name)
                self.assertTrue(s["deterministic"], name)
                self.assertEqual(len(s["times_ms"]), 3)
                self.assertIsNotNone(e["limit"]["limit_ms"], name)
                self.assertIsNotNone(e["contestants"]["eager"]["median_ms"], name)
                self.assertTrue(os.path.exists(
                    os.path.join(tmp, "build", name, "built")), name)
            # A second call with other contestants merges into the same file,
            # in-process this time; a missing bridge fails only Sinter.
            os.remove(os.path.join(tmp, "gen", "softmax", "softmax_torch.py"))
            doc2, out = self.run_bench(tmp, ["--models", "softmax,bias_gelu",
                                             "--contestants", "sinter,compile",
                                             "--no-isolate", "--compile-timeout-s", "300"])
            self.assertEqual(set(doc2["models"]), set(models.NAMES))
            soft = doc2["models"]["softmax"]["contestants"]
            self.assertIn("error", soft["sinter"])
            self.assertIn("eager", soft)  # kept from the first call
            gelu = doc2["models"]["bias_gelu"]["contestants"]
            self.assertIn("compile", gelu)
            self.assertTrue("median_ms" in gelu["compile"] or "error" in gelu["compile"])
            self.assertGreater(len(doc2["runs"]), len(doc["runs"]))


def fixture():
    """A synthetic results document: TEST FIXTURE, made-up numbers."""
    def timed(ms, rel=None):
        c = {"median_ms": ms, "p10_ms": ms * 0.98, "p90_ms": ms * 1.03, "reps": 30,
             "times_ms": [ms] * 30}
        if rel is not None:
            c["accuracy"] = {"rel_err": rel, "max_abs": rel * 10, "finite": True}
        return c

    doc = {"schema": 1, "fixture": True, "runs": [{
        "date": "2000-01-01T00:00:00Z", "gpu": "TEST FIXTURE GPU", "driver": "0",
        "torch": "0", "torch_cuda": "0", "reps": 30, "warmup": 5,
        "flush_bytes": 256 << 20, "copy_bandwidth_gbs": 3000.0,
        "sinter": {"commit": "fixture"}}], "models": {}}
    for ex in models.EXAMPLES:
        sinter = timed(1.0, 1e-7)
        sinter.update({"prepare": {"median_ms": 0.5, "cold_ms": 3.0},
                       "poison_landed": [True], "deterministic": True, "build_s": 30})
        doc["models"][ex.name] = {
            "contestants": {"eager": timed(3.0, 2e-7), "compile": timed(1.2, 2e-7),
                            "autotune": timed(1.1, 2e-7), "sinter": sinter},
            "limit": {"kind": ex.limit, "limit_ms": 0.95,
                      "gemm_ms": 0.98 if ex.limit == "gemm" else None,
                      "per_gemm": [{"tflops": 50.0}] if ex.limit == "gemm" else [],
                      "write_ms": 0.01, "min_bytes": 1e9, "bandwidth_gbs": 3000.0}}
    return doc


class SummaryAndReport(unittest.TestCase):
    def test_targets(self):
        doc = fixture()
        m = doc["models"]
        t = {x["name"]: x for x in summary.targets("gemm_divide_sum_scaling",
                                                    m["gemm_divide_sum_scaling"])}
        self.assertIs(t["x eager"]["met"], False)                 # 3x < 100x
        self.assertIs(t["rel err Sinter/eager"]["met"], True)     # 1e-7 < 2e-7
        m["gemm_divide_sum_scaling"]["contestants"]["sinter"]["median_ms"] = 0.01
        t = {x["name"]: x for x in summary.targets("gemm_divide_sum_scaling",
                                                    m["gemm_divide_sum_scaling"])}
        self.assertIs(t["x eager"]["met"], True)                  # 300x
        self.assertIs(t["x eager incl. prepare"]["met"], False)   # 3 / 0.51 < 20
        # GEMM targets: 1.0 ms vs the GEMM alone 0.98 ms is within 3%.
        t = {x["name"]: x for x in summary.targets("gemm_bias_relu", m["gemm_bias_relu"])}
        self.assertIs(t["Sinter/GEMM alone"]["met"], True)
        self.assertIs(t["x torch.compile"]["met"], True)          # best compile 1.1
        t = {x["name"]: x for x in summary.targets(
            "matmul_swish_bias_groupnorm", m["matmul_swish_bias_groupnorm"])}
        self.assertIs(t["x torch.compile"]["met"], True)          # 1.1x >= 1.05
        # Memory-bound: 0.95 / 1.0 of the limit.
        t = {x["name"]: x for x in summary.targets("softmax", m["softmax"])}
        self.assertIs(t["fraction of copy BW"]["met"], True)
        # Not measured -> n/a, never "met".
        del m["rms_norm"]["contestants"]["sinter"]
        self.assertEqual(summary.verdict(summary.targets("rms_norm", m["rms_norm"])), "n/a")
        self.assertEqual(summary.targets("bias_gelu", m["bias_gelu"]), [])
        # A failed contestant has no time; accuracy worse than 2x eager is flagged.
        m["layer_norm"]["contestants"]["compile"] = {"error": "boom"}
        self.assertIsNone(summary.derive(m["layer_norm"])["speedup_compile"])
        m["layer_norm"]["contestants"]["sinter"]["accuracy"]["rel_err"] = 5e-7
        self.assertTrue(summary.derive(m["layer_norm"])["accuracy_flag"])
        lines = summary.table_lines(m)
        self.assertEqual(len(lines), 2 + len(models.NAMES))
        self.assertTrue(any("layer_norm/compile: boom" in x
                            for x in summary.failure_lines(m)))

    @unittest.skipUnless(HAVE_MPL, "needs matplotlib")
    def test_report_from_fixture(self):
        import report
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "fixture.json")
            with open(path, "w") as f:
                json.dump(fixture(), f)
            out = os.path.join(tmp, "results")
            self.assertEqual(report.main([path, "--out-dir", out]), 0)
            with open(os.path.join(out, "2000-01-01-h100.md")) as f:
                md = f.read()
            self.assertIn("TEST FIXTURE", md)
            for name in models.NAMES:
                self.assertIn("`%s`" % name, md)
            self.assertGreater(os.path.getsize(os.path.join(out, "2000-01-01-h100.png")), 1000)
            self.assertTrue(os.path.exists(os.path.join(out, "2000-01-01-h100.json")))
            # A partial document (one example, a failed contestant) still reports.
            doc = fixture()
            doc["models"] = {"softmax": copy.deepcopy(doc["models"]["softmax"])}
            doc["models"]["softmax"]["contestants"]["sinter"] = {"error": "build failed"}
            with open(path, "w") as f:
                json.dump(doc, f)
            self.assertEqual(report.main([path, "--out-dir", out, "--tag", "partial"]), 0)
            # Fixtures never go to bench/results/.
            with self.assertRaises(SystemExit):
                report.main([path])


class GemmChart(unittest.TestCase):
    @unittest.skipUnless(HAVE_MPL, "needs matplotlib")
    def test_chart_beside_the_results(self):
        sys.path.insert(0, os.path.join(HERE, "gemm"))
        import chart
        results = os.path.join(HERE, "results", "gemm-h100")
        with tempfile.TemporaryDirectory() as tmp:
            base = os.path.join(tmp, "gemm")
            with open(results + ".json") as f, open(base + ".json", "w") as out:
                out.write(f.read())
            with open(base + ".md", "w") as out:
                out.write("| M,N,K |\n|---|\n")
            for _ in range(2):
                self.assertEqual(chart.main([base + ".json"]), 0)
            self.assertGreater(os.path.getsize(base + ".png"), 1000)
            with open(base + ".md") as f:
                self.assertEqual(f.read().count("](gemm.png)"), 1)


class PrepareScript(unittest.TestCase):
    def test_layout_with_fake_sinterc(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake = os.path.join(tmp, "sinterc")
            with open(fake, "w") as f:
                f.write(textwrap.dedent('''\
                    #!/usr/bin/env bash
                    # FAKE sinterc: writes the files of -emit=cuda --emit-torch.
                    [ "$1" = --version ] && { echo "sinterc fake"; exit 0; }
                    src="$1"; out="$4"; m="$(basename "$src" .sinter)"
                    [ "$2" = -emit=cuda ] && [ "$3" = -o ] && [ "$5" = --emit-torch ] || exit 2
                    mkdir -p "$out/sinter_rt"
                    touch "$out/$m.cu" "$out/$m.h" "$out/${m}_torch.cpp" \\
                          "$out/${m}_torch.py" "$out/CMakeLists.txt"
                    '''))
            os.chmod(fake, 0o755)
            out = os.path.join(tmp, "carry")
            result = subprocess.run(["bash", os.path.join(HERE, "prepare.sh"), out],
                                    env=dict(os.environ, SINTERC=fake),
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True)
            self.assertEqual(result.returncode, 0, result.stdout)
            self.assertIn("MiB", result.stdout)
            for f in ("run.py", "models.py", "summary.py", "manifest.json"):
                self.assertTrue(os.path.exists(os.path.join(out, f)), f)
            for name in models.NAMES:
                self.assertTrue(os.path.exists(
                    os.path.join(out, "gen", name, name + "_torch.py")), name)
            with open(os.path.join(out, "manifest.json")) as f:
                manifest = json.load(f)
            self.assertEqual(manifest["sinterc"], "sinterc fake")


if __name__ == "__main__":
    unittest.main()
