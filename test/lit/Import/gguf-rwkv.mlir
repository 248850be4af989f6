// ssm-import <file.gguf> for llama.cpp's `rwkv6` and `rwkv7` architectures.
// ../shared has no RWKV GGUF: Inputs/gguf_tool.py from-rwkv writes one from
// the tiny RWKV-6 rwkv.cpp file as llama.cpp's converter lays it out (its names, the five
// token-shift mixes fused into time_mix_lerp_fused, time_mix_first as
// (head_size, heads), the `rwkv6.*` keys, an "rwkv" vocabulary). Imported,
// it must give rwkv.cpp's expected logits after the prompt `"in` within
// 1e-4 (sequence and step, reference interpreter and compiled CPU kernels),
// and the same logits as the .bin imported directly, bit for bit.
// With rescale_every_n_layers 1 the script divides layer l's time_mix_output
// and channel_mix_value by 2^l, as the converter does; the import multiplies
// them back (exact), so the logits do not move.
// Outside the tests, llama.cpp (d32676d7, bench/gguf/llama_logits.cpp) loads
// both files and gives the expected logits within 2.7e-5 and 6.2e-5 (its
// rescaled run halves the residual stream, which moves the layer norms' eps);
// ours are within 2.2e-5 / 6.1e-5 of its logits (docs/gguf.md).
// RWKV-7 the same way (the tiny 12-layer rwkv.cpp test model: x_rwkvag as
// time_mix_lerp_fused (C, 1, 1, 6), r_k flattened, layer 0's dummy v0 / v1 /
// v2 copied from a0 / a1 / a2 as llama.cpp's converter writes them);
// llama.cpp gives its expected logits within 2.4e-7, ours within 2.4e-7 of
// llama.cpp's.
// Then files that do not fit: exit 2 and a message naming the key or tensor.
// REQUIRES: shared-data, numpy, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{bin} = %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin
// DEFINE: %{exp} = %shared/models/rwkv/expected-logits-6v0-170K.bin
// DEFINE: %{tool} = python3 %S/Inputs/gguf_tool.py
// DEFINE: %{cmp} = python3 %S/Inputs/compare_logits.py
// DEFINE: %{import} = sh -c 'ssm-import "$0" "$@" -o %t/bad; echo "exit=$?"'

// RUN: %{tool} from-rwkv %{bin} %t/r6.gguf
// RUN: ssm-import %t/r6.gguf -o %t/r6 --seq-len 3 2>&1 | FileCheck %s --check-prefix=IMP
// IMP: rwkv6, n_vocab 256, n_embed 64, n_layer 2, 2 heads x 32, FP32 -> F32, 62 tensors (GGUF rwkv6: F32), seq-len 3
// IMP: tokenizer: rwkv_vocab_v20230424.txt from the GGUF's vocabulary (rwkv world, 255 tokens)
// The vocabulary as llama.cpp's converter stores RWKV's World one (id 0 "<s>",
// then repr() text of each token's bytes; here id i is byte i), read back
// as the World tokenizer, from the folder and from the file.
// RUN: printf '"\\"in"\n"a\\nb\\\\ \\u00e9"\n' > %t/texts.jsonl
// RUN: ssm-tokenize %t/r6 < %t/texts.jsonl | FileCheck %s --check-prefix=TOK
// RUN: ssm-tokenize %t/r6.gguf < %t/texts.jsonl | FileCheck %s --check-prefix=TOK
// TOK: [34,105,110]
// TOK-NEXT: [97,10,98,92,32,195,169]
// RUN: echo '[34,105,110]' | ssm-tokenize %t/r6.gguf --decode | FileCheck %s --check-prefix=DEC
// DEC: "\"in"
// RUN: ssm-run %t/r6 --engine reference --prompt '"in' --mode sequence --logits-out %t/ref-seq.npy
// RUN: %{cmp} %t/ref-seq.npy %{exp} 1e-4 | FileCheck %s
// RUN: ssm-run %t/r6 --engine reference --prompt '"in' --mode step --logits-out %t/ref-step.npy
// RUN: %{cmp} %t/ref-step.npy %{exp} 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/r6 --engine cpu --prompt '"in' --mode sequence --logits-out %t/cpu-seq.npy
// RUN: %{cmp} %t/cpu-seq.npy %{exp} 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/r6 --engine cpu --prompt '"in' --mode step --logits-out %t/cpu-step.npy
// RUN: %{cmp} %t/cpu-step.npy %{exp} 1e-4 | FileCheck %s
// CHECK: max_abs_diff={{.*}} PASS

