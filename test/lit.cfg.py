# -*- Python -*-
# lit configuration of the Sinter test suite.

import os
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SINTER"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".sinter", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sinter_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%sinter_src_root", config.sinter_src_root))

# %python runs the python3 on PATH, where setup installs NumPy for the
# interpreter tests (it precedes the default %python, which is lit's own).
config.substitutions.append(
    ("%python", '"%s"' % (shutil.which("python3") or sys.executable)))

llvm_config.use_default_substitutions()
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
config.substitutions.append(("%python", config.python_executable))

tool_dirs = [config.sinter_tools_dir, config.llvm_tools_dir]
tools = ["sinter-opt", "sinter-translate", "sinterc"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The C++ compiler of the build: emit-torch.test checks the syntax of
# generated PyTorch extensions with it (against a stand-in of PyTorch).
config.substitutions.append(("%host_cxx", config.host_cxx))

# The runtime (runtime/) is built only when CMake found a CUDA compiler; tests
# of it say `REQUIRES: cuda` and find its test programs in %sinter_rt_test_dir.
if config.sinter_enable_cuda:
    config.available_features.add("cuda")
    config.substitutions.append(
        ("%sinter_rt_test_dir", config.sinter_rt_test_dir))
    # The CUDA emitter's compile tests build generated code against the
    # runtime built here.
    config.substitutions.append(("%nvcc", config.cuda_compiler))
    config.substitutions.append(
        ("%sinter_rt_lib",
         os.path.join(config.sinter_obj_root, "runtime", "libsinter_rt.a")))

# The PyTorch front door (python/sinter, test/Python) needs torch, which
# scripts/setup.sh installs; without it those tests are reported as
# UNSUPPORTED, with this note at the top of the run.
import subprocess

config.substitutions.append(
    ("%sinter_python_path", os.path.join(config.sinter_src_root, "python")))
_python3 = shutil.which("python3") or sys.executable
if subprocess.run([_python3, "-c", "import torch.export"],
                  stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("torch")
else:
    lit_config.note("torch is not installed for %s: the PyTorch front-end "
                    "tests (test/Python) are skipped (UNSUPPORTED); "
                    "scripts/setup.sh installs it" % _python3)
