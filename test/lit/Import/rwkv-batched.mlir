// ssm-import rwkv --batch B and ssm-import mamba --batch B on a Mamba-2
// checkpoint: model.mlir also holds @forward_step_batched (one token of each
// of B streams: tokens (B), every state with a leading dim B, logits
// (B, vocab)), model.json describes it, and on the reference interpreter and
// on compiled CPU kernels each row of one batched call equals a
// @forward_step call of that stream alone (seeded states, different tokens).
// RWKV's batched form runs the sequence form's scans (ssm.wkv4,
// ssm.ssd_scan, ssm.wkv7) with batch B and length 1 where its step writes
// the update out, so the compiled forms agree within the compiled-vs-
// reference tolerance (1e-4 relative + 1e-5 absolute), not bit for bit; on
// the reference (float64) they agree to float32 rounding (1e-5, 1e-6).
// Mamba-2's batched form is its step with batch B (1e-5, 1e-6 on both).
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/v4 --seq-len 2 --batch 3 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: rwkv4, n_vocab 256, n_embed 128, n_layer 4, FP32 -> F32, 78 tensors, seq-len 2, step batch 3
// RUN: FileCheck %s --check-prefix=SIG < %t/v4/model.mlir
// SIG:      func.func @forward_step_batched(%tokens: tensor<3xi32> {ssm.name = "tokens"},
// SIG-NEXT:     %s_blocks_0_ffn_xx: tensor<3x128xf32> {ssm.state = "blocks.0.ffn_xx"},
// SIG:          -> (tensor<3x256xf32> {ssm.name = "logits"},
// SIG:        func.call @block_step_batched(
// SIG:      func.func private @block_step_batched(
// SIG:        ssm.wkv4
// SIG-SAME:     (tensor<128xf32>, tensor<128xf32>, tensor<3x1x128xf32>, tensor<3x1x128xf32>, tensor<3x128xf32>
// RUN: FileCheck %s --check-prefix=JSON < %t/v4/model.json
// JSON:      "step_batched": {
// JSON-NEXT:   "name": "forward_step_batched",
// JSON-NEXT:   "batch": 3
// RUN: python3 %S/Inputs/batched_step_check.py ssm-run %t/v4 %t/v4-ref reference | FileCheck %s --check-prefix=ROWS
// RUN: env SSM_CACHE_DIR=%cache python3 %S/Inputs/batched_step_check.py ssm-run %t/v4 %t/v4-cpu cpu 1e-4 1e-5 | FileCheck %s --check-prefix=ROWS
// ROWS: result0 logits: batch 3
// ROWS: PASS

// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-5v2-730K-FP32.bin -o %t/v5 --seq-len 2 --batch 2 > /dev/null
// RUN: python3 %S/Inputs/batched_step_check.py ssm-run %t/v5 %t/v5-ref reference | FileCheck %s --check-prefix=ROWS2
// RUN: env SSM_CACHE_DIR=%cache python3 %S/Inputs/batched_step_check.py ssm-run %t/v5 %t/v5-cpu cpu 1e-4 1e-5 | FileCheck %s --check-prefix=ROWS2
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin -o %t/v6 --seq-len 2 --batch 2 > /dev/null
// RUN: python3 %S/Inputs/batched_step_check.py ssm-run %t/v6 %t/v6-ref reference | FileCheck %s --check-prefix=ROWS2
// RUN: env SSM_CACHE_DIR=%cache python3 %S/Inputs/batched_step_check.py ssm-run %t/v6 %t/v6-cpu cpu 1e-4 1e-5 | FileCheck %s --check-prefix=ROWS2
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin -o %t/v7 --seq-len 2 --batch 2 > /dev/null
// RUN: FileCheck %s --check-prefix=SIG7 < %t/v7/model.mlir
// SIG7: func.func private @block0_step_batched(
// SIG7: ssm.wkv7
// SIG7: func.func private @block_step_batched(
// RUN: python3 %S/Inputs/batched_step_check.py ssm-run %t/v7 %t/v7-ref reference | FileCheck %s --check-prefix=ROWS2
// RUN: env SSM_CACHE_DIR=%cache python3 %S/Inputs/batched_step_check.py ssm-run %t/v7 %t/v7-cpu cpu 1e-4 1e-5 | FileCheck %s --check-prefix=ROWS2
// ROWS2: result0 logits: batch 2
// ROWS2: PASS

// RUN: ssm-import mamba %shared/models/mamba2/tiny-mamba2-g1-untied/model.safetensors -o %t/m2 --seq-len 2 --batch 2 | FileCheck %s --check-prefix=M2
// M2: mamba2, transformers layout, F32 -> F32, seq-len 2, step batch 2
// RUN: FileCheck %s --check-prefix=M2SIG < %t/m2/model.mlir
// M2SIG: func.func private @block_step_batched(
// M2SIG: ssm.selective_update
// RUN: python3 %S/Inputs/batched_step_check.py ssm-run %t/m2 %t/m2-ref reference | FileCheck %s --check-prefix=ROWS2
// RUN: env SSM_CACHE_DIR=%cache python3 %S/Inputs/batched_step_check.py ssm-run %t/m2 %t/m2-cpu cpu | FileCheck %s --check-prefix=ROWS2
