// (Its long part, label full: qwen35-synthetic-next.full.mlir.)
// Qwen3.5 and dense Qwen3-Next from synthetic checkpoints of other shapes
// than ../shared's, whose expected logits come from a float64 token-by-token
// implementation of transformers' semantics written in the test's own terms
// (Inputs/make_qwen35.py). Within 1e-4 in the sequence and step forms, on the
// reference interpreter and compiled CPU kernels:
//   b: qwen3_5_text, pattern LFLL (layer_types), 1 key head serving 3 value
//      heads, dk 8 != dv 12, 4 query heads on 1 KV head of 8 with half of it
//      rotated, untied head, 100 tokens (chunks of 64 and a remainder), the
//      last 40 decoded from position 60; a batched step (4 streams) is written;
//   c: qwen3_next's fused in_proj_qkvz / in_proj_ba (grouped per key head),
//      full_attention_interval 2, 2 key heads = 2 value heads (ratio 1),
//      dk 16, dv 8, rope_theta / partial_rotary_factor at the top;
//   d: b's numbers as Qwen3_5ForConditionalGeneration (model_type qwen3_5, a
//      text_config, weights under model.language_model., vision and MTP
//      tensors ignored): b's logits.
// Mixture-of-experts configs and bad fields are refused naming the field,
// nothing written.
// REQUIRES: ssm-run, numpy

// RUN: rm -rf %t && mkdir -p %t
// RUN: %numpy_python %S/Inputs/make_qwen35.py %t/b --untied --tokens 100 --seed 5
// RUN: %numpy_python %S/Inputs/make_qwen35.py %t/c --layout qwen3_next --interval 2 --layers 4 --nk 2 --nv 2 --dk 16 --dv 8 --heads 2 --kv-heads 2 --head-dim 16 --rotary-factor 0.25 --seed 6
// RUN: %numpy_python %S/Inputs/make_qwen35.py %t/d --layout qwen3_5 --untied --tokens 100 --seed 5

// RUN: ssm-import %t/b -o %t/mb --context 128 --batch 4 | FileCheck %s --check-prefix=IMPORTB
// IMPORTB: qwen35, 4 layers (3 gated delta net, 1 attention), context 128, F32 -> F32
// RUN: FileCheck %s --check-prefix=RAWB < %t/mb/model.mlir
// RAWB: ssm.gated_delta_rule {{.*}} {scale = 0.35355339059327373 : f64} : (tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>, tensor<1x16x3x12xf32>
// RAWB: ssm.rope neox {{.*}} rotary_dim = 4 : i64}
// RAWB: func.func @forward_step_batched
// RAWB: ssm.gated_delta_rule {{.*}} : (tensor<4x1x1x8xf32>, tensor<4x1x1x8xf32>, tensor<4x1x3x12xf32>, tensor<4x1x3xf32>, tensor<4x1x3xf32>, tensor<4x3x8x12xf32>)
// RUN: ssm-run %t/mb --tokens %t/b/tokens.npy --mode sequence --engine reference --all-logits-out %t/b-ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-ref-seq.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// RUN: ssm-run %t/mb --tokens %t/b/tokens.npy --mode step --engine reference --all-logits-out %t/b-ref-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-ref-step.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mb --tokens %t/b/tokens.npy --mode sequence --engine cpu --all-logits-out %t/b-cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-cpu-seq.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mb --tokens %t/b/tokens.npy --mode step --engine cpu --all-logits-out %t/b-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-cpu-step.npy %t/b/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// B: shape=(100, 96) max_abs_diff={{.*}} PASS
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mb --tokens %t/b/tokens.npy --mode step --decode-from 60 --engine cpu --all-logits-out %t/b-dec60.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/b-dec60.npy %t/b/expected_logits.npy 1e-4 tail | FileCheck %s --check-prefix=TAIL
// TAIL: shape=(40, 96) max_abs_diff={{.*}} PASS

