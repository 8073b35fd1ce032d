"""Prints '<name> <dtype> <shape>' for each .npy file given."""

import os
import sys

import numpy as np

for path in sys.argv[1:]:
    array = np.load(path)
    print(os.path.basename(path), array.dtype, array.shape)
