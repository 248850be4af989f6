// The tiny rwkv.cpp models of ../shared/models/rwkv, imported and run on the
// reference interpreter: after the prompt `"in` (bytes 34 105 110) the
// logits agree with rwkv.cpp's expected-logits-*.bin within 1e-4 (FP32
// files) and 1e-2 (FP16 files, against the same FP32 logits), both as one
// sequence (the scan form, @forward_sequence) and token by token (the
// state-update form, @forward_step). A synthetic RWKV-5.1 file (the 5.2
// model without its gate and with one decay and bonus per head,
// Inputs/make_rwkv51.py) is checked against logits from an independent
// pure-Python f64 implementation of the README's equations.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/4fp32 --seq-len 3 | FileCheck %s --check-prefix=IMP4
// IMP4: rwkv4, n_vocab 256, n_embed 128, n_layer 4, FP32 -> F32, 78 tensors, seq-len
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP16.bin -o %t/4fp16 | FileCheck %s --check-prefix=IMP4H
// IMP4H: rwkv4, n_vocab 256, n_embed 128, n_layer 4, FP16 -> F16 x30 + F32 x48, 78 tensors, seq-len 16
// RUN: ssm-import rwkv %shared/models/rwkv/reseeded-rwkv-4v0-seed1-FP32.bin -o %t/4re | FileCheck %s --check-prefix=IMP4
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-5v2-730K-FP32.bin -o %t/52fp32 | FileCheck %s --check-prefix=IMP52
// IMP52: rwkv5.2, n_vocab 256, n_embed 64, n_layer 12, 8 heads x 8, FP32 -> F32, 270 tensors
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-5v2-730K-FP16.bin -o %t/52fp16 | FileCheck %s --check-prefix=IMP52H
// IMP52H: rwkv5.2, n_vocab 256, n_embed 64, n_layer 12, 8 heads x 8, FP16 -> F16 x98 + F32 x172, 270 tensors
// RUN: python3 %S/Inputs/make_rwkv51.py %shared/models/rwkv/tiny-rwkv-5v2-730K-FP32.bin %t/synth51.bin
// RUN: ssm-import rwkv %t/synth51.bin -o %t/51 | FileCheck %s --check-prefix=IMP51
// IMP51: rwkv5.1, n_vocab 256, n_embed 64, n_layer 12, 8 heads x 8, FP32 -> F32, 246 tensors

// RUN: ssm-run %t/4fp32 --engine reference --prompt '"in' --mode sequence --logits-out %t/4fp32-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/4fp32-seq.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 1e-4 | FileCheck %s
// RUN: ssm-run %t/4fp32 --engine reference --prompt '"in' --mode step --logits-out %t/4fp32-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/4fp32-step.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 1e-4 | FileCheck %s
// RUN: ssm-run %t/4fp16 --engine reference --prompt '"in' --mode sequence --logits-out %t/4fp16-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/4fp16-seq.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 1e-2 | FileCheck %s
// RUN: ssm-run %t/4fp16 --engine reference --prompt '"in' --mode step --logits-out %t/4fp16-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/4fp16-step.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 1e-2 | FileCheck %s
// RUN: ssm-run %t/4re --engine reference --prompt '"in' --mode sequence --logits-out %t/4re-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/4re-seq.npy %shared/models/rwkv/expected-logits-reseeded-4v0-seed1.bin 1e-4 | FileCheck %s
// RUN: ssm-run %t/4re --engine reference --prompt '"in' --mode step --logits-out %t/4re-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/4re-step.npy %shared/models/rwkv/expected-logits-reseeded-4v0-seed1.bin 1e-4 | FileCheck %s
// RUN: ssm-run %t/52fp32 --engine reference --prompt '"in' --mode sequence --logits-out %t/52fp32-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/52fp32-seq.npy %shared/models/rwkv/expected-logits-5v2-730K.bin 1e-4 | FileCheck %s
// RUN: ssm-run %t/52fp32 --engine reference --prompt '"in' --mode step --logits-out %t/52fp32-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/52fp32-step.npy %shared/models/rwkv/expected-logits-5v2-730K.bin 1e-4 | FileCheck %s
// RUN: ssm-run %t/52fp16 --engine reference --prompt '"in' --mode sequence --logits-out %t/52fp16-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/52fp16-seq.npy %shared/models/rwkv/expected-logits-5v2-730K.bin 1e-2 | FileCheck %s
// RUN: ssm-run %t/52fp16 --engine reference --prompt '"in' --mode step --logits-out %t/52fp16-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/52fp16-step.npy %shared/models/rwkv/expected-logits-5v2-730K.bin 1e-2 | FileCheck %s
// RUN: ssm-run %t/51 --engine reference --prompt '"in' --mode sequence --logits-out %t/51-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/51-seq.npy %S/Inputs/expected-logits-synthetic-5v1.bin 1e-4 | FileCheck %s
// RUN: ssm-run %t/51 --engine reference --prompt '"in' --mode step --logits-out %t/51-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/51-step.npy %S/Inputs/expected-logits-synthetic-5v1.bin 1e-4 | FileCheck %s
// CHECK: max_abs_diff={{.*}} PASS

// A longer prompt: the scan form equals the token-by-token form at every
// position (the sequence is one call; chunked ssd_scan for RWKV-5).
// RUN: ssm-run %t/4re --engine reference --prompt 'The quick brown fox jumps over the lazy dog; 0123456789!' --mode sequence --all-logits-out %t/4re-long-seq.npy
// RUN: ssm-run %t/4re --engine reference --prompt 'The quick brown fox jumps over the lazy dog; 0123456789!' --mode step --all-logits-out %t/4re-long-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/4re-long-seq.npy %t/4re-long-step.npy 1e-4 | FileCheck %s --check-prefix=SAME
// RUN: ssm-run %t/52fp32 --engine reference --prompt 'The quick brown fox jumps over the lazy dog; 0123456789!' --mode sequence --all-logits-out %t/52-long-seq.npy
// RUN: ssm-run %t/52fp32 --engine reference --prompt 'The quick brown fox jumps over the lazy dog; 0123456789!' --mode step --all-logits-out %t/52-long-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/52-long-seq.npy %t/52-long-step.npy 1e-4 | FileCheck %s --check-prefix=SAME
// SAME: shape=(56, 256) max_abs_diff={{.*}} PASS
