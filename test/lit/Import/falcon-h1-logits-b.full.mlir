// The compiled-kernel runs of Import/falcon-h1-logits.mlir's model b (the
// gated RMSNorm over 2 groups, 100 tokens, decoded from 60): label full (ctest
// lit.full), as it compiles a model of its own; b on the reference and a on both
// engines stay in the quick suite.
// Falcon-H1 (transformers' FalconH1ForCausalLM: Mamba-2 and GQA attention
// side by side in every layer, with Falcon's mup multipliers) from synthetic
// checkpoints whose expected logits come from a float64 token-by-token
// implementation of transformers' semantics written in the test's own terms
// (Inputs/make_falcon_h1.py, standard library only; no shared test model of
// this architecture exists). Within 1e-4 in the sequence and step forms, on
// the reference interpreter and compiled CPU kernels:
//   a: y silu(z) without the Mamba norm, head_dim (12) not hidden / heads,
//      every multiplier away from 1, untied head, time_step_limit [0, Infinity];
//   b: the gated RMSNorm over 2 groups (norm then gate), tied head, a finite
//      time-step limit, 3 layers, 100 tokens (several SSD chunks), the last
//      40 decoded from position 60; and a batched step (4 streams).
// Bad configs are refused naming the field, nothing written.
// REQUIRES: ssm-run

// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/make_falcon_h1.py %t/b --rms-norm --tied --groups 2 --layers 3 --dt-limit 0.01 5 --tokens 100 --seed 3
// IMPORT: falcon_h1, 2 layers (Mamba-2 and attention in each), context 64, F32 -> F32
// RAW: ssm.rope neox {{.*}} {theta = 10000.0 : f64, rotary_dim = 12 : i64}
// RAW: ssm.attention {{.*}} {scale = 0.23094010767585033 : f64}

// CHECK: shape=(40, 96) max_abs_diff={{.*}} PASS

// RUN: ssm-import %t/b -o %t/mb --context 128 --batch 4
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mb --tokens %t/b/tokens.npy --mode sequence --engine cpu --all-logits-out %t/b-cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-cpu-seq.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mb --tokens %t/b/tokens.npy --mode step --engine cpu --all-logits-out %t/b-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-cpu-step.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// B: shape=(100, 96) max_abs_diff={{.*}} PASS
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mb --tokens %t/b/tokens.npy --mode step --decode-from 60 --engine cpu --all-logits-out %t/b-dec60.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-dec60.npy %t/b/expected_logits.npy 1e-4 tail | FileCheck %s --check-prefix=TAIL
// TAIL: shape=(40, 96) max_abs_diff={{.*}} PASS
// BATCHED: func.func @forward_step_batched

// Refused configs: the field named, exit 2, no output folder.
// DEFINE: %{edit} = python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c.update(json.loads(sys.argv[2])); json.dump(c, open(sys.argv[1],'w'))"
// MUP: field 'ssm_multipliers' must be a list of 5 numbers, got [1,2,3]
// MUP: exit=2
// DHEAD: mamba_n_heads x mamba_d_head = 24 is not the Mamba width 32
// DHEAD: exit=2
// ROPE: rope_scaling {{.*}} is not supported
// ROPE: exit=2
// TYPE: config.json: no model_type string
// TYPE: exit=2

// The memory report: every layer holds both kinds of state.
// MEM: conv_state 2 fixed
// MEM: ssm_state 2 fixed
// MEM: k_cache 2 cache 96 B per position per layer
