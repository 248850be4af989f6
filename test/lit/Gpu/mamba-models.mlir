// The tiny Mamba-1 and Mamba-2 checkpoints in ../shared on the GPU engine %gpu
// (opencl by default: GPU schedules run on PoCL in CI): every position's logits within 1e-4 of
// the models' expected logits (float64 implementations of mamba_ssm's
// semantics, see their READMEs), in the sequence form (selective_scan /
// ssd_scan) and the step form (selective_update, the state carried between
// calls), the tolerance of the cpu engine's tests (Import/mamba-logits.mlir).
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{m1} = %shared/models/mamba/tiny-mamba-seed5
// DEFINE: %{m2} = %shared/models/mamba2/tiny-mamba2-g1-untied
// RUN: ssm-import mamba %{m1}/model.safetensors --config %{m1}/config.json -o %t/m1
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m1 --tokens %{m1}/tokens.npy --mode sequence %gpu --all-logits-out %t/m1-seq.npy
// RUN: python3 %S/../Import/Inputs/compare_npy.py %t/m1-seq.npy %{m1}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m1 --tokens %{m1}/tokens.npy --mode step %gpu --all-logits-out %t/m1-step.npy
// RUN: python3 %S/../Import/Inputs/compare_npy.py %t/m1-step.npy %{m1}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-import mamba %{m2}/model.safetensors --config %{m2}/config.json -o %t/m2
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m2 --tokens %{m2}/tokens.npy --mode sequence %gpu --all-logits-out %t/m2-seq.npy
// RUN: python3 %S/../Import/Inputs/compare_npy.py %t/m2-seq.npy %{m2}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/m2 --tokens %{m2}/tokens.npy --mode step %gpu --all-logits-out %t/m2-step.npy
// RUN: python3 %S/../Import/Inputs/compare_npy.py %t/m2-step.npy %{m2}/expected_logits.npy 1e-4 | FileCheck %s
// An explicit CPU target is refused by the GPU engine, and a GPU target by the cpu engine.
// RUN: not ssm-run %t/m1 --tokens %{m1}/tokens.npy --engine opencl --target host 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not ssm-run %t/m1 --tokens %{m1}/tokens.npy --engine cuda --target host-opencl 2>&1 | FileCheck %s --check-prefix=WRONGC
// RUN: not ssm-run %t/m1 --tokens %{m1}/tokens.npy --engine cpu --target host-opencl 2>&1 | FileCheck %s --check-prefix=GPUT

// CHECK: PASS
// WRONG: --engine opencl needs a target with the 'opencl' feature, got 'host'
// WRONGC: --engine cuda needs a target with the 'cuda' feature, got 'host-opencl'
// GPUT: --target host-opencl is a GPU target: use --engine opencl
