// ssm-import mamba on bad input: exit 2 with a message naming the file and
// the field or tensor at fault (CONTRACTS.md), and no output directory.
// REQUIRES: shared-data

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{import} = sh -c 'ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %t/$0 -o %t/out; echo "exit=$?"'

// A missing config file.
// RUN: %{import} missing.json 2>&1 | FileCheck %s --check-prefix=NOCONFIG
// NOCONFIG: missing.json: cannot open the file
// NOCONFIG: exit=2

// Not JSON.
// RUN: echo '{"vocab_size": 256,' > %t/truncated.json
// RUN: %{import} truncated.json 2>&1 | FileCheck %s --check-prefix=NOTJSON
// NOTJSON: truncated.json: not valid JSON
// NOTJSON: exit=2

// A required field missing, and one of the wrong type.
// RUN: echo '{"vocab_size": 256, "hidden_size": 64, "num_hidden_layers": 2}' > %t/nostate.json
// RUN: %{import} nostate.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: nostate.json: missing field 'state_size'
// MISSING: exit=2
// RUN: echo '{"vocab_size": 256, "hidden_size": 64, "state_size": 16, "num_hidden_layers": 2, "conv_kernel": "4"}' > %t/badtype.json
// RUN: %{import} badtype.json 2>&1 | FileCheck %s --check-prefix=BADTYPE
// BADTYPE: badtype.json: field 'conv_kernel' must be an integer, got the string "4"
// BADTYPE: exit=2

// A Mamba-2 config over a Mamba-1 checkpoint: the generation mismatch is
// named; a Mamba-2 config that does not hold together names its field.
// RUN: echo '{"model_type": "mamba2", "vocab_size": 256, "hidden_size": 64, "state_size": 16, "num_hidden_layers": 2, "n_groups": 1}' > %t/mamba2.json
// RUN: %{import} mamba2.json 2>&1 | FileCheck %s --check-prefix=MAMBA2
// MAMBA2: model.safetensors: holds Mamba-1 tensors (mixer.x_proj) but {{.*}}mamba2.json describes a Mamba-2 model
// MAMBA2: exit=2
// RUN: echo '{"model_type": "mamba2", "vocab_size": 256, "hidden_size": 64, "num_hidden_layers": 2, "head_dim": 16, "n_groups": 3}' > %t/groups.json
// RUN: %{import} groups.json 2>&1 | FileCheck %s --check-prefix=GROUPS
// GROUPS: groups.json: field 'n_groups' is 3, which does not divide the 8 heads
// GROUPS: exit=2

// A config that does not match the checkpoint: a misshapen tensor, a
// missing tensor, a checkpoint with more layers than the config.
// RUN: echo '{"vocab_size": 256, "hidden_size": 32, "state_size": 16, "num_hidden_layers": 2, "time_step_rank": 4, "tie_word_embeddings": false}' > %t/narrow.json
// RUN: %{import} narrow.json 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: model.safetensors: tensor 'backbone.embedding.weight' has shape (256, 64) but the config implies (256, 32)
// SHAPE: exit=2
// RUN: echo '{"vocab_size": 256, "hidden_size": 64, "state_size": 16, "num_hidden_layers": 3, "time_step_rank": 4, "tie_word_embeddings": false}' > %t/deep.json
// RUN: %{import} deep.json 2>&1 | FileCheck %s --check-prefix=NOTENSOR
// NOTENSOR: model.safetensors: missing tensor 'backbone.layers.2.norm.weight' (expected shape (64,))
// NOTENSOR: exit=2
// RUN: echo '{"vocab_size": 256, "hidden_size": 64, "state_size": 16, "num_hidden_layers": 1, "time_step_rank": 4, "tie_word_embeddings": false}' > %t/shallow.json
// RUN: %{import} shallow.json 2>&1 | FileCheck %s --check-prefix=LAYERS
// LAYERS: model.safetensors: tensor 'backbone.layers.1.{{.*}}' belongs to layer 1 but {{.*}}shallow.json says num_hidden_layers = 1
// LAYERS: exit=2

// Nothing was written by any of the failures.
// RUN: not ls %t/out
