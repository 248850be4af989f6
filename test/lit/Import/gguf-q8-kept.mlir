// Q8_0 (and Q6_K) GGUF matrices kept as int8 blocks (docs/gguf.md): their int8
// values and f16 scales copied byte for byte into weights.safetensors, no f32
// round trip, no requantisation. A random 3-layer LFM2 of width 256 is
// quantised to Q8_0 by the test-only quantiser (Inputs/gguf_tool.py, from
// ggml's block layout), with a copy holding that script's NumPy
// dequantisation of the same blocks as F32.
// * Inputs/gguf_q8_blocks.py: every Q8_0 tensor of the file is a q8 weight
//   of the folder byte for byte (and, with --weights f32, it is not: the
//   check can fail).
// * Logits against the dequantised-f32 import: equal (tolerance 1e-6) on the
//   reference interpreter (ssm.dequantize is q * d in f32, as ggml's
//   dequantize_row_q8_0), within 1e-4 on compiled CPU kernels.
// * Q6_K: kept as int8 blocks of 16 (q - 32) with f32 scales (d * sc, the
//   product ggml's dequantize_row_q6_K multiplies by): logits equal the
//   dequantised import's on the reference interpreter (1e-6), within 1e-4
//   on compiled CPU kernels.
// * The shared tiny Granite 4.0-H quantised the same way: its q/k rows
//   (un-permuted) and gate/up halves (concatenated) are kept as blocks moved
//   by rows; the gated-norm weights (a reshape) are widened and named; the
//   logits equal the dequantised import's.
// The quantised files are imported with --activations f32 (the logits are
// compared with the dequantised import's; the default, ggml's activation
// quantisation, is checked by gguf-activations.mlir).
// REQUIRES: numpy, ssm-run, shared-data

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{tool} = %numpy_python %S/Inputs/gguf_tool.py
// RUN: %numpy_python -c "import numpy; numpy.save('%t/tokens.npy', numpy.random.default_rng(3).integers(0, 256, 24).astype(numpy.int32))"
// RUN: %{tool} synth-lfm2 %t/f32.gguf 256 7
// RUN: %{tool} quantize %t/f32.gguf %t/q8.gguf %t/q8-deq.gguf Q8_0 | FileCheck %s --check-prefix=QUANT
// QUANT: quantized 18 tensors to Q8_0

// RUN: ssm-import %t/q8.gguf -o %t/m --activations f32 | FileCheck %s --check-prefix=KEPT
// KEPT: (GGUF lfm2: F32 x11 + Q8_0 x18; Q8_0 kept as q8 x18) -> F16 x18 + F32 x11 + I8 x18
// RUN: python3 %S/Inputs/gguf_q8_blocks.py %t/q8.gguf %t/m/weights.safetensors | FileCheck %s --check-prefix=BLOCKS
// BLOCKS: q8 blocks: 18 of 18 Q8_0 tensors byte-identical
// RUN: python3 %S/Inputs/st_header.py %t/m/weights.safetensors | FileCheck %s --check-prefix=HEADER
// HEADER-DAG: model.layers.0.feed_forward.w1.weight I8 [{{[0-9]+}}, 256]
// HEADER-DAG: model.layers.0.feed_forward.w1.weight_scale F16 [{{[0-9]+}}, 8]
// HEADER-DAG: model.layers.0.conv.conv.weight F32 [256, 1, 3]

// With --weights f32 the blocks are dequantised: the block check fails.
// RUN: ssm-import %t/q8.gguf -o %t/m-f32 --weights f32 | FileCheck %s --check-prefix=WIDE
// WIDE: Q8_0 dequantised for --weights x18) -> F32 (--weights f32)
// RUN: not python3 %S/Inputs/gguf_q8_blocks.py %t/q8.gguf %t/m-f32/weights.safetensors 2>&1 | FileCheck %s --check-prefix=NOBLOCKS
// NOBLOCKS: Q8_0 tensor '{{.*}}' {{.*}} is not stored byte for byte in

// RUN: ssm-import %t/q8-deq.gguf -o %t/m-deq
// RUN: ssm-run %t/m --tokens %t/tokens.npy --engine reference --all-logits-out %t/q8.npy
// RUN: ssm-run %t/m-deq --tokens %t/tokens.npy --engine reference --all-logits-out %t/deq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q8.npy %t/deq.npy 1e-6 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m --tokens %t/tokens.npy --engine cpu --all-logits-out %t/q8-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q8-cpu.npy %t/deq.npy 1e-4 | FileCheck %s
// CHECK: shape=(24, 256) max_abs_diff={{.*}} PASS

