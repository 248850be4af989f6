// ssm-distribute-prefill on the tiny Mamba-1 and Mamba-2 of ../shared: the
// per-layer functions (dist_embed, dist_layer<i> with the summaries,
// dist_layer_plain<i>, dist_step<i>, dist_head), the homogeneous clone of
// the scan (zero input, all-ones initial state) whose final state is the
// summary, the halo rows (conv width 4 - 1), the forward functions removed;
// RWKV and attention refused naming why. The distributed runs themselves are
// ctest label mpi (test/distributed/).
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors -o %t/m1 --seq-len 8
// RUN: ssm-opt --ssm-distribute-prefill %t/m1/model.mlir | FileCheck %s --check-prefix=M1
// RUN: ssm-import %shared/models/mamba2/tiny-mamba2-g1-untied -o %t/m2 --seq-len 8
// RUN: ssm-opt --ssm-distribute-prefill %t/m2/model.mlir | FileCheck %s --check-prefix=M2
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin -o %t/r6 --seq-len 4
// RUN: not ssm-opt --ssm-distribute-prefill %t/r6/model.mlir 2>&1 | FileCheck %s --check-prefix=RWKV
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

// RWKV: error: ssm-distribute-prefill: RWKV blocks are not supported yet
// ATTN: error: ssm-distribute-prefill: attention layers keep a KV cache
