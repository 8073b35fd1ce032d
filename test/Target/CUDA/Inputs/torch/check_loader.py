"""Imports a <model>_torch.py loader written by `sinterc --emit-torch` and
calls its load() the way bench/run.py does, against a stand-in for
torch.utils.cpp_extension that prints what it was asked to build (paths
relative to the loader's folder) instead of building it.

Usage: check_loader.py <gen dir>/<model>_torch.py [extra nvcc flag...]
"""

import importlib.util
import os
import sys
import types

path = os.path.abspath(sys.argv[1])
folder = os.path.dirname(path)


def fake_load(**kwargs):
    for key in sorted(kwargs):
        value = kwargs[key]
        if key in ("sources", "extra_include_paths"):
            value = [os.path.relpath(v, folder) for v in value]
        elif key == "build_directory":
            value = os.path.relpath(value, folder)
        print("%s: %s" % (key, value))
    return "the module"


torch = types.ModuleType("torch")
torch.utils = types.ModuleType("torch.utils")
torch.utils.cpp_extension = types.ModuleType("torch.utils.cpp_extension")
torch.utils.cpp_extension.load = fake_load
sys.modules.update({"torch": torch, "torch.utils": torch.utils,
                    "torch.utils.cpp_extension": torch.utils.cpp_extension})

spec = importlib.util.spec_from_file_location("bridge", path)
bridge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bridge)
print("returned:", bridge.load(build_directory=os.path.join(folder, "build"),
                               verbose=True, extra_cuda_cflags=sys.argv[2:] or None))
# torch's load() needs the build directory to exist; the loader creates it.
print("build directory exists:", os.path.isdir(os.path.join(folder, "build")))
