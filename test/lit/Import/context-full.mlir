// A model whose model.json declares a cache state (runtime/ModelSpec.h:
// "kind": "cache", shape[axis] positions) holds that many positions on
// every engine: the reference interpreter's streams (reference/
// ModelStream.h) and the model library's (cpu) refuse a prompt past it with
// the same message and run nothing; a prompt that fits runs and gives the
// same logits as without the declaration. Here the tiny Mamba-1 gets an
// unused 3-position cache "kv" (its graph reads no position and no cache).
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/m --seq-len 2 > /dev/null
// RUN: cp -r %t/m %t/plain
// RUN: python3 -c "import json,sys;p=sys.argv[1];m=json.load(open(p));m['states'].append({'name':'kv','shape':[3,2],'kind':'cache','axis':0});json.dump(m,open(p,'w'))" %t/m/model.json
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt abcd --mode step; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache ssm-run %t/m --engine cpu --prompt abcd --mode step; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: would pass the 3 positions
// FULL: exit=2
// RUN: ssm-run %t/m --engine reference --prompt abc --mode step --logits-out %t/ref.npy
// RUN: ssm-run %t/plain --engine reference --prompt abc --mode step --logits-out %t/plain.npy
// RUN: cmp %t/ref.npy %t/plain.npy
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %t/m --engine cpu --prompt abc --mode step --logits-out %t/cpu.npy
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %t/plain --engine cpu --prompt abc --mode step --logits-out %t/cpu-plain.npy
// RUN: cmp %t/cpu.npy %t/cpu-plain.npy
