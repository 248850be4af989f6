// A checkpoint folder with sharded safetensors and their index (Hugging Face's
// layout for large models: model-0000i-of-0000N.safetensors and
// model.safetensors.index.json, Inputs/st_shard.py) imports as the same folder
// with one model.safetensors does: ssm-import says what it found, and the
// imported model gives the same logits, bit for bit. A damaged index or shard
// is refused naming the tensor or file.
// REQUIRES: ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/one --hidden 16 --state 4 --layers 2 --conv 4 --dt-rank 1 --seed 9
// RUN: python3 %S/Inputs/st_shard.py %t/one %t/three --shards 3
// RUN: ssm-import %t/one -o %t/m1 | FileCheck %s --check-prefix=ONE
// ONE: ssm-import: {{.*}}one: config.json (model_type 'mamba'), model.safetensors
// RUN: ssm-import %t/three -o %t/m3 | FileCheck %s --check-prefix=THREE
// THREE: ssm-import: {{.*}}three: config.json (model_type 'mamba'), 3 safetensors shards (model-00001-of-00003.safetensors ... model-00003-of-00003.safetensors, {{[0-9]+}} tensors in model.safetensors.index.json)
// THREE: ssm-import: {{.*}}three/model.safetensors.index.json -> {{.*}}m3: mamba1
// RUN: ssm-run %t/m1 --engine reference --prompt 'shards' --all-logits-out %t/l1.npy
// RUN: ssm-run %t/m3 --engine reference --prompt 'shards' --all-logits-out %t/l3.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/l1.npy %t/l3.npy 0 | FileCheck %s --check-prefix=SAME
// SAME: shape=(6, 256) max_abs_diff=0 PASS

// A shard missing, a tensor the index gives to another shard, a shard outside
// the folder, no weights at all.
// RUN: cp -r %t/three %t/gone && rm %t/gone/model-00002-of-00003.safetensors
// RUN: not ssm-import %t/gone -o %t/x 2>&1 | FileCheck %s --check-prefix=GONE
// GONE: error: {{.*}}gone/model-00002-of-00003.safetensors: {{.*}}
// RUN: cp -r %t/three %t/moved && python3 -c "import json,sys; p=sys.argv[1]; j=json.load(open(p)); k=sorted(j['weight_map'])[0]; j['weight_map'][k]='model-00003-of-00003.safetensors'; json.dump(j, open(p,'w'))" %t/moved/model.safetensors.index.json
// RUN: not ssm-import %t/moved -o %t/x 2>&1 | FileCheck %s --check-prefix=MOVED
// MOVED: error: {{.*}}moved/model-00001-of-00003.safetensors: tensor '{{.*}}' is also in model-00003-of-00003.safetensors
// RUN: cp -r %t/three %t/out && python3 -c "import json,sys; p=sys.argv[1]; j=json.load(open(p)); k=sorted(j['weight_map'])[0]; j['weight_map'][k]='../one/model.safetensors'; json.dump(j, open(p,'w'))" %t/out/model.safetensors.index.json
// RUN: not ssm-import %t/out -o %t/x 2>&1 | FileCheck %s --check-prefix=OUT
// OUT: error: {{.*}}out/model.safetensors.index.json: weight_map['{{.*}}'] names '../one/model.safetensors', not a file in the index's folder
// RUN: mkdir -p %t/none && cp %t/one/config.json %t/none/ && touch %t/none/pytorch_model.bin
// RUN: not ssm-import %t/none -o %t/x 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: {{.*}}none: no model.safetensors and no model.safetensors.index.json (a Hugging Face checkpoint folder holds one of them beside config.json); weight files here: pytorch_model.bin
// RUN: not ls %t/x
