// Mamba-2 checkpoints the tiny one in ../shared does not cover, written by
// Inputs/make_mamba2.py with the logits of its own float64 step-by-step
// implementation of mamba_ssm's Mamba2 (independent of the graph):
//   a: mamba_ssm's layout and config (ssm_cfg.layer "Mamba2"), 2 groups of
//      4 heads, norm before gate, dt limits that clamp at both ends,
//      in_proj/out_proj biases, a tied head, conv width 3, chunk 8 with a
//      30-token prompt (chunks and a ragged tail);
//   b: transformers' layout and config, 4 groups of one head each (head dim
//      16), gate before norm, no conv bias, no limit, chunk 16.
// Every position within 1e-4, sequence and step forms, reference and CPU.
// REQUIRES: ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba2.py %t/a --hidden 32 --heads 8 --head-dim 8 --state 8 --groups 2 --layers 2 --conv 3 --chunk 8 --bias --tied --norm-before-gate --dt-limit 0.05 0.2 --layout mamba_ssm --prompt 'grouped SSD, clamped dt, tied!' --seed 3
// RUN: ssm-import mamba %t/a/model.safetensors -o %t/ma | FileCheck %s --check-prefix=IMPORTA
// IMPORTA: mamba2, mamba_ssm layout
// RUN: ssm-run %t/ma --engine reference --tokens %t/a/tokens.npy --mode sequence --all-logits-out %t/a-ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-ref-seq.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=A
// RUN: ssm-run %t/ma --engine reference --tokens %t/a/tokens.npy --mode step --all-logits-out %t/a-ref-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-ref-step.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=A
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/ma --engine cpu --tokens %t/a/tokens.npy --mode sequence --all-logits-out %t/a-cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-cpu-seq.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=A
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/ma --engine cpu --tokens %t/a/tokens.npy --mode step --all-logits-out %t/a-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-cpu-step.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=A
// A: shape=(30, 256) max_abs_diff={{.*}} PASS

// RUN: python3 %S/Inputs/make_mamba2.py %t/b --hidden 32 --heads 4 --head-dim 16 --state 8 --groups 4 --layers 2 --conv 4 --chunk 16 --no-conv-bias --layout transformers --prompt 'four groups, gate then norm, 40 bytes...' --seed 8
// RUN: ssm-import mamba %t/b/model.safetensors -o %t/mb
// RUN: ssm-run %t/mb --engine reference --tokens %t/b/tokens.npy --mode sequence --all-logits-out %t/b-ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-ref-seq.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// RUN: ssm-run %t/mb --engine reference --tokens %t/b/tokens.npy --mode step --all-logits-out %t/b-ref-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-ref-step.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mb --engine cpu --tokens %t/b/tokens.npy --mode sequence --all-logits-out %t/b-cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-cpu-seq.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mb --engine cpu --tokens %t/b/tokens.npy --mode step --all-logits-out %t/b-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-cpu-step.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// B: shape=(40, 256) max_abs_diff={{.*}} PASS
