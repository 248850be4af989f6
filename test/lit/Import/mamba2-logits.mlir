// The tiny Mamba-2 checkpoint in ../shared (transformers' Mamba2ForCausalLM
// layout, config.json with "time_step_limit": [0.0, Infinity]) reproduces
// its expected logits (a float64 step-by-step implementation of the
// mamba_ssm / transformers semantics, agreeing with llama.cpp within
// 1.3e-6; see its README) at every position within 1e-4, in the sequence
// form (chunked ssm.ssd_scan) and the step form (ssm.selective_update with
// heads), on the reference interpreter and on compiled CPU kernels.
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{m} = %shared/models/mamba2/tiny-mamba2-g1-untied
// RUN: ssm-import mamba %{m}/model.safetensors --config %{m}/config.json -o %t/model | FileCheck %s --check-prefix=IMPORT
// IMPORT: mamba2, transformers layout, F32 -> F32
// RUN: ssm-opt %t/model/model.mlir | FileCheck %s --check-prefix=GRAPH
// RUN: FileCheck %s --check-prefix=JSON < %t/model/model.json
// RUN: FileCheck %s --check-prefix=RAW < %t/model/model.mlir
// RAW: ssm.ssd_scan {{.*}} {chunk_size = 64 : i64}
// RUN: ssm-run %t/model --tokens %{m}/tokens.npy --mode sequence --engine reference --all-logits-out %t/ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref-seq.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/model --tokens %{m}/tokens.npy --mode step --engine reference --all-logits-out %t/ref-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref-step.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens.npy --mode sequence --engine cpu --all-logits-out %t/cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-seq.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens.npy --mode step --engine cpu --all-logits-out %t/cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-step.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// CHECK: shape=(40, 256) max_abs_diff={{.*}} PASS

// Without --all-logits-out the sequence graph computes the head for the last
// position only (its logits(1, vocab)); they are the expected last row.
// RUN: ssm-run %t/model --tokens %{m}/tokens.npy --engine reference --logits-out %t/ref-last.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref-last.npy %{m}/expected_logits.npy 1e-4 last | FileCheck %s --check-prefix=LAST
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens.npy --engine cpu --logits-out %t/cpu-last.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-last.npy %{m}/expected_logits.npy 1e-4 last | FileCheck %s --check-prefix=LAST
// LAST: shape=(256) max_abs_diff={{.*}} PASS

// GRAPH-LABEL: func.func @forward_sequence(
// GRAPH-SAME: {ssm.state = "layers.0.conv_state"}
// GRAPH-SAME: tensor<8x16x16xf32> {ssm.state = "layers.0.ssm_state"}
// GRAPH-SAME: {ssm.param = "backbone.embedding.weight"}
// GRAPH-SAME: tensor<296x64xf32> {ssm.param = "backbone.layers.0.mixer.in_proj.weight"}
// GRAPH-SAME: {ssm.param = "lm_head.weight"}
// GRAPH: call @block_sequence(
// GRAPH: call @block_sequence(
// GRAPH-LABEL: func.func private @block_sequence(
// GRAPH: ssm.causal_conv1d silu {{.*}} : (tensor<1x160x16xf32>, tensor<160x4xf32>, tensor<160xf32>, tensor<1x160x3xf32>)
// GRAPH: ssm.ssd_scan {{.*}} initial_state({{.*}}) : (tensor<1x16x8x16xf32>, tensor<1x16x8xf32>, tensor<1x16x1x16xf32>, tensor<1x16x1x16xf32>, tensor<1x8x16x16xf32>)
// GRAPH-NOT: ssm.selective_update
// GRAPH-LABEL: func.func @forward_step(
// GRAPH-LABEL: func.func private @block_step(
// GRAPH: ssm.selective_update {{.*}} : (tensor<1x8x16x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<8x16x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>, tensor<8x16xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x16x16xf32>)
// GRAPH-NOT: ssm.ssd_scan

// JSON-DAG: "architecture": "mamba2"
// JSON-DAG: "source_layout": "transformers"
// JSON-DAG: "num_heads": 8
// JSON-DAG: "n_groups": 1
// JSON-DAG: "Infinity"
