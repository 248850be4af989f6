// RWKV-5 compiled for the CPU agrees with the reference interpreter: the
// 5.2 tiny model and the synthetic 5.1 one (Inputs/make_rwkv51.py), cut to
// their first two blocks (the full models are checked against rwkv.cpp's
// logits in rwkv-models-cpu.mlir), on a 12-byte prompt in the scan form
// (ssm.ssd_scan, chunked) and the step form, every position's logits.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/rwkv_edit.py %shared/models/rwkv/tiny-rwkv-5v2-730K-FP32.bin %t/52.bin --layers 2
// RUN: python3 %S/Inputs/make_rwkv51.py %t/52.bin %t/51.bin
// RUN: ssm-import rwkv %t/52.bin -o %t/m52 | FileCheck %s --check-prefix=IMP52
// IMP52: rwkv5.2, n_vocab 256, n_embed 64, n_layer 2, 8 heads x 8
// RUN: ssm-import rwkv %t/51.bin -o %t/m51 | FileCheck %s --check-prefix=IMP51
// IMP51: rwkv5.1, n_vocab 256, n_embed 64, n_layer 2, 8 heads x 8

// RUN: ssm-run %t/m52 --engine reference --prompt 'Hello, RWKV!' --mode sequence --all-logits-out %t/52-seq-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m52 --engine cpu --prompt 'Hello, RWKV!' --mode sequence --all-logits-out %t/52-seq-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/52-seq-ref.npy %t/52-seq-cpu.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/m52 --engine reference --prompt 'Hello, RWKV!' --mode step --all-logits-out %t/52-step-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m52 --engine cpu --prompt 'Hello, RWKV!' --mode step --all-logits-out %t/52-step-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/52-step-ref.npy %t/52-step-cpu.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/m51 --engine reference --prompt 'Hello, RWKV!' --mode sequence --all-logits-out %t/51-seq-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m51 --engine cpu --prompt 'Hello, RWKV!' --mode sequence --all-logits-out %t/51-seq-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/51-seq-ref.npy %t/51-seq-cpu.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/m51 --engine reference --prompt 'Hello, RWKV!' --mode step --all-logits-out %t/51-step-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m51 --engine cpu --prompt 'Hello, RWKV!' --mode step --all-logits-out %t/51-step-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/51-step-ref.npy %t/51-step-cpu.npy 1e-4 | FileCheck %s
// CHECK: shape=(12, 256) max_abs_diff={{.*}} PASS
