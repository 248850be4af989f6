// The tiny RWKV-4 and RWKV-5.2 models compiled for the CPU (RWKV-4: ssm.wkv4's
// Halide kernel in the scan form, the stabilised update as generics in the
// step form; RWKV-5.2: ssm.ssd_scan's kernel, and the matrix-state update):
// the logits after `"in` agree with rwkv.cpp's within 1e-4 (FP32) and 1e-2
// (FP16) in both forms. Each block is one kernel called per layer
// (codegen/Segments.h), so the 12-block RWKV-5.2 compiles in seconds. The
// FP16 and reseeded files have the same graph as their FP32 one, so they
// reuse its compiled module from the cache.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/reseeded-rwkv-4v0-seed1-FP32.bin -o %t/re --seq-len 3
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/f32 --seq-len 3
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP16.bin -o %t/f16 --seq-len 3
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/re --engine cpu --prompt '"in' --mode sequence --logits-out %t/re-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/re-seq.npy %shared/models/rwkv/expected-logits-reseeded-4v0-seed1.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/re --engine cpu --prompt '"in' --mode step --logits-out %t/re-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/re-step.npy %shared/models/rwkv/expected-logits-reseeded-4v0-seed1.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/f32 --engine cpu --prompt '"in' --mode sequence --logits-out %t/f32-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/f32-seq.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/f32 --engine cpu --prompt '"in' --mode step --logits-out %t/f32-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/f32-step.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/f16 --engine cpu --prompt '"in' --mode sequence --logits-out %t/f16-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/f16-seq.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 1e-2 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/f16 --engine cpu --prompt '"in' --mode step --logits-out %t/f16-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/f16-step.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 1e-2 | FileCheck %s
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-5v2-730K-FP32.bin -o %t/v5 --seq-len 3
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-5v2-730K-FP16.bin -o %t/v5h --seq-len 3
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/v5 --engine cpu --prompt '"in' --mode sequence --logits-out %t/v5-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/v5-seq.npy %shared/models/rwkv/expected-logits-5v2-730K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/v5 --engine cpu --prompt '"in' --mode step --logits-out %t/v5-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/v5-step.npy %shared/models/rwkv/expected-logits-5v2-730K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/v5h --engine cpu --prompt '"in' --mode sequence --logits-out %t/v5h-seq.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/v5h-seq.npy %shared/models/rwkv/expected-logits-5v2-730K.bin 1e-2 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/v5h --engine cpu --prompt '"in' --mode step --logits-out %t/v5h-step.npy
// RUN: python3 %S/Inputs/compare_logits.py %t/v5h-step.npy %shared/models/rwkv/expected-logits-5v2-730K.bin 1e-2 | FileCheck %s
// CHECK: max_abs_diff={{.*}} PASS
