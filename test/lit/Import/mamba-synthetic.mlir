// Mamba checkpoints the tiny one in ../shared does not cover, written by
// Inputs/make_mamba.py (seeded weights of sensible scale): in_proj/out_proj
// biases, a tied head, odd sizes (d_model 40, d_inner 80, N 8, conv width 3,
// dt_rank 3), three layers; and one without a conv bias on a 600-byte prompt
// (longer than the scan's time chunk). The compiled CPU kernels agree with
// the reference interpreter at every position in both forms, and the
// reference's two forms agree with each other (1e-4 absolute).
// REQUIRES: ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 40 --state 8 --layers 3 --conv 3 --dt-rank 3 --bias --tied --seed 4
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/ma
// RUN: ssm-run %t/ma --engine reference --prompt 'Mamba on odd sizes: 40 x 3 layers!' --mode sequence --all-logits-out %t/a-ref-seq.npy
// RUN: ssm-run %t/ma --engine reference --prompt 'Mamba on odd sizes: 40 x 3 layers!' --mode step --all-logits-out %t/a-ref-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-ref-seq.npy %t/a-ref-step.npy 1e-4 | FileCheck %s --check-prefix=A
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/ma --engine cpu --prompt 'Mamba on odd sizes: 40 x 3 layers!' --mode sequence --all-logits-out %t/a-cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-ref-seq.npy %t/a-cpu-seq.npy 1e-4 | FileCheck %s --check-prefix=A
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/ma --engine cpu --prompt 'Mamba on odd sizes: 40 x 3 layers!' --mode step --all-logits-out %t/a-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-ref-seq.npy %t/a-cpu-step.npy 1e-4 | FileCheck %s --check-prefix=A
// A: shape=(34, 256) max_abs_diff={{.*}} PASS

// RUN: python3 %S/Inputs/make_mamba.py %t/b --hidden 32 --state 16 --layers 2 --conv 4 --dt-rank 2 --no-conv-bias --seed 5
// RUN: ssm-import mamba %t/b/model.safetensors --config %t/b/config.json -o %t/mb
// RUN: python3 -c "print(('Selective state spaces, long prompt. ' * 20)[:600], end='')" > %t/long.txt
// RUN: sh -c 'ssm-run %t/mb --engine reference --prompt "$(cat %t/long.txt)" --mode sequence --all-logits-out %t/b-ref.npy'
// RUN: sh -c 'env SSM_CACHE_DIR=%cache ssm-run %t/mb --engine cpu --prompt "$(cat %t/long.txt)" --mode sequence --all-logits-out %t/b-cpu.npy'
// RUN: python3 %S/Inputs/compare_npy.py %t/b-ref.npy %t/b-cpu.npy 1e-4 | FileCheck %s --check-prefix=B
// B: shape=(600, 256) max_abs_diff={{.*}} PASS
