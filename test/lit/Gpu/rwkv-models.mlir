// The tiny RWKV-4, -5, -6 and -7 checkpoints in ../shared (rwkv.cpp files) on
// the GPU engine %gpu (opencl by default: GPU schedules run on PoCL in CI): the logits of the
// prompt within 1e-4 of rwkv.cpp's expected logits, in the sequence form and
// (RWKV-4, -5) the step form, the tolerance of the cpu engine's tests
// (Import/rwkv-models-cpu.mlir, rwkv67-models-cpu.mlir).
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{r} = %shared/models/rwkv
// RUN: ssm-import rwkv %{r}/tiny-rwkv-4v0-660K-FP32.bin -o %t/4 --seq-len 3
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/4 %gpu --prompt '"in' --mode sequence --logits-out %t/4-seq.npy
// RUN: python3 %S/../Import/Inputs/compare_logits.py %t/4-seq.npy %{r}/expected-logits-4v0-660K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/4 %gpu --prompt '"in' --mode step --logits-out %t/4-step.npy
// RUN: python3 %S/../Import/Inputs/compare_logits.py %t/4-step.npy %{r}/expected-logits-4v0-660K.bin 1e-4 | FileCheck %s
// RUN: ssm-import rwkv %{r}/tiny-rwkv-5v2-730K-FP32.bin -o %t/5 --seq-len 3
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/5 %gpu --prompt '"in' --mode sequence --logits-out %t/5-seq.npy
// RUN: python3 %S/../Import/Inputs/compare_logits.py %t/5-seq.npy %{r}/expected-logits-5v2-730K.bin 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/5 %gpu --prompt '"in' --mode step --logits-out %t/5-step.npy
// RUN: python3 %S/../Import/Inputs/compare_logits.py %t/5-step.npy %{r}/expected-logits-5v2-730K.bin 1e-4 | FileCheck %s
// RUN: ssm-import rwkv %{r}/tiny-rwkv-6v0-170K-FP32.bin -o %t/6 --seq-len 3
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/6 %gpu --prompt '"in' --mode sequence --logits-out %t/6-seq.npy
// RUN: python3 %S/../Import/Inputs/compare_logits.py %t/6-seq.npy %{r}/expected-logits-6v0-170K.bin 1e-4 | FileCheck %s
// RUN: ssm-import rwkv %{r}/tiny-rwkv-7v0-834K-FP32.bin -o %t/7 --seq-len 3
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/7 %gpu --prompt '"in' --mode sequence --logits-out %t/7-seq.npy
// RUN: python3 %S/../Import/Inputs/compare_logits.py %t/7-seq.npy %{r}/expected-logits-7v0-834K.bin 1e-4 | FileCheck %s

// CHECK: PASS
