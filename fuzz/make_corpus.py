#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/ (small files, no numpy needed).

usage: fuzz/make_corpus.py <build/bin>

The .npy, safetensors, rwkv.cpp and case.json seeds are made here from the
formats' definitions; model.json and manifest.json seeds are what our own
ssm-import and ssm-compile write for the tiny rwkv seed; the IR seeds are a
few of the lit tests' graphs (scripts/fuzz.sh also reads test/lit whole).
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.abspath(__file__))
bindir = sys.argv[1]
rng = random.Random(11)


def out(harness, name, data):
    d = os.path.join(root, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def npy(descr, shape, payload, version=1):
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, tuple(shape))
    hl = 2 if version == 1 else 4
    pad = 64 - (8 + hl + len(text) + 1) % 64
    text += " " * pad + "\n"
    lenfield = struct.pack("<H", len(text)) if version == 1 else struct.pack("<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + lenfield + text.encode("latin1") + payload


out("fuzz-npy", "f4-2x3.npy", npy("<f4", (2, 3), struct.pack("<6f", *range(6))))
out("fuzz-npy", "f8-scalar.npy", npy("<f8", (), struct.pack("<d", 1.5)))
out("fuzz-npy", "i4-vec.npy", npy("<i4", (4,), struct.pack("<4i", 1, -2, 3, 2**31 - 1)))
out("fuzz-npy", "b1.npy", npy("|b1", (3,), b"\x00\x01\x01"))
out("fuzz-npy", "u2-v2.npy", npy("<u2", (2, 1), struct.pack("<2H", 7, 65535), version=2))
out("fuzz-npy", "empty.npy", npy("<f4", (0, 4), b""))


def safetensors(tensors, metadata=None):
    header, blobs, off = {}, b"", 0
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, blob in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(blob)]}
        blobs += blob
        off += len(blob)
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + blobs


out("fuzz-safetensors", "f32.safetensors",
    safetensors([("a", "F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4)),
                 ("b", "F32", [3], struct.pack("<3f", -1, 0, 1))], {"format": "pt"}))
out("fuzz-safetensors", "f16-bf16.safetensors",
    safetensors([("h", "F16", [2], struct.pack("<2H", 0x3c00, 0xc000)),
                 ("g", "BF16", [2], struct.pack("<2H", 0x3f80, 0x7f80))]))
out("fuzz-safetensors", "i64-empty.safetensors",
    safetensors([("i", "I64", [1], struct.pack("<q", 5)), ("e", "F32", [0], b"")]))


def rwkv4(n_vocab=8, n_embed=4, n_layer=1, ffn=8, ftype=0):
    """rwkv.cpp's format: header, then (n_dims, name_len, type, sizes reversed, name, data)."""
    tensors = [("emb.weight", (n_embed, n_vocab))]
    for i in range(n_layer):
        b = "blocks.%d." % i
        vec = (n_embed,)
        tensors += [(b + "ln1.weight", vec), (b + "ln1.bias", vec), (b + "ln2.weight", vec),
                    (b + "ln2.bias", vec), (b + "att.time_decay", vec), (b + "att.time_first", vec),
                    (b + "att.time_mix_k", vec), (b + "att.time_mix_v", vec),
                    (b + "att.time_mix_r", vec)]
        tensors += [(b + "att.%s.weight" % w, (n_embed, n_embed))
                    for w in ("key", "value", "receptance", "output")]
        tensors += [(b + "ffn.time_mix_k", vec), (b + "ffn.time_mix_r", vec),
                    (b + "ffn.key.weight", (n_embed, ffn)), (b + "ffn.value.weight", (ffn, n_embed)),
                    (b + "ffn.receptance.weight", (n_embed, n_embed))]
        if i == 0:
            tensors += [(b + "ln0.weight", vec), (b + "ln0.bias", vec)]
    tensors += [("ln_out.weight", (n_embed,)), ("ln_out.bias", (n_embed,)),
                ("head.weight", (n_embed, n_vocab))]
    data = struct.pack("<6I", 0x67676D66, 100, n_vocab, n_embed, n_layer, ftype)
    for name, sizes in tensors:
        n = 1
        for s in sizes:
            n *= s
        nb = name.encode()
        data += struct.pack("<3I", len(sizes), len(nb), ftype) + struct.pack("<%dI" % len(sizes), *sizes) + nb
        vals = [rng.uniform(-0.5, 0.5) for _ in range(n)]
        data += struct.pack("<%d%s" % (n, "f" if ftype == 0 else "e"), *vals)
    return data


out("fuzz-rwkv", "rwkv4-tiny-f32.bin", rwkv4())
out("fuzz-rwkv", "rwkv4-tiny-f16.bin", rwkv4(ftype=1))
out("fuzz-rwkv", "rwkv4-2layers.bin", rwkv4(n_layer=2, n_embed=2, n_vocab=4, ffn=4))

# case.json for each golden op, with small shapes (the harness writes the .npy files).
def case(op, attrs, inputs, expected, rtol=1e-4, atol=1e-5):
    spec = lambda d: {k: {"shape": v, "dtype": "float32"} for k, v in d.items()}
    return json.dumps({"op": op, "attributes": attrs, "tolerance": {"rtol": rtol, "atol": atol},
                       "inputs": spec(inputs), "expected": spec(expected)}, indent=1)


out("fuzz-case-json", "conv.json", case("causal_conv1d", {"activation": "silu", "return_final_states": True},
                                        {"x": [1, 4, 9], "weight": [4, 3], "bias": [4]},
                                        {"out": [1, 4, 9], "final_states": [1, 4, 2]}))
out("fuzz-case-json", "scan.json", case("selective_scan", {"delta_softplus": True, "b_c": "variable"},
                                        {"u": [1, 4, 8], "delta": [1, 4, 8], "A": [4, 2], "B": [1, 2, 8],
                                         "C": [1, 2, 8], "D": [4], "z": [1, 4, 8], "delta_bias": [4]},
                                        {"out": [1, 4, 8], "last_state": [1, 4, 2]}))
out("fuzz-case-json", "scan-const.json", case("selective_scan", {"delta_softplus": False, "b_c": "constant"},
                                              {"u": [1, 2, 3], "delta": [1, 2, 3], "A": [2, 2], "B": [2, 2],
                                               "C": [2, 2]}, {"out": [1, 2, 3]}))
out("fuzz-case-json", "update.json", case("selective_update", {"dt_softplus": True},
                                          {"state": [1, 4, 2], "x": [1, 4], "dt": [1, 4], "A": [4, 2],
                                           "B": [1, 2], "C": [1, 2], "D": [4], "z": [1, 4], "dt_bias": [4]},
                                          {"out": [1, 4], "state": [1, 4, 2]}))
out("fuzz-case-json", "ssd.json", case("ssd_chunked_scan", {"chunk_size": 4},
                                       {"X": [1, 8, 2, 2], "A": [1, 8, 2], "B": [1, 8, 1, 2], "C": [1, 8, 1, 2]},
                                       {"Y": [1, 8, 2, 2], "final_state": [1, 2, 2, 2]}, 1e-3, 1e-4))
out("fuzz-case-json", "s4d.json", case("lti_kernel+lti_conv", {"L": 8},
                                       {"u": [1, 2, 8], "log_dt": [2], "log_A_real": [2, 2], "A_imag": [2, 2],
                                        "C": [2, 2, 2]}, {"K": [2, 8], "y": [1, 2, 8]}, 1e-3, 1e-4))

# model.json and manifest.json as our tools write them.
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "m")
    open(os.path.join(tmp, "tiny.bin"), "wb").write(rwkv4())
    subprocess.run([os.path.join(bindir, "ssm-import"), "rwkv", os.path.join(tmp, "tiny.bin"), "-o", model,
                    "--seq-len", "2"], check=True, stdout=subprocess.DEVNULL)
    out("fuzz-model-json", "rwkv4.json", open(os.path.join(model, "model.json")).read())
    subprocess.run([os.path.join(bindir, "ssm-compile"), os.path.join(model, "model.mlir"), "-o",
                    os.path.join(tmp, "lib")], check=True)
    out("fuzz-manifest", "rwkv4-manifest.json", open(os.path.join(tmp, "lib", "manifest.json")).read())