// Q6_K: int8 blocks of 16 with f32 scales.
// RUN: %{tool} quantize %t/f32.gguf %t/q6.gguf %t/q6-deq.gguf Q6_K
// RUN: ssm-import %t/q6.gguf -o %t/m6 --activations f32 | FileCheck %s --check-prefix=Q6
// Q6: (GGUF lfm2: F32 x11 + Q6_K x18; Q6_K kept as int8 blocks of 16 x18) -> F32 x29 + I8 x18
// RUN: python3 %S/Inputs/st_header.py %t/m6/weights.safetensors | FileCheck %s --check-prefix=Q6HEADER
// Q6HEADER-DAG: model.layers.0.feed_forward.w1.weight I8 [{{[0-9]+}}, 256]
// Q6HEADER-DAG: model.layers.0.feed_forward.w1.weight_scale F32 [{{[0-9]+}}, 16]
// RUN: FileCheck %s --check-prefix=Q6MLIR < %t/m6/model.mlir
// Q6MLIR: ssm.dequantize %{{.*}}, %{{.*}} {block_size = 16 : i64} : (tensor<{{.*}}xi8>, tensor<{{.*}}x16xf32>)
// RUN: ssm-import %t/q6-deq.gguf -o %t/m6-deq
// RUN: ssm-run %t/m6 --tokens %t/tokens.npy --engine reference --all-logits-out %t/q6.npy
// RUN: ssm-run %t/m6-deq --tokens %t/tokens.npy --engine reference --all-logits-out %t/q6-deq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q6.npy %t/q6-deq.npy 1e-6 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m6 --tokens %t/tokens.npy --engine cpu --all-logits-out %t/q6-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q6-cpu.npy %t/q6-deq.npy 1e-4 | FileCheck %s

// Granite 4.0-H: blocks moved by rows.
// DEFINE: %{g} = %shared/models/granite-hybrid/tiny-granite-h-a
// RUN: %{tool} quantize %{g}/model-f32.gguf %t/g-q8.gguf %t/g-deq.gguf Q8_0
// RUN: ssm-import %t/g-q8.gguf -o %t/g --context 64 --activations f32 | FileCheck %s --check-prefix=GKEPT
// GKEPT: (GGUF granitehybrid: F32 x24 + Q8_0 x26; Q8_0 kept as q8 x19; widened to f32 x3: blk.0.ssm_norm.weight (Q8_0), blk.1.ssm_norm.weight (Q8_0), blk.3.ssm_norm.weight (Q8_0)) -> F16 x19 + F32 x27 + I8 x19
// RUN: ssm-import %t/g-deq.gguf -o %t/g-deq --context 64
// RUN: ssm-run %t/g --tokens %{g}/tokens.npy --engine reference --all-logits-out %t/g-q8.npy
// RUN: ssm-run %t/g-deq --tokens %{g}/tokens.npy --engine reference --all-logits-out %t/g-deq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/g-q8.npy %t/g-deq.npy 1e-6 | FileCheck %s --check-prefix=GCMP
// GCMP: shape=(40, 256) max_abs_diff={{.*}} PASS

// Qwen3.5: the value heads' rows (tiled in the GGUF, grouped by key head in
// transformers' layout; linear_num_value_heads 4 over 2 key heads) move as
// whole rows of blocks; out_proj's columns move in head-sized pieces, so it
// is widened and named.
// DEFINE: %{q} = %shared/models/qwen35/tiny-qwen35-a
// RUN: %{tool} quantize %{q}/model-f32.gguf %t/q-q8.gguf %t/q-deq.gguf Q8_0
// RUN: ssm-import %t/q-q8.gguf -o %t/q --context 64 --activations f32 | FileCheck %s --check-prefix=QKEPT
// QKEPT: (GGUF qwen35: F32 x23 + Q8_0 x32; Q8_0 kept as q8 x29; widened to f32 x3: blk.0.ssm_out.weight (Q8_0), blk.1.ssm_out.weight (Q8_0), blk.2.ssm_out.weight (Q8_0)) -> F16 x29 + F32 x26 + I8 x29
// RUN: ssm-import %t/q-deq.gguf -o %t/q-deq --context 64
// RUN: ssm-run %t/q --tokens %{q}/tokens.npy --engine reference --all-logits-out %t/q-q8.npy
// RUN: ssm-run %t/q-deq --tokens %{q}/tokens.npy --engine reference --all-logits-out %t/q-deq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q-q8.npy %t/q-deq.npy 1e-6 | FileCheck %s --check-prefix=GCMP
