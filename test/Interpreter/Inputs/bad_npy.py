"""Writes malformed and unusual .npy files into the directory given.

Each holds (or claims to hold) a 2x3 array unless its name says otherwise.
"""

import os
import struct
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
data = np.arange(6, dtype="<f4").reshape(2, 3)


def write(name, payload):
    with open(os.path.join(out, name), "wb") as f:
        f.write(payload)


def npy(header, body, version=1):
    header = header.encode() + b"\n"
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + body
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(header)) + header + body


good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
np.save(os.path.join(out, "fortran.npy"), np.asfortranarray(data))
np.save(os.path.join(out, "int32.npy"), data.astype("<i4"))
np.save(os.path.join(out, "int64.npy"), data.astype("<i8"))
np.save(os.path.join(out, "big-endian.npy"), data.astype(">f4"))
np.save(os.path.join(out, "float16.npy"), data.astype("<f2"))
write("truncated.npy", npy(good, data.tobytes()[:-4]))
write("trailing.npy", npy(good, data.tobytes() + b"\0\0\0\0"))
write("not-npy.npy", b"this is not a numpy file\n")
write("unknown-key.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}", data.tobytes()))
write("bad-shape.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", data.tobytes()))
write("huge-shape.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", b""))
write("version9.npy", npy(good, data.tobytes(), version=9))
write("version2.npy", npy(good, data.tobytes(), version=2))
np.save(os.path.join(out, "float64.npy"), data.astype("<f8") + 0.5)
np.save(os.path.join(out, "rank1.npy"), np.arange(6, dtype="<f4"))
np.save(os.path.join(out, "2x4.npy"), np.zeros((2, 4), dtype="<f4"))
np.save(os.path.join(out, "3x3.npy"), np.zeros((3, 3), dtype="<f4"))