# IR seeds: graphs from the lit tests (scripts/fuzz.sh adds test/lit itself).
lit = os.path.join(root, "..", "test", "lit")
for rel in ["Dialect/ops.mlir", "Passes/decompose.mlir", "Reference/worked-example.mlir",
            "Reference/static-limits.mlir", "Tools/parser-crashes.mlir"]:
    for h in ("fuzz-ir", "fuzz-interpreter"):
        shutil.copy(os.path.join(lit, rel), os.path.join(root, "corpus", h, os.path.basename(rel)))

# Mamba-1 and Mamba-2 model.json as ssm-import writes them for the shared tiny models.
shared = os.path.join(root, "..", "..", "shared", "models")
# mamba1-batched.json: with functions.step_batched (ssm-import --batch 2).
for name, path, extra in [("mamba1.json", "mamba/tiny-mamba-seed5", []),
                          ("mamba1-batched.json", "mamba/tiny-mamba-seed5", ["--batch", "2"]),
                          ("mamba2.json", "mamba2/tiny-mamba2-g1-untied", [])]:
    src = os.path.join(shared, path)
    if not os.path.isdir(src):
        continue
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([os.path.join(bindir, "ssm-import"), "mamba", os.path.join(src, "model.safetensors"),
                        "--config", os.path.join(src, "config.json"), "-o", os.path.join(tmp, "m")] + extra,
                       check=True, stdout=subprocess.DEVNULL)
        out("fuzz-model-json", name, open(os.path.join(tmp, "m", "model.json")).read())

# tokenizer.json: the lit tests' SentencePiece-style BPE, and a byte-level BPE of our
# own in Qwen's layout (NFC, a Split regex with Unicode properties and lookahead,
# ByteLevel, added special tokens) over printable ASCII and a few merges.
tiny = os.path.join(root, "..", "test", "lit", "Import", "Inputs", "tiny-tokenizer", "tokenizer.json")
out("fuzz-tokenizer", "sentencepiece-bpe.json", open(tiny, encoding="utf-8").read())
printable = [chr(c) for c in range(0x21, 0x7F)]
vocab = {c: i for i, c in enumerate(printable + ["\u0120", "\u010a"])}
merges = [["\u0120", "t"], ["h", "e"], ["\u0120t", "he"], ["i", "n"], ["\u0120", "a"]]
for a, b in merges:
    vocab.setdefault(a + b, len(vocab))
out("fuzz-tokenizer", "byte-level-bpe.json", json.dumps({
    "version": "1.0",
    "added_tokens": [{"id": len(vocab) + i, "content": c, "special": True, "normalized": False,
                      "lstrip": i == 1, "rstrip": False, "single_word": False}
                     for i, c in enumerate(["<|endoftext|>", "<|im_start|>"])],
    "normalizer": {"type": "NFC"},
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
                                                "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
         "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
    "post_processor": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                       "use_regex": False},
    "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
    "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
              "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
              "vocab": vocab, "merges": merges}}, ensure_ascii=False, indent=1))

# The GGUF seeds (fuzz/corpus/fuzz-gguf/).
subprocess.run([sys.executable, os.path.join(root, "make_gguf_corpus.py")], check=True)
