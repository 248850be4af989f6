// ssm-import rwkv --prefill-batch B (RWKV-4, 5.2, 6, 7): @forward_sequence_batched runs
// the sequence form's scans (ssm.wkv4, ssm.ssd_scan, ssm.wkv7) with a leading dim of B
// streams, each stream's token shift starting from its own carried rows (att_xx, ffn_xx)
// and RWKV-7's v_first carried per row. On the reference interpreter each stream of one
// batched call equals a @forward_sequence call of that stream alone exactly (rtol 0,
// atol 0: seeded states, different tokens; Inputs/batched_sequence_check.py); RWKV-7 also
// on compiled CPU kernels within 1e-6 + 1e-5 x the result's largest magnitude.
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/v4 --seq-len 3 --prefill-batch 2 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: prefill batch 2 (@forward_sequence_batched)
// RUN: FileCheck %s --check-prefix=SIG < %t/v4/model.mlir
// SIG:      func.func @forward_sequence_batched(%tokens: tensor<6xi32> {ssm.name = "tokens"},
// SIG-NEXT:     %s_blocks_0_ffn_xx: tensor<2x128xf32> {ssm.state = "blocks.0.ffn_xx"},
// SIG:          -> (tensor<2x256xf32> {ssm.name = "logits"},
// SIG:      func.func private @block_sequence_batched(%h: tensor<6x128xf32>,
// SIG:        ssm.wkv4 {{.*}} : (tensor<128xf32>, tensor<128xf32>, tensor<2x3x128xf32>, tensor<2x3x128xf32>, tensor<2x128xf32>
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/v4 %t/v4-ref reference 0 0 | FileCheck %s --check-prefix=ROWS
// ROWS: result0 logits: batch 2
// ROWS: PASS

// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-5v2-730K-FP32.bin -o %t/v5 --seq-len 3 --prefill-batch 2 > /dev/null
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/v5 %t/v5-ref reference 0 0 | FileCheck %s --check-prefix=ROWS
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin -o %t/v6 --seq-len 3 --prefill-batch 2 > /dev/null
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/v6 %t/v6-ref reference 0 0 | FileCheck %s --check-prefix=ROWS
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin -o %t/v7 --seq-len 3 --prefill-batch 2 > /dev/null
// RUN: FileCheck %s --check-prefix=SIG7 < %t/v7/model.mlir
// SIG7:      func.call @block0_sequence_batched(
// SIG7:      ssm.wkv7 {{.*}} -> (tensor<2x3x{{[0-9]+}}x{{[0-9]+}}xf32>, tensor<2x{{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}xf32>)
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/v7 %t/v7-ref reference 0 0 | FileCheck %s --check-prefix=ROWS

