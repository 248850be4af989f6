// ssm-import mamba on the tiny Hugging Face checkpoint in ../shared: the model
// directory (model.mlir, weights.safetensors, model.json) and the graph's
// signature, which the model runner relies on (CONTRACTS.md, ssm-import).
// REQUIRES: shared-data

// RUN: rm -rf %t && ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t
// RUN: ssm-opt %t/model.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t/model.json

// A second import into the same (now non-empty) directory needs --force.
// RUN: sh -c 'ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EXISTS
// EXISTS: not empty
// EXISTS: exit=2
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t --force --seq-len 5
// RUN: ssm-opt %t/model.mlir | FileCheck %s --check-prefix=LEN5
// LEN5: func.func @forward_sequence(%arg0: tensor<5xi32> {ssm.name = "tokens"}
// LEN5: func.func @forward_step(%arg0: tensor<1xi32> {ssm.name = "tokens"}

// Prefill: tokens, the states in model.json order, the weights by Hugging Face name.
// CHECK-LABEL: func.func @forward_sequence(
// CHECK-SAME: %arg0: tensor<16xi32> {ssm.name = "tokens"}
// CHECK-SAME: %arg1: tensor<128x3xf32> {ssm.state = "layers.0.conv_state"}
// CHECK-SAME: %arg2: tensor<128x16xf32> {ssm.state = "layers.0.ssm_state"}
// CHECK-SAME: %arg3: tensor<128x3xf32> {ssm.state = "layers.1.conv_state"}
// CHECK-SAME: %arg4: tensor<128x16xf32> {ssm.state = "layers.1.ssm_state"}
// CHECK-SAME: %arg5: tensor<256x64xf32> {ssm.param = "backbone.embedding.weight"}
// CHECK-SAME: %arg8: tensor<128x1x4xf32> {ssm.param = "backbone.layers.0.mixer.conv1d.weight"}
// CHECK-SAME: %arg27: tensor<256x64xf32> {ssm.param = "lm_head.weight"})
// CHECK-SAME: -> (tensor<1x256xf32> {ssm.name = "logits"}, tensor<128x3xf32> {ssm.state = "layers.0.conv_state"}, tensor<128x16xf32> {ssm.state = "layers.0.ssm_state"}, tensor<128x3xf32> {ssm.state = "layers.1.conv_state"}, tensor<128x16xf32> {ssm.state = "layers.1.ssm_state"})
// The embedding is a gather from the table.
// CHECK: linalg.generic
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: tensor.extract %arg5[
// Each layer is one call of the block function, with its states and weights.
// CHECK: %[[L0:.*]]:3 = call @block_sequence(%{{.*}}, %arg1, %arg2, %arg6, %arg7, %arg8, %arg9
// CHECK: %[[L1:.*]]:3 = call @block_sequence(%[[L0]]#0, %arg3, %arg4, %arg16,
// Only the last position goes through norm_f and the head.
// CHECK: tensor.extract_slice %[[L1]]#0[15, 0] [1, 64] [1, 1] : tensor<16x64xf32> to tensor<1x64xf32>
// CHECK: return {{.*}}, %[[L0]]#1, %[[L0]]#2, %[[L1]]#1, %[[L1]]#2 : tensor<1x256xf32>, tensor<128x3xf32>, tensor<128x16xf32>, tensor<128x3xf32>, tensor<128x16xf32>

// The block: the conv starts from the carried window and returns the new
// one; the scan starts from the carried state.
// CHECK-LABEL: func.func private @block_sequence(%arg0: tensor<16x64xf32>, %arg1: tensor<128x3xf32>, %arg2: tensor<128x16xf32>, %arg3: tensor<64xf32>
// CHECK: ssm.causal_conv1d silu %{{.*}}, %{{.*}} bias(%arg6) initial_states(%{{.*}}) : (tensor<1x128x16xf32>, tensor<128x4xf32>, tensor<128xf32>, tensor<1x128x3xf32>) -> (tensor<1x128x16xf32>, tensor<1x128x3xf32>)
// CHECK: ssm.selective_scan time_major {{.*}} D(%arg11) z(%{{.*}}) delta_bias(%arg9) h0(%{{.*}}) {delta_softplus}
// CHECK-NOT: ssm.selective_update
// CHECK: return {{.*}} : tensor<16x64xf32>, tensor<128x3xf32>, tensor<128x16xf32>

// Decode: one token, the same states and weights, the state-update form.
// CHECK-LABEL: func.func @forward_step(
// CHECK-SAME: %arg0: tensor<1xi32> {ssm.name = "tokens"}
// CHECK-SAME: %arg1: tensor<128x3xf32> {ssm.state = "layers.0.conv_state"}
// CHECK-SAME: %arg27: tensor<256x64xf32> {ssm.param = "lm_head.weight"})
// CHECK-SAME: -> (tensor<1x256xf32> {ssm.name = "logits"}
// CHECK: call @block_step(
// CHECK: call @block_step(
// CHECK: return {{.*}} : tensor<1x256xf32>, tensor<128x3xf32>, tensor<128x16xf32>, tensor<128x3xf32>, tensor<128x16xf32>
// CHECK-LABEL: func.func private @block_step(
// CHECK: ssm.causal_conv1d silu {{.*}} : (tensor<1x128x1xf32>, tensor<128x4xf32>, tensor<128xf32>, tensor<1x128x3xf32>) -> (tensor<1x128x1xf32>, tensor<1x128x3xf32>)
// CHECK: ssm.selective_update {{.*}} D(%arg11) z(%{{.*}}) dt_bias(%arg9) {dt_softplus} : (tensor<1x128x16xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<128x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<128xf32>, tensor<1x128xf32>, tensor<128xf32>) -> (tensor<1x128xf32>, tensor<1x128x16xf32>)
// CHECK-NOT: ssm.selective_scan
// CHECK: return {{.*}} : tensor<1x64xf32>, tensor<128x3xf32>, tensor<128x16xf32>

// JSON-DAG: "format": "ssm-opt-model"
// JSON-DAG: "version": 1
// JSON-DAG: "architecture": "mamba1"
// JSON-DAG: "byte_tokens": true
// JSON-DAG: "vocab_size": 256
// JSON-DAG: "hidden_size": 64
// JSON-DAG: "state_size": 16
// JSON-DAG: "num_hidden_layers": 2
// JSON-DAG: "time_step_rank": 4
// JSON-DAG: "tie_word_embeddings": false
// JSON-DAG: "name": "layers.0.conv_state"
// JSON-DAG: "name": "layers.1.ssm_state"
