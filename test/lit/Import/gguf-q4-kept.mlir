// Q4_0 and Q5_0 GGUF matrices kept as our q8 storage, Q4_K and Q5_K as q8min
// (below) (docs/gguf.md): ggml's
// 4- and 5-bit values unpacked into int8 (q - 8, q - 16) beside their f16
// scales copied, no requantisation, so every weight is the value of ggml's
// dequantize_row_q4_0 / _q5_0. A random 3-layer LFM2 of width 256 is
// quantised by the test-only quantiser (Inputs/gguf_tool.py, from ggml's
// block layouts) and imported twice: blocks kept (the default, --weights
// source) and dequantised to f32 at import (--weights f32, ggufToFloats).
// * The kept import's summary and header: I8 weights with F16 scales of
//   K / 32 columns.
// * Logits of the two imports equal on the reference interpreter (1e-6:
//   ssm.dequantize is f32(q) * f32(d), the order of ggml's q * d), with
//   llama.cpp's activation quantisation (the default) and without it
//   (--activations f32); without it, the compiled CPU kernels reading the
//   kept blocks are within 1e-4 of the dequantised import's reference.
//   (With it, the CPU's f32 rounding may move an activation across a
//   rounding boundary of its Q8_0 block: gguf-activations.mlir's tolerance.)
// (The dequantisation itself, ggufToFloats against the quantiser's NumPy
// one, is gguf-quantized.mlir's.)
// * Granite 4.0-H's q/k rows (un-permuted) and gate/up halves move as whole
//   rows of Q4_0 blocks: its logits equal the dequantised import's.
// Both imports of a file apply the same activation handling: the weights'
// GGUF type decides it, not their storage.
// REQUIRES: numpy, ssm-run, shared-data

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{tool} = %numpy_python %S/Inputs/gguf_tool.py
// RUN: %numpy_python -c "import numpy; numpy.save('%t/tokens.npy', numpy.random.default_rng(3).integers(0, 256, 24).astype(numpy.int32))"
// RUN: %{tool} synth-lfm2 %t/f32.gguf 256 7

// RUN: %{tool} quantize %t/f32.gguf %t/q4.gguf %t/q4-deq.gguf Q4_0 | FileCheck %s --check-prefix=QUANT4
// QUANT4: quantized 18 tensors to Q4_0
// RUN: ssm-import %t/q4.gguf -o %t/m4 | FileCheck %s --check-prefix=KEPT4
// KEPT4: (GGUF lfm2: F32 x11 + Q4_0 x18; Q4_0 kept as q8 x18) -> F16 x18 + F32 x11 + I8 x18
// RUN: python3 %S/Inputs/st_header.py %t/m4/weights.safetensors | FileCheck %s --check-prefix=HEADER
// HEADER-DAG: model.layers.0.feed_forward.w1.weight I8 [{{[0-9]+}}, 256]
// HEADER-DAG: model.layers.0.feed_forward.w1.weight_scale F16 [{{[0-9]+}}, 8]
// RUN: ssm-import %t/q4.gguf -o %t/m4-f32 --weights f32 | FileCheck %s --check-prefix=WIDE4
// WIDE4: Q4_0 dequantised for --weights x18) -> F32 (--weights f32)
// RUN: ssm-run %t/m4 --tokens %t/tokens.npy --engine reference --all-logits-out %t/q4.npy
// RUN: ssm-run %t/m4-f32 --tokens %t/tokens.npy --engine reference --all-logits-out %t/q4-f32.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q4.npy %t/q4-f32.npy 1e-6 | FileCheck %s
// RUN: ssm-import %t/q4.gguf -o %t/m4a --activations f32 > /dev/null
// RUN: ssm-import %t/q4.gguf -o %t/m4a-f32 --activations f32 --weights f32 > /dev/null
// RUN: ssm-run %t/m4a --tokens %t/tokens.npy --engine reference --all-logits-out %t/q4a.npy
// RUN: ssm-run %t/m4a-f32 --tokens %t/tokens.npy --engine reference --all-logits-out %t/q4a-f32.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q4a.npy %t/q4a-f32.npy 1e-6 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m4a --tokens %t/tokens.npy --engine cpu --all-logits-out %t/q4a-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q4a-cpu.npy %t/q4a-f32.npy 1e-4 | FileCheck %s
// CHECK: shape=(24, 256) max_abs_diff={{.*}} PASS

// Q5_0: the fifth bit from qh.
// RUN: %{tool} quantize %t/f32.gguf %t/q5.gguf %t/q5-deq.gguf Q5_0 | FileCheck %s --check-prefix=QUANT5
// QUANT5: quantized 18 tensors to Q5_0
// RUN: ssm-import %t/q5.gguf -o %t/m5 | FileCheck %s --check-prefix=KEPT5
// KEPT5: (GGUF lfm2: F32 x11 + Q5_0 x18; Q5_0 kept as q8 x18) -> F16 x18 + F32 x11 + I8 x18
// RUN: ssm-import %t/q5.gguf -o %t/m5a --activations f32 > /dev/null
// RUN: ssm-import %t/q5.gguf -o %t/m5a-f32 --activations f32 --weights f32 > /dev/null
// RUN: ssm-run %t/m5a --tokens %t/tokens.npy --engine reference --all-logits-out %t/q5a.npy
// RUN: ssm-run %t/m5a-f32 --tokens %t/tokens.npy --engine reference --all-logits-out %t/q5a-f32.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q5a.npy %t/q5a-f32.npy 1e-6 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m5a --tokens %t/tokens.npy --engine cpu --all-logits-out %t/q5a-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q5a-cpu.npy %t/q5a-f32.npy 1e-4 | FileCheck %s

