#!/usr/bin/env python3
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
"""Float32 .npy files with Python's standard library alone (GPU nodes and CI machines may have no
numpy): `make PATH ROWS COLS SEED SCALE` writes normal(0, SCALE) values; `compare INITIAL CPU GPU`
prints ||gpu - cpu|| / ||cpu - initial||. Used by gpu-step-compare.sh and the bundle's test."""
import random, struct, sys

def write(path, rows, cols, seed, scale):
    rng = random.Random(seed)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * ((64 - (len(header) + 11) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % (rows * cols), *(rng.gauss(0, scale) for _ in range(rows * cols))))

def read(path):
    data = open(path, "rb").read()
    length = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + length].decode()
    kind = "d" if "<f8" in header else "f"
    body = data[10 + length:]
    return struct.unpack("<%d%s" % (len(body) // struct.calcsize(kind), kind), body)

if sys.argv[1] == "make":
    rows, cols, seed = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    write(sys.argv[2], rows, cols, seed, float(sys.argv[6]))
else:  # compare INITIAL CPU GPU: ||gpu - cpu|| / ||cpu - initial||
    p0, cpu, gpu = (read(p) for p in sys.argv[2:5])
    diff = sum((g - c) ** 2 for g, c in zip(gpu, cpu)) ** 0.5
    moved = sum((c - p) ** 2 for c, p in zip(cpu, p0)) ** 0.5
    print("%.3e" % (diff / max(moved, 1e-30)))
