#!/usr/bin/env python3
"""Compares two ssm-opt state files (runtime/StateFile.h, version 1) and two logits .npy files.

usage: compare_states.py A.state B.state A_logits.npy B_logits.npy [--tol 1e-4]

Every state (same names, shapes) and the logits must agree within tol in
max |a - b| / (1 + |b|); the positions must be equal. Exit 0 when they do,
1 (naming the first state off and by how much) otherwise, 2 for bad files.
Reads the files with the standard library and NumPy only.
"""
import struct
import sys

import numpy as np


def read_state(path):
    data = open(path, "rb").read()
    if data[:8] != b"SSMSTATE":
        sys.exit(f"compare_states: {path}: not a state file")
    version, _reserved, _fingerprint, position, count = struct.unpack_from("<IIQqI", data, 8)
    if version != 1:
        sys.exit(f"compare_states: {path}: version {version}, this script reads 1")
    off = 8 + struct.calcsize("<IIQqI")
    states = {}
    for _ in range(count):
        (nlen,) = struct.unpack_from("<I", data, off)
        off += 4
        name = data[off:off + nlen].decode()
        off += nlen
        (rank,) = struct.unpack_from("<I", data, off)
        off += 4
        dims = struct.unpack_from(f"<{rank}q", data, off)
        off += 8 * rank
        numel = int(np.prod(dims)) if rank else 1
        states[name] = np.frombuffer(data, "<f4", numel, off).reshape(dims)
        off += 4 * numel
    return position, states


def main():
    args = sys.argv[1:]
    tol = 1e-4
    if "--tol" in args:
        i = args.index("--tol")
        tol = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    pa, sa = read_state(args[0])
    pb, sb = read_state(args[1])
    if pa != pb:
        print(f"positions differ: {pa} and {pb}")
        return 1
    if sorted(sa) != sorted(sb):
        print(f"state names differ: {sorted(sa)} and {sorted(sb)}")
        return 1
    worst = 0.0
    for name in sa:
        a, b = sa[name], sb[name]
        if a.shape != b.shape:
            print(f"{name}: shapes {a.shape} and {b.shape}")
            return 1
        err = float(np.max(np.abs(a - b) / (1 + np.abs(b)))) if a.size else 0.0
        if not np.all(np.isfinite(a)) or err > tol:
            print(f"{name}: max |a - b| / (1 + |b|) = {err:.3g} > {tol}")
            return 1
        worst = max(worst, err)
    la, lb = np.load(args[2]), np.load(args[3])
    if la.shape != lb.shape:
        print(f"logits shapes {la.shape} and {lb.shape}")
        return 1
    lerr = float(np.max(np.abs(la - lb) / (1 + np.abs(lb))))
    if not np.all(np.isfinite(la)) or lerr > tol:
        print(f"logits: max |a - b| / (1 + |b|) = {lerr:.3g} > {tol}")
        return 1
    print(f"ok: {len(sa)} states (worst {worst:.3g}) and logits (worst {lerr:.3g}) within {tol}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
