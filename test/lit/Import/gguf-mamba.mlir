// ssm-import <file.gguf> for llama.cpp's `mamba` (Mamba-1) and `mamba2`
// architectures. ../shared has no GGUF of them: Inputs/gguf_tool.py from-hf
// writes one from the safetensors of the shared tiny models, as llama.cpp's
// converter does (its names, ssm_a = -exp(A_log), conv1d squeezed, Mamba-2's
// A and D as (H, 1) and its norm as (G, d_inner / G), the `<arch>.ssm.*`
// keys, a byte-level vocabulary of 256 tokens). The imports must give the
// expected logits of the model folders (an independent implementation:
// alxndrTL/mamba.py for Mamba-1, see the READMEs) within 1e-4, sequence and
// step, reference interpreter and compiled CPU kernels.
// Outside the tests, llama.cpp (d32676d7, bench/gguf/llama_logits.cpp) loads
// these files and gives expected_logits within 3.8e-6 (Mamba-1) and 1e-6
// (Mamba-2), and ours within 4.3e-6 / 2.1e-6 of its logits (docs/gguf.md), so
// the conventions are llama.cpp's, not only the script's.
// Q8_0 (the script's quantiser): the blocks are kept as q8 and give exactly
// the logits of the same file with the blocks dequantised to F32.
// Then files that do not fit: exit 2 and a message naming the key or tensor.
// REQUIRES: shared-data, numpy, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{m1} = %shared/models/mamba/tiny-mamba-seed5
// DEFINE: %{m2} = %shared/models/mamba2/tiny-mamba2-g1-untied
// DEFINE: %{tool} = %numpy_python %S/Inputs/gguf_tool.py
// DEFINE: %{cmp} = python3 %S/Inputs/compare_npy.py
// DEFINE: %{import} = sh -c 'ssm-import "$0" "$@" -o %t/bad; echo "exit=$?"'

// RUN: %{tool} from-hf %{m1} %t/m1.gguf
// RUN: ssm-import %t/m1.gguf -o %t/m1 | FileCheck %s --check-prefix=M1
// M1: mamba1, mamba_ssm layout, F32 -> F32 (GGUF mamba: F32), seq-len 16
// M1: tokenizer: tokenizer.json, tokenizer_config.json from the GGUF's vocabulary
// RUN: ssm-run %t/m1 --tokens %{m1}/tokens.npy --mode sequence --engine reference --all-logits-out %t/m1-ref-seq.npy
// RUN: %{cmp} %t/m1-ref-seq.npy %{m1}/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=T46
// RUN: ssm-run %t/m1 --tokens %{m1}/tokens.npy --mode step --engine reference --all-logits-out %t/m1-ref-step.npy
// RUN: %{cmp} %t/m1-ref-step.npy %{m1}/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=T46
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m1 --tokens %{m1}/tokens.npy --mode sequence --engine cpu --all-logits-out %t/m1-cpu-seq.npy
// RUN: %{cmp} %t/m1-cpu-seq.npy %{m1}/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=T46
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m1 --tokens %{m1}/tokens.npy --mode step --engine cpu --all-logits-out %t/m1-cpu-step.npy
// RUN: %{cmp} %t/m1-cpu-step.npy %{m1}/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=T46
// T46: shape=(46, 256) max_abs_diff={{.*}} PASS

// RUN: %{tool} from-hf %{m2} %t/m2.gguf
// RUN: ssm-import %t/m2.gguf -o %t/m2 | FileCheck %s --check-prefix=M2
// M2: mamba2, mamba_ssm layout, F32 -> F32 (GGUF mamba2: F32), seq-len 16
// RUN: FileCheck %s --check-prefix=M2JSON < %t/m2/model.json
// M2JSON: "architecture": "mamba2"
// M2JSON: "n_groups": 1
// M2JSON: "num_heads": 8
// RUN: ssm-run %t/m2 --tokens %{m2}/tokens.npy --mode sequence --engine reference --all-logits-out %t/m2-ref-seq.npy
// RUN: %{cmp} %t/m2-ref-seq.npy %{m2}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/m2 --tokens %{m2}/tokens.npy --mode step --engine reference --all-logits-out %t/m2-ref-step.npy
// RUN: %{cmp} %t/m2-ref-step.npy %{m2}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m2 --tokens %{m2}/tokens.npy --mode sequence --engine cpu --all-logits-out %t/m2-cpu-seq.npy
// RUN: %{cmp} %t/m2-cpu-seq.npy %{m2}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m2 --tokens %{m2}/tokens.npy --mode step --engine cpu --all-logits-out %t/m2-cpu-step.npy
// RUN: %{cmp} %t/m2-cpu-step.npy %{m2}/expected_logits.npy 1e-4 | FileCheck %s
// CHECK: shape=(40, 256) max_abs_diff={{.*}} PASS

