// Weights kept in their storage type (ssm-import --weights, ssm.dequantize):
// the kernels read 16-bit and int8 weights as stored. For each storage the
// compiled engine matches the reference interpreter to f32 rounding (1e-5),
// the reference's q8 function is checked against an F32 file of the
// dequantised values written independently (Inputs/st_dequant.py: exactly
// equal), and the distance from the f32 model's expected logits is bounded
// (measured: RWKV-4 q8 0.035; Mamba f16 0.0031, bf16 0.035, q8 0.087).
// Needs ../shared (the tiny models).
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/q4 --weights q8 --seq-len 3 | FileCheck %s --check-prefix=IMPQ
// IMPQ: FP32 -> F16 x30 + F32 x48 + I8 x30, 108 tensors (--weights q8), seq-len 3
// RUN: python3 %S/Inputs/st_header.py %t/q4/weights.safetensors | FileCheck %s --check-prefix=STQ
// STQ: emb.weight I8 [256, 128]
// STQ-NEXT: emb.weight_scale F16 [256, 4]
// STQ: blocks.0.att.time_decay F32 [128]
// STQ: blocks.0.ffn.value.weight I8 [128, 256]
// STQ-NEXT: blocks.0.ffn.value.weight_scale F16 [128, 8]
// STQ: meta weight_storage q8
// STQ: data_bytes=720896 ok
// RUN: FileCheck %s --check-prefix=MLIRQ < %t/q4/model.mlir
// MLIRQ: %arg21: tensor<256x128xi8> {ssm.param = "emb.weight"}, %arg22: tensor<256x4xf16> {ssm.param = "emb.weight_scale"}
// MLIRQ: ssm.dequantize %arg21, %arg22 : (tensor<256x128xi8>, tensor<256x4xf16>) -> tensor<256x128xf32>
// MLIRQ: func.func private @block_sequence(
// MLIRQ-SAME: tensor<256x128xi8>, %{{.*}}: tensor<256x4xf16>
// RUN: ssm-run %t/q4 --engine reference --prompt '"in' --mode sequence --logits-out %t/q4-ref-seq.npy
// RUN: ssm-run %t/q4 --engine reference --prompt '"in' --mode step --logits-out %t/q4-ref-step.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/q4 --engine cpu --prompt '"in' --mode sequence --logits-out %t/q4-cpu-seq.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/q4 --engine cpu --prompt '"in' --mode step --logits-out %t/q4-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q4-cpu-seq.npy %t/q4-ref-seq.npy 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: python3 %S/Inputs/compare_npy.py %t/q4-cpu-step.npy %t/q4-ref-step.npy 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: python3 %S/Inputs/compare_logits.py %t/q4-ref-seq.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 0.1 | FileCheck %s
// RUN: python3 %S/Inputs/compare_logits.py %t/q4-cpu-step.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 0.1 | FileCheck %s
// The same model with the dequantised weights as F32.
// RUN: cp -r %t/q4 %t/q4f && python3 %S/Inputs/st_dequant.py %t/q4/weights.safetensors %t/q4f/weights.safetensors
// RUN: ssm-run %t/q4f --engine reference --prompt '"in' --mode sequence --logits-out %t/q4f-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q4f-seq.npy %t/q4-ref-seq.npy 0 | FileCheck %s --check-prefix=SAME
// CHECK: max_abs_diff={{.*}} PASS
// SAME: max_abs_diff={{.*}} PASS

// --weights f32 widens an FP16 file (the previous behaviour).
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP16.bin -o %t/w32 --weights f32 --seq-len 3 | FileCheck %s --check-prefix=W32
// W32: FP16 -> F32, 78 tensors (--weights f32), seq-len 3

// Mamba-1 in f16, bf16 and q8 (matrices only; dt_proj's last dim, 4, is no
// multiple of 32 and stays f32 under q8).
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors -o %t/mh --weights f16 --seq-len 4 | FileCheck %s --check-prefix=MH
// MH: F32 -> F16 x10 + F32 x13 (--weights f16)
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors -o %t/mb --weights bf16 --seq-len 4 | FileCheck %s --check-prefix=MB
// MB: F32 -> BF16 x10 + F32 x13 (--weights bf16)
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors -o %t/mq --weights q8 --seq-len 4 | FileCheck %s --check-prefix=MQ
// MQ: F32 -> F16 x8 + F32 x15 + I8 x8 (--weights q8)
// RUN: ssm-run %t/mh --engine reference --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode sequence --all-logits-out %t/mh-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mh --engine cpu --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode step --all-logits-out %t/mh-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/mh-cpu.npy %t/mh-ref.npy 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: python3 %S/Inputs/compare_npy.py %t/mh-ref.npy %shared/models/mamba/tiny-mamba-seed5/expected_logits.npy 1e-2 | FileCheck %s --check-prefix=SAME
// RUN: ssm-run %t/mb --engine reference --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode sequence --all-logits-out %t/mb-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mb --engine cpu --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode sequence --all-logits-out %t/mb-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/mb-cpu.npy %t/mb-ref.npy 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: python3 %S/Inputs/compare_npy.py %t/mb-ref.npy %shared/models/mamba/tiny-mamba-seed5/expected_logits.npy 0.1 | FileCheck %s --check-prefix=SAME
// RUN: ssm-run %t/mq --engine reference --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode sequence --all-logits-out %t/mq-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mq --engine cpu --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode sequence --all-logits-out %t/mq-cpu.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mq --engine cpu --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode step --all-logits-out %t/mq-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/mq-cpu.npy %t/mq-ref.npy 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: python3 %S/Inputs/compare_npy.py %t/mq-cpu-step.npy %t/mq-ref.npy 1e-5 | FileCheck %s --check-prefix=SAME
// RUN: python3 %S/Inputs/compare_npy.py %t/mq-ref.npy %shared/models/mamba/tiny-mamba-seed5/expected_logits.npy 0.2 | FileCheck %s --check-prefix=SAME

// Bad input: an unknown storage, a q8 weight without its scales, a
// truncated q8 file: a message naming the option or tensor, exit 2.
// RUN: sh -c 'ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/bad --weights q4; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BADW
// BADW: ssm-import: error: --weights takes source, f32, f16, bf16 or q8, got 'q4'
// BADW: exit=2
// RUN: cp -r %t/q4 %t/qd && python3 %S/Inputs/st_drop.py %t/q4/weights.safetensors %t/qd/weights.safetensors head.weight_scale
// RUN: sh -c 'ssm-run %t/qd --engine reference --prompt x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOSCALE
// RUN: sh -c 'SSM_CACHE_DIR=%cache ssm-run %t/qd --engine cpu --prompt x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOSCALE
// NOSCALE: tensor 'head.weight' has dtype I8; {{.*}}'head.weight_scale'{{.*}}missing?
// NOSCALE: exit=2
// RUN: cp -r %t/q4 %t/qt && head -c 700000 %t/q4/weights.safetensors > %t/qt/weights.safetensors
// RUN: sh -c 'ssm-run %t/qt --engine reference --prompt x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: truncated: tensor 'head.weight' occupies bytes {{[0-9]+}} to 728688 of the file, but the file has 700000 bytes
// TRUNC: exit=2
