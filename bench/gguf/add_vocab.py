#!/usr/bin/env python3
"""Copies a GGUF file, giving it a placeholder SentencePiece-style vocabulary
where it has none (tokenizer.ggml.model "none", as bench/synth_checkpoint.py
writes), so that llama-server, which detokenizes what it generates, can serve
a synthetic model. The tensors and every other key are copied unchanged.

usage: add_vocab.py IN.gguf OUT.gguf

The vocabulary: <unk> (0), <s> (1), </s> (2), then "▁t<i>" up to the model's
<arch>.vocab_size: every generated token is plain ASCII text (with byte
tokens, a random model's output was invalid UTF-8 and llama-server ended the
stream with "output that does not match the expected Content-only format").
Only for benchmarks: the token ids the bench sends mean nothing.
Standard library only (GGUF v3 layout: ggml's docs/gguf.md).
"""
import struct
import sys

# GGUF value types
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR = {U8: "B", I8: "b", U16: "H", I16: "h", U32: "I", I32: "i", F32: "f", BOOL: "?",
          U64: "Q", I64: "q", F64: "d"}


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, fmt):
        v = struct.unpack_from("<" + fmt, self.d, self.p)
        self.p += struct.calcsize("<" + fmt)
        return v[0]

    def string(self):
        n = self.take("Q")
        s = self.d[self.p:self.p + n]
        self.p += n
        return s.decode("utf-8")

    def value(self, t):
        if t == STRING:
            return self.string()
        if t == ARRAY:
            et, n = self.take("I"), self.take("Q")
            return (et, [self.value(et) for _ in range(n)])
        return self.take(SCALAR[t])


def enc_str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def enc_value(t, v):
    if t == STRING:
        return enc_str(v)
    if t == ARRAY:
        et, items = v
        return struct.pack("<IQ", et, len(items)) + b"".join(enc_value(et, x) for x in items)
    return struct.pack("<" + SCALAR[t], v)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        head = f.read(1 << 24)  # header: keys and tensor infos (a few MB at most here)
    r = Reader(head)
    if head[:4] != b"GGUF":
        sys.exit(f"add_vocab: {src}: not a GGUF file")
    r.p = 4
    version, n_tensors, n_kv = r.take("I"), r.take("Q"), r.take("Q")
    if version != 3:
        sys.exit(f"add_vocab: {src}: GGUF version {version}; this script writes version 3")
    kv = []
    for _ in range(n_kv):
        key = r.string()
        t = r.take("I")
        kv.append((key, t, r.value(t)))
    infos_start = r.p
    for _ in range(n_tensors):
        r.string()
        nd = r.take("I")
        r.p += 8 * nd + 4 + 8
    infos = head[infos_start:r.p]
    align = next((v for k, t, v in kv if k == "general.alignment"), 32)
    data_start = r.p + (-r.p % align)
    arch = next(v for k, t, v in kv if k == "general.architecture")
    vocab = next(v for k, t, v in kv if k == f"{arch}.vocab_size")
    model = next((v for k, t, v in kv if k == "tokenizer.ggml.model"), "none")
    if model != "none":
        sys.exit(f"add_vocab: {src} already has a vocabulary ({model})")
    if vocab < 4:
        sys.exit(f"add_vocab: {src}: vocabulary of {vocab} is too small for the placeholder")
    tokens = ["<unk>", "<s>", "</s>"] + ["\u2581t%d" % i for i in range(3, vocab)]
    types = [2, 3, 3] + [1] * (vocab - 3)  # unknown, control, normal
    kv = [e for e in kv if not e[0].startswith("tokenizer.")]
    kv += [("tokenizer.ggml.model", STRING, "llama"),
           ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
           ("tokenizer.ggml.scores", ARRAY, (F32, [0.0] * vocab)),
           ("tokenizer.ggml.token_type", ARRAY, (I32, types)),
           ("tokenizer.ggml.unknown_token_id", U32, 0),
           ("tokenizer.ggml.bos_token_id", U32, 1),
           ("tokenizer.ggml.eos_token_id", U32, 2),
           ("tokenizer.ggml.add_bos_token", BOOL, False)]
    out = b"GGUF" + struct.pack("<IQQ", 3, n_tensors, len(kv))
    out += b"".join(enc_str(k) + struct.pack("<I", t) + enc_value(t, v) for k, t, v in kv)
    out += infos
    out += b"\0" * (-len(out) % align)
    with open(src, "rb") as f, open(dst + ".tmp", "wb") as g:
        g.write(out)
        f.seek(data_start)
        while True:
            chunk = f.read(1 << 24)
            if not chunk:
                break
            g.write(chunk)
    import os
    os.replace(dst + ".tmp", dst)
    print(f"add_vocab: {dst}: {vocab} placeholder tokens")


if __name__ == "__main__":
    main()
