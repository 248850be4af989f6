// ssm-import --prefill-batch B on Qwen3.5 (Gated DeltaNet layers and gated attention
// layers): @forward_sequence_batched runs ssm.gated_delta_rule with a leading dim of B
// streams and the attention op with L rows per stream at its own position. On the
// reference interpreter each stream of one batched call equals a @forward_sequence call
// of that stream alone exactly (rtol 0, atol 0: seeded states, different tokens and
// positions; Inputs/batched_sequence_check.py).
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import %shared/models/qwen35/tiny-qwen35-a -o %t/q --seq-len 4 --context 24 --prefill-batch 2 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: prefill batch 2 (@forward_sequence_batched)
// RUN: FileCheck %s --check-prefix=SIG < %t/q/model.mlir
// SIG:      func.func @forward_sequence_batched(%tokens: tensor<8xi32> {ssm.name = "tokens"},
// SIG-NEXT:     %position: tensor<2xi32> {ssm.name = "position"},
// SIG-DAG:  ssm.gated_delta_rule {{.*}} : (tensor<2x4x
// SIG-DAG:  ssm.attention {{.*}} : (tensor<2x4x{{.*}}, tensor<2x24x{{.*}}, tensor<2xi32>) ->
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/q %t/q-ref reference 0 0 | FileCheck %s --check-prefix=ROWS
// ROWS: result0 logits: batch 2
// ROWS: PASS
