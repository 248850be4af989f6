// (Its long part, label full: qwen35-logits-300.full.mlir.)
// The tiny Qwen3.5 checkpoint in ../shared (transformers' Qwen3_5ForCausalLM,
// model_type qwen3_5_text: three Gated DeltaNet layers and one gated GQA
// attention layer with q/k norms and partial NeoX RoPE, zero-centred RMSNorms,
// SwiGLU, tied head) reproduces its expected logits (a float64 NumPy
// implementation of transformers' semantics, token by token, agreeing with
// llama.cpp within 7e-5; see its README) at every position within 1e-4: in the
// sequence form and the step
// form, on the reference interpreter and on compiled CPU kernels, for 40
// tokens and for 300 (also the second half decoded from position 150 after a
// 150-token prefill).
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{m} = %shared/models/qwen35/tiny-qwen35-a
// RUN: ssm-import %{m} -o %t/model --context 320 | FileCheck %s --check-prefix=IMPORT
// IMPORT: qwen35, 4 layers (3 gated delta net, 1 attention), context 320, F32 -> F32
// RUN: FileCheck %s --check-prefix=JSON < %t/model/model.json
// JSON: "architecture": "qwen35"
// JSON: "context_length": 320
// JSON: "name": "layers.0.conv_state"
// JSON-NEXT: "shape": [
// JSON-NEXT: 128,
// JSON-NEXT: 3
// JSON: "name": "layers.0.recurrent_state"
// JSON-NEXT: "shape": [
// JSON-NEXT: 4,
// JSON-NEXT: 16,
// JSON-NEXT: 16
// JSON: "kind": "cache",
// JSON-NEXT: "name": "layers.3.k_cache",
// RUN: FileCheck %s --check-prefix=RAW < %t/model/model.mlir
// RAW: ssm.causal_conv1d silu
// RAW: ssm.gated_delta_rule {{.*}} {scale = 0.25 : f64} : (tensor<1x16x2x16xf32>, tensor<1x16x2x16xf32>, tensor<1x16x4x16xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>, tensor<1x4x16x16xf32>)
// RAW: ssm.rope neox {{.*}} {theta = 10000000.0 : f64, rotary_dim = 4 : i64}
// RAW: ssm.attention {{.*}} {scale = 0.25 : f64}

// RUN: ssm-run %t/model --tokens %{m}/tokens.npy --mode sequence --engine reference --all-logits-out %t/ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref-seq.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/model --tokens %{m}/tokens.npy --mode step --engine reference --all-logits-out %t/ref-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref-step.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens.npy --mode sequence --engine cpu --all-logits-out %t/cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-seq.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens.npy --mode step --engine cpu --all-logits-out %t/cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-step.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// CHECK: shape=(40, 256) max_abs_diff={{.*}} PASS

// 300 tokens: one sequence call, 300 steps, and 150 prefilled then 150 steps.
// RUN: ssm-run %t/model --tokens %{m}/tokens_300.npy --mode sequence --engine reference --all-logits-out %t/ref-seq300.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref-seq300.npy %{m}/expected_logits_300.npy 1e-4 | FileCheck %s --check-prefix=L300
// RUN: ssm-run %t/model --tokens %{m}/tokens_300.npy --mode step --engine reference --all-logits-out %t/ref-step300.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref-step300.npy %{m}/expected_logits_300.npy 1e-4 | FileCheck %s --check-prefix=L300
// L300: shape=(300, 256) max_abs_diff={{.*}} PASS
// TAIL: shape=(150, 256) max_abs_diff={{.*}} PASS

// The memory report: the conv windows and delta-rule states fixed, the one attention layer's cache per position.
// RUN: ssm-run %t/model --memory | FileCheck %s --check-prefix=MEM
// MEM: conv_state 3 fixed 1.5 KiB per layer, 4.5 KiB
// MEM: recurrent_state 3 fixed 4.0 KiB per layer, 12.0 KiB
// MEM: k_cache 1 cache 128 B per position per layer, 128 B per position
