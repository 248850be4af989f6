// Per-head and group norms on extreme but valid weights (docs/numerics.md):
// a weight scaled by 1e20 makes a head's or group's values pass 1.8e19, whose
// squares overflow float32; with the plain sum of squares the head
// normalized to zeros on the cpu engine (finite logits, exit 0, no warning):
// Mamba-2's gated norm (a D of 1e20: 0.95 of the logits' range off the
// float64 reference), LFM2's attention q norm (q_proj x 1e20: 0.43 off),
// Qwen3.5's delta-rule l2 norms and gated norm (in_proj_qkv x 1e20: 1.26
// off), RWKV-6's ln_x group norm (att.value x 1e25: 0.70 off). With each head divided by
// max(1, max|x|) first they agree with the reference within 1e-4.
// The cpu runs compile on first use through the suite's shared cache: the
// kernels do not depend on the weights' values, so each model's module is the
// one the other tests of these tiny models compiled.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
//
// RUN: ssm-import %shared/models/mamba2/tiny-mamba2-g1-untied -o %t/m2 > /dev/null
// RUN: python3 %S/Inputs/st_set.py %t/m2/weights.safetensors %t/w.safetensors backbone.layers.0.mixer.D --scale 1e20
// RUN: mv %t/w.safetensors %t/m2/weights.safetensors
// RUN: ssm-run %t/m2 --engine reference --tokens %shared/models/mamba2/tiny-mamba2-g1-untied/tokens.npy --logits-out %t/m2-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m2 --check --tokens %shared/models/mamba2/tiny-mamba2-g1-untied/tokens.npy --logits-out %t/m2-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/m2-ref.npy %t/m2-cpu.npy 1e-4 | FileCheck %s
//
// RUN: ssm-import %shared/models/lfm2/tiny-lfm2-a -o %t/lfm2 > /dev/null
// RUN: python3 %S/Inputs/st_set.py %t/lfm2/weights.safetensors %t/w.safetensors model.layers.2.self_attn.q_proj.weight --scale 1e20
// RUN: mv %t/w.safetensors %t/lfm2/weights.safetensors
// RUN: ssm-run %t/lfm2 --engine reference --tokens %shared/models/lfm2/tiny-lfm2-a/tokens.npy --logits-out %t/lfm2-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/lfm2 --check --tokens %shared/models/lfm2/tiny-lfm2-a/tokens.npy --logits-out %t/lfm2-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/lfm2-ref.npy %t/lfm2-cpu.npy 1e-4 | FileCheck %s
//
// RUN: ssm-import %shared/models/qwen35/tiny-qwen35-a -o %t/q35 > /dev/null
// RUN: python3 %S/Inputs/st_set.py %t/q35/weights.safetensors %t/w.safetensors model.layers.0.linear_attn.in_proj_qkv.weight --scale 1e20
// RUN: mv %t/w.safetensors %t/q35/weights.safetensors
// RUN: ssm-run %t/q35 --engine reference --tokens %shared/models/qwen35/tiny-qwen35-a/tokens.npy --logits-out %t/q35-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/q35 --check --tokens %shared/models/qwen35/tiny-qwen35-a/tokens.npy --logits-out %t/q35-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/q35-ref.npy %t/q35-cpu.npy 1e-4 | FileCheck %s
//
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin -o %t/r6 > /dev/null
// RUN: python3 %S/Inputs/st_set.py %t/r6/weights.safetensors %t/w.safetensors blocks.0.att.value.weight --scale 1e25
// RUN: mv %t/w.safetensors %t/r6/weights.safetensors
// RUN: ssm-run %t/r6 --engine reference --prompt 'ABBA, A.' --logits-out %t/r6-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/r6 --check --prompt 'ABBA, A.' --logits-out %t/r6-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/r6-ref.npy %t/r6-cpu.npy 1e-4 | FileCheck %s
// CHECK: shape=({{[0-9]+}}) max_abs_diff={{.*}} PASS
