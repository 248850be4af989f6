// (Its long part, label full: model-run-errors-cache.full.mlir.)
// ssm-run on damaged model folders, tampered compiled modules and bad
// options: a message naming the problem and exit 2, never a signal; found by
// trying to break the tools as a careless user would.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 3

// model.json edits: a state entry of the wrong size (the reference engine
// read past its end), no states, a negative shape, a field of the wrong type.
// RUN: cp -r %t/m %t/pp7 && python3 -c "import json,sys;p=sys.argv[1];j=json.load(open(p));j['states'][4]['shape']=[7];json.dump(j,open(p,'w'))" %t/pp7/model.json
// RUN: sh -c 'ssm-run %t/pp7 --engine reference --prompt a --mode step; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=PP7
// PP7: state 'blocks.0.pp' has 7 values, the model 128
// PP7: exit=2
// RUN: cp -r %t/m %t/nostates && python3 -c "import json,sys;p=sys.argv[1];j=json.load(open(p));del j['states'];json.dump(j,open(p,'w'))" %t/nostates/model.json
// RUN: sh -c 'ssm-run %t/nostates --engine reference --prompt a; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOSTATES
// NOSTATES: state 'blocks.0.ffn_xx' has 0 values, the model 128
// NOSTATES: exit=2
// RUN: cp -r %t/m %t/neg && python3 -c "import json,sys;p=sys.argv[1];j=json.load(open(p));j['states'][0]['shape']=[-1];json.dump(j,open(p,'w'))" %t/neg/model.json
// RUN: sh -c 'ssm-run %t/neg --engine reference --prompt a; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: state 'blocks.0.ffn_xx' has shape (-1,) (negative or over 2^28 values)
// NEG: exit=2
// RUN: cp -r %t/m %t/type && python3 -c "import json,sys;p=sys.argv[1];j=json.load(open(p));j['config']['n_vocab']='256';json.dump(j,open(p,'w'))" %t/type/model.json
// RUN: sh -c 'ssm-run %t/type --engine reference --prompt a; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: model.json: config.n_vocab "256" is not an integer
// TYPE: exit=2
// A number that does not fit its type is refused, not converted (fuzz-model-json: 5e45).
// RUN: cp -r %t/m %t/huge && python3 -c "import json,sys;p=sys.argv[1];j=json.load(open(p));j['states'][0]['shape']=[5e45];json.dump(j,open(p,'w'))" %t/huge/model.json
// RUN: sh -c 'ssm-run %t/huge --engine reference --prompt a; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: state 'blocks.0.ffn_xx' has a shape entry 5e+45 that is not an integer
// HUGE: exit=2
// weights.safetensors replaced by a folder.
// RUN: cp -r %t/m %t/wdir && rm %t/wdir/weights.safetensors && mkdir %t/wdir/weights.safetensors
// RUN: sh -c 'ssm-run %t/wdir --engine reference --prompt a; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=WDIR
// WDIR: weights.safetensors: is a directory, not a safetensors file
// WDIR: exit=2

// A compiled module in the cache with a truncated library (the entry is
// found incomplete and compiled again, driver/CompileCache.cpp), then
// with a result shape the kernel does not produce (Halide's own check fails:
// its message is returned instead of the process aborting).
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %t/m --prompt a --mode step --engine cpu > /dev/null
// RUN: cp -r %t/cache %t/cache-orig
// RUN: sh -c 'truncate -s 50000 %t/cache/*/libssm_module.so'
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache ssm-run %t/m --prompt a --mode step --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: ssm-run: note: the compile cache entry {{.*}} is incomplete (libssm_module.so has 50000 bytes, the manifest says {{[0-9]+}}); compiling it again
// TRUNC: exit=0
// RUN: sh -c 'ls %t/cache' | FileCheck %s --check-prefix=TRUNC-LS
// TRUNC-LS-NOT: tmp
// TRUNC-LS-NOT: broken
// A library damaged in place, its size unchanged (a hostile trial crashed
// ssm-run inside dlopen on every run with it): its XXH3 checksum differs from
// the manifest's, so the entry is compiled again.
// DAMAGED: ssm-run: note: the compile cache entry {{.*}} is incomplete (libssm_module.so does not match the manifest's checksum); compiling it again
// DAMAGED: exit=0
// A cache entry whose manifest fails the manifest schema (runtime/Manifest.h)
// is damaged: the note names the problem and the entry is compiled again.
// SHAPE: ssm-run: note: the compile cache entry {{.*}} is incomplete (manifest.json is not a valid manifest ({{.*}}manifest.json: "steps" of @forward_step: {{.*}}of another shape or dtype)); compiling it again
// SHAPE: exit=0
// A manifest number that is not an integer of its type (fuzz-manifest, UBSan:
// get<int> of 4.1e100) is refused as a malformed entry, not converted.
// STEPVALUES: ssm-run: note: the compile cache entry {{.*}} is incomplete (manifest.json is not a valid manifest ({{.*}}manifest.json: malformed "steps" of @forward_step
// STEPVALUES: exit=0
// A manifest.json that is a FIFO (a hostile trial: the lookup hung at its
// open): not a file, so the entry is compiled again.
// FIFO: ssm-run: note: the compile cache entry {{.*}} is incomplete (manifest.json is not a file); compiling it again
// FIFO: exit=0
// A result that is another value than the manifest's shapes allow (the
// tokens argument as the logits: the runtime copied 256 floats out of a
// 1-int buffer) and another manifest version are found by the same schema
// (test/e2e/ManifestTest.cpp has the rest; a module outside the cache with
// such a manifest is refused when it loads).
// RESULTVALUE: is incomplete (manifest.json is not a valid manifest ({{.*}}manifest.json: "steps" of @forward_step: result 0 ('logits') is value 0 ('tokens'), of another shape or dtype)); compiling it again
// RESULTVALUE: exit=0
// VERSION: is incomplete (manifest.json is not a valid manifest ({{.*}}manifest.json: manifest version 2; this runtime reads version 1 (recompile with this ssm-compile))); compiling it again
// VERSION: exit=0

// Options: one file for both outputs, a negative --generate, a file that is
// not a model folder given a prompt.
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --logits-out %t/x.npy --all-logits-out %t/x.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: --logits-out and --all-logits-out name the same file
// SAME: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate -1; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GEN
// GEN: --generate takes a non-negative count, got -1
// GEN: exit=2
// RUN: sh -c 'ssm-run %t/m/weights.safetensors --prompt a; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOTDIR
// NOTDIR: is not a model folder
// NOTDIR: exit=2
// RUN: sh -c 'ssm-run %s --mmap-weights; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MMAPFILE
// MMAPFILE: is not a model folder (--prompt, --tokens, --generate and --mmap-weights run the folders ssm-import writes)
// MMAPFILE: exit=2

// Weights read into memory (the default) or mapped (--mmap-weights): the
// same logits, bit for bit, on the reference and cpu engines.
// RUN: env SSM_CACHE_DIR=%t/cache-orig ssm-run %t/m --prompt ab --mode step --engine cpu --logits-out %t/read.npy
// RUN: env SSM_CACHE_DIR=%t/cache-orig ssm-run %t/m --prompt ab --mode step --engine cpu --mmap-weights --logits-out %t/mapped.npy
// RUN: ssm-run %t/m --prompt ab --engine reference --mmap-weights --logits-out %t/ref-mapped.npy
// RUN: ssm-run %t/m --prompt ab --engine reference --logits-out %t/ref-read.npy
// RUN: cmp %t/read.npy %t/mapped.npy
// RUN: cmp %t/ref-read.npy %t/ref-mapped.npy
