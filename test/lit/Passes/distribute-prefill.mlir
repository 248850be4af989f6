// ssm-distribute-prefill on the tiny Mamba-1 and Mamba-2 of ../shared: the
// per-layer functions (dist_embed, dist_layer<i> with the summaries,
// dist_layer_plain<i>, dist_step<i>, dist_head), the homogeneous clone of
// the scan (zero input, all-ones initial state) whose final state is the
// summary, the halo rows (conv width 4 - 1), the forward functions removed;
// RWKV-4, -6, -7: each block cut in two layers (time mix with its scan's
// summary, channel mix with none), the summary kinds (wkv4's log decay, the
// transposed RWKV-6 state, RWKV-7's matrix from an identity state), the token
// shift's halo of 1 row (also at one token, where nothing is concatenated),
// RWKV-7's v_first as a carry; attention refused naming why (the gated delta
// rule: distribute-prefill-refusals.mlir). The distributed runs themselves
// are ctest label mpi (test/distributed/).
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors -o %t/m1 --seq-len 8
// RUN: ssm-opt --ssm-distribute-prefill %t/m1/model.mlir | FileCheck %s --check-prefix=M1
// RUN: ssm-import %shared/models/mamba2/tiny-mamba2-g1-untied -o %t/m2 --seq-len 8
// RUN: ssm-opt --ssm-distribute-prefill %t/m2/model.mlir | FileCheck %s --check-prefix=M2
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/r4 --seq-len 4
// RUN: ssm-opt --ssm-distribute-prefill %t/r4/model.mlir | FileCheck %s --check-prefix=R4
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/r4one --seq-len 1
// RUN: ssm-opt --ssm-distribute-prefill %t/r4one/model.mlir | FileCheck %s --check-prefix=R4ONE
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin -o %t/r6 --seq-len 4
// RUN: ssm-opt --ssm-distribute-prefill %t/r6/model.mlir | FileCheck %s --check-prefix=R6
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin -o %t/r7 --seq-len 4
// RUN: ssm-opt --ssm-distribute-prefill %t/r7/model.mlir | FileCheck %s --check-prefix=R7
// RUN: ssm-import %shared/models/granite-hybrid/tiny-granite-h-a -o %t/gh --seq-len 4
// RUN: not ssm-opt --ssm-distribute-prefill %t/gh/model.mlir 2>&1 | FileCheck %s --check-prefix=ATTN

// M1-NOT: func.func @forward_sequence
// M1-LABEL: func.func private @block_sequence_summary
// M1: %[[Y:.*]], %[[H:.*]] = ssm.selective_scan
// M1: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8x128xf32>)
// M1: %[[ONE:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x128x16xf32>)
// M1: %[[YT:.*]], %[[T:.*]] = ssm.selective_scan time_major %[[Z]], {{.*}} h0(%[[ONE]])
// M1: %[[TS:.*]] = tensor.collapse_shape %[[T]]
// M1: return {{.*}}, %[[TS]], %[[YT]] :
// M1-LABEL: func.func @dist_embed(%{{.*}}: tensor<8xi32> {ssm.name = "tokens"}
// M1-LABEL: func.func @dist_layer0(
// M1-SAME: {ssm.state = "layers.0.conv_state"}
// M1-SAME: {ssm.name = "summary.layers.0.ssm_state"}
// M1-SAME: ssm.halo_rows = 3
// M1-NEXT: call @block_sequence_summary
// M1-LABEL: func.func @dist_layer_plain0(
// M1-NEXT: call @block_sequence(
// M1: func.func @dist_layer1(
// M1: func.func @dist_step0(%{{.*}}: tensor<1x64xf32> {ssm.name = "h"}
// M1: func.func @dist_head(%{{.*}}: tensor<8x64xf32> {ssm.name = "h"}
// M1-SAME: -> (tensor<1x256xf32> {ssm.name = "logits"})

