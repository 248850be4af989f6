// ssm-import --prefill-batch B: model.mlir also holds @forward_sequence_batched (the
// --seq-len L tokens of each of B streams: tokens (B*L) stream-major, a position per
// stream when the model reads one, every state with a leading dim B, each stream's last
// logits (B, vocab)), model.json describes it, the graph verifies, and on the reference
// interpreter and on compiled CPU kernels each stream of one batched call equals a
// @forward_sequence call of that stream alone (seeded states, different tokens, for
// LFM2 different positions; 1e-6 + 1e-5 x the result's largest magnitude: exactly
// equal on the reference). Mamba-1 (a pure SSM) and LFM2
// (gated convs and attention with KV caches); bad values exit 2. The other
// architectures: prefill-batched-mamba2 (Mamba-2, Granite 4.0-H, Falcon-H1),
// -rwkv, -qwen35; a layer kind without the form is refused by name (unit test
// ModelGraph.RefusesWrongDescriptionsNamingTheTensor: every architecture ssm-import
// knows writes it).
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/m --seq-len 4 --prefill-batch 2 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: prefill batch 2 (@forward_sequence_batched)
// RUN: FileCheck %s --check-prefix=SIG < %t/m/model.mlir
// SIG:      func.func @forward_sequence_batched(%tokens: tensor<8xi32> {ssm.name = "tokens"},
// SIG-NEXT:     %s_layers_0_conv_state: tensor<2x128x3xf32> {ssm.state = "layers.0.conv_state"},
// SIG-NEXT:     %s_layers_0_ssm_state: tensor<2x128x16xf32> {ssm.state = "layers.0.ssm_state"},
// SIG:          -> (tensor<2x256xf32> {ssm.name = "logits"},
// SIG-NEXT:         tensor<2x128x3xf32> {ssm.state = "layers.0.conv_state"},
// SIG:          func.call @block_sequence_batched(
// SIG:      func.func private @block_sequence_batched(%h: tensor<8x64xf32>,
// SIG:        ssm.selective_scan time_major {{.*}} : (tensor<2x4x128xf32>,
// RUN: FileCheck %s --check-prefix=JSON < %t/m/model.json
// JSON:      "sequence_batched": {
// JSON-NEXT:   "batch": 2,
// JSON-NEXT:   "name": "forward_sequence_batched"
// RUN: ssm-opt %t/m/model.mlir -o %t/m-opt.mlir
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/m %t/ref reference | FileCheck %s --check-prefix=ROWS
// RUN: env SSM_CACHE_DIR=%cache python3 %S/Inputs/batched_sequence_check.py ssm-run %t/m %t/cpu cpu | FileCheck %s --check-prefix=ROWS
// ROWS: result0 logits: batch 2
// ROWS: PASS

// LFM2: the attention's rows of 4 tokens per stream at each stream's position.
// RUN: ssm-import %shared/models/lfm2/tiny-lfm2-a -o %t/l --seq-len 4 --context 24 --prefill-batch 3 > /dev/null
// RUN: FileCheck %s --check-prefix=LSIG < %t/l/model.mlir
// LSIG:      func.func @forward_sequence_batched(%tokens: tensor<12xi32> {ssm.name = "tokens"},
// LSIG-NEXT:     %position: tensor<3xi32> {ssm.name = "position"},
// LSIG:        ssm.attention {{.*}} : (tensor<3x4x{{.*}}, tensor<3x24x{{.*}}, tensor<3xi32>) ->
// RUN: ssm-opt %t/l/model.mlir -o %t/l-opt.mlir
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/l %t/lref reference | FileCheck %s --check-prefix=LROWS
// RUN: env SSM_CACHE_DIR=%cache python3 %S/Inputs/batched_sequence_check.py ssm-run %t/l %t/lcpu cpu | FileCheck %s --check-prefix=LROWS
// LROWS: result0 logits: batch 3
// LROWS: PASS

// Bad values: exit 2, nothing written.
// RUN: sh -c 'ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/b0 --prefill-batch 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: ssm-import: error: --prefill-batch takes an integer from 1 to 1024, got '0'
// ZERO: exit=2
// RUN: not ls %t/b0
