#!/usr/bin/env python3
"""Rewrites an rwkv.cpp model file with edits, for the importer's error tests.

rwkv_edit.py IN OUT [--magic HEX] [--header-type N] [--tensor-type NAME=N]
                    [--drop NAME] [--add NEW=FROM] [--sizes NAME=a,b,..] [--truncate BYTES]
                    [--layers N]

Records are rewritten as parsed (dims, name, type, sizes, data); --sizes
changes a tensor's stored sizes (the data must still fit); --add copies a
tensor under a new name (e.g. an RWKV-6 marker); --truncate cuts the output;
--layers keeps the first N blocks and sets n_layer (a smaller, valid model).
"""
import argparse
import struct

p = argparse.ArgumentParser()
p.add_argument("inp")
p.add_argument("out")
p.add_argument("--magic")
p.add_argument("--header-type", type=int)
p.add_argument("--tensor-type", action="append", default=[])
p.add_argument("--drop", action="append", default=[])
p.add_argument("--add", action="append", default=[])
p.add_argument("--sizes", action="append", default=[])
p.add_argument("--truncate", type=int)
p.add_argument("--layers", type=int)
a = p.parse_args()

data = open(a.inp, "rb").read()
header = list(struct.unpack("<6I", data[:24]))
off = 24
records = []
while off < len(data):
    nd, nlen, ty = struct.unpack("<3I", data[off:off + 12])
    off += 12
    sizes = list(struct.unpack("<%dI" % nd, data[off:off + 4 * nd]))
    off += 4 * nd
    name = data[off:off + nlen].decode()
    off += nlen
    n = 1
    for s in sizes:
        n *= s
    nbytes = n * (4 if ty == 0 else 2)
    records.append([name, ty, sizes, data[off:off + nbytes]])
    off += nbytes

if a.magic:
    header[0] = int(a.magic, 16)
if a.header_type is not None:
    header[5] = a.header_type
by_name = {r[0]: r for r in records}
for spec in a.tensor_type:
    name, t = spec.split("=")
    by_name[name][1] = int(t)
for spec in a.sizes:
    name, s = spec.split("=")
    by_name[name][2] = [int(x) for x in s.split(",")]
for spec in a.add:
    new, src = spec.split("=")
    r = by_name[src]
    records.append([new, r[1], list(r[2]), r[3]])
records = [r for r in records if r[0] not in a.drop]
if a.layers is not None:
    header[4] = a.layers
    records = [r for r in records
               if not r[0].startswith("blocks.") or int(r[0].split(".")[1]) < a.layers]

out = bytearray(struct.pack("<6I", *header))
for name, ty, sizes, payload in records:
    nb = name.encode()
    out += struct.pack("<3I", len(sizes), len(nb), ty)
    out += struct.pack("<%dI" % len(sizes), *sizes)
    out += nb + payload
if a.truncate is not None:
    out = out[:a.truncate]
open(a.out, "wb").write(out)
