#!/usr/bin/env python3
"""Writes fuzz/corpus/fuzz-gguf/ (small GGUF files, no NumPy; fuzz/make_corpus.py runs it).

  blocks.gguf  one block of every tensor type the reader converts (F32, F16,
               BF16, Q4_0 .. Q8_1, Q2_K .. Q8_K), scales 1/64 and random codes,
               and metadata of every value type (arrays of numbers and strings)
  lfm2.gguf    a 1-layer LFM2 of width 32 and 8 tokens (a conv layer and an
               attention layer's worth of tensors, Q8_0 matrices) with a gpt2
               vocabulary, so the fuzzer reaches the importer and the tokenizer
  spm.gguf     a SentencePiece ("llama") vocabulary with scores and byte tokens
  mamba.gguf   a 1-layer Mamba-1 of width 32 (llama.cpp's names and keys, a
               Q8_0 ssm_in, ssm_a negative), vocabulary 8 tokens
  rwkv6.gguf   a 1-layer RWKV-6 of width 32 (fused lerps, head size 16) with an
               "rwkv" World vocabulary (escaped byte tokens)
The layout is written by test/lit/Import/Inputs/gguf_tool.py.
"""
import os
import random
import struct
import sys

root = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(root, "..", "test", "lit", "Import", "Inputs"))
import gguf_tool as g  # noqa: E402

rng = random.Random(23)
HALF_1_64 = struct.pack("<H", 0x2400)  # 2^-6 as IEEE half


def out(name, kvs, tensors):
    d = os.path.join(root, "corpus", "fuzz-gguf")
    os.makedirs(d, exist_ok=True)
    g.write(os.path.join(d, name), 3, kvs, tensors)


def rnd(n):
    return bytes(rng.randrange(256) for _ in range(n))


def block(t):
    """One block of type t with half scales of 1/64 and random codes."""
    elems, size = g.BLOCK[t]
    if t == 0:
        return struct.pack("<%df" % elems, *[rng.uniform(-1, 1) for _ in range(elems)]), elems
    if t in (1, 30):
        return HALF_1_64, 1
    layouts = {  # byte offsets of the half scales in each block
        2: [0], 3: [0, 2], 6: [0], 7: [0, 2], 8: [0], 9: [0, 2], 10: [80, 82], 11: [108],
        12: [0, 2], 13: [0, 2], 14: [208]}
    b = bytearray(rnd(size))
    if t == 15:
        b[0:4] = struct.pack("<f", 0.01)
    for off in layouts.get(t, []):
        b[off:off + 2] = HALF_1_64
    return bytes(b), elems


def strings(values):
    return struct.pack("<IIQ", 9, 8, len(values)) + b"".join(g.pack_string(v) for v in values)


tensors = []
for t in sorted(g.BLOCK):
    data, elems = block(t)
    tensors.append(["t%d" % t, [elems], t, data])
kvs = [("general.architecture", g.kv_raw("str", "lfm2")),
       ("general.alignment", g.kv_raw("u32", 32)),
       ("k.u8", struct.pack("<IB", 0, 7)), ("k.i8", struct.pack("<Ib", 1, -7)),
       ("k.u16", struct.pack("<IH", 2, 7)), ("k.i16", struct.pack("<Ih", 3, -7)),
       ("k.i32", g.kv_raw("i32", -7)), ("k.f32", g.kv_raw("f32", 0.5)),
       ("k.bool", g.kv_raw("bool", "true")), ("k.u64", struct.pack("<IQ", 10, 7)),
       ("k.i64", struct.pack("<Iq", 11, -7)), ("k.f64", struct.pack("<Id", 12, 0.25)),
       ("k.ints", g.int_array_raw([1, 2, 3])), ("k.strs", strings(["a", "bc"]))]
out("blocks.gguf", kvs, tensors)

W, V, F, K = 32, 8, 32, 3


def f32(shape):
    n = 1
    for d in shape:
        n *= d
    return [None, list(reversed(shape)), 0, struct.pack("<%df" % n, *[rng.uniform(-1, 1) for _ in range(n)])]


