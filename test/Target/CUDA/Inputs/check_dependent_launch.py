"""Checks the launch contract of generated CUDA (sinter/rt_launch.cuh): no
kernel launches with <<<...>>>, every launch goes through
sinter::launchDependent, and every __global__ function's first statement is
dev::beginDependentGrid(). Prints one line per file: its kernels and
launches."""
import re
import sys

failed = False
for path in sys.argv[1:]:
    text = open(path).read()
    if "<<<" in text:
        print(f"{path}: a kernel launches with <<<...>>>")
        failed = True
    kernels = 0
    for match in re.finditer(r"__global__ void[^{;]*?(\w+)\(([^{;]*?)\)\s*\{", text):
        kernels += 1
        body = text[match.end():].lstrip()
        if not body.startswith("dev::beginDependentGrid();"):
            print(f"{path}: kernel {match.group(1)} does not begin with "
                  "dev::beginDependentGrid()")
            failed = True
    launches = text.count("sinter::launchDependent(")
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    print(f"{name}: {kernels} kernels, {launches} launches")
sys.exit(1 if failed else 0)
