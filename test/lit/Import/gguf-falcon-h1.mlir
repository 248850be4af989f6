// ssm-import <file.gguf> for llama.cpp's `falcon-h1` architecture. No GGUF
// of it exists in ../shared: Inputs/make_falcon_h1.py writes synthetic
// checkpoints with float64 expected logits of transformers' semantics, and
// Inputs/gguf_tool.py from-falcon-h1 converts them as llama.cpp's converter
// does (the mup multipliers folded into the weights, ssm_a = -exp(A_log),
// A / D as (H, 1), the norm as (G, d_ssm / G), `blk.N.ffn_norm` without a
// suffix). Only what llama.cpp computes can be expected: gate then the
// grouped norm, dt not clamped, an untied head with its multiplier:
//   a: no Mamba norm, every multiplier away from 1, 2 layers, 40 tokens;
//   c: the gated RMS norm over 2 groups, gate first, 3 layers, 100 tokens.
// Both within 1e-4 of the expected logits on the reference interpreter,
// sequence and step (the compiled kernels of the same graph are checked on
// the safetensors import: Import/falcon-h1-logits). Outside the tests,
// llama.cpp (bench/gguf/llama_logits.cpp) loads these files and gives the
// expected logits within 2.4e-7 (a) and 4.2e-7 (c), and ours are within
// 1.8e-7 / 3.6e-7 of its logits, so the conventions are llama.cpp's (the
// first version read blk.N.ffn_norm.weight, which llama.cpp refused).
// Q8_0: the blocks are kept and give the logits of the file dequantised.
// Then files that do not fit: exit 2 and a message naming the key or tensor.
// REQUIRES: numpy, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{tool} = %numpy_python %S/Inputs/gguf_tool.py
// DEFINE: %{cmp} = python3 %S/Inputs/compare_npy.py
// DEFINE: %{import} = sh -c 'ssm-import "$0" "$@" -o %t/bad; echo "exit=$?"'

// RUN: python3 %S/Inputs/make_falcon_h1.py %t/a
// RUN: python3 %S/Inputs/make_falcon_h1.py %t/c --rms-norm --gate-first --groups 2 --layers 3 --tokens 100 --seed 3
// RUN: %{tool} from-falcon-h1 %t/a %t/a.gguf
// RUN: %{tool} from-falcon-h1 %t/c %t/c.gguf
// RUN: ssm-import %t/a.gguf -o %t/ma --context 64 | FileCheck %s --check-prefix=IMPORT
// IMPORT: falcon_h1, 2 layers (Mamba-2 and attention in each), context 64, F32 (GGUF falcon-h1: F32) -> F32
// RUN: ssm-import %t/c.gguf -o %t/mc --context 128
// RUN: ssm-run %t/ma --tokens %t/a/tokens.npy --mode sequence --engine reference --all-logits-out %t/a-seq.npy
// RUN: %{cmp} %t/a-seq.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=T40
// RUN: ssm-run %t/ma --tokens %t/a/tokens.npy --mode step --engine reference --all-logits-out %t/a-step.npy
// RUN: %{cmp} %t/a-step.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=T40
// T40: shape=(40, 96) max_abs_diff={{.*}} PASS
// RUN: ssm-run %t/mc --tokens %t/c/tokens.npy --mode sequence --engine reference --all-logits-out %t/c-seq.npy
// RUN: %{cmp} %t/c-seq.npy %t/c/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=T100
// RUN: ssm-run %t/mc --tokens %t/c/tokens.npy --mode step --engine reference --all-logits-out %t/c-step.npy
// RUN: %{cmp} %t/c-step.npy %t/c/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=T100
// T100: shape=(100, 96) max_abs_diff={{.*}} PASS

// Q8_0 blocks kept as they are: the logits of the dequantised file, exactly.
// RUN: %{tool} quantize %t/a.gguf %t/aq.gguf %t/aq-deq.gguf Q8_0
// RUN: ssm-import %t/aq.gguf -o %t/maq --context 64 --activations f32 | FileCheck %s --check-prefix=Q8
// Q8: GGUF falcon-h1: F32 x{{[0-9]+}} + Q8_0 x{{[0-9]+}}
// RUN: ssm-import %t/aq-deq.gguf -o %t/maqd --context 64
// RUN: ssm-run %t/maq --tokens %t/a/tokens.npy --engine reference --all-logits-out %t/aq.npy
// RUN: ssm-run %t/maqd --tokens %t/a/tokens.npy --engine reference --all-logits-out %t/aqd.npy
// RUN: %{cmp} %t/aq.npy %t/aqd.npy 0 | FileCheck %s --check-prefix=T40

// Files that do not fit.
// RUN: %{tool} copy %t/a.gguf %t/bias.gguf blk.0.attn_norm.weight blk.0.attn_output.bias
// RUN: %{import} %t/bias.gguf 2>&1 | FileCheck %s --check-prefix=BIAS
// BIAS: tensor 'blk.0.attn_output.bias': Falcon-H1 attention with biases is not supported
// BIAS: exit=2
// RUN: %{tool} setkv %t/a.gguf %t/kv0.gguf falcon-h1.attention.head_count_kv u32 0
// RUN: %{import} %t/kv0.gguf 2>&1 | FileCheck %s --check-prefix=KV0
// KV0: falcon-h1.attention.head_count_kv[0] is 0: every Falcon-H1 layer has attention beside its Mamba-2 mixer
// KV0: exit=2
// RUN: %{tool} dropkv %t/a.gguf %t/nostate.gguf falcon-h1.ssm.state_size
// RUN: %{import} %t/nostate.gguf 2>&1 | FileCheck %s --check-prefix=NOSTATE
// NOSTATE: falcon-h1.ssm.state_size
// NOSTATE: exit=2
// RUN: %{tool} drop %t/a.gguf %t/nonorm.gguf blk.1.ffn_norm
// RUN: %{import} %t/nonorm.gguf 2>&1 | FileCheck %s --check-prefix=NONORM
// NONORM: missing tensor 'blk.1.ffn_norm'
// NONORM: exit=2
// A conv bias or Mamba norm in some layers only: the first layer without it
// is named (was: the next layer's tensor called one the import does not use).
// RUN: %{tool} drop %t/a.gguf %t/nobias0.gguf blk.0.ssm_conv1d.bias
// RUN: %{import} %t/nobias0.gguf 2>&1 | FileCheck %s --check-prefix=NOBIAS0
// NOBIAS0: missing tensor 'blk.0.ssm_conv1d.bias'
// NOBIAS0: exit=2
// RUN: %{tool} drop %t/c.gguf %t/nonorm0.gguf blk.0.ssm_norm.weight
// RUN: %{import} %t/nonorm0.gguf 2>&1 | FileCheck %s --check-prefix=NONORM0
// NONORM0: missing tensor 'blk.0.ssm_norm.weight'
// NONORM0: exit=2
// RUN: not ls %t/bad
