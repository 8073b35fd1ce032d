"""Writes small .npy files for the tests.

Usage: save_npy.py PATH=SHAPE[:DTYPE] ...
  e.g. save_npy.py a.npy=2x3 b.npy=4x3:<f8 c.npy=2x0
Each array holds 0, 1, 2, ... in C order (zeros for empty shapes); the
dtype defaults to '<f4'; a shape of 'scalar' gives a rank-0 array.
"""

import sys

import numpy as np

for spec in sys.argv[1:]:
    path, rest = spec.split("=")
    shape_text, _, dtype = rest.partition(":")
    shape = () if shape_text == "scalar" else tuple(int(d) for d in shape_text.split("x"))
    np.save(path, np.arange(int(np.prod(shape)), dtype=dtype or "<f4").reshape(shape))
