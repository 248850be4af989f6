// The compiled-kernel runs of Import/qwen35-synthetic.mlir's model c (dense
// Qwen3-Next's fused projections, ratio 1, dk 16 / dv 8): label full (ctest
// lit.full), as it compiles a model of its own; c on the reference and b, d on
// both engines stay in the quick suite.
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
// RUN: %numpy_python %S/Inputs/make_qwen35.py %t/c --layout qwen3_next --interval 2 --layers 4 --nk 2 --nv 2 --dk 16 --dv 8 --heads 2 --kv-heads 2 --head-dim 16 --rotary-factor 0.25 --seed 6

// IMPORTB: qwen35, 4 layers (3 gated delta net, 1 attention), context 128, F32 -> F32
// RAWB: ssm.gated_delta_rule {{.*}} {scale = 0.35355339059327373 : f64} : (tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>, tensor<1x16x3x12xf32>
// RAWB: ssm.rope neox {{.*}} rotary_dim = 4 : i64}
// RAWB: func.func @forward_step_batched
// RAWB: ssm.gated_delta_rule {{.*}} : (tensor<4x1x1x8xf32>, tensor<4x1x1x8xf32>, tensor<4x1x3x12xf32>, tensor<4x1x3xf32>, tensor<4x1x3xf32>, tensor<4x3x8x12xf32>)
// B: shape=(100, 96) max_abs_diff={{.*}} PASS
// TAIL: shape=(40, 96) max_abs_diff={{.*}} PASS

// RUN: ssm-import %t/c -o %t/mc --context 64 | FileCheck %s --check-prefix=IMPORTC
// IMPORTC: qwen3_next, 4 layers (2 gated delta net, 2 attention), context 64, F32 -> F32
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mc --tokens %t/c/tokens.npy --mode sequence --engine cpu --all-logits-out %t/c-cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/c-cpu-seq.npy %t/c/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=C
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/mc --tokens %t/c/tokens.npy --mode step --engine cpu --all-logits-out %t/c-cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/c-cpu-step.npy %t/c/expected_logits.npy 1e-4 | FileCheck %s --check-prefix=C
// C: shape=(40, 96) max_abs_diff={{.*}} PASS

// IMPORTD: qwen35, 4 layers (3 gated delta net, 1 attention), context 128, F32 -> F32

// Refused configs: the field named, exit 2, no output folder.
// DEFINE: %{edit} = python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c.update(json.loads(sys.argv[2])); json.dump(c, open(sys.argv[1],'w'))"
// EXPERTS: num_experts is 8: layer 0 would be a mixture-of-experts MLP, which is not supported yet
// EXPERTS: exit=2
// MOE: model_type 'qwen3_5_moe_text' is a mixture-of-experts model, which is not supported yet
// MOE: exit=2
// RATIO: linear_num_value_heads 3 is not a multiple of linear_num_key_heads 2
// RATIO: exit=2
// YARN: rope_scaling has rope_type 'yarn': only the default rotary embedding
// YARN: exit=2
// TYPES: layer_types[1] is 'sliding_attention' (known: linear_attention, full_attention)
// TYPES: exit=2
// NESTED: text_config: {{.*}}linear_conv_kernel_dim
// NESTED: exit=2