// Q4_K and Q5_K (ggml's dequantize_row_q4_K / _q5_K: x = (d * sc) * q -
// dmin * m per sub-block of 32): kept as q8min, I8 q in [0, 15] / [0, 31]
// with F32 "<w>_scale" (d * sc) and "<w>_min" (dmin * m) of K / 32
// columns, the products ggml forms (exact), so the kept and dequantised
// imports are equal on the reference (1e-6, with and without the q8_K
// activation quantisation); the compiled CPU kernels (the matvec's block
// path: s * sum(x q) - mn * sum(x) per block) within 1e-4.
// RUN: %{tool} quantize %t/f32.gguf %t/q4k.gguf %t/q4k-deq.gguf Q4_K | FileCheck %s --check-prefix=QUANT4K
// QUANT4K: quantized 18 tensors to Q4_K
// RUN: ssm-import %t/q4k.gguf -o %t/m4k | FileCheck %s --check-prefix=KEPT4K
// KEPT4K: (GGUF lfm2: F32 x11 + Q4_K x18; Q4_K kept as q8 with mins x18) -> F32 x47 + I8 x18
// RUN: python3 %S/Inputs/st_header.py %t/m4k/weights.safetensors | FileCheck %s --check-prefix=HEADER4K
// HEADER4K-DAG: model.layers.0.feed_forward.w1.weight I8 [{{[0-9]+}}, 256]
// HEADER4K-DAG: model.layers.0.feed_forward.w1.weight_scale F32 [{{[0-9]+}}, 8]
// HEADER4K-DAG: model.layers.0.feed_forward.w1.weight_min F32 [{{[0-9]+}}, 8]
// RUN: ssm-import %t/q4k.gguf -o %t/m4k-f32 --weights f32 | FileCheck %s --check-prefix=WIDE4K
// WIDE4K: Q4_K dequantised for --weights x18) -> F32 (--weights f32)
// RUN: ssm-run %t/m4k --tokens %t/tokens.npy --engine reference --all-logits-out %t/q4k.npy
// RUN: ssm-run %t/m4k-f32 --tokens %t/tokens.npy --engine reference --all-logits-out %t/q4k-f32.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q4k.npy %t/q4k-f32.npy 1e-6 | FileCheck %s
// RUN: ssm-import %t/q4k.gguf -o %t/m4ka --activations f32 > /dev/null
// RUN: ssm-import %t/q4k-deq.gguf -o %t/m4ka-np --activations f32 > /dev/null
// RUN: ssm-run %t/m4ka --tokens %t/tokens.npy --engine reference --all-logits-out %t/q4ka.npy
// RUN: ssm-run %t/m4ka-np --tokens %t/tokens.npy --engine reference --all-logits-out %t/q4ka-np.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q4ka.npy %t/q4ka-np.npy 1e-6 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m4ka --tokens %t/tokens.npy --engine cpu --all-logits-out %t/q4ka-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q4ka-cpu.npy %t/q4ka-np.npy 1e-4 | FileCheck %s
// (q4k-deq.gguf: the quantiser's own NumPy dequantisation as F32.)

// RUN: %{tool} quantize %t/f32.gguf %t/q5k.gguf %t/q5k-deq.gguf Q5_K | FileCheck %s --check-prefix=QUANT5K
// QUANT5K: quantized 18 tensors to Q5_K
// RUN: ssm-import %t/q5k.gguf -o %t/m5ka --activations f32 | FileCheck %s --check-prefix=KEPT5K
// KEPT5K: Q5_K kept as q8 with mins x18) -> F32 x47 + I8 x18
// RUN: ssm-import %t/q5k-deq.gguf -o %t/m5ka-np --activations f32 > /dev/null
// RUN: ssm-run %t/m5ka --tokens %t/tokens.npy --engine reference --all-logits-out %t/q5ka.npy
// RUN: ssm-run %t/m5ka-np --tokens %t/tokens.npy --engine reference --all-logits-out %t/q5ka-np.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q5ka.npy %t/q5ka-np.npy 1e-6 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m5ka --tokens %t/tokens.npy --engine cpu --all-logits-out %t/q5ka-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q5ka-cpu.npy %t/q5ka-np.npy 1e-4 | FileCheck %s

// Granite 4.0-H: Q4_0 blocks moved by rows.
// DEFINE: %{g} = %shared/models/granite-hybrid/tiny-granite-h-a
// RUN: %{tool} quantize %{g}/model-f32.gguf %t/g-q4.gguf %t/g-deq.gguf Q4_0
// RUN: ssm-import %t/g-q4.gguf -o %t/g --context 64 | FileCheck %s --check-prefix=GKEPT
// GKEPT: Q4_0 kept as q8 x19;
// RUN: ssm-import %t/g-q4.gguf -o %t/g-f32 --context 64 --weights f32 > /dev/null
// RUN: ssm-run %t/g --tokens %{g}/tokens.npy --engine reference --all-logits-out %t/g-q4.npy
// RUN: ssm-run %t/g-f32 --tokens %{g}/tokens.npy --engine reference --all-logits-out %t/g-f32.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/g-q4.npy %t/g-f32.npy 1e-6 | FileCheck %s --check-prefix=GCMP
// GCMP: shape=(40, 256) max_abs_diff={{.*}} PASS
