// GGUF tensor types dequantised at import (Q8_0, Q4_0 and Q5_0 kept as q8
// blocks, Q4_K and Q5_K as q8min, gguf-q8-kept.mlir and gguf-q4-kept.mlir,
// read as q * d (- min) like the rest): a random 3-layer LFM2 of width
// 256 (so the K-quants' 256-element blocks fit its rows) is written as a
// GGUF by Inputs/gguf_tool.py, its matrices quantised to each type by that
// script's own quantiser (written from ggml's block layouts, independent of
// import/Gguf.cpp), together with a copy holding the script's NumPy
// dequantisation of the same blocks as F32. Importing the two must give the
// same logits (tolerance 1e-6; the weights are equal when both
// dequantisations read the blocks alike), on the reference interpreter, and
// on compiled CPU kernels for Q4_K. Every matrix is quantised (embedding,
// head included), as llama-quantize's --pure does.
// (Outside the tests, gguf-py's dequantize() gives the same values as the
// script's on all of these files, and llama-quantize's Q8_0 / Q4_K / Q6_K
// output imports within 1e-3 of llama.cpp's logits: docs/gguf.md.)
// REQUIRES: numpy, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{tool} = %numpy_python %S/Inputs/gguf_tool.py
// DEFINE: %{tokens} = %t/tokens.npy
// RUN: %numpy_python -c "import numpy; numpy.save('%{tokens}', numpy.random.default_rng(3).integers(0, 256, 24).astype(numpy.int32))"
// RUN: %{tool} synth-lfm2 %t/f32.gguf 256 7

// DEFINE: %{check} = sh -c '%{tool} quantize %t/f32.gguf %t/$0.gguf %t/$0-deq.gguf $0 && ssm-import %t/$0.gguf -o %t/m-$0 --activations f32 && ssm-import %t/$0-deq.gguf -o %t/m-$0-deq && ssm-run %t/m-$0 --tokens %{tokens} --engine reference --all-logits-out %t/$0.npy && ssm-run %t/m-$0-deq --tokens %{tokens} --engine reference --all-logits-out %t/$0-deq.npy && python3 %S/Inputs/compare_npy.py %t/$0.npy %t/$0-deq.npy 1e-6'
// RUN: %{check} Q8_0 | FileCheck %s --check-prefixes=CHECK,Q8_0
// Q8_0: quantized 18 tensors to Q8_0
// Q8_0: (GGUF lfm2: F32 x11 + Q8_0 x18; Q8_0 kept as q8 x18) -> F16 x18 + F32 x11 + I8 x18
// RUN: %{check} Q4_0 | FileCheck %s --check-prefixes=CHECK,Q4_0
// Q4_0: (GGUF lfm2: F32 x11 + Q4_0 x18; Q4_0 kept as q8 x18) -> F16 x18 + F32 x11 + I8 x18
// RUN: %{check} Q5_0 | FileCheck %s --check-prefixes=CHECK,Q5_0
// Q5_0: (GGUF lfm2: F32 x11 + Q5_0 x18; Q5_0 kept as q8 x18) -> F16 x18 + F32 x11 + I8 x18
// RUN: %{check} Q4_K | FileCheck %s --check-prefixes=CHECK,Q4_K
// Q4_K: (GGUF lfm2: F32 x11 + Q4_K x18; Q4_K kept as q8 with mins x18) -> F32 x47 + I8 x18
// RUN: %{check} Q5_K | FileCheck %s
// RUN: %{check} Q6_K | FileCheck %s
// RUN: %{check} BF16 | FileCheck %s --check-prefixes=CHECK,BF16
// BF16: (GGUF lfm2: BF16 x20 + F32 x9) -> BF16 x20 + F32 x9
// RUN: %{check} F16 | FileCheck %s --check-prefixes=CHECK,F16
// F16: (GGUF lfm2: F16 x20 + F32 x9) -> F16 x20 + F32 x9
// CHECK: shape=(24, 256) max_abs_diff={{.*}} PASS

// Compiled CPU kernels on the Q4_K file, against the reference interpreter.
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m-Q4_K --tokens %{tokens} --engine cpu --all-logits-out %t/q4k-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q4k-cpu.npy %t/Q4_K.npy 1e-4 | FileCheck %s
