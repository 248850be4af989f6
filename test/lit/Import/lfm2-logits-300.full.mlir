// The compiled-kernel part of Import/lfm2-logits.mlir at 300 tokens: label
// full (ctest lit.full), as it compiles the long call; the compiled runs at 40
// tokens stay in the quick suite.
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
// RAW: ssm.causal_conv1d identity
// RAW: ssm.rope neox {{.*}} {theta = 1000000.0 : f64, rotary_dim = 16 : i64}
// RAW: ssm.attention {{.*}} {scale = 0.25 : f64}

// CHECK: shape=(40, 256) max_abs_diff={{.*}} PASS

// 300 tokens: one sequence call, and 150 prefilled then 150 steps.
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens_300.npy --mode sequence --engine cpu --all-logits-out %t/cpu-seq300.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-seq300.npy %{m}/expected_logits_300.npy 1e-4 | FileCheck %s --check-prefix=L300
// L300: shape=(300, 256) max_abs_diff={{.*}} PASS
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens_300.npy --mode step --decode-from 150 --engine cpu --all-logits-out %t/cpu-dec150.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-dec150.npy %{m}/expected_logits_300.npy 1e-4 tail | FileCheck %s --check-prefix=TAIL
// TAIL: shape=(150, 256) max_abs_diff={{.*}} PASS

// Past the KV capacity: a named error, exit 2, nothing written.
// FULL: 300 tokens at position 0 would pass the 200 positions cache state 'layers.2.k_cache' holds
// FULL: exit=2

// The memory report: fixed conv windows beside the KV caches' bytes per position.
// MEM: conv_state 4 fixed 512 B per layer, 2.0 KiB
// MEM: k_cache 2 cache 128 B per position per layer, 256 B per position
// MEM: 1000 2.0 KiB 500.0 KiB 502.0 KiB (past the context of 320)
// MEM: allocated per stream: 162.0 KiB (the KV caches at their capacity of 320 positions
