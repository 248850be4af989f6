// Extreme but valid weights (docs/numerics.md), on a synthetic Mamba
// (Inputs/make_mamba.py, edited by Inputs/st_set.py). Its embedding row of
// 'A' (65) scaled by 1e30: the squares overflow float32, and RMSNorm's scaled
// sum of squares keeps the cpu engine within 1e-4 of the float64 reference
// in both forms, and --check finds every logit and state finite (with the
// plain sum the row normalized to zeros: 1.5 off on the tiny Mamba). Its first
// layer's D at 3e38: the residual stream reaches 1e37, which the same norm
// takes (extreme-weights-overflow.mlir has a D that overflows).
// REQUIRES: ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 32 --state 8 --layers 2 --conv 4 --dt-rank 2 --seed 7
// RUN: python3 %S/Inputs/st_set.py %t/a/model.safetensors %t/emb.safetensors backbone.embeddings.weight --row 65 --scale 1e30
// RUN: ssm-import mamba %t/emb.safetensors --config %t/a/config.json -o %t/memb
// RUN: ssm-run %t/memb --engine reference --prompt 'ABBA, A.' --mode sequence --all-logits-out %t/emb-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/memb --engine cpu --check --prompt 'ABBA, A.' --mode sequence --all-logits-out %t/emb-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/emb-ref.npy %t/emb-cpu.npy 1e-4 | FileCheck %s --check-prefix=EMB
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/memb --engine cpu --check --prompt 'ABBA, A.' --mode step --all-logits-out %t/emb-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/emb-ref.npy %t/emb-cpu-step.npy 1e-4 | FileCheck %s --check-prefix=EMB
// EMB: shape=(8, 256) max_abs_diff={{.*}} PASS

// RUN: python3 %S/Inputs/st_set.py %t/a/model.safetensors %t/d.safetensors backbone.layers.0.mixer.D --fill 3e38
// RUN: ssm-import mamba %t/d.safetensors --config %t/a/config.json -o %t/md
// RUN: ssm-run %t/md --engine reference --prompt 'ABBA, A.' --logits-out %t/d-ref.npy
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/md --engine cpu --check --prompt 'ABBA, A.' --logits-out %t/d-cpu.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/d-ref.npy %t/d-cpu.npy 1e-4 | FileCheck %s --check-prefix=D
// D: shape=(256) max_abs_diff={{.*}} PASS
