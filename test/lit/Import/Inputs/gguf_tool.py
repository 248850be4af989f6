#!/usr/bin/env python3
"""gguf_tool.py: GGUF test inputs for the GGUF import tests (test data only).

  gguf_tool.py info IN                           tensor names, types, dims
  gguf_tool.py setkv IN OUT KEY TYPE VALUE       set metadata KEY (TYPE u32, i32, f32, bool, str)
  gguf_tool.py dropkv IN OUT KEY                 remove metadata KEY
  gguf_tool.py retype IN OUT TENSOR TYPEID       relabel a tensor's ggml type number (data kept)
  gguf_tool.py drop IN OUT TENSOR                remove a tensor
  gguf_tool.py rename IN OUT TENSOR NEWNAME      rename a tensor
  gguf_tool.py copy IN OUT TENSOR NEWNAME        add a copy of a tensor under another name
  gguf_tool.py quantize IN OUT DEQ TYPE          (NumPy) every F32 matrix whose rows fit TYPE's
                                                 block -> TYPE in OUT; DEQ: the same file with
                                                 those tensors replaced by their dequantised f32
                                                 values (computed here, NumPy)
  gguf_tool.py synth-lfm2 OUT WIDTH SEED         (NumPy) a random 2-layer LFM2 GGUF (conv +
                                                 attention) of hidden width WIDTH, vocab 256
  gguf_tool.py from-hf DIR OUT                   (NumPy) the F32 GGUF llama.cpp's converter
                                                 writes for the Mamba-1 / Mamba-2 checkpoint in
                                                 DIR (config.json + model.safetensors), with a
                                                 256-token byte-level vocabulary
  gguf_tool.py from-falcon-h1 DIR OUT            (NumPy) the F32 `falcon-h1` GGUF llama.cpp's
                                                 converter writes for the Falcon-H1 checkpoint
                                                 in DIR (the multipliers folded into the
                                                 weights), no vocabulary
  gguf_tool.py from-rwkv IN.bin OUT [N]          the F32 `rwkv6` / `rwkv7` GGUF llama.cpp's
                                                 converter writes for the RWKV-6 / RWKV-7 model
                                                 of an rwkv.cpp FP32 file; N (RWKV-6):
                                                 rescale_every_n_layers (the
                                                 converter's division of layer l's output
                                                 weights by 2^(l // N), NumPy)

The GGUF layout (ggml docs/gguf.md) and the block formats (ggml-common.h:
Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K) are written here from the format
description, independently of import/Gguf.cpp, so a test comparing the two
dequantisations can fail. The quantisers are simple (min/max scales), not
llama.cpp's: any valid block encodes a weight, and the tests only need
valid blocks of realistic values.
"""
import struct
import sys

ALIGN = 32
SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
          11: "<q", 12: "<d"}
BLOCK = {0: (1, 4), 1: (1, 2), 30: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24),
         8: (32, 34), 10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176),
         14: (256, 210), 15: (256, 292)}
TYPES = {"F32": 0, "F16": 1, "BF16": 30, "Q4_0": 2, "Q5_0": 6, "Q8_0": 8, "Q4_K": 12, "Q5_K": 13,
         "Q6_K": 14}


class Reader:
    def __init__(self, b):
        self.b, self.p = b, 0

    def take(self, n):
        r = self.b[self.p:self.p + n]
        self.p += n
        return r

    def u(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.p)[0]
        self.p += struct.calcsize(fmt)
        return v

    def string(self):
        return self.take(self.u("<Q")).decode("utf-8", "surrogateescape")


def skip_value(r, t):
    if t == 8:
        r.string()
    elif t == 9:
        et, n = r.u("<I"), r.u("<Q")
        for _ in range(n):
            skip_value(r, et)
    else:
        r.take(struct.calcsize(SCALAR[t]))