// The .bin imported directly, and the rescaled GGUF: the same logits exactly.
// RUN: ssm-import rwkv %{bin} -o %t/bin --seq-len 3
// RUN: ssm-run %t/bin --engine reference --prompt '"in' --mode sequence --logits-out %t/bin.npy
// RUN: ssm-run %t/r6 --engine reference --prompt '"in' --mode sequence --all-logits-out %t/r6-all.npy
// RUN: ssm-run %t/bin --engine reference --prompt '"in' --mode sequence --all-logits-out %t/bin-all.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/r6-all.npy %t/bin-all.npy 0 | FileCheck %s --check-prefix=SAME
// RUN: %numpy_python %S/Inputs/gguf_tool.py from-rwkv %{bin} %t/r6s.gguf 1
// RUN: ssm-import %t/r6s.gguf -o %t/r6s --seq-len 3
// RUN: ssm-run %t/r6s --engine reference --prompt '"in' --mode sequence --all-logits-out %t/r6s-all.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/r6s-all.npy %t/bin-all.npy 0 | FileCheck %s --check-prefix=SAME
// SAME: shape=(3, 256) max_abs_diff=0 PASS

// Files that do not fit.
// RUN: %{tool} drop %t/r6.gguf %t/e-drop.gguf blk.1.time_mix_first.weight
// RUN: %{import} %t/e-drop.gguf 2>&1 | FileCheck %s --check-prefix=DROP
// DROP: e-drop.gguf: missing tensor 'blk.1.time_mix_first.weight'
// DROP: exit=2
// RUN: %{tool} copy %t/r6.gguf %t/e-extra.gguf blk.0.time_mix_ln.bias blk.0.time_mix_key.bias
// RUN: %{import} %t/e-extra.gguf 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: e-extra.gguf: tensor 'blk.0.time_mix_key.bias' is not one the rwkv6 import uses
// RUN: %{tool} setkv %t/r6.gguf %t/e-head.gguf rwkv6.wkv.head_size u32 16
// RUN: %{import} %t/e-head.gguf 2>&1 | FileCheck %s --check-prefix=HEAD
// HEAD: e-head.gguf: tensor 'blk.0.time_mix_first.weight' has ne [32, 2], but rwkv6.wkv.head_size 16 implies [16, 4]
// RUN: %{tool} setkv %t/r6.gguf %t/e-mix.gguf rwkv6.time_mix_extra_dim u32 32
// RUN: %{import} %t/e-mix.gguf 2>&1 | FileCheck %s --check-prefix=MIX
// MIX: e-mix.gguf: tensor 'blk.0.time_mix_w1.weight' has 5120 elements, but the metadata implies 10240
// RUN: %{tool} dropkv %t/r6.gguf %t/e-key.gguf rwkv6.time_decay_extra_dim
// RUN: %{import} %t/e-key.gguf 2>&1 | FileCheck %s --check-prefix=KEY
// KEY: e-key.gguf: metadata key 'rwkv6.time_decay_extra_dim' is missing
// RUN: head -c 50000 %t/r6.gguf > %t/e-trunc.gguf
// RUN: %{import} %t/e-trunc.gguf 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: e-trunc.gguf: tensor '{{.*}}' (F32) data {{.*}} runs past the end of the data section
// TRUNC: exit=2