// M2: ssm.ssd_scan
// M2: %[[ONE:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x8x16x16xf32>)
// M2: ssm.ssd_scan {{.*}} initial_state(%[[ONE]])
// M2: func.func @dist_layer0(
// M2-SAME: {ssm.name = "summary.layers.0.ssm_state"}
// M2-SAME: ssm.halo_rows = 3

// R4-LABEL: func.func private @block_sequence_a_summary
// R4: ssm.wkv4
// R4: arith.constant -1.000000e+30 : f32
// R4: %{{.*}}, %{{.*}}, %{{.*}}, %[[PP:.*]] = ssm.wkv4 %{{.*}}, %{{.*}}, %{{[0-9]+}}, %{{[0-9]+}} state(
// R4: %[[T1:.*]] = tensor.collapse_shape %[[PP]]
// R4: %[[T2:.*]] = tensor.collapse_shape %[[PP]]
// R4: %[[T3:.*]] = tensor.collapse_shape %[[PP]]
// R4: return {{.*}}, %[[T1]], %[[T2]], %[[T3]], %{{.*}} :
// R4-LABEL: func.func @dist_layer0(
// R4-SAME: {ssm.state = "blocks.0.att_xx"}
// R4-NOT: blocks.0.ffn_xx
// R4-SAME: {ssm.name = "summary_wkv4aa.blocks.0.aa"}, {{.*}} {ssm.name = "summary_wkv4bb.blocks.0.bb"}, {{.*}} {ssm.name = "summary_wkv4pp.blocks.0.pp"}
// R4-SAME: ssm.halo_rows = 1
// R4-LABEL: func.func @dist_layer1(
// R4-SAME: {ssm.state = "blocks.0.ffn_xx"}
// R4-NOT: summary
// R4-SAME: ssm.halo_rows = 1
// R4-NEXT: call @block_sequence_b_summary
// R4: func.func @dist_layer7(
// R4: func.func @dist_step7(%{{.*}}: tensor<1x128xf32> {ssm.name = "h"}, %{{.*}} {ssm.state = "blocks.3.ffn_xx"}

// R4ONE: func.func @dist_layer0(
// R4ONE-SAME: ssm.halo_rows = 1
// R4ONE: func.func @dist_layer1(
// R4ONE-SAME: ssm.halo_rows = 1

// R6: %{{.*}}, %[[S:.*]] = ssm.ssd_scan {{.*}} bonus(
// R6: %[[ONE:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x32x32xf32>)
// R6: %{{.*}}, %[[T:.*]] = ssm.ssd_scan {{.*}} initial_state(%[[ONE]]) bonus(
// R6: linalg.generic {{.*}} ins(%[[T]] : tensor<1x2x32x32xf32>) outs(%{{.*}} : tensor<2x32x32xf32>)
// R6: func.func @dist_layer0(
// R6-SAME: {ssm.name = "summary.blocks.0.att_state"}
// R6: func.func @dist_layer3(

// R7: func.func private @block0_sequence_a_summary
// R7: linalg.index 2
// R7: linalg.index 3
// R7: arith.cmpi eq
// R7: ssm.wkv7 {{.*}} initial_state(
// R7: func.func @dist_layer0(
// R7-SAME: {ssm.name = "carry0_3"}
// R7-SAME: {ssm.name = "summary_matrix.blocks.0.att_state"}
// R7: func.func @dist_layer2(%{{.*}}: tensor<4x64xf32> {ssm.name = "h"}, %{{.*}}: tensor<4x64xf32> {ssm.name = "carry0_3"}
// R7-SAME: {ssm.name = "summary_matrix.blocks.1.att_state"}
// R7: func.func @dist_step2(%{{.*}}: tensor<1x64xf32> {ssm.name = "h"}, %{{.*}}: tensor<1x64xf32> {ssm.name = "carry0_3"}
// ATTN: error: ssm-distribute-prefill: attention layers keep a KV cache