// RUN: ssm-import %t/c -o %t/mc --context 64 | FileCheck %s --check-prefix=IMPORTC
// IMPORTC: qwen3_next, 4 layers (2 gated delta net, 2 attention), context 64, F32 -> F32
// RUN: ssm-run %t/mc --tokens %t/c/tokens.npy --mode sequence --engine reference --all-logits-out %t/c-ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/c-ref-seq.npy %t/c/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=C
// RUN: ssm-run %t/mc --tokens %t/c/tokens.npy --mode step --engine reference --all-logits-out %t/c-ref-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/c-ref-step.npy %t/c/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=C
// C: shape=(40, 96) max_abs_diff={{.*}} PASS

// RUN: cmp %t/b/expected_logits.npy %t/d/expected_logits.npy
// RUN: ssm-import %t/d -o %t/md --context 128 | FileCheck %s --check-prefix=IMPORTD
// IMPORTD: qwen35, 4 layers (3 gated delta net, 1 attention), context 128, F32 -> F32
// RUN: ssm-run %t/md --tokens %t/d/tokens.npy --mode sequence --engine reference --all-logits-out %t/d-ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/d-ref-seq.npy %t/d/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/md --tokens %t/d/tokens.npy --mode step --engine cpu --all-logits-out %t/d-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/d-cpu-step.npy %t/d/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=B

// Refused configs: the field named, exit 2, no output folder.
// DEFINE: %{edit} = python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c.update(json.loads(sys.argv[2])); json.dump(c, open(sys.argv[1],'w'))"
// RUN: rm -rf %t/bad && mkdir %t/bad && cp %t/c/model.safetensors %t/c/config.json %t/bad/
// RUN: %{edit} %t/bad/config.json '{"num_experts": 8}'
// RUN: sh -c 'ssm-import %t/bad -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EXPERTS
// EXPERTS: num_experts is 8: layer 0 would be a mixture-of-experts MLP, which is not supported yet
// EXPERTS: exit=2
// RUN: test ! -e %t/bad-out
// RUN: cp %t/c/config.json %t/bad/ && %{edit} %t/bad/config.json '{"model_type": "qwen3_5_moe_text"}'
// RUN: sh -c 'ssm-import %t/bad -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MOE
// MOE: model_type 'qwen3_5_moe_text' is a mixture-of-experts model, which is not supported yet
// MOE: exit=2
// RUN: cp %t/c/config.json %t/bad/ && %{edit} %t/bad/config.json '{"linear_num_value_heads": 3}'
// RUN: sh -c 'ssm-import %t/bad -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=RATIO
// RATIO: linear_num_value_heads 3 is not a multiple of linear_num_key_heads 2
// RATIO: exit=2
// RUN: cp %t/c/config.json %t/bad/ && %{edit} %t/bad/config.json '{"rope_scaling": {"rope_type": "yarn", "factor": 4}}'
// RUN: sh -c 'ssm-import %t/bad -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=YARN
// YARN: rope_scaling has rope_type 'yarn': only the default rotary embedding
// YARN: exit=2
// RUN: cp %t/c/config.json %t/bad/ && %{edit} %t/bad/config.json '{"layer_types": ["linear_attention", "sliding_attention", "linear_attention", "full_attention"]}'
// RUN: sh -c 'ssm-import %t/bad -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TYPES
// TYPES: layer_types[1] is 'sliding_attention' (known: linear_attention, full_attention)
// TYPES: exit=2
// RUN: rm -rf %t/bad2 && mkdir %t/bad2 && cp %t/d/model.safetensors %t/d/config.json %t/bad2/
// RUN: python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c['text_config']['linear_conv_kernel_dim'] = 7; json.dump(c, open(sys.argv[1],'w'))" %t/bad2/config.json
// RUN: sh -c 'ssm-import %t/bad2 -o %t/bad-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: text_config: {{.*}}linear_conv_kernel_dim
// NESTED: exit=2
// RUN: test ! -e %t/bad-out
