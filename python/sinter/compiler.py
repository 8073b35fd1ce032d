"""sinter.compile: an nn.Module in, an nn.Module running Sinter's CUDA out.

    fast = sinter.compile(module, (x,))
    y = fast(x)

Three steps, each usable alone:

- `generate(module, args, ...)` exports the module (sinter.export), runs
  `sinterc -emit=cuda --emit-torch` and returns the folder of generated
  sources: `<cache>/<model>-<hash>/` with `model.sinter`, `gen/` (the CUDA,
  the C header, the PyTorch extension and its loader) and `sinter.json`
  (the param mapping, the inputs and outputs). The hash covers the .sinter
  text and the sinterc flags, so an unchanged model is not regenerated.
- `load_generated(folder, module)` builds the extension with
  torch.utils.cpp_extension (into `<folder>/build`, once) and returns a
  `SinterModule`. It needs no sinterc and no export: a folder generated on a
  machine with sinterc can be built on a GPU machine without it
  (`sinter.compile(module, args, sources=folder)`).
- `compile` does both.

Params: a `SinterModule` copies the module's params and buffers when it is
created (and runs the model's @prepare on the copies). Changing the
module's params afterwards, in place or by assignment, does not change the
compiled module's results; `refresh()` copies them again and re-runs
@prepare.
"""

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess

import torch

from .errors import CompileError
from .exporter import batch_dynamic_shapes, export_program

#: sinterc flags that compile()'s options set.
_OPTIONS = {"fp_mode": "--fp-mode", "precision": "--precision"}