// Q8_0 matrices kept as int8 blocks: the same logits as their F32 dequantisation.
// RUN: %{tool} quantize %t/m1.gguf %t/m1-q8.gguf %t/m1-q8deq.gguf Q8_0
// RUN: ssm-import %t/m1-q8.gguf -o %t/m1q8 --activations f32 | FileCheck %s --check-prefix=Q8
// Q8: mamba1, mamba_ssm layout, F32,I8 blocks (q8) -> F16 x8 + F32 x15 + I8 x8 (GGUF mamba: F32 x15 + Q8_0 x8; Q8_0 as int8 blocks x8)
// RUN: ssm-import %t/m1-q8deq.gguf -o %t/m1q8deq
// RUN: ssm-run %t/m1q8 --tokens %{m1}/tokens.npy --engine reference --all-logits-out %t/m1q8.npy
// RUN: ssm-run %t/m1q8deq --tokens %{m1}/tokens.npy --engine reference --all-logits-out %t/m1q8deq.npy
// RUN: %{cmp} %t/m1q8.npy %t/m1q8deq.npy 0 | FileCheck %s --check-prefix=T46
// RUN: %{tool} quantize %t/m2.gguf %t/m2-q8.gguf %t/m2-q8deq.gguf Q8_0
// RUN: ssm-import %t/m2-q8.gguf -o %t/m2q8 --activations f32 | FileCheck %s --check-prefix=Q8M2
// Q8M2: (GGUF mamba2: F32 x13 + Q8_0 x8; Q8_0 as int8 blocks x6; widened to f32 x2)
// RUN: ssm-import %t/m2-q8deq.gguf -o %t/m2q8deq
// RUN: ssm-run %t/m2q8 --tokens %{m2}/tokens.npy --engine reference --all-logits-out %t/m2q8.npy
// RUN: ssm-run %t/m2q8deq --tokens %{m2}/tokens.npy --engine reference --all-logits-out %t/m2q8deq.npy
// RUN: %{cmp} %t/m2q8.npy %t/m2q8deq.npy 0 | FileCheck %s

// Files that do not fit.
// RUN: %{tool} drop %t/m1.gguf %t/e-drop.gguf blk.1.ssm_a
// RUN: %{import} %t/e-drop.gguf 2>&1 | FileCheck %s --check-prefix=DROP
// DROP: e-drop.gguf: missing tensor 'blk.1.ssm_a'
// DROP: exit=2
// RUN: %{tool} copy %t/m1.gguf %t/e-extra.gguf blk.0.ssm_d blk.0.ssm_in.bias
// RUN: %{import} %t/e-extra.gguf 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: e-extra.gguf: tensor 'blk.0.ssm_in.bias' is not one the mamba import uses
// EXTRA: exit=2
// RUN: %{tool} setkv %t/m1.gguf %t/e-falcon.gguf mamba.ssm.dt_b_c_rms bool true
// RUN: %{import} %t/e-falcon.gguf 2>&1 | FileCheck %s --check-prefix=FALCON
// FALCON: e-falcon.gguf: mamba.ssm.dt_b_c_rms is true (FalconMamba's RMS norms of dt, B and C): not supported
// RUN: %{tool} setkv %t/m1.gguf %t/e-inner.gguf mamba.ssm.inner_size u32 100
// RUN: %{import} %t/e-inner.gguf 2>&1 | FileCheck %s --check-prefix=INNER
// INNER: e-inner.gguf: mamba.ssm.inner_size 100 is not a multiple of embedding_length 64
// RUN: %{tool} setkv %t/m1.gguf %t/e-state.gguf mamba.ssm.state_size u32 8
// RUN: %{import} %t/e-state.gguf 2>&1 | FileCheck %s --check-prefix=STATE
// STATE: e-state.gguf: tensor 'blk.0.ssm_a' has 2048 elements, but the metadata implies 1024
// RUN: %{tool} setkv %t/m1.gguf %t/e-rank.gguf mamba.ssm.time_step_rank u32 5
// RUN: %{import} %t/e-rank.gguf 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: e-rank.gguf: tensor 'backbone.layers.0.mixer.x_proj.weight' (GGUF 'blk.0.ssm_x.weight') has shape (36, 128) but the config implies (37, 128)
// RUN: head -c 60000 %t/m1.gguf > %t/e-trunc.gguf
// RUN: %{import} %t/e-trunc.gguf 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: e-trunc.gguf: tensor 'token_embd.weight' (F32) data [0, 65536) runs past the end of the data section
// TRUNC: exit=2
// RUN: %{import} %t/m1.gguf --context 64 2>&1 | FileCheck %s --check-prefix=CONTEXT
// CONTEXT: --context is for models with attention layers (KV caches)
// RUN: %{tool} dropkv %t/m2.gguf %t/e-groups.gguf mamba2.ssm.group_count
// RUN: %{import} %t/e-groups.gguf 2>&1 | FileCheck %s --check-prefix=GROUPS
// GROUPS: e-groups.gguf: metadata key 'mamba2.ssm.group_count' is missing
// RUN: %{tool} setkv %t/m2.gguf %t/e-fit.gguf mamba2.ssm.group_count u32 3
// RUN: %{import} %t/e-fit.gguf 2>&1 | FileCheck %s --check-prefix=FIT
// FIT: e-fit.gguf: mamba2.ssm.inner_size 128, ssm.time_step_rank (heads) 8 and ssm.group_count 3 do not fit
// RUN: %{tool} setkv %t/m2.gguf %t/e-heads.gguf mamba2.ssm.time_step_rank u32 4
// RUN: %{import} %t/e-heads.gguf 2>&1 | FileCheck %s --check-prefix=HEADS
// HEADS: e-heads.gguf: tensor 'blk.0.ssm_dt.bias' has 8 elements, but the metadata implies 4
// RUN: test ! -e %t/bad
