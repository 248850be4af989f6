// (Its long part, label full: lfm2-logits-300.full.mlir.)
// The tiny LFM2 checkpoint in ../shared (transformers' Lfm2ForCausalLM:
// gated short convs and GQA attention with per-head q/k RMSNorm and NeoX
// RoPE, SwiGLU, tied head) reproduces its expected logits (a float64 NumPy
// implementation of transformers' semantics, token by token with a KV cache,
// agreeing with llama.cpp within 1.7e-5; see its README) at every position
// within 1e-4: in the sequence form and the step form, on the reference
// interpreter and on compiled CPU kernels, for 40 tokens and for 300 (the
// second half decoded from position 150 after a 150-token prefill).
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{m} = %shared/models/lfm2/tiny-lfm2-a
// RUN: ssm-import %{m} -o %t/model --context 320 | FileCheck %s --check-prefix=IMPORT
// IMPORT: lfm2, 6 layers (4 gated short conv, 2 attention), context 320, F32 -> F32
// RUN: FileCheck %s --check-prefix=JSON < %t/model/model.json
// JSON: "architecture": "lfm2"
// JSON: "context_length": 320
// JSON: "name": "layers.0.conv_state"
// JSON-NEXT: "shape": [
// JSON-NEXT: 64,
// JSON-NEXT: 2
// JSON: "axis": 0,
// JSON-NEXT: "init": 0.0,
// JSON-NEXT: "kind": "cache",
// JSON-NEXT: "name": "layers.2.k_cache",
// JSON-NEXT: "shape": [
// JSON-NEXT: 320,
// JSON-NEXT: 2,
// JSON-NEXT: 16
// RUN: FileCheck %s --check-prefix=RAW < %t/model/model.mlir
// RAW: ssm.causal_conv1d identity
// RAW: ssm.rope neox {{.*}} {theta = 1000000.0 : f64, rotary_dim = 16 : i64}
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

// 300 tokens: one sequence call, and 150 prefilled then 150 steps.
// L300: shape=(300, 256) max_abs_diff={{.*}} PASS
// TAIL: shape=(150, 256) max_abs_diff={{.*}} PASS

// Past the KV capacity: a named error, exit 2, nothing written.
// RUN: rm -rf %t/small && ssm-import %{m} -o %t/small --context 200
// RUN: sh -c 'ssm-run %t/small --tokens %{m}/tokens_300.npy --engine cpu --logits-out %t/none.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: 300 tokens at position 0 would pass the 200 positions cache state 'layers.2.k_cache' holds
// FULL: exit=2
// RUN: test ! -e %t/none.npy

// The memory report: fixed conv windows beside the KV caches' bytes per position.
// RUN: ssm-run %t/model --memory | FileCheck %s --check-prefix=MEM
// MEM: conv_state 4 fixed 512 B per layer, 2.0 KiB
// MEM: k_cache 2 cache 128 B per position per layer, 256 B per position
// MEM: 1000 2.0 KiB 500.0 KiB 502.0 KiB (past the context of 320)
// MEM: allocated per stream: 162.0 KiB (the KV caches at their capacity of 320 positions