def default_cache_dir():
    """$SINTER_CACHE_DIR, else ~/.cache/sinter."""
    return os.environ.get("SINTER_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "sinter")


def find_sinterc(sinterc=None):
    """`sinterc`, $SINTERC, the build of this source tree, or PATH's."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [sinterc, os.environ.get("SINTERC"),
                  os.path.join(here, "..", "..", "build", "bin", "sinterc"),
                  shutil.which("sinterc")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate,
                                                                 os.X_OK):
            return os.path.abspath(candidate)
    raise CompileError(
        "sinter.compile: no sinterc (pass sinterc=, set $SINTERC, build this "
        "tree with scripts/setup.sh, or put sinterc on PATH); to build "
        "sources generated elsewhere, pass sources=")


def sinterc_flags(fp_mode=None, precision=None):
    """The sinterc flags of compile()'s options."""
    flags = []
    for option, value in (("fp_mode", fp_mode), ("precision", precision)):
        if value is not None:
            flags.append(f"{_OPTIONS[option]}={value}")
    return flags


def generate(module, args, dynamic_shapes="batch", *, fp_mode=None,
             precision=None, cache_dir=None, sinterc=None, name=None):
    """Exports `module` and runs sinterc; returns the folder of generated
    sources (see the module's doc). dynamic_shapes="batch" makes dim 0 of
    the inputs the symbolic dim B when they agree on it."""
    if isinstance(args, torch.Tensor):
        args = (args,)
    if isinstance(dynamic_shapes, str) and dynamic_shapes == "batch":
        dynamic_shapes = batch_dynamic_shapes(args)
    exported = export_program(module, args, dynamic_shapes, name=name)
    flags = sinterc_flags(fp_mode, precision)
    key = hashlib.sha256(
        (exported.text + "\0" + " ".join(flags)).encode()).hexdigest()[:16]
    # The model (and so the extension) is named after the hash: extensions
    # of different versions of one module can be loaded side by side.
    model = f"{exported.name}_{key[:8]}"
    text = exported.text.replace(f"model {exported.name} {{",
                                 f"model {model} {{", 1)
    folder = os.path.join(cache_dir or default_cache_dir(), model)
    manifest_path = os.path.join(folder, "sinter.json")
    if os.path.isfile(manifest_path):
        return folder

    staging = folder + ".tmp"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    source = os.path.join(staging, "model.sinter")
    with open(source, "w") as f:
        f.write(text)
    command = [find_sinterc(sinterc), source, "-emit=cuda", "--emit-torch",
               "-o", os.path.join(staging, "gen")] + flags
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise CompileError(f"sinter.compile: sinterc failed on the exported "
                           f"model ({source}):\n{result.stderr.strip()}")
    manifest = exported.manifest()
    manifest.update(model=model, flags=flags, hash=key)
    if exported.constants:
        torch.save({k: v.detach().cpu() for k, v in
                    exported.constants.items()},
                   os.path.join(staging, "constants.pt"))
    with open(os.path.join(staging, "sinter.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(staging, folder)
    return folder


class SinterModule(torch.nn.Module):
    """The compiled module: forward(*inputs) runs the generated CUDA on the
    current stream. Inputs must be float32 CUDA tensors of the exported
    shapes (any value of the symbolic dims)."""

    def __init__(self, extension, manifest, module, constants, device=None):
        """`device` holds the param copies: by default the module's CUDA
        device, else the current CUDA device."""
        super().__init__()
        self.device = device
        self.extension = extension
        self.manifest = manifest
        self.source = [module]  # a list: not registered as a submodule
        self.constants = constants
        self.model = None
        self.refresh()

    def param_tensors(self):
        """The module's current params, buffers and constants, in the
        extension's order (PARAM_NAMES), as float32 copies on the model's
        device."""
        state = self.source[0].state_dict()
        device = self.device or next(
            (t.device for t in state.values() if t.is_cuda),
            None) or torch.device("cuda", torch.cuda.current_device())
        tensors = []
        params = self.manifest["params"]
        for name in self.extension.PARAM_NAMES:
            kind, key = params[name]
            tensor = state[key] if kind == "state" else self.constants[key]
            tensors.append(tensor.detach().to(device, torch.float32,
                                              copy=True).contiguous())
        return tensors

    def refresh(self):
        """Copies the module's params again and re-runs @prepare."""
        self.model = None  # destroys the previous C model first
        self.model = self.extension.Model(*self.param_tensors())

    def forward(self, *inputs):
        outputs = self.model.forward(*[x.contiguous() for x in inputs])
        if self.manifest["returns_tuple"] and not isinstance(outputs, tuple):
            return (outputs,)
        return outputs


def load_generated(folder, module, *, verbose=False, extra_cuda_cflags=None):
    """Builds (once) and loads the sources `generate` wrote into `folder`;
    returns a SinterModule that reads its params from `module`."""
    with open(os.path.join(folder, "sinter.json")) as f:
        manifest = json.load(f)
    model = manifest["model"]
    loader_path = os.path.join(folder, "gen", f"{model}_torch.py")
    spec = importlib.util.spec_from_file_location(f"{model}_loader",
                                                  loader_path)
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    try:
        extension = loader.load(build_directory=os.path.join(folder, "build"),
                                verbose=verbose,
                                extra_cuda_cflags=extra_cuda_cflags)
    except Exception as error:
        raise CompileError(f"sinter.compile: building {loader_path} failed: "
                           f"{error}") from None
    constants_path = os.path.join(folder, "constants.pt")
    constants = torch.load(constants_path) if os.path.isfile(
        constants_path) else {}
    return SinterModule(extension, manifest, module, constants)


def compile(module, args, dynamic_shapes="batch", *, fp_mode=None,
            precision=None, cache_dir=None, sinterc=None, sources=None,
            name=None, verbose=False):
    """`module` compiled by Sinter, as an nn.Module (see the module's doc).

    Options: fp_mode ("strict" | "fast") and precision ("f32" | "tf32" |
    "bf16") are sinterc's --fp-mode and --precision; cache_dir holds the
    generated sources and builds (default $SINTER_CACHE_DIR or
    ~/.cache/sinter); sinterc is the compiler to run; sources is a folder
    that `generate` wrote (then nothing is exported and sinterc is not
    needed).
    """
    if sources is None:
        sources = generate(module, args, dynamic_shapes, fp_mode=fp_mode,
                           precision=precision, cache_dir=cache_dir,
                           sinterc=sinterc, name=name)
    return load_generated(sources, module, verbose=verbose)
