// ssm-import --prefill-batch B on the architectures built of Mamba-2 layers: Mamba-2
// itself, Granite 4.0-H (Mamba-2 and attention layers) and Falcon-H1 (Mamba-2 and
// attention side by side in each layer). @forward_sequence_batched runs the chunked
// SSD (ssm.ssd_scan) with a leading dim of B streams and the attention op with L rows
// per stream at its own position; on the reference interpreter each stream of one
// batched call equals a @forward_sequence call of that stream alone exactly (rtol 0,
// atol 0: seeded states, different tokens, for the hybrids different positions;
// Inputs/batched_sequence_check.py), and Mamba-2 also on compiled CPU kernels within
// 1e-6 + 1e-5 x the result's largest magnitude (the kernels sum B*L rows in another
// order). The Falcon-H1 checkpoint is synthetic (Inputs/make_falcon_h1.py).
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import mamba %shared/models/mamba2/tiny-mamba2-g1-untied/model.safetensors -o %t/m2 --seq-len 5 --prefill-batch 3 | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: prefill batch 3 (@forward_sequence_batched)
// RUN: FileCheck %s --check-prefix=SIG < %t/m2/model.mlir
// SIG:      func.func @forward_sequence_batched(%tokens: tensor<15xi32> {ssm.name = "tokens"},
// SIG-NEXT:     %s_layers_0_conv_state: tensor<3x160x3xf32> {ssm.state = "layers.0.conv_state"},
// SIG-NEXT:     %s_layers_0_ssm_state: tensor<3x8x16x16xf32> {ssm.state = "layers.0.ssm_state"},
// SIG:          -> (tensor<3x256xf32> {ssm.name = "logits"},
// SIG:      func.func private @block_sequence_batched(%h: tensor<15x64xf32>,
// SIG:        ssm.ssd_scan {{.*}} : (tensor<3x5x8x16xf32>, tensor<3x5x8xf32>, tensor<3x5x1x16xf32>, tensor<3x5x1x16xf32>, tensor<3x8x16x16xf32>) -> (tensor<3x5x8x16xf32>, tensor<3x8x16x16xf32>)
// RUN: ssm-opt %t/m2/model.mlir -o %t/m2-opt.mlir
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/m2 %t/m2-ref reference 0 0 | FileCheck %s --check-prefix=M2
// RUN: env SSM_CACHE_DIR=%cache python3 %S/Inputs/batched_sequence_check.py ssm-run %t/m2 %t/m2-cpu cpu | FileCheck %s --check-prefix=M2
// M2: result0 logits: batch 3
// M2: result4 layers.1.ssm_state: batch 3
// M2: PASS

// Granite 4.0-H: the Mamba-2 layers and the attention layer's KV caches.
// RUN: ssm-import %shared/models/granite-hybrid/tiny-granite-h-a -o %t/g --seq-len 4 --context 24 --prefill-batch 2 > /dev/null
// RUN: FileCheck %s --check-prefix=GSIG < %t/g/model.mlir
// GSIG:      func.func @forward_sequence_batched(%tokens: tensor<8xi32> {ssm.name = "tokens"},
// GSIG-NEXT:     %position: tensor<2xi32> {ssm.name = "position"},
// GSIG-DAG:  ssm.ssd_scan {{.*}} : (tensor<2x4x
// GSIG-DAG:  ssm.attention {{.*}} : (tensor<2x4x{{.*}}, tensor<2x24x{{.*}}, tensor<2xi32>) ->
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/g %t/g-ref reference 0 0 | FileCheck %s --check-prefix=HYB
// HYB: result0 logits: batch 2
// HYB: PASS

// Falcon-H1: both mixers in one layer (one block kind taking the position).
// RUN: python3 %S/Inputs/make_falcon_h1.py %t/fa --tokens 2
// RUN: ssm-import %t/fa -o %t/f --seq-len 3 --context 16 --prefill-batch 2 > /dev/null
// RUN: FileCheck %s --check-prefix=FSIG < %t/f/model.mlir
// FSIG:      func.func private @falcon_h1_block_sequence_batched(%h: tensor<6x32xf32>,
// FSIG-NEXT:     %position: tensor<2xi32>,
// RUN: python3 %S/Inputs/batched_sequence_check.py ssm-run %t/f %t/f-ref reference 0 0 | FileCheck %s --check-prefix=HYB
