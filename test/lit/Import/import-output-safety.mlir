// ssm-import: config values the graph cannot hold are refused naming the
// field, and the output folder appears only whole: the importers write into
// a temporary sibling that is renamed into place after the graph verified.
// Before: layer_norm_epsilon 1e39 became `arith.constant inf` (exit 1, the
// field unnamed) and left a complete-looking folder behind.
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{model} = %shared/models/mamba/tiny-mamba-seed5

// RUN: sed 's/"layer_norm_epsilon": 1e-05/"layer_norm_epsilon": 1e39/' %{model}/config.json > %t/eps.json
// RUN: sh -c 'ssm-import mamba %{model}/model.safetensors --config %t/eps.json -o %t/out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EPS
// EPS: ssm-import: error: {{.*}}eps.json: field 'layer_norm_epsilon' is 1e+39, beyond float32 (the model's type holds at most 3.4e38)
// EPS: exit=2
// RUN: ls %t | FileCheck %s --check-prefix=NOTHING
// NOTHING-NOT: out

// A tensor missing from the checkpoint: nothing written either.
// RUN: sed 's/"tie_word_embeddings": false/"tie_word_embeddings": false, "num_hidden_layers": 3/' %{model}/config.json > %t/layers.json
// RUN: sh -c 'ssm-import mamba %{model}/model.safetensors --config %t/layers.json -o %t/out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=LAYERS
// LAYERS: exit=2
// RUN: ls %t | FileCheck %s --check-prefix=NOTHING

// Success: the folder whole, no temporaries; then a non-empty folder is
// refused without --force (and kept), and replaced file by file with it.
// RUN: ssm-import mamba %{model}/model.safetensors --config %{model}/config.json -o %t/out | FileCheck %s --check-prefix=OK
// OK: ssm-import: {{.*}} -> {{.*}}out: mamba1
// RUN: ls %t | FileCheck %s --check-prefix=ONLY
// ONLY: out
// ONLY-NOT: tmp
// RUN: ls %t/out | FileCheck %s --check-prefix=FILES
// FILES: model.json
// FILES: model.mlir
// FILES: weights.safetensors
// RUN: sh -c 'ssm-import mamba %{model}/model.safetensors --config %t/eps.json -o %t/out --force; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EPS
// RUN: ls %t/out | count 3
// RUN: sh -c 'ssm-import mamba %{model}/model.safetensors --config %{model}/config.json -o %t/out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NONEMPTY
// NONEMPTY: out: exists and is not empty; pass --force to write into it
// NONEMPTY: exit=2
// RUN: ssm-import mamba %{model}/model.safetensors --config %{model}/config.json -o %t/out --force > /dev/null
// RUN: ls %t | count 3

// Mamba-2 configs go through the same number reader.
// RUN: sed 's/"layer_norm_epsilon": [0-9.e-]*/"layer_norm_epsilon": 1e39/' %shared/models/mamba2/tiny-mamba2-g1-untied/config.json > %t/eps2.json
// RUN: sh -c 'ssm-import mamba %shared/models/mamba2/tiny-mamba2-g1-untied/model.safetensors --config %t/eps2.json -o %t/out2; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EPS2
// EPS2: field 'layer_norm_epsilon' is 1e+39, beyond float32
// EPS2: exit=2
// RUN: not ls %t/out2
