// LayerNorm on extreme but valid weights (docs/numerics.md): ../shared's tiny
// RWKV-4 with its embedding row of 'A' (65) scaled by 1e30. ln0 reads the row
// first; its squares overflow float32, and with the plain sum of (x - mean)^2
// the cpu engine normalized it to the bias alone: finite logits 1.57 off the
// float64 reference (RWKV-5.2 4.0, RWKV-6 3.7), exit 0 and no warning. With
// the row divided by max(1, max|x|) before the sums, the default engine of a
// model folder (cpu) agrees with the reference within 1e-4 in both forms.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m > /dev/null
// RUN: python3 %S/Inputs/st_set.py %t/m/weights.safetensors %t/w.safetensors emb.weight --row 65 --scale 1e30
// RUN: mv %t/w.safetensors %t/m/weights.safetensors
// RUN: ssm-run %t/m --engine reference --prompt 'ABBA, A.' --all-logits-out %t/ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m --check --prompt 'ABBA, A.' --all-logits-out %t/cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref.npy %t/cpu.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m --check --mode step --prompt 'ABBA, A.' --all-logits-out %t/cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref.npy %t/cpu-step.npy 1e-4 | FileCheck %s
// CHECK: shape=(8, {{[0-9]+}}) max_abs_diff={{.*}} PASS
