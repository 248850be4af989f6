// (Its long part, label full: falcon-h1-logits-b.full.mlir.)
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
// RUN: python3 %S/Inputs/make_falcon_h1.py %t/a
// RUN: python3 %S/Inputs/make_falcon_h1.py %t/b --rms-norm --tied --groups 2 --layers 3 --dt-limit 0.01 5 --tokens 100 --seed 3
// RUN: ssm-import %t/a -o %t/ma --context 64 | FileCheck %s --check-prefix=IMPORT
// IMPORT: falcon_h1, 2 layers (Mamba-2 and attention in each), context 64, F32 -> F32
// RUN: FileCheck %s --check-prefix=RAW < %t/ma/model.mlir
// RAW: ssm.rope neox {{.*}} {theta = 10000.0 : f64, rotary_dim = 12 : i64}
// RAW: ssm.attention {{.*}} {scale = 0.23094010767585033 : f64}

// RUN: ssm-run %t/ma --tokens %t/a/tokens.npy --mode sequence --engine reference --all-logits-out %t/a-ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-ref-seq.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/ma --tokens %t/a/tokens.npy --mode step --engine reference --all-logits-out %t/a-ref-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-ref-step.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/ma --tokens %t/a/tokens.npy --mode sequence --engine cpu --all-logits-out %t/a-cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-cpu-seq.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/ma --tokens %t/a/tokens.npy --mode step --engine cpu --all-logits-out %t/a-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/a-cpu-step.npy %t/a/expected_logits.npy 1e-4 | FileCheck %s
// CHECK: shape=(40, 96) max_abs_diff={{.*}} PASS

// RUN: ssm-import %t/b -o %t/mb --context 128 --batch 4
// RUN: ssm-run %t/mb --tokens %t/b/tokens.npy --mode sequence --engine reference --all-logits-out %t/b-ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-ref-seq.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// B: shape=(100, 96) max_abs_diff={{.*}} PASS
// TAIL: shape=(40, 96) max_abs_diff={{.*}} PASS
// RUN: FileCheck %s --check-prefix=BATCHED < %t/mb/model.mlir
// BATCHED: func.func @forward_step_batched

// Refused configs: the field named, exit 2, no output folder.
// DEFINE: %{edit} = python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c.update(json.loads(sys.argv[2])); json.dump(c, open(sys.argv[1],'w'))"
// RUN: rm -rf %t/bad && mkdir %t/bad && cp %t/a/model.safetensors %t/a/config.json %t/bad/
// RUN: %{edit} %t/bad/config.json '{"ssm_multipliers": [1, 2, 3]}'
// RUN: sh -c 'ssm-import %t/bad -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MUP
// MUP: field 'ssm_multipliers' must be a list of 5 numbers, got [1,2,3]
// MUP: exit=2
// RUN: test ! -e %t/bad-out
// RUN: cp %t/a/config.json %t/bad/ && %{edit} %t/bad/config.json '{"mamba_d_head": 6}'
// RUN: sh -c 'ssm-import %t/bad -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DHEAD
// DHEAD: mamba_n_heads x mamba_d_head = 24 is not the Mamba width 32
// DHEAD: exit=2
// RUN: cp %t/a/config.json %t/bad/ && %{edit} %t/bad/config.json '{"rope_scaling": {"type": "linear", "factor": 2.0}}'
// RUN: sh -c 'ssm-import %t/bad -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ROPE
// ROPE: rope_scaling {{.*}} is not supported
// ROPE: exit=2
// RUN: cp %t/a/config.json %t/bad/ && %{edit} %t/bad/config.json '{"model_type": 7}'
// RUN: sh -c 'ssm-import %t/bad -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: config.json: no model_type string
// TYPE: exit=2
// RUN: test ! -e %t/bad-out

// The memory report: every layer holds both kinds of state.
// RUN: ssm-run %t/ma --memory | FileCheck %s --check-prefix=MEM
// MEM: conv_state 2 fixed
// MEM: ssm_state 2 fixed
// MEM: k_cache 2 cache 96 B per position per layer
