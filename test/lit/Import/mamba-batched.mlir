// ssm-import mamba --batch B: model.mlir also holds @forward_step_batched (one
// token of each of B streams: tokens (B), every state with a leading dim B,
// logits (B, vocab)), model.json describes it, the graph verifies, and on the
// reference interpreter and on compiled CPU kernels each row of one batched
// call equals a @forward_step call of that stream alone (seeded states,
// different tokens; 1e-5 relative + 1e-6 absolute). Bad uses exit 2 naming
// the problem.
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/m --seq-len 4 --batch 2 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: mamba1, mamba_ssm layout, F32 -> F32, seq-len 4, step batch 2
// RUN: FileCheck %s --check-prefix=SIG < %t/m/model.mlir
// SIG:      func.func @forward_step_batched(%tokens: tensor<2xi32> {ssm.name = "tokens"},
// SIG-NEXT:     %s_layers_0_conv_state: tensor<2x128x3xf32> {ssm.state = "layers.0.conv_state"},
// SIG-NEXT:     %s_layers_0_ssm_state: tensor<2x128x16xf32> {ssm.state = "layers.0.ssm_state"},
// SIG-NEXT:     %s_layers_1_conv_state: tensor<2x128x3xf32> {ssm.state = "layers.1.conv_state"},
// SIG-NEXT:     %s_layers_1_ssm_state: tensor<2x128x16xf32> {ssm.state = "layers.1.ssm_state"},
// SIG-NEXT:     %w_backbone_embedding_weight: tensor<256x64xf32> {ssm.param = "backbone.embedding.weight"},
// SIG:          -> (tensor<2x256xf32> {ssm.name = "logits"},
// SIG-NEXT:         tensor<2x128x3xf32> {ssm.state = "layers.0.conv_state"},
// SIG-NEXT:         tensor<2x128x16xf32> {ssm.state = "layers.0.ssm_state"},
// SIG:          func.call @block_step_batched(
// SIG:      func.func private @block_step_batched(%h: tensor<2x64xf32>,
// SIG-NEXT:     %s_conv_state: tensor<2x128x3xf32>,
// SIG-NEXT:     %s_ssm_state: tensor<2x128x16xf32>,
// SIG:        ssm.selective_update {{.*}} : (tensor<2x128x16xf32>, tensor<2x128xf32>,
// RUN: FileCheck %s --check-prefix=JSON < %t/m/model.json
// JSON:      "functions": {
// JSON-NEXT:   "sequence": "forward_sequence",
// JSON-NEXT:   "step": "forward_step",
// JSON-NEXT:   "step_batched": {
// JSON-NEXT:     "batch": 2,
// JSON-NEXT:     "name": "forward_step_batched"
// RUN: ssm-opt %t/m/model.mlir -o %t/m-opt.mlir
// RUN: python3 %S/Inputs/batched_step_check.py ssm-run %t/m %t/ref reference | FileCheck %s --check-prefix=ROWS
// RUN: env SSM_CACHE_DIR=%cache python3 %S/Inputs/batched_step_check.py ssm-run %t/m %t/cpu cpu | FileCheck %s --check-prefix=ROWS
// ROWS: result0 logits: batch 2
// ROWS: result4 layers.1.ssm_state: batch 2
// ROWS: PASS

// Without --batch nothing changes: no batched function, no model.json entry.
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/plain --seq-len 4
// RUN: not grep -q step_batched %t/plain/model.mlir %t/plain/model.json

// Bad uses: exit 2, nothing written.
// RUN: sh -c 'ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/b0 --batch 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: ssm-import: error: --batch takes an integer from 1 to 1024, got '0'
// ZERO: exit=2
// RUN: sh -c 'ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/b0 --batch 2x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOTINT
// NOTINT: ssm-import: error: --batch takes an integer from 1 to 1024, got '2x'
// NOTINT: exit=2
// RUN: not ls %t/b0
