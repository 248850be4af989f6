// The tiny RWKV-6 and RWKV-7 models compiled for the CPU (RWKV-6: ssm.ssd_scan's
// kernel with a per-token decay in the scan form, the matrix-state update as
// generics in the step form; RWKV-7: ssm.wkv7's kernel, and its delta-rule
// update as generics): the logits after `"in` agree with rwkv.cpp's within
// 1e-4 in both forms. The FP16 files (Inputs/rwkv_fp16.py) have the graphs
// of their FP32 ones and reuse the compiled modules from the cache; see
// rwkv67-models.mlir for their tolerances.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin -o %t/6 --seq-len 3
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin -o %t/7 --seq-len 3
// RUN: python3 %S/Inputs/rwkv_fp16.py %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin %t/6h.bin
// RUN: python3 %S/Inputs/rwkv_fp16.py %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin %t/7h.bin
// RUN: ssm-import rwkv %t/6h.bin -o %t/6h --seq-len 3
// RUN: ssm-import rwkv %t/7h.bin -o %t/7h --seq-len 3
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/6 --engine cpu --prompt '"in' --mode sequence --logits-out %t/6-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/6-seq.npy %shared/models/rwkv/expected-logits-6v0-170K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/6 --engine cpu --prompt '"in' --mode step --logits-out %t/6-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/6-step.npy %shared/models/rwkv/expected-logits-6v0-170K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/7 --engine cpu --prompt '"in' --mode sequence --logits-out %t/7-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/7-seq.npy %shared/models/rwkv/expected-logits-7v0-834K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/7 --engine cpu --prompt '"in' --mode step --logits-out %t/7-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/7-step.npy %shared/models/rwkv/expected-logits-7v0-834K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/6h --engine cpu --prompt '"in' --mode sequence --logits-out %t/6h-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/6h-seq.npy %S/Inputs/expected-logits-6v0-fp16.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/6h --engine cpu --prompt '"in' --mode step --logits-out %t/6h-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/6h-step.npy %S/Inputs/expected-logits-6v0-fp16.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/7h --engine cpu --prompt '"in' --mode sequence --logits-out %t/7h-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/7h-seq.npy %shared/models/rwkv/expected-logits-7v0-834K.bin 1e-2 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/7h --engine cpu --prompt '"in' --mode step --logits-out %t/7h-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/7h-step.npy %shared/models/rwkv/expected-logits-7v0-834K.bin 1e-2 | FileCheck %s
// 7v0 read as 2 heads of 32 with 4 layers (see rwkv67-models.mlir).
// RUN: python3 %S/Inputs/rwkv_edit.py %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin %t/s7h2.bin --layers 4 --sizes blocks.0.att.r_k=32,2 --sizes blocks.1.att.r_k=32,2 --sizes blocks.2.att.r_k=32,2 --sizes blocks.3.att.r_k=32,2
// RUN: ssm-import rwkv %t/s7h2.bin -o %t/s7h2 --seq-len 3
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/s7h2 --engine cpu --prompt '"in' --mode sequence --logits-out %t/s7h2-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/s7h2-seq.npy %S/Inputs/expected-logits-synthetic-7v0-2heads-4layers.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/s7h2 --engine cpu --prompt '"in' --mode step --logits-out %t/s7h2-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/s7h2-step.npy %S/Inputs/expected-logits-synthetic-7v0-2heads-4layers.bin 1e-4 | FileCheck %s
// CHECK: max_abs_diff={{.*}} PASS

// A longer prompt (sequence calls of 3 tokens then steps, against steps only),
// and against the reference engine's scan form.
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/7 --engine cpu --prompt 'The quick brown fox jumps over the lazy dog; 0123456789!' --mode sequence --all-logits-out %t/7-long-seq.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/7 --engine cpu --prompt 'The quick brown fox jumps over the lazy dog; 0123456789!' --mode step --all-logits-out %t/7-long-step.npy
// RUN: ssm-run %t/7 --engine reference --prompt 'The quick brown fox jumps over the lazy dog; 0123456789!' --mode sequence --all-logits-out %t/7-long-ref.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/7-long-seq.npy %t/7-long-step.npy 1e-4 | FileCheck %s --check-prefix=SAME
// RUN: python3 %S/Inputs/compare_npy.py %t/7-long-seq.npy %t/7-long-ref.npy 1e-4 | FileCheck %s --check-prefix=SAME
// SAME: shape=(56, 256) max_abs_diff={{.*}} PASS
