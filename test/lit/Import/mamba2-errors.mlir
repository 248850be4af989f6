// ssm-import mamba on Mamba-2 input that is truncated, mislabelled or does
// not fit its config: exit 2 with a message naming the file and the tensor or
// field at fault, and nothing written. Uses the tiny Mamba-2 in ../shared.
// REQUIRES: shared-data

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{m} = %shared/models/mamba2/tiny-mamba2-g1-untied
// DEFINE: %{import} = sh -c 'ssm-import mamba $0 --config $1 -o %t/out; echo "exit=$?"'
// DEFINE: %{edit} = python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c.update(json.loads(sys.argv[2])); [c.pop(k) for k in sys.argv[3:]]; json.dump(c, open(sys.argv[1] + ".out", "w"))'

// A truncated weights file names the tensor that does not fit.
// RUN: head -c 300000 %{m}/model.safetensors > %t/truncated.safetensors
// RUN: %{import} %t/truncated.safetensors %{m}/config.json 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: truncated.safetensors: truncated: tensor 'lm_head.weight' occupies bytes 293048 to 358584 of the file, but the file has 300000 bytes
// TRUNC: exit=2

// More layers in the config than in the file: the first missing tensor.
// RUN: cp %{m}/config.json %t/deep.json && %{edit} %t/deep.json '{"num_hidden_layers": 3}'
// RUN: %{import} %{m}/model.safetensors %t/deep.json.out 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: model.safetensors: missing tensor 'backbone.layers.2.norm.weight' (expected shape (64,))
// DEEP: exit=2

// Heads of another size: in_proj no longer fits (2 d_inner + 2 G N + H rows).
// RUN: cp %{m}/config.json %t/heads.json && %{edit} %t/heads.json '{"head_dim": 32, "num_heads": 4}'
// RUN: %{import} %{m}/model.safetensors %t/heads.json.out 2>&1 | FileCheck %s --check-prefix=HEADS
// HEADS: model.safetensors: tensor 'backbone.layers.0.mixer.in_proj.weight' has shape (296, 64) but the config implies (292, 64)
// HEADS: exit=2

// Another conv width: conv1d.weight does not fit.
// RUN: cp %{m}/config.json %t/conv.json && %{edit} %t/conv.json '{"conv_kernel": 3}'
// RUN: %{import} %{m}/model.safetensors %t/conv.json.out 2>&1 | FileCheck %s --check-prefix=CONV
// CONV: tensor 'backbone.layers.0.mixer.conv1d.weight' has shape (160, 1, 4) but the config implies (160, 1, 3)
// CONV: exit=2

// An untied config without the head in the file; a tied one is fine.
// RUN: python3 %S/Inputs/st_drop.py %{m}/model.safetensors %t/nohead.safetensors lm_head.weight
// RUN: %{import} %t/nohead.safetensors %{m}/config.json 2>&1 | FileCheck %s --check-prefix=NOHEAD
// NOHEAD: nohead.safetensors: missing tensor 'lm_head.weight' (expected shape (256, 64)); the config has tie_word_embeddings = false
// NOHEAD: exit=2

// Fields that do not hold together, or are malformed, are named.
// RUN: cp %{m}/config.json %t/groups.json && %{edit} %t/groups.json '{"n_groups": 3}'
// RUN: %{import} %{m}/model.safetensors %t/groups.json.out 2>&1 | FileCheck %s --check-prefix=GROUPS
// GROUPS: groups.json.out: field 'n_groups' is 3, which does not divide the 8 heads
// GROUPS: exit=2
// RUN: cp %{m}/config.json %t/limit.json && %{edit} %t/limit.json '{"time_step_limit": [0.0]}'
// RUN: %{import} %{m}/model.safetensors %t/limit.json.out 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: limit.json.out: field 'time_step_limit' must be a pair of numbers [min, max], got [0.0]
// LIMIT: exit=2
// RUN: cp %{m}/config.json %t/nolayers.json && %{edit} %t/nolayers.json '{}' num_hidden_layers
// RUN: %{import} %{m}/model.safetensors %t/nolayers.json.out 2>&1 | FileCheck %s --check-prefix=NOLAYERS
// NOLAYERS: nolayers.json.out: missing field 'num_hidden_layers'
// NOLAYERS: exit=2

// Mislabelled: a Mamba-1 config (model_type "mamba") over Mamba-2 weights.
// RUN: echo '{"model_type": "mamba", "vocab_size": 256, "hidden_size": 64, "state_size": 16, "num_hidden_layers": 2, "time_step_rank": 4, "tie_word_embeddings": false}' > %t/mamba1.json
// RUN: %{import} %{m}/model.safetensors %t/mamba1.json 2>&1 | FileCheck %s --check-prefix=GEN
// GEN: model.safetensors: holds Mamba-2 tensors (mixer.dt_bias, no mixer.x_proj) but {{.*}}mamba1.json describes a Mamba-1 model
// GEN: exit=2

// Not a Mamba checkpoint at all: both layouts' embedding names are given.
// RUN: python3 %S/Inputs/st_drop.py %{m}/model.safetensors %t/noemb.safetensors backbone.embeddings.weight
// RUN: %{import} %t/noemb.safetensors %{m}/config.json 2>&1 | FileCheck %s --check-prefix=NOEMB
// NOEMB: noemb.safetensors: holds neither 'backbone.embeddings.weight' (the layout of transformers' MambaForCausalLM / Mamba2ForCausalLM) nor 'backbone.embedding.weight' (the layout of mamba_ssm's MambaLMHeadModel)
// NOEMB: exit=2

// Nothing was written by any of the failures.
// RUN: not ls %t/out