def read(path):
    b = open(path, "rb").read()
    r = Reader(b)
    assert r.take(4) == b"GGUF", path
    version, nt, nkv = r.u("<I"), r.u("<Q"), r.u("<Q")
    kvs = []  # (key, raw bytes of type + value)
    for _ in range(nkv):
        key = r.string()
        start = r.p
        t = r.u("<I")
        skip_value(r, t)
        kvs.append((key, b[start:r.p]))
    infos = []
    for _ in range(nt):
        name = r.string()
        nd = r.u("<I")
        ne = [r.u("<Q") for _ in range(nd)]
        t, off = r.u("<I"), r.u("<Q")
        infos.append((name, ne, t, off))
    data = r.p + (-r.p) % ALIGN
    tensors = []
    for name, ne, t, off in infos:
        be, bb = BLOCK[t]
        n = 1
        for d in ne:
            n *= d
        tensors.append([name, ne, t, b[data + off:data + off + n // be * bb]])
    return version, kvs, tensors


def pack_string(s):
    e = s.encode("utf-8", "surrogateescape")
    return struct.pack("<Q", len(e)) + e


def write(path, version, kvs, tensors):
    out = bytearray(b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)))
    for key, raw in kvs:
        out += pack_string(key) + raw
    off = 0
    offsets = []
    for name, ne, t, data in tensors:
        offsets.append(off)
        off += len(data) + (-len(data)) % ALIGN
    for (name, ne, t, data), o in zip(tensors, offsets):
        out += pack_string(name) + struct.pack("<I", len(ne))
        out += b"".join(struct.pack("<Q", d) for d in ne) + struct.pack("<IQ", t, o)
    out += b"\0" * ((-len(out)) % ALIGN)
    for name, ne, t, data in tensors:
        out += data + b"\0" * ((-len(data)) % ALIGN)
    open(path, "wb").write(out)


def kv_raw(typ, value):
    if typ == "str":
        return struct.pack("<I", 8) + pack_string(value)
    code = {"u32": 4, "i32": 5, "f32": 6, "bool": 7}[typ]
    v = {"u32": int, "i32": int, "f32": float, "bool": lambda s: s in ("1", "true")}[typ](value)
    return struct.pack("<I", code) + struct.pack(SCALAR[code], v)


def int_array_raw(values):
    return struct.pack("<IIQ", 9, 5, len(values)) + struct.pack("<%di" % len(values), *values)


# ---------------------------------------------------------------------------
# Quantisation (NumPy), rows of n elements -> bytes; and back.

def np():
    import numpy
    return numpy


def f16(x):
    N = np()
    return N.asarray(x, dtype=N.float16)


def q8_0(x):
    N = np()
    b = x.reshape(-1, 32)
    d = f16(N.abs(b).max(1) / 127)
    df = d.astype(N.float32)
    q = N.where(df[:, None] > 0, N.round(b / N.where(df > 0, df, 1)[:, None]), 0)
    q = N.clip(q, -127, 127).astype(N.int8)
    return b"".join(d[i].tobytes() + q[i].tobytes() for i in range(len(b)))


def deq_q8_0(raw, n):
    N = np()
    a = N.frombuffer(raw, dtype=N.uint8).reshape(-1, 34)
    d = a[:, :2].copy().view(N.float16).astype(N.float32)
    q = a[:, 2:].copy().view(N.int8).astype(N.float32)
    return (q * d).reshape(-1)


def q4_0(x):
    N = np()
    b = x.reshape(-1, 32)
    # ggml's convention: d = max / -8 with the signed extreme, q = x / d + 8.5
    idx = N.abs(b).argmax(1)
    mx = b[N.arange(len(b)), idx]
    d = f16(mx / -8)
    df = d.astype(N.float32)
    inv = N.where(df != 0, 1 / N.where(df != 0, df, 1), 0)
    q = N.clip(N.floor(b * inv[:, None] + 8.5), 0, 15).astype(N.uint8)
    qs = q[:, :16] | (q[:, 16:] << 4)
    return b"".join(d[i].tobytes() + qs[i].tobytes() for i in range(len(b)))


def deq_q4_0(raw, n):
    N = np()
    a = N.frombuffer(raw, dtype=N.uint8).reshape(-1, 18)
    d = a[:, :2].copy().view(N.float16).astype(N.float32)
    qs = a[:, 2:]
    q = N.concatenate([(qs & 15), (qs >> 4)], 1).astype(N.float32) - 8
    return (q * d).reshape(-1)


def q5_0(x):
    N = np()
    b = x.reshape(-1, 32)
    idx = N.abs(b).argmax(1)
    mx = b[N.arange(len(b)), idx]
    d = f16(mx / -16)
    df = d.astype(N.float32)
    inv = N.where(df != 0, 1 / N.where(df != 0, df, 1), 0)
    q = N.clip(N.floor(b * inv[:, None] + 16.5), 0, 31).astype(N.uint32)
    qs = ((q[:, :16] & 15) | ((q[:, 16:] & 15) << 4)).astype(N.uint8)
    hb = (q >> 4) & 1
    qh = (hb << N.arange(32, dtype=N.uint32)).sum(1).astype(N.uint32)
    return b"".join(d[i].tobytes() + qh[i].tobytes() + qs[i].tobytes() for i in range(len(b)))


def deq_q5_0(raw, n):
    N = np()
    a = N.frombuffer(raw, dtype=N.uint8).reshape(-1, 22)
    d = a[:, :2].copy().view(N.float16).astype(N.float32)
    qh = a[:, 2:6].copy().view(N.uint32)[:, 0]
    qs = a[:, 6:]
    lo = N.concatenate([(qs & 15), (qs >> 4)], 1).astype(N.uint32)
    hb = (qh[:, None] >> N.arange(32, dtype=N.uint32)) & 1
    q = (lo | (hb << 4)).astype(N.float32) - 16
    return (q * d).reshape(-1)


def pack_scales_k4(sc, mn):
    """8 six-bit scales and mins -> 12 bytes (ggml's Q4_K / Q5_K packing)."""
    N = np()
    out = N.zeros((len(sc), 12), dtype=N.uint8)
    for j in range(4):
        out[:, j] = (sc[:, j] & 63) | ((sc[:, j + 4] >> 4) << 6)
        out[:, j + 4] = (mn[:, j] & 63) | ((mn[:, j + 4] >> 4) << 6)
        out[:, j + 8] = (sc[:, j + 4] & 15) | ((mn[:, j + 4] & 15) << 4)
    return out


def unpack_scales_k4(s):
    N = np()
    sc = N.zeros((len(s), 8), dtype=N.int64)
    mn = N.zeros((len(s), 8), dtype=N.int64)
    s = s.astype(N.int64)
    for j in range(4):
        sc[:, j] = s[:, j] & 63
        mn[:, j] = s[:, j + 4] & 63
        sc[:, j + 4] = (s[:, j + 8] & 15) | ((s[:, j] >> 6) << 4)
        mn[:, j + 4] = (s[:, j + 8] >> 4) | ((s[:, j + 4] >> 6) << 4)
    return sc, mn


def qk_affine(x, bits):
    """Q4_K (bits 4) / Q5_K (bits 5) blocks of 256 as 8 sub-blocks of 32, x ~ d*sc*q - dmin*m."""
    N = np()
    top = (1 << bits) - 1
    b = x.reshape(-1, 8, 32)
    lo = N.minimum(b.min(2), 0)
    hi = b.max(2)
    scale = (hi - lo) / top
    dmin_f = -lo
    d = f16(scale.max(1) / 63)
    dm = f16(dmin_f.max(1) / 63)
    df, dmf = d.astype(N.float32), dm.astype(N.float32)
    sc = N.clip(N.round(scale / N.where(df > 0, df, 1)[:, None]), 0, 63).astype(N.int64)
    mn = N.clip(N.round(dmin_f / N.where(dmf > 0, dmf, 1)[:, None]), 0, 63).astype(N.int64)
    eff_d = df[:, None] * sc
    eff_m = dmf[:, None] * mn
    q = N.where(eff_d[:, :, None] > 0,
                N.round((b + eff_m[:, :, None]) / N.where(eff_d > 0, eff_d, 1)[:, :, None]), 0)
    q = N.clip(q, 0, top).astype(N.uint8)
    packed = pack_scales_k4(sc, mn)
    out = []
    for i in range(len(b)):
        blk = d[i].tobytes() + dm[i].tobytes() + packed[i].tobytes()
        qi = q[i].reshape(4, 2, 32)  # 64-element chunks: sub-blocks 2c (low nibbles), 2c+1 (high)
        if bits == 5:
            qh = N.zeros(32, dtype=N.uint8)
            for c in range(4):
                qh |= ((qi[c, 0] >> 4) & 1) << (2 * c)
                qh |= ((qi[c, 1] >> 4) & 1) << (2 * c + 1)
            blk += qh.tobytes()
        qs = ((qi[:, 0] & 15) | ((qi[:, 1] & 15) << 4)).astype(N.uint8)
        out.append(blk + qs.tobytes())
    return b"".join(out)


def deq_qk_affine(raw, n, bits):
    N = np()
    bb = 144 if bits == 4 else 176
    a = N.frombuffer(raw, dtype=N.uint8).reshape(-1, bb)
    d = a[:, 0:2].copy().view(N.float16).astype(N.float32)[:, 0]
    dm = a[:, 2:4].copy().view(N.float16).astype(N.float32)[:, 0]
    sc, mn = unpack_scales_k4(a[:, 4:16])
    qs = a[:, 16:144] if bits == 4 else a[:, 48:176]
    qh = a[:, 16:48] if bits == 5 else None
    y = N.zeros((len(a), 8, 32), dtype=N.float32)
    for c in range(4):
        q = qs[:, 32 * c:32 * c + 32]
        lo = (q & 15).astype(N.int64)
        hi = (q >> 4).astype(N.int64)
        if bits == 5:
            lo = lo + ((qh >> (2 * c)) & 1) * 16
            hi = hi + ((qh >> (2 * c + 1)) & 1) * 16
        for s, v in ((2 * c, lo), (2 * c + 1, hi)):
            d1 = (d * sc[:, s].astype(N.float32)).astype(N.float32)
            m1 = (dm * mn[:, s].astype(N.float32)).astype(N.float32)
            y[:, s] = d1[:, None] * v.astype(N.float32) - m1[:, None]
    return y.reshape(-1)


def q6_k(x):
    N = np()
    b = x.reshape(-1, 16, 16)
    amax = N.abs(b).max(2)
    scale = amax / 31
    d = f16(scale.max(1) / 127)
    df = d.astype(N.float32)
    sc = N.clip(N.round(scale / N.where(df > 0, df, 1)[:, None]), -128, 127).astype(N.int8)
    eff = df[:, None] * sc.astype(N.float32)
    q = N.where(eff[:, :, None] != 0, N.round(b / N.where(eff != 0, eff, 1)[:, :, None]), 0)
    q = (N.clip(q, -32, 31) + 32).astype(N.uint8).reshape(-1, 256)
    out = []
    for i in range(len(q)):
        ql = N.zeros(128, dtype=N.uint8)
        qh = N.zeros(64, dtype=N.uint8)
        for h in range(2):  # halves of 128 elements
            v = q[i, 128 * h:128 * h + 128]
            for l in range(32):
                q1, q2, q3, q4 = v[l], v[l + 32], v[l + 64], v[l + 96]
                ql[64 * h + l] = (q1 & 15) | ((q3 & 15) << 4)
                ql[64 * h + l + 32] = (q2 & 15) | ((q4 & 15) << 4)
                qh[32 * h + l] = (q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6)
        out.append(ql.tobytes() + qh.tobytes() + sc[i].tobytes() + d[i].tobytes())
    return b"".join(out)


def deq_q6_k(raw, n):
    N = np()
    a = N.frombuffer(raw, dtype=N.uint8).reshape(-1, 210)
    y = N.zeros((len(a), 256), dtype=N.float32)
    d = a[:, 208:210].copy().view(N.float16).astype(N.float32)[:, 0]
    sc = a[:, 192:208].copy().view(N.int8).astype(N.float32)
    for h in range(2):
        ql = a[:, 64 * h:64 * h + 64].astype(N.int64)
        qh = a[:, 128 + 32 * h:128 + 32 * h + 32].astype(N.int64)
        for l in range(32):
            q = [((ql[:, l] & 15) | (((qh[:, l] >> 0) & 3) << 4)) - 32,
                 ((ql[:, l + 32] & 15) | (((qh[:, l] >> 2) & 3) << 4)) - 32,
                 ((ql[:, l] >> 4) | (((qh[:, l] >> 4) & 3) << 4)) - 32,
                 ((ql[:, l + 32] >> 4) | (((qh[:, l] >> 6) & 3) << 4)) - 32]
            for k in range(4):
                s = 8 * h + l // 16 + 2 * k
                y[:, 128 * h + 32 * k + l] = (d * sc[:, s]).astype(N.float32) * q[k].astype(N.float32)
    return y.reshape(-1)


def bf16(x):
    N = np()
    u = x.astype(N.float32).view(N.uint32).astype(N.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16  # round to nearest even (finite inputs)
    return u.astype(N.uint16).tobytes()


def deq_bf16(raw, n):
    N = np()
    return (N.frombuffer(raw, dtype=N.uint16).astype(N.uint32) << 16).view(N.float32)


QUANT = {"F16": (lambda x: f16(x).tobytes(),
                 lambda r, n: np().frombuffer(r, dtype=np().float16).astype(np().float32)),
         "BF16": (bf16, deq_bf16),
         "Q8_0": (q8_0, deq_q8_0), "Q4_0": (q4_0, deq_q4_0), "Q5_0": (q5_0, deq_q5_0),
         "Q4_K": (lambda x: qk_affine(x, 4), lambda r, n: deq_qk_affine(r, n, 4)),
         "Q5_K": (lambda x: qk_affine(x, 5), lambda r, n: deq_qk_affine(r, n, 5)),
         "Q6_K": (q6_k, deq_q6_k)}


def quantize(src, out, deq_out, typ):
    N = np()
    version, kvs, tensors = read(src)
    qt, dq = QUANT[typ]
    code = TYPES[typ]
    be = BLOCK[code][0]
    quant, deq = [], []
    count = 0
    for name, ne, t, data in tensors:
        if t == 0 and len(ne) == 2 and ne[0] % be == 0:
            x = N.frombuffer(data, dtype=N.float32)
            raw = qt(x)
            quant.append([name, ne, code, raw])
            deq.append([name, ne, 0, dq(raw, len(x)).astype(N.float32).tobytes()])
            count += 1
        else:
            quant.append([name, ne, t, data])
            deq.append([name, ne, t, data])
    write(out, version, kvs, quant)
    write(deq_out, version, kvs, deq)
    print("quantized %d tensors to %s" % (count, typ))


def synth_lfm2(out, width, seed):
    N = np()
    rng = N.random.default_rng(seed)
    V, W, F, H, KV, L = 256, width, 2 * width, 4, 2, 3
    hd = W // H
    kvs = [("general.architecture", kv_raw("str", "lfm2")),
           ("lfm2.block_count", kv_raw("u32", L)),
           ("lfm2.context_length", kv_raw("u32", 4096)),
           ("lfm2.embedding_length", kv_raw("u32", W)),
           ("lfm2.feed_forward_length", kv_raw("u32", F)),
           ("lfm2.attention.head_count", kv_raw("u32", H)),
           ("lfm2.attention.head_count_kv", int_array_raw([0, KV, 0])),
           ("lfm2.rope.freq_base", kv_raw("f32", 10000.0)),
           ("lfm2.attention.layer_norm_rms_epsilon", kv_raw("f32", 1e-5)),
           ("lfm2.vocab_size", kv_raw("u32", V)),
           ("lfm2.shortconv.l_cache", kv_raw("u32", 3))]
    tensors = []

    def t(name, shape, scale, offset=0.0):
        x = (rng.standard_normal(shape) * scale + offset).astype(N.float32)
        tensors.append([name, list(reversed(shape)), 0, x.tobytes()])

    t("token_embd.weight", (V, W), 0.5)
    t("token_embd_norm.weight", (W,), 0.1, 1.0)
    for l in range(L):
        p = "blk.%d." % l
        t(p + "attn_norm.weight", (W,), 0.1, 1.0)
        t(p + "ffn_norm.weight", (W,), 0.1, 1.0)
        t(p + "ffn_gate.weight", (F, W), 1 / W ** 0.5)
        t(p + "ffn_up.weight", (F, W), 1 / W ** 0.5)
        t(p + "ffn_down.weight", (W, F), 1 / F ** 0.5)
        if l == 1:
            t(p + "attn_q.weight", (W, W), 1 / W ** 0.5)
            t(p + "attn_k.weight", (KV * hd, W), 1 / W ** 0.5)
            t(p + "attn_v.weight", (KV * hd, W), 1 / W ** 0.5)
            t(p + "attn_output.weight", (W, W), 1 / W ** 0.5)
            t(p + "attn_q_norm.weight", (hd,), 0.1, 1.0)
            t(p + "attn_k_norm.weight", (hd,), 0.1, 1.0)
        else:
            t(p + "shortconv.in_proj.weight", (3 * W, W), 1 / W ** 0.5)
            t(p + "shortconv.conv.weight", (W, 3), 0.5)
            t(p + "shortconv.out_proj.weight", (W, W), 1 / W ** 0.5)
    write(out, 3, kvs, tensors)


# ---------------------------------------------------------------------------
# Hugging Face Mamba-1 / Mamba-2 checkpoint -> GGUF, following the
# conventions llama.cpp documents for these architectures (its
# gguf-py constants and tensor_mapping, the converter's MambaModel /
# Mamba2Model and the loaders src/models/mamba.cpp, mamba2.cpp), written
# here in the test's own terms:
#   names   backbone.embedding(s) -> token_embd, backbone.norm_f -> output_norm,
#           lm_head -> output (left out when tied), layers.N.norm -> blk.N.attn_norm,
#           mixer.{in_proj, conv1d, x_proj, dt_proj, out_proj} -> blk.N.ssm_{in, conv1d,
#           x, dt, out}, mixer.A_log -> ssm_a, mixer.D -> ssm_d, mixer.dt_bias ->
#           ssm_dt.bias, mixer.norm -> ssm_norm
#   values  ssm_a = -exp(A_log); conv1d (C, 1, W) squeezed to (C, W); Mamba-2's
#           A and D as (H, 1) and its norm as (G, d_inner / G)
#   keys    <arch>.{context_length, embedding_length, feed_forward_length (0),
#           attention.head_count (0), block_count, ssm.conv_kernel, ssm.inner_size,
#           ssm.state_size, ssm.time_step_rank (Mamba-1 dt_rank; Mamba-2 the heads),
#           ssm.group_count (Mamba-2), ssm.dt_b_c_rms (Mamba-1, false),
#           attention.layer_norm_rms_epsilon}

def read_safetensors(path):
    import json
    N = np()
    b = open(path, "rb").read()
    n = struct.unpack_from("<Q", b, 0)[0]
    header = json.loads(b[8:8 + n])
    dt = {"F32": N.float32, "F16": N.float16, "F64": N.float64}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        lo, hi = info["data_offsets"]
        a = N.frombuffer(b[8 + n + lo:8 + n + hi], dtype=dt[info["dtype"]])
        out[name] = a.reshape(info["shape"]).astype(N.float32)
    return out


def byte_vocab():
    """GPT-2's byte-to-unicode table: the 256 byte tokens of a byte-level BPE."""
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    extra = [b for b in range(256) if b not in keep]
    char = {b: chr(b) for b in keep}
    char.update({b: chr(256 + i) for i, b in enumerate(extra)})
    return [char[b] for b in range(256)]


def byte_vocab_kvs():
    """A 256-token byte-level "gpt2" vocabulary's keys (llama.cpp needs one to load a file)."""
    tokens = byte_vocab()
    return [("tokenizer.ggml.model", kv_raw("str", "gpt2")),
            ("tokenizer.ggml.pre", kv_raw("str", "default")),
            ("tokenizer.ggml.tokens", struct.pack("<IIQ", 9, 8, len(tokens)) +
             b"".join(pack_string(t) for t in tokens)),
            ("tokenizer.ggml.token_type", int_array_raw([1] * len(tokens))),
            ("tokenizer.ggml.merges", struct.pack("<IIQ", 9, 8, 1) + pack_string("\u0120 t"))]


def from_hf(folder, out):
    import json
    import os
    N = np()
    cfg = json.load(open(os.path.join(folder, "config.json")))
    w = read_safetensors(os.path.join(folder, "model.safetensors"))
    arch = cfg["model_type"]
    assert arch in ("mamba", "mamba2"), arch
    d = cfg["hidden_size"]
    L = cfg["num_hidden_layers"]
    di = cfg.get("intermediate_size") or cfg.get("expand", 2) * d
    conv = cfg.get("conv_kernel", 4)
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    kvs = [("general.architecture", kv_raw("str", arch)),
           ("%s.context_length" % arch, kv_raw("u32", 1 << 20)),
           ("%s.embedding_length" % arch, kv_raw("u32", d)),
           ("%s.feed_forward_length" % arch, kv_raw("u32", 0)),
           ("%s.attention.head_count" % arch, kv_raw("u32", 0)),
           ("%s.block_count" % arch, kv_raw("u32", L)),
           ("%s.ssm.conv_kernel" % arch, kv_raw("u32", conv)),
           ("%s.ssm.inner_size" % arch, kv_raw("u32", di)),
           ("%s.ssm.state_size" % arch, kv_raw("u32", cfg["state_size"]))]
    if arch == "mamba":
        rank = cfg.get("time_step_rank", "auto")
        rank = -(d // -16) if rank == "auto" else rank
        kvs += [("%s.ssm.time_step_rank" % arch, kv_raw("u32", rank)),
                ("%s.attention.layer_norm_rms_epsilon" % arch, kv_raw("f32", eps)),
                ("%s.ssm.dt_b_c_rms" % arch, kv_raw("bool", "false"))]
    else:
        heads = di // cfg["head_dim"]
        groups = cfg.get("n_groups", 1)
        kvs += [("%s.ssm.time_step_rank" % arch, kv_raw("u32", heads)),
                ("%s.ssm.group_count" % arch, kv_raw("u32", groups)),
                ("%s.attention.layer_norm_rms_epsilon" % arch, kv_raw("f32", eps))]
    kvs.append(("general.file_type", kv_raw("u32", 0)))
    tokens = byte_vocab()
    kvs += [("tokenizer.ggml.model", kv_raw("str", "gpt2")),
            ("tokenizer.ggml.pre", kv_raw("str", "default")),
            ("tokenizer.ggml.tokens", struct.pack("<IIQ", 9, 8, len(tokens)) +
             b"".join(pack_string(t) for t in tokens)),
            ("tokenizer.ggml.token_type", int_array_raw([1] * len(tokens))),
            ("tokenizer.ggml.merges", struct.pack("<IIQ", 9, 8, 1) + pack_string("\u0120 t"))]
    tensors = []

    def put(name, x):
        x = N.ascontiguousarray(x, dtype=N.float32)
        tensors.append([name, list(reversed(x.shape)), 0, x.tobytes()])

    emb = w.get("backbone.embeddings.weight", w.get("backbone.embedding.weight"))
    put("token_embd.weight", emb)
    for l in range(L):
        h, b = "backbone.layers.%d." % l, "blk.%d." % l
        m = h + "mixer."
        put(b + "attn_norm.weight", w[h + "norm.weight"])
        put(b + "ssm_in.weight", w[m + "in_proj.weight"])
        put(b + "ssm_conv1d.weight", w[m + "conv1d.weight"].squeeze())
        put(b + "ssm_conv1d.bias", w[m + "conv1d.bias"])
        A = -N.exp(w[m + "A_log"])
        if arch == "mamba":
            put(b + "ssm_x.weight", w[m + "x_proj.weight"])
            put(b + "ssm_dt.weight", w[m + "dt_proj.weight"])
            put(b + "ssm_dt.bias", w[m + "dt_proj.bias"])
            put(b + "ssm_a", A)
            put(b + "ssm_d", w[m + "D"])
        else:
            put(b + "ssm_dt.bias", w[m + "dt_bias"])
            put(b + "ssm_a", A.reshape(-1, 1))
            put(b + "ssm_d", w[m + "D"].reshape(-1, 1))
            put(b + "ssm_norm.weight", w[m + "norm.weight"].reshape(groups, di // groups))
        put(b + "ssm_out.weight", w[m + "out_proj.weight"])
    put("output_norm.weight", w["backbone.norm_f.weight"])
    if "lm_head.weight" in w and not N.array_equal(w["lm_head.weight"], emb):
        put("output.weight", w["lm_head.weight"])
    write(out, 3, kvs, tensors)


# ---------------------------------------------------------------------------
# Falcon-H1 checkpoint (config.json + model.safetensors) -> llama.cpp's
# `falcon-h1` GGUF, written in the test's own terms from what llama.cpp's
# converter does (conversion/falcon_h1.py FalconH1Model on top of
# Mamba2Model) and what src/models/falcon-h1.cpp reads:
#   multipliers folded into the weights (f32 products): token_embd x
#           embedding_multiplier, output x lm_head_multiplier, attn_q / attn_v x
#           attention_in_multiplier, attn_k x key_multiplier x
#           attention_in_multiplier, attn_output x attention_out_multiplier,
#           ssm_in x ssm_in_multiplier and its rows z, x, B, C, dt x
#           ssm_multipliers[0..4], ssm_out x ssm_out_multiplier, ffn_gate x
#           mlp_multipliers[0], ffn_down x mlp_multipliers[1]
#   Mamba-2 ssm_a = -exp(A_log) (H, 1), ssm_d (H, 1), conv1d squeezed (C, W),
#           ssm_norm (G, d_ssm / G); q / k not permuted (NeoX RoPE);
#           the pre-feed-forward norm is `blk.N.ffn_norm`, without ".weight"
#   keys    falcon-h1.{vocab_size, block_count, embedding_length, context_length,
#           feed_forward_length, attention.head_count, head_count_kv,
#           key_length, value_length, layer_norm_rms_epsilon, rope.freq_base,
#           ssm.conv_kernel, inner_size, state_size, time_step_rank, group_count}
# What llama.cpp cannot express is refused: norm before gate, a finite
# time_step_limit, a tied head with multipliers (the folded embedding would
# be the head).

def from_falcon_h1(folder, out):
    import json
    import os
    N = np()
    cfg = json.load(open(os.path.join(folder, "config.json")))
    w = read_safetensors(os.path.join(folder, "model.safetensors"))
    a = "falcon-h1"
    assert cfg["model_type"] == "falcon_h1"
    assert not (cfg.get("mamba_rms_norm") and cfg.get("mamba_norm_before_gate", True)), \
        "llama.cpp gates before the norm"
    assert cfg.get("time_step_limit", [0, float("inf")])[1] == float("inf"), "llama.cpp does not clamp dt"
    f32 = N.float32
    mul = {k: f32(cfg.get(k, 1.0)) for k in (
        "embedding_multiplier", "lm_head_multiplier", "key_multiplier", "attention_in_multiplier",
        "attention_out_multiplier", "ssm_in_multiplier", "ssm_out_multiplier")}
    assert not cfg.get("tie_word_embeddings") or (
        mul["embedding_multiplier"] == 1 and mul["lm_head_multiplier"] == 1)
    zx = [f32(v) for v in cfg["ssm_multipliers"]]
    mlp = [f32(v) for v in cfg["mlp_multipliers"]]
    d, L, E = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["head_dim"]
    ds, mh, G, ns = cfg["mamba_d_ssm"], cfg["mamba_n_heads"], cfg["mamba_n_groups"], cfg["mamba_d_state"]
    W = cfg["mamba_d_conv"]
    kvs = [("general.architecture", kv_raw("str", a)),
           (a + ".vocab_size", kv_raw("u32", cfg["vocab_size"])),
           (a + ".block_count", kv_raw("u32", L)),
           (a + ".context_length", kv_raw("u32", cfg["max_position_embeddings"])),
           (a + ".embedding_length", kv_raw("u32", d)),
           (a + ".feed_forward_length", kv_raw("u32", cfg["intermediate_size"])),
           (a + ".attention.head_count", kv_raw("u32", cfg["num_attention_heads"])),
           (a + ".attention.head_count_kv", kv_raw("u32", cfg["num_key_value_heads"])),
           (a + ".attention.key_length", kv_raw("u32", E)),
           (a + ".attention.value_length", kv_raw("u32", E)),
           (a + ".attention.layer_norm_rms_epsilon", kv_raw("f32", cfg["rms_norm_eps"])),
           (a + ".rope.freq_base", kv_raw("f32", cfg["rope_theta"])),
           (a + ".ssm.conv_kernel", kv_raw("u32", W)),
           (a + ".ssm.inner_size", kv_raw("u32", ds)),
           (a + ".ssm.state_size", kv_raw("u32", ns)),
           (a + ".ssm.time_step_rank", kv_raw("u32", mh)),
           (a + ".ssm.group_count", kv_raw("u32", G)),
           ("general.file_type", kv_raw("u32", 0))]
    tensors = []

    def put(name, x):
        x = N.ascontiguousarray(x, dtype=f32)
        tensors.append([name, list(reversed(x.shape)), 0, x.tobytes()])

    put("token_embd.weight", w["model.embed_tokens.weight"] * mul["embedding_multiplier"])
    for l in range(L):
        h, b = "model.layers.%d." % l, "blk.%d." % l
        m, s, ff = h + "mamba.", h + "self_attn.", h + "feed_forward."
        put(b + "attn_norm.weight", w[h + "input_layernorm.weight"])
        put(b + "attn_q.weight", w[s + "q_proj.weight"] * mul["attention_in_multiplier"])
        put(b + "attn_k.weight", w[s + "k_proj.weight"] * mul["key_multiplier"] * mul["attention_in_multiplier"])
        put(b + "attn_v.weight", w[s + "v_proj.weight"] * mul["attention_in_multiplier"])
        put(b + "attn_output.weight", w[s + "o_proj.weight"] * mul["attention_out_multiplier"])
        ip = w[m + "in_proj.weight"] * mul["ssm_in_multiplier"]
        bounds = [0, ds, 2 * ds, 2 * ds + G * ns, 2 * ds + 2 * G * ns, ip.shape[0]]
        for i in range(5):
            ip[bounds[i]:bounds[i + 1], :] *= zx[i]
        put(b + "ssm_in.weight", ip)
        put(b + "ssm_conv1d.weight", w[m + "conv1d.weight"].squeeze())
        if m + "conv1d.bias" in w:
            put(b + "ssm_conv1d.bias", w[m + "conv1d.bias"])
        put(b + "ssm_dt.bias", w[m + "dt_bias"])
        put(b + "ssm_a", (-N.exp(w[m + "A_log"])).reshape(-1, 1))
        put(b + "ssm_d", w[m + "D"].reshape(-1, 1))
        if m + "norm.weight" in w:
            put(b + "ssm_norm.weight", w[m + "norm.weight"].reshape(G, ds // G))
        put(b + "ssm_out.weight", w[m + "out_proj.weight"] * mul["ssm_out_multiplier"])
        # gguf-py maps "pre_ff_layernorm.weight" whole (FFN_PRE_NORM): no suffix.
        put(b + "ffn_norm", w[h + "pre_ff_layernorm.weight"])
        put(b + "ffn_gate.weight", w[ff + "gate_proj.weight"] * mlp[0])
        put(b + "ffn_up.weight", w[ff + "up_proj.weight"])
        put(b + "ffn_down.weight", w[ff + "down_proj.weight"] * mlp[1])
    put("output_norm.weight", w["model.final_layernorm.weight"])
    if "lm_head.weight" in w:
        put("output.weight", w["lm_head.weight"] * mul["lm_head_multiplier"])
    write(out, 3, kvs, tensors)

# ---------------------------------------------------------------------------
# rwkv.cpp RWKV-6 file (FP32) -> llama.cpp's `rwkv6` GGUF. rwkv.cpp's
# converter and llama.cpp's apply the same transposes to the low-rank
# adapters (time_maa_w1 / w2, time_decay_w1 / w2), so those are copied with
# their sizes; what differs (llama.cpp's conversion/rwkv.py Rwkv6Model and
# src/models/rwkv6.cpp, written here in the test's own terms):
#   names   emb -> token_embd, blocks.0.ln0 -> token_embd_norm, ln_out ->
#           output_norm, head -> output, ln1 / ln2 -> blk.N.attn_norm / attn_norm_2,
#           att.time_maa_x -> time_mix_lerp_x, att.time_maa_w1 / w2 -> time_mix_w1 /
#           w2, att.time_decay -> time_mix_decay, att.time_decay_w1 / w2 ->
#           time_mix_decay_w1 / w2, att.time_faaaa -> time_mix_first, att.{key, value,
#           receptance, gate, output} -> time_mix_*, att.ln_x -> time_mix_ln,
#           ffn.time_maa_k / r -> channel_mix_lerp_k / r, ffn.{key, value,
#           receptance} -> channel_mix_*; every name ends in .weight or .bias
#   values  time_maa_w, k, v, r, g stacked into time_mix_lerp_fused, sizes
#           (C, 1, 1, 5) in that order; lerps as (C, 1, 1); time_mix_decay (C);
#           time_mix_first (head_size, heads)
#   keys    rwkv6.{context_length, embedding_length, block_count,
#           attention.layer_norm_epsilon, rescale_every_n_layers (default 0: rwkv.cpp
#           files are not rescaled; N > 0 divides layer l's time_mix_output and
#           channel_mix_value by 2^(l // N) as the converter does), wkv.head_size, time_mix_extra_dim,
#           time_decay_extra_dim, feed_forward_length, attention.head_count (0)};
#           vocabulary "rwkv" (rwkv_world_vocab)

def read_rwkv_cpp(path):
    b = open(path, "rb").read()
    magic, version, n_vocab, n_embed, n_layer, dtype = struct.unpack_from("<6I", b, 0)
    assert magic == 0x67676d66 and dtype == 0, "an FP32 rwkv.cpp file"
    p, out = 24, {}
    while p < len(b):
        nd, nlen, t = struct.unpack_from("<3I", b, p)
        p += 12
        sizes = list(struct.unpack_from("<%dI" % nd, b, p))
        p += 4 * nd
        name = b[p:p + nlen].decode()
        p += nlen
        n = 1
        for s in sizes:
            n *= s
        assert t == 0, name
        out[name] = (sizes, b[p:p + 4 * n])
        p += 4 * n
    return n_vocab, n_embed, n_layer, out


def rwkv_world_vocab():
    """The "rwkv" vocabulary keys as llama.cpp's converter writes RWKV's World
    vocabulary: id 0 "<s>" (control, type 3), then each token as repr() of its
    bytes without the b'' quotes (type 1). Here the byte vocabulary of the
    tiny models: id i is byte i."""
    tokens = ["<s>"] + [repr(bytes([i]))[2:-1] for i in range(1, 256)]
    return [("tokenizer.ggml.model", kv_raw("str", "rwkv")),
            ("tokenizer.ggml.tokens", struct.pack("<IIQ", 9, 8, len(tokens)) +
             b"".join(pack_string(t) for t in tokens)),
            ("tokenizer.ggml.token_type", int_array_raw([3] + [1] * 255))]


def from_rwkv(src, out, rescale=0):
    V, C, L, w = read_rwkv_cpp(src)
    if "blocks.0.att.k_k" in w:
        return from_rwkv7(V, C, L, w, out)
    if rescale > 0:
        N = np()
        for l in range(L):
            for m in ("att.output.weight", "ffn.value.weight"):
                sizes, data = w["blocks.%d.%s" % (l, m)]
                x = N.frombuffer(data, dtype=N.float32) / N.float32(2 ** (l // rescale))
                w["blocks.%d.%s" % (l, m)] = (sizes, x.astype(N.float32).tobytes())
    first = w["blocks.0.att.time_faaaa"][0]
    # time_faaaa: PyTorch (heads, head_size[, 1]), sizes reversed.
    big = [d for d in reversed(first) if d != 1]
    heads = big[0] if len(big) == 2 else 1
    S = C // heads
    mix = w["blocks.0.att.time_maa_w2"][0][0]
    decay = w["blocks.0.att.time_decay_w1"][0][1]
    ff = w["blocks.0.ffn.key.weight"][0][1]
    a = "rwkv6"
    kvs = [("general.architecture", kv_raw("str", a)),
           (a + ".context_length", kv_raw("u32", 1048576)),
           (a + ".embedding_length", kv_raw("u32", C)),
           (a + ".block_count", kv_raw("u32", L)),
           (a + ".attention.layer_norm_epsilon", kv_raw("f32", 1e-5)),
           (a + ".rescale_every_n_layers", kv_raw("u32", rescale)),
           (a + ".wkv.head_size", kv_raw("u32", S)),
           (a + ".time_mix_extra_dim", kv_raw("u32", mix)),
           (a + ".time_decay_extra_dim", kv_raw("u32", decay)),
           (a + ".feed_forward_length", kv_raw("u32", ff)),
           ("general.file_type", kv_raw("u32", 0)),
           (a + ".attention.head_count", kv_raw("u32", 0))]
    kvs += rwkv_world_vocab()
    tensors = []

    def put(name, src_name, sizes=None):
        s, data = w[src_name]
        tensors.append([name, sizes or s, 0, data])

    put("token_embd.weight", "emb.weight")
    put("token_embd_norm.weight", "blocks.0.ln0.weight")
    put("token_embd_norm.bias", "blocks.0.ln0.bias")
    for l in range(L):
        h, b = "blocks.%d." % l, "blk.%d." % l
        for x, y in (("ln1", "attn_norm"), ("ln2", "attn_norm_2"), ("att.ln_x", "time_mix_ln")):
            put(b + y + ".weight", h + x + ".weight")
            put(b + y + ".bias", h + x + ".bias")
        put(b + "time_mix_lerp_x.weight", h + "att.time_maa_x", [C, 1, 1])
        tensors.append([b + "time_mix_lerp_fused.weight", [C, 1, 1, 5], 0,
                        b"".join(w[h + "att.time_maa_" + m][1] for m in "wkvrg")])
        put(b + "time_mix_w1.weight", h + "att.time_maa_w1")
        put(b + "time_mix_w2.weight", h + "att.time_maa_w2")
        put(b + "time_mix_decay.weight", h + "att.time_decay", [C])
        put(b + "time_mix_decay_w1.weight", h + "att.time_decay_w1")
        put(b + "time_mix_decay_w2.weight", h + "att.time_decay_w2")
        put(b + "time_mix_first.weight", h + "att.time_faaaa", [S, heads])
        for m in ("key", "value", "receptance", "gate", "output"):
            put(b + "time_mix_" + m + ".weight", h + "att." + m + ".weight")
        put(b + "channel_mix_lerp_k.weight", h + "ffn.time_maa_k", [C, 1, 1])
        put(b + "channel_mix_lerp_r.weight", h + "ffn.time_maa_r", [C, 1, 1])
        for m in ("key", "value", "receptance"):
            put(b + "channel_mix_" + m + ".weight", h + "ffn." + m + ".weight")
    put("output_norm.weight", "ln_out.weight")
    put("output_norm.bias", "ln_out.bias")
    put("output.weight", "head.weight")
    write(out, 3, kvs, tensors)


# rwkv.cpp RWKV-7 file -> llama.cpp's `rwkv7` GGUF (conversion/rwkv.py
# Rwkv7Model, src/models/rwkv7.cpp), in the test's own terms: the low-rank
# pairs w1 / w2, a1 / a2, v1 / v2, g1 / g2 keep their sizes (both converters
# transpose PyTorch's); names att.{w0, w1, ...} -> blk.N.time_mix_{w0, w1, ...},
# att.x_rwkvag -> time_mix_lerp_fused (C, 1, 1, 6), att.{k_k, k_a, r_k} ->
# time_mix_{k_k, k_a, r_k} (C), att.{receptance, key, value, output} ->
# time_mix_*, att.ln_x -> time_mix_ln, ffn.x_k -> channel_mix_lerp_k (C, 1, 1),
# ffn.{key, value} -> channel_mix_*; layer 0 (no value-residual mix) gets
# copies of a0 / a1 / a2 as v0 / v1 / v2, as llama.cpp's converter writes;
# keys rwkv7.{..., wkv.head_size, attention.{decay, iclr,
# value_residual_mix, gate}_lora_rank, feed_forward_length}.

def from_rwkv7(V, C, L, w, out):
    big = [d for d in reversed(w["blocks.0.att.r_k"][0]) if d != 1]
    heads = big[0] if len(big) == 2 else 1
    S = C // heads
    rank = lambda n: w["blocks.%s.att.%s" % n][0][1]
    a = "rwkv7"
    kvs = [("general.architecture", kv_raw("str", a)),
           (a + ".context_length", kv_raw("u32", 1048576)),
           (a + ".embedding_length", kv_raw("u32", C)),
           (a + ".block_count", kv_raw("u32", L)),
           (a + ".attention.layer_norm_epsilon", kv_raw("f32", 1e-5)),
           (a + ".wkv.head_size", kv_raw("u32", S)),
           (a + ".attention.decay_lora_rank", kv_raw("u32", rank(("0", "w1")))),
           (a + ".attention.iclr_lora_rank", kv_raw("u32", rank(("0", "a1")))),
           (a + ".attention.value_residual_mix_lora_rank", kv_raw("u32", rank(("1", "v1")))),
           (a + ".attention.gate_lora_rank", kv_raw("u32", rank(("0", "g1")))),
           (a + ".feed_forward_length", kv_raw("u32", w["blocks.0.ffn.key.weight"][0][1])),
           ("general.file_type", kv_raw("u32", 0)),
           (a + ".attention.head_count", kv_raw("u32", 0))]
    kvs += rwkv_world_vocab()
    tensors = []

    def put(name, src_name, sizes=None):
        s, data = w[src_name]
        tensors.append([name, sizes or s, 0, data])

    put("token_embd.weight", "emb.weight")
    put("token_embd_norm.weight", "blocks.0.ln0.weight")
    put("token_embd_norm.bias", "blocks.0.ln0.bias")
    for l in range(L):
        h, b = "blocks.%d." % l, "blk.%d." % l
        for x, y in (("ln1", "attn_norm"), ("ln2", "attn_norm_2"), ("att.ln_x", "time_mix_ln")):
            put(b + y + ".weight", h + x + ".weight")
            put(b + y + ".bias", h + x + ".bias")
        put(b + "time_mix_lerp_fused.weight", h + "att.x_rwkvag", [C, 1, 1, 6])
        for m in ("w", "a", "v", "g"):
            src = "a" if (m == "v" and l == 0) else m
            if m != "g":
                put(b + "time_mix_%s0.weight" % m, h + "att.%s0" % src, [C])
            put(b + "time_mix_%s1.weight" % m, h + "att.%s1" % src)
            put(b + "time_mix_%s2.weight" % m, h + "att.%s2" % src)
        for m in ("k_k", "k_a", "r_k"):
            put(b + "time_mix_%s.weight" % m, h + "att." + m, [C])
        for m in ("receptance", "key", "value", "output"):
            put(b + "time_mix_" + m + ".weight", h + "att." + m + ".weight")
        put(b + "channel_mix_lerp_k.weight", h + "ffn.x_k", [C, 1, 1])
        put(b + "channel_mix_key.weight", h + "ffn.key.weight")
        put(b + "channel_mix_value.weight", h + "ffn.value.weight")
    put("output_norm.weight", "ln_out.weight")
    put("output_norm.bias", "ln_out.bias")
    put("output.weight", "head.weight")
    write(out, 3, kvs, tensors)


def main(argv):
    cmd = argv[1]
    if cmd == "info":
        version, kvs, tensors = read(argv[2])
        for name, ne, t, data in tensors:
            print(name, t, ne)
        return
    if cmd == "quantize":
        return quantize(argv[2], argv[3], argv[4], argv[5])
    if cmd == "synth-lfm2":
        return synth_lfm2(argv[2], int(argv[3]), int(argv[4]))
    if cmd == "from-hf":
        return from_hf(argv[2], argv[3])
    if cmd == "from-falcon-h1":
        return from_falcon_h1(argv[2], argv[3])
    if cmd == "from-rwkv":
        return from_rwkv(argv[2], argv[3], int(argv[4]) if len(argv) > 4 else 0)
    version, kvs, tensors = read(argv[2])
    if cmd == "setkv":
        key, typ, value = argv[4:7]
        raw = kv_raw(typ, value)
        kvs = [(k, raw if k == key else v) for k, v in kvs]
        if key not in [k for k, _ in kvs]:
            kvs.append((key, raw))
    elif cmd == "add-byte-vocab":
        kvs = [(k, v) for k, v in kvs if not k.startswith("tokenizer.ggml.")] + byte_vocab_kvs()
    elif cmd == "dropkv":
        kvs = [(k, v) for k, v in kvs if k != argv[4]]
    elif cmd == "retype":
        for t in tensors:
            if t[0] == argv[4]:
                t[2] = int(argv[5])
    elif cmd == "drop":
        tensors = [t for t in tensors if t[0] != argv[4]]
    elif cmd == "rename":
        for t in tensors:
            if t[0] == argv[4]:
                t[0] = argv[5]
    elif cmd == "copy":
        tensors += [[argv[5]] + t[1:] for t in tensors if t[0] == argv[4]]
    else:
        sys.exit("unknown command " + cmd)
    write(argv[3], version, kvs, tensors)


if __name__ == "__main__":
    main(sys.argv)