def q8(shape):
    rows = shape[0] * (shape[1] // 32)
    return [None, list(reversed(shape)), 8, b"".join(HALF_1_64 + rnd(32) for _ in range(rows))]


def named(name, t):
    t[0] = name
    return t


vocab = ["a", "b", "c", "ab", "abc", "<s>", "</s>", "\u0120a"]
lfm = [named("token_embd.weight", f32((V, W))), named("token_embd_norm.weight", f32((W,))),
       named("blk.0.attn_norm.weight", f32((W,))), named("blk.0.ffn_norm.weight", f32((W,))),
       named("blk.0.ffn_gate.weight", q8((F, W))), named("blk.0.ffn_up.weight", q8((F, W))),
       named("blk.0.ffn_down.weight", q8((W, F))),
       named("blk.0.shortconv.in_proj.weight", q8((3 * W, W))),
       named("blk.0.shortconv.conv.weight", f32((W, K))),
       named("blk.0.shortconv.out_proj.weight", q8((W, W)))]
kvs = [("general.architecture", g.kv_raw("str", "lfm2")),
       ("lfm2.block_count", g.kv_raw("u32", 1)), ("lfm2.embedding_length", g.kv_raw("u32", W)),
       ("lfm2.feed_forward_length", g.kv_raw("u32", F)),
       ("lfm2.attention.head_count", g.kv_raw("u32", 2)),
       ("lfm2.attention.head_count_kv", g.int_array_raw([0])),
       ("lfm2.attention.layer_norm_rms_epsilon", g.kv_raw("f32", 1e-5)),
       ("lfm2.shortconv.l_cache", g.kv_raw("u32", K)),
       ("tokenizer.ggml.model", g.kv_raw("str", "gpt2")),
       ("tokenizer.ggml.pre", g.kv_raw("str", "qwen2")),
       ("tokenizer.ggml.tokens", strings(vocab)),
       ("tokenizer.ggml.token_type", g.int_array_raw([1, 1, 1, 1, 1, 3, 3, 4])),
       ("tokenizer.ggml.merges", strings(["a b", "ab c"])),
       ("tokenizer.ggml.bos_token_id", g.kv_raw("u32", 5)),
       ("tokenizer.ggml.eos_token_id", g.kv_raw("u32", 6))]
out("lfm2.gguf", kvs, lfm)

spm = ["<unk>", "<s>", "</s>", "<0x0A>", "\u2581", "\u2581a", "a", "b", "ab", "\u2581ab"]
scores = [0, 0, 0, 0, -1, -2, -3, -4, -5, -6]
kvs = [("general.architecture", g.kv_raw("str", "llama")),
       ("tokenizer.ggml.model", g.kv_raw("str", "llama")),
       ("tokenizer.ggml.tokens", strings(spm)),
       ("tokenizer.ggml.scores", struct.pack("<IIQ", 9, 6, len(scores)) +
        struct.pack("<%df" % len(scores), *scores)),
       ("tokenizer.ggml.token_type", g.int_array_raw([2, 3, 3, 6, 1, 1, 1, 1, 1, 1])),
       ("tokenizer.ggml.add_bos_token", g.kv_raw("bool", "true")),
       ("tokenizer.ggml.unknown_token_id", g.kv_raw("u32", 0))]
out("spm.gguf", kvs, [])

# Mamba-1: d_inner 64, d_state 4, dt_rank 2, conv 4.
DI, N, R = 2 * W, 4, 2
a_neg = [None, [N, DI], 0, struct.pack("<%df" % (DI * N), *[-rng.uniform(0.1, 2) for _ in range(DI * N)])]
mamba = [named("token_embd.weight", f32((V, W))), named("output_norm.weight", f32((W,))),
         named("blk.0.attn_norm.weight", f32((W,))), named("blk.0.ssm_in.weight", q8((2 * DI, W))),
         named("blk.0.ssm_conv1d.weight", f32((DI, 4))), named("blk.0.ssm_conv1d.bias", f32((DI,))),
         named("blk.0.ssm_x.weight", f32((R + 2 * N, DI))), named("blk.0.ssm_dt.weight", f32((DI, R))),
         named("blk.0.ssm_dt.bias", f32((DI,))), named("blk.0.ssm_a", a_neg),
         named("blk.0.ssm_d", f32((DI,))), named("blk.0.ssm_out.weight", f32((W, DI)))]
kvs = [("general.architecture", g.kv_raw("str", "mamba")),
       ("mamba.block_count", g.kv_raw("u32", 1)), ("mamba.embedding_length", g.kv_raw("u32", W)),
       ("mamba.ssm.conv_kernel", g.kv_raw("u32", 4)), ("mamba.ssm.inner_size", g.kv_raw("u32", DI)),
       ("mamba.ssm.state_size", g.kv_raw("u32", N)), ("mamba.ssm.time_step_rank", g.kv_raw("u32", R)),
       ("mamba.attention.layer_norm_rms_epsilon", g.kv_raw("f32", 1e-5)),
       ("tokenizer.ggml.model", g.kv_raw("str", "gpt2")),
       ("tokenizer.ggml.tokens", strings(vocab)),
       ("tokenizer.ggml.merges", strings(["a b"]))]
out("mamba.gguf", kvs, mamba)

# RWKV-6: head size 16 (2 heads), mix rank 4, decay rank 4, FFN 64.
S, MR, DR, FF = 16, 4, 4, 64
r6 = [named("token_embd.weight", f32((V, W))), named("token_embd_norm.weight", f32((W,))),
      named("token_embd_norm.bias", f32((W,))), named("output_norm.weight", f32((W,))),
      named("output_norm.bias", f32((W,))), named("output.weight", f32((V, W)))]
for n, shape in (("attn_norm.weight", (W,)), ("attn_norm.bias", (W,)), ("attn_norm_2.weight", (W,)),
                 ("attn_norm_2.bias", (W,)), ("time_mix_lerp_x.weight", (1, 1, W)),
                 ("time_mix_lerp_fused.weight", (5, 1, 1, W)), ("time_mix_w1.weight", (5 * MR, W)),
                 ("time_mix_w2.weight", (5, W, MR)), ("time_mix_decay.weight", (W,)),
                 ("time_mix_decay_w1.weight", (DR, W)), ("time_mix_decay_w2.weight", (W, DR)),
                 ("time_mix_first.weight", (W // S, S)), ("time_mix_key.weight", (W, W)),
                 ("time_mix_value.weight", (W, W)), ("time_mix_receptance.weight", (W, W)),
                 ("time_mix_gate.weight", (W, W)), ("time_mix_output.weight", (W, W)),
                 ("time_mix_ln.weight", (W,)), ("time_mix_ln.bias", (W,)),
                 ("channel_mix_lerp_k.weight", (1, 1, W)), ("channel_mix_lerp_r.weight", (1, 1, W)),
                 ("channel_mix_key.weight", (FF, W)), ("channel_mix_value.weight", (W, FF)),
                 ("channel_mix_receptance.weight", (W, W))):
    r6.append(named("blk.0." + n, f32(shape)))
kvs = [("general.architecture", g.kv_raw("str", "rwkv6")),
       ("rwkv6.block_count", g.kv_raw("u32", 1)), ("rwkv6.embedding_length", g.kv_raw("u32", W)),
       ("rwkv6.wkv.head_size", g.kv_raw("u32", S)), ("rwkv6.time_mix_extra_dim", g.kv_raw("u32", MR)),
       ("rwkv6.time_decay_extra_dim", g.kv_raw("u32", DR)),
       ("rwkv6.feed_forward_length", g.kv_raw("u32", FF)),
       ("rwkv6.rescale_every_n_layers", g.kv_raw("u32", 6)),
       ("rwkv6.attention.layer_norm_epsilon", g.kv_raw("f32", 1e-5)),
       ("tokenizer.ggml.model", g.kv_raw("str", "rwkv")),
       ("tokenizer.ggml.tokens", strings(["<s>", "a", "\\n", "\\x00", "\\\\", "\\'", "ab", "\\xe4\\xbd"])),
       ("tokenizer.ggml.token_type", g.int_array_raw([3, 1, 1, 1, 1, 1, 1, 1]))]
out("rwkv6.gguf", kvs, r6)
