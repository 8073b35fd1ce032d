"""sinter.generate and SinterModule without a GPU.

generate: the cache folder, its files and manifest, reuse of an unchanged
model, a new folder for other flags. SinterModule, over a stand-in of the
built extension (`Model(*params)` keeps its params): params passed by
name in the extension's order, copied at creation (a later change to the
module does not reach them), copied again by refresh().

    python3 generate_check.py SINTERC CACHE_DIR
"""

import json
import os
import sys

import torch
import torch.nn as nn

import sinter
from sinter.compiler import SinterModule


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 16)
        self.norm = nn.LayerNorm(16)

    def forward(self, x):
        return torch.relu(self.norm(self.fc(x)))


sinterc, cache = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
module = Net().eval()
x = torch.randn(4, 8)

folder = sinter.generate(module, (x,), cache_dir=cache, sinterc=sinterc)
print("folder", os.path.basename(folder))
print("files", sorted(os.listdir(folder)))
print("gen", sorted(f for f in os.listdir(os.path.join(folder, "gen"))
                    if f.endswith((".cu", ".h", ".py", ".cpp"))))
with open(os.path.join(folder, "sinter.json")) as f:
    manifest = json.load(f)
print("params", [(name, key) for name, (_, key) in
                 manifest["params"].items()])
print("inputs", manifest["inputs"], "outputs", manifest["outputs"],
      "dims", manifest["dims"], "flags", manifest["flags"])
stamp = os.stat(os.path.join(folder, "sinter.json")).st_mtime_ns
again = sinter.generate(module, (x,), cache_dir=cache, sinterc=sinterc)
print("reused", again == folder and os.stat(
    os.path.join(folder, "sinter.json")).st_mtime_ns == stamp)
tf32 = sinter.generate(module, (x,), cache_dir=cache, sinterc=sinterc,
                       precision="tf32", fp_mode="strict")
with open(os.path.join(tf32, "sinter.json")) as f:
    print("other flags", tf32 != folder, json.load(f)["flags"])


class StandInExtension:
    """What the built extension exposes, minus the GPU."""

    PARAM_NAMES = tuple(reversed(list(manifest["params"])))

    class Model:
        def __init__(self, *params):
            self.params = params

        def forward(self, x):
            return x


StandInExtension.Model.PARAM_NAMES = StandInExtension.PARAM_NAMES
compiled = SinterModule(StandInExtension, manifest, module, {},
                        device=torch.device("cpu"))
state = module.state_dict()
keys = {name: key for name, (_, key) in manifest["params"].items()}


def matches():
    return all(torch.equal(p, state[keys[name]]) for name, p in zip(
        StandInExtension.PARAM_NAMES, compiled.model.params))


print("by name", matches())
before = [p.clone() for p in compiled.model.params]
with torch.no_grad():
    module.fc.weight.mul_(2)
print("after a change, the copy is as before", not matches() and all(
    torch.equal(p, q) for p, q in zip(before, compiled.model.params)))
compiled.refresh()
print("after refresh", matches())