// RWKV-7.
// DEFINE: %{bin7} = %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin
// DEFINE: %{exp7} = %shared/models/rwkv/expected-logits-7v0-834K.bin
// RUN: %{tool} from-rwkv %{bin7} %t/r7.gguf
// RUN: ssm-import %t/r7.gguf -o %t/r7 --seq-len 3 2>&1 | FileCheck %s --check-prefix=IMP7
// IMP7: rwkv7, n_vocab 256, n_embed 64, n_layer 12, 1 heads x 64, FP32 -> F32, 339 tensors (GGUF rwkv7: F32), seq-len 3
// RUN: ssm-run %t/r7 --engine reference --prompt '"in' --mode sequence --logits-out %t/r7-ref-seq.npy
// RUN: %{cmp} %t/r7-ref-seq.npy %{exp7} 1e-4 | FileCheck %s
// RUN: ssm-run %t/r7 --engine reference --prompt '"in' --mode step --logits-out %t/r7-ref-step.npy
// RUN: %{cmp} %t/r7-ref-step.npy %{exp7} 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/r7 --engine cpu --prompt '"in' --mode sequence --logits-out %t/r7-cpu-seq.npy
// RUN: %{cmp} %t/r7-cpu-seq.npy %{exp7} 1e-4 | FileCheck %s
// RUN: ssm-import rwkv %{bin7} -o %t/bin7 --seq-len 3
// RUN: ssm-run %t/r7 --engine reference --prompt '"in' --mode sequence --all-logits-out %t/r7-all.npy
// RUN: ssm-run %t/bin7 --engine reference --prompt '"in' --mode sequence --all-logits-out %t/bin7-all.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/r7-all.npy %t/bin7-all.npy 0 | FileCheck %s --check-prefix=SAME
// Q8_0 (the script's quantiser; RWKV tensors are dequantised at import): the
// same logits as the file with those blocks dequantised to F32.
// RUN: %numpy_python %S/Inputs/gguf_tool.py quantize %t/r7.gguf %t/r7q.gguf %t/r7qd.gguf Q8_0
// RUN: ssm-import %t/r7q.gguf -o %t/r7q --seq-len 3 --activations f32 2>&1 | FileCheck %s --check-prefix=Q8
// Q8: (GGUF rwkv7: F32 x172 + Q8_0 x170; widened to f32 x168), seq-len 3
// RUN: ssm-import %t/r7qd.gguf -o %t/r7qd --seq-len 3
// RUN: ssm-run %t/r7q --engine reference --prompt '"in' --mode sequence --all-logits-out %t/r7q-all.npy
// RUN: ssm-run %t/r7qd --engine reference --prompt '"in' --mode sequence --all-logits-out %t/r7qd-all.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/r7q-all.npy %t/r7qd-all.npy 0 | FileCheck %s --check-prefix=SAME
// RUN: %{tool} drop %t/r7.gguf %t/e-v0.gguf blk.0.time_mix_v0.weight
// RUN: %{import} %t/e-v0.gguf 2>&1 | FileCheck %s --check-prefix=V0
// V0: e-v0.gguf: missing tensor 'blk.0.time_mix_v0.weight'
// RUN: %{tool} dropkv %t/r7.gguf %t/e-gate.gguf rwkv7.attention.gate_lora_rank
// RUN: %{import} %t/e-gate.gguf 2>&1 | FileCheck %s --check-prefix=GATE
// GATE: e-gate.gguf: rwkv7.attention.gate_lora_rank is 0 or missing: RWKV-7 without the output gate is not supported
// RUN: %{tool} setkv %t/r7.gguf %t/e-iclr.gguf rwkv7.attention.iclr_lora_rank u32 16
// RUN: %{import} %t/e-iclr.gguf 2>&1 | FileCheck %s --check-prefix=ICLR
// ICLR: e-iclr.gguf: tensor 'blk.0.time_mix_a1.weight' has 2048 elements, but the metadata implies 1024
// RUN: test ! -e %t/bad
