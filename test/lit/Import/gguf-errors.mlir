// ssm-import <file.gguf> on GGUF files that are truncated, of another
// version, of an architecture or tensor type not read, or whose metadata and
// tensors do not fit: exit 2, a message naming the field or tensor, and
// nothing written. The inputs are edits of the tiny LFM2 GGUF in ../shared
// (Inputs/gguf_tool.py, no NumPy needed).
// REQUIRES: shared-data

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{m} = %shared/models/lfm2/tiny-lfm2-a/model-f32.gguf
// DEFINE: %{tool} = python3 %S/Inputs/gguf_tool.py
// DEFINE: %{import} = sh -c 'ssm-import $0 -o %t/out; echo "exit=$?"'

// RUN: head -c 100000 %{m} > %t/trunc.gguf
// RUN: %{import} %t/trunc.gguf 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: trunc.gguf: tensor 'blk.0.shortconv.in_proj.weight' (F32) data [66560, 115712) runs past the end of the data section (92032 bytes; truncated?)
// TRUNC: exit=2
// RUN: head -c 2000 %{m} > %t/trunc2.gguf
// RUN: %{import} %t/trunc2.gguf 2>&1 | FileCheck %s --check-prefix=TRUNC2
// TRUNC2: trunc2.gguf: metadata 'tokenizer.ggml.tokens': array of 256 string elements runs past the end of the file (2000 bytes)
// RUN: head -c 30 %{m} > %t/trunc3.gguf
// RUN: %{import} %t/trunc3.gguf 2>&1 | FileCheck %s --check-prefix=TRUNC3
// TRUNC3: trunc3.gguf: metadata_kv_count 21 is more than the file can hold (30 bytes)

// RUN: sh -c "printf 'GGUF\001\000\000\000' > %t/v1.gguf; tail -c +9 %{m} >> %t/v1.gguf"
// RUN: %{import} %t/v1.gguf 2>&1 | FileCheck %s --check-prefix=V1
// V1: v1.gguf: GGUF version 1 is not supported (versions 2 and 3 are read)

// RUN: %{tool} setkv %{m} %t/arch.gguf general.architecture str jamba
// RUN: %{import} %t/arch.gguf 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: arch.gguf: GGUF architecture 'jamba' is not one ssm-import reads (known: lfm2, granitehybrid
// ARCH: exit=2

// A tensor type whose layout is not known (IQ2_XXS), and one not a fit for the rows.
// RUN: %{tool} retype %{m} %t/iq.gguf blk.0.ffn_up.weight 16
// RUN: %{import} %t/iq.gguf 2>&1 | FileCheck %s --check-prefix=IQ
// IQ: iq.gguf: tensor 'blk.0.ffn_up.weight' has tensor type IQ2_XXS, which this reader does not know the layout of
// A type number ggml does not define: named once ("type type 99" before).
// RUN: %{tool} retype %{m} %t/t99.gguf blk.0.ffn_up.weight 99
// RUN: %{import} %t/t99.gguf 2>&1 | FileCheck %s --check-prefix=T99
// T99: t99.gguf: tensor 'blk.0.ffn_up.weight' has tensor type 99, which this reader does not know the layout of
// RUN: %{tool} retype %{m} %t/q8k.gguf blk.0.ffn_up.weight 15
// RUN: %{import} %t/q8k.gguf 2>&1 | FileCheck %s --check-prefix=Q8K
// Q8K: q8k.gguf: tensor 'blk.0.ffn_up.weight' of type Q8_K has ne[0] = 64, not a multiple of its block of 256

// Missing and left-over tensors, missing and mistyped keys, keys that do not fit the tensors.
// RUN: %{tool} drop %{m} %t/drop.gguf blk.2.attn_q_norm.weight
// RUN: %{import} %t/drop.gguf 2>&1 | FileCheck %s --check-prefix=DROP
// DROP: drop.gguf: missing tensor 'blk.2.attn_q_norm.weight'
// RUN: %{tool} copy %{m} %t/extra.gguf blk.2.attn_q_norm.weight blk.2.attn_q_norm.bias
// RUN: %{import} %t/extra.gguf 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: extra.gguf: tensor 'blk.2.attn_q_norm.bias' is not one the lfm2 import uses
// RUN: %{tool} dropkv %{m} %t/nokey.gguf lfm2.shortconv.l_cache
// RUN: %{import} %t/nokey.gguf 2>&1 | FileCheck %s --check-prefix=NOKEY
// NOKEY: nokey.gguf: metadata key 'lfm2.shortconv.l_cache' is missing
// RUN: %{tool} setkv %{m} %t/str.gguf lfm2.block_count str six
// RUN: %{import} %t/str.gguf 2>&1 | FileCheck %s --check-prefix=STR
// STR: str.gguf: metadata key 'lfm2.block_count' is a string, not an integer
// RUN: %{tool} setkv %{m} %t/deep.gguf lfm2.block_count u32 7
// RUN: %{import} %t/deep.gguf 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.gguf: metadata key 'lfm2.attention.head_count_kv' has 6 entries, expected one per layer (7)
// RUN: %{tool} setkv %{m} %t/ff.gguf lfm2.feed_forward_length u32 200
// RUN: %{import} %t/ff.gguf 2>&1 | FileCheck %s --check-prefix=FF
// FF: ff.gguf: tensor 'model.layers.0.feed_forward.w1.weight' (GGUF 'blk.0.ffn_gate.weight') has shape (192, 64) but the config implies (200, 64)
// FF: exit=2
// RUN: test ! -e %t/out

// Granite with experts: refused naming the key.
// RUN: %{tool} setkv %shared/models/granite-hybrid/tiny-granite-h-a/model-f32.gguf %t/moe.gguf granitehybrid.expert_count u32 4
// RUN: %{import} %t/moe.gguf 2>&1 | FileCheck %s --check-prefix=MOE
// MOE: moe.gguf: granitehybrid.expert_count is 4: mixture-of-experts layers are not supported yet
