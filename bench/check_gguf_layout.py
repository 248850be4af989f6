#!/usr/bin/python3
"""Check synth_checkpoint.py's GGUF writers against a GGUF that llama.cpp reads.

Converts a Hugging Face checkpoint folder (config.json + model.safetensors, F32,
model_type lfm2, granitemoehybrid or qwen3_5_text) with bench/synth_checkpoint.py's
lfm2_gguf / granite_h_gguf / qwen35_gguf and write_gguf (F32), then compares the result
with a reference GGUF of the same weights, such as the shared tiny-lfm2-a/model-f32.gguf,
tiny-granite-h-a/model-f32.gguf or tiny-qwen35-a/model-f32.gguf (written by llama.cpp's own gguf-py from its
converter's recipe):

  metadata   every key in the same order with the same type and value, except
             general.name and the tokenizer.* keys (ours writes a vocabulary of
             type "none", the references a cut-down gpt2 one), which are listed
  tensors    the same names in the same order, with the same dimensions, ggml
             types, data offsets and bytes; then the data sections byte for byte

Usage: bench/check_gguf_layout.py /work/shared/models/lfm2/tiny-lfm2-a
       bench/check_gguf_layout.py HF_DIR [REF.gguf] [--keep OUT.gguf]
REF defaults to HF_DIR/model-f32.gguf. Exit status 0 when everything but the
listed keys agrees, 1 otherwise.
"""
import argparse
import json
import os
import struct
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth_checkpoint as sc  # noqa: E402

# GGUF scalar type id -> struct format (docs/gguf.md: gguf_metadata_value_type)
_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<B", 10: "<Q", 11: "<q", 12: "<d"}


def read_gguf(path):
    """(kv, tensors, data) of a GGUF v3 file: kv a list of (key, type, value), an array
    value as (element type, [values]); tensors a list of (name, dims, ggml type,
    offset); data the bytes of the tensor-data section."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:4] != b"GGUF":
        raise SystemExit(f"check_gguf_layout: {path} is not a GGUF file")
    _, n_tensors, n_kv = struct.unpack_from("<IQQ", b, 4)
    pos = 24

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from(fmt, b, pos)
        pos += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v

    def string():
        nonlocal pos
        n = take("<Q")
        pos += n
        return b[pos - n:pos].decode()

    def value(typ):
        if typ == sc.GGUF_STRING:
            return string()
        if typ == sc.GGUF_ARRAY:
            elem, n = take("<I"), take("<Q")
            return elem, [value(elem) for _ in range(n)]
        return take(_SCALAR[typ])

    kv = []
    for _ in range(n_kv):
        key = string()
        typ = take("<I")
        kv.append((key, typ, value(typ)))
    tensors = []
    for _ in range(n_tensors):
        name = string()
        dims = tuple(take("<Q") for _ in range(take("<I")))
        tensors.append((name, dims, take("<I"), take("<Q")))
    align = next((v for k, _, v in kv if k == "general.alignment"), 32)
    return kv, tensors, b[-(-pos // align) * align:]


def read_safetensors(path):
    """[(name, float32 array)] of an F32 safetensors file, in the file's data order."""
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack_from("<Q", b)[0]
    header = json.loads(b[8:8 + n])
    header.pop("__metadata__", None)
    out = []
    for name, h in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        if h["dtype"] != "F32":
            raise SystemExit(f"check_gguf_layout: {name} is {h['dtype']}; only F32 checkpoints are handled")
        lo, hi = h["data_offsets"]
        out.append((name, np.frombuffer(b[8 + n + lo:8 + n + hi], dtype="<f4").reshape(h["shape"])))
    return out


def compare(ours_path, ref_path):
    """Print the differences; return True when only general.name and tokenizer.* differ."""
    okv, ot, od = read_gguf(ours_path)
    rkv, rt, rd = read_gguf(ref_path)
    ok = True
    ref_keys = {k for k, _, _ in rkv}
    # Ours stands in a vocabulary of type "none", which needs <arch>.vocab_size; a
    # reference with a real vocabulary (qwen35's) has no such key.
    skipped = lambda k: (k == "general.name" or k.startswith("tokenizer.")
                         or (k.endswith(".vocab_size") and k not in ref_keys))
    ok_keys = [(k, t, v) for k, t, v in okv if not skipped(k)]
    r_keys = [(k, t, v) for k, t, v in rkv if not skipped(k)]
    if ok_keys == r_keys:
        print(f"metadata: {len(r_keys)} keys agree in order, type and value")
    else:
        ok = False
        print("metadata differs:")
        for i in range(max(len(ok_keys), len(r_keys))):
            a = ok_keys[i] if i < len(ok_keys) else None
            r = r_keys[i] if i < len(r_keys) else None
            if a != r:
                print(f"  #{i}: ours {a}\n        ref  {r}")
    print("not compared: ours " + ", ".join(f"{k}={v!r}" for k, _, v in okv if skipped(k))
          + "; reference " + ", ".join(k for k, _, _ in rkv if skipped(k)))
    if ot == rt:
        print(f"tensors: {len(rt)} agree in name, order, dims, type and offset")
    else:
        ok = False
        rmap = {t[0]: t for t in rt}
        for t in ot:
            if rmap.get(t[0]) != t:
                print(f"  tensor ours {t} ref {rmap.get(t[0])}")
        for name in sorted(set(rmap) - {t[0] for t in ot}):
            print(f"  tensor missing from ours: {rmap[name]}")
    if od == rd:
        print(f"data: {len(rd)} bytes identical")
    else:
        ok = False
        print(f"data differs: ours {len(od)} bytes, reference {len(rd)}")
        rmap = {t[0]: t for t in rt}
        for name, dims, typ, off in ot:
            if name in rmap and rmap[name][1:] == (dims, typ, off) and typ == sc.GGML_F32:
                n = 4 * int(np.prod(dims))
                a = np.frombuffer(od[off:off + n], "<f4")
                r = np.frombuffer(rd[off:off + n], "<f4")
                if not np.array_equal(a, r):
                    print(f"  {name}: max|diff| {np.abs(a - r).max():.3e}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("hf_dir")
    ap.add_argument("ref", nargs="?")
    ap.add_argument("--keep", help="write our GGUF here (default: a temporary file, removed)")
    a = ap.parse_args()
    with open(os.path.join(a.hf_dir, "config.json")) as f:
        cfg = json.load(f)
    convert = {"lfm2": sc.lfm2_gguf, "granitemoehybrid": sc.granite_h_gguf,
               "qwen3_5_text": sc.qwen35_gguf}.get(cfg["model_type"])
    if convert is None:
        raise SystemExit(f"check_gguf_layout: model_type {cfg['model_type']!r} "
                         "(expected lfm2, granitemoehybrid or qwen3_5_text)")
    kv, tensors = convert(read_safetensors(os.path.join(a.hf_dir, "model.safetensors")), cfg, "f32")
    out = a.keep or tempfile.mktemp(suffix=".gguf")
    try:
        sc.write_gguf(out, kv, tensors, "f32")
        ok = compare(out, a.ref or os.path.join(a.hf_dir, "model-f32.gguf"))
    finally:
        if not a.keep and os.path.exists(out):
            os.remove(out)
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
