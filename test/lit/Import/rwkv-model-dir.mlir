// The model directory ssm-import writes (the contract the model runner reads):
// model.json (format, architecture, config, states with shapes and initial
// values, parameters), weights.safetensors (every tensor of the file as F32
// with its row-major PyTorch shape, keyed by the rwkv.cpp name) and
// model.mlir (@forward_sequence and @forward_step; it verifies).
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP16.bin -o %t/m4 --seq-len 5
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP16.bin -o %t/m4all --seq-len 5 --all-logits
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-5v2-730K-FP32.bin -o %t/m5

// RUN: FileCheck %s --check-prefix=JSON4 < %t/m4/model.json
// JSON4:      "format": "ssm-opt-model",
// JSON4-NEXT: "version": 1,
// JSON4-NEXT: "architecture": "rwkv4",
// JSON4-NEXT: "config": {
// JSON4-NEXT:   "n_vocab": 256,
// JSON4-NEXT:   "n_embed": 128,
// JSON4-NEXT:   "n_layer": 4,
// JSON4-NEXT:   "heads": 0,
// JSON4-NEXT:   "head_size": 0,
// JSON4-NEXT:   "ffn_dim": 256,
// JSON4:        "data_type": "FP16",
// JSON4:      "byte_tokens": true,
// JSON4:      "source": "{{.*}}tiny-rwkv-4v0-660K-FP16.bin",
// JSON4:      "states": [
// JSON4:          "name": "blocks.0.ffn_xx",
// JSON4:          "init": 0.0
// JSON4:          "name": "blocks.0.att_xx",
// JSON4:          "name": "blocks.0.aa",
// JSON4:          "name": "blocks.0.bb",
// JSON4:          "name": "blocks.0.pp",
// JSON4-NEXT:     "shape": [
// JSON4-NEXT:       128
// JSON4-NEXT:     ],
// JSON4-NEXT:     "init": -1e+30
// JSON4:          "name": "blocks.3.pp",
// JSON4:      "params": [
// JSON4:          "name": "emb.weight",
// JSON4-NEXT:     "shape": [
// JSON4-NEXT:       256,
// JSON4-NEXT:       128
// JSON4:          "name": "head.weight",

// RUN: FileCheck %s --check-prefix=JSON5 < %t/m5/model.json
// JSON5: "architecture": "rwkv5.2",
// JSON5: "heads": 8,
// JSON5: "head_size": 8,
// JSON5: "group_norm_eps": 1e-05
// JSON5: "name": "blocks.0.att_state",
// JSON5-NEXT: "shape": [
// JSON5-NEXT:   8,
// JSON5-NEXT:   8,
// JSON5-NEXT:   8
// JSON5-NEXT: ],
// JSON5-NEXT: "init": 0.0,
// JSON5-NEXT: "layout": "[head][key i][value j], as rwkv.cpp"
// JSON5: "name": "blocks.11.att_state",

// RUN: python3 %S/Inputs/st_header.py %t/m4/weights.safetensors | FileCheck %s --check-prefix=ST4
// ST4: emb.weight F16 [256, 128]
// ST4: blocks.0.att.time_decay F32 [128]
// ST4: blocks.0.ffn.key.weight F16 [256, 128]
// ST4: blocks.0.ffn.value.weight F16 [128, 256]
// ST4: head.weight F16 [256, 128]
// ST4: meta architecture rwkv4
// ST4: meta format pt
// ST4: meta source tiny-rwkv-4v0-660K-FP16.bin
// ST4: meta source_dtype FP16
// ST4: meta weight_storage source
// ST4: data_bytes=1335296 ok
// RUN: python3 %S/Inputs/st_header.py %t/m5/weights.safetensors | FileCheck %s --check-prefix=ST5
// ST5: blocks.0.att.time_decay F32 [8, 8, 1]
// ST5: blocks.0.att.time_faaaa F32 [8, 8, 1]
// ST5: blocks.0.att.gate.weight F32 [64, 64]

// RUN: ssm-opt %t/m4/model.mlir | FileCheck %s --check-prefix=MLIR4
// MLIR4: func.func @forward_sequence(%arg0: tensor<5xi32> {ssm.name = "tokens"}, %arg1: tensor<128xf32> {ssm.state = "blocks.0.ffn_xx"}, %arg2: tensor<128xf32> {ssm.state = "blocks.0.att_xx"}, %arg3: tensor<128xf32> {ssm.state = "blocks.0.aa"}
// MLIR4-SAME: %arg21: tensor<256x128xf16> {ssm.param = "emb.weight"}
// MLIR4-SAME: -> (tensor<1x256xf32> {ssm.name = "logits"}, tensor<128xf32> {ssm.state = "blocks.0.ffn_xx"}
// Only the last position goes through ln_out and the head.
// MLIR4: tensor.extract_slice {{.*}}[4, 0] [1, 128] [1, 1] : tensor<5x128xf32> to tensor<1x128xf32>
// MLIR4: ssm.wkv4
// MLIR4: func.func @forward_step(%arg0: tensor<1xi32> {ssm.name = "tokens"}
// MLIR4-SAME: -> (tensor<1x256xf32> {ssm.name = "logits"}
// MLIR4-NOT: ssm.wkv4
// --all-logits: every position's logits from @forward_sequence.
// RUN: ssm-opt %t/m4all/model.mlir | FileCheck %s --check-prefix=ALL4
// ALL4: func.func @forward_sequence(
// ALL4-SAME: -> (tensor<5x256xf32> {ssm.name = "logits"}
// RUN: ssm-opt %t/m5/model.mlir | FileCheck %s --check-prefix=MLIR5
// MLIR5: func.func @forward_sequence(%arg0: tensor<16xi32> {ssm.name = "tokens"}
// MLIR5-SAME: tensor<8x8x8xf32> {ssm.state = "blocks.0.att_state"}
// MLIR5: ssm.ssd_scan {{.*}} bonus
// MLIR5: func.func @forward_step(
// MLIR5-NOT: ssm.ssd_scan
