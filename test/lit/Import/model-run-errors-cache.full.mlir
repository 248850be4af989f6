// The compile cache's damaged-entry cases of Import/model-run-errors.mlir (a
// checksum mismatch, manifest steps of another shape, malformed step values, a
// FIFO manifest, a result bound to the wrong value, another manifest version):
// each recompiles the tiny RWKV-4 module, so they run with label full (ctest
// lit.full); the truncated-library case stays in the quick suite.
// ssm-run on damaged model folders, tampered compiled modules and bad
// options: a message naming the problem and exit 2, never a signal; found by
// trying to break the tools as a careless user would.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 3

// model.json edits: a state entry of the wrong size (the reference engine
// read past its end), no states, a negative shape, a field of the wrong type.
// PP7: state 'blocks.0.pp' has 7 values, the model 128
// PP7: exit=2
// NOSTATES: state 'blocks.0.ffn_xx' has 0 values, the model 128
// NOSTATES: exit=2
// NEG: state 'blocks.0.ffn_xx' has shape (-1,) (negative or over 2^28 values)
// NEG: exit=2
// TYPE: model.json: config.n_vocab "256" is not an integer
// TYPE: exit=2
// A number that does not fit its type is refused, not converted (fuzz-model-json: 5e45).
// HUGE: state 'blocks.0.ffn_xx' has a shape entry 5e+45 that is not an integer
// HUGE: exit=2
// weights.safetensors replaced by a folder.
// WDIR: weights.safetensors: is a directory, not a safetensors file
// WDIR: exit=2

// A compiled module in the cache with a truncated library (the entry is
// found incomplete and compiled again, driver/CompileCache.cpp), then
// with a result shape the kernel does not produce (Halide's own check fails:
// its message is returned instead of the process aborting).
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %t/m --prompt a --mode step --engine cpu > /dev/null
// RUN: cp -r %t/cache %t/cache-orig
// TRUNC: ssm-run: note: the compile cache entry {{.*}} is incomplete (libssm_module.so has 50000 bytes, the manifest says {{[0-9]+}}); compiling it again
// TRUNC: exit=0
// TRUNC-LS-NOT: tmp
// TRUNC-LS-NOT: broken
// A library damaged in place, its size unchanged (a hostile trial crashed
// ssm-run inside dlopen on every run with it): its XXH3 checksum differs from
// the manifest's, so the entry is compiled again.
// RUN: rm -rf %t/cache && cp -r %t/cache-orig %t/cache
// RUN: sh -c 'python3 -c "import sys;p=sys.argv[1];b=bytearray(open(p,\"rb\").read());b[-65536:]=bytes(65536);open(p,\"wb\").write(b)" %t/cache/*/libssm_module.so'
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache ssm-run %t/m --prompt a --mode step --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DAMAGED
// DAMAGED: ssm-run: note: the compile cache entry {{.*}} is incomplete (libssm_module.so does not match the manifest's checksum); compiling it again
// DAMAGED: exit=0
// RUN: rm -rf %t/cache && cp -r %t/cache-orig %t/cache
// RUN: sh -c 'python3 -c "import json,sys;p=sys.argv[1];m=json.load(open(p));[f[\"results\"][0].__setitem__(\"shape\",[1,100000]) for f in m[\"functions\"] if f[\"name\"]==\"forward_step__seg1\"];json.dump(m,open(p,\"w\"))" %t/cache/*/manifest.json'
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache ssm-run %t/m --prompt a --mode step --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SHAPE
// A cache entry whose manifest fails the manifest schema (runtime/Manifest.h)
// is damaged: the note names the problem and the entry is compiled again.
// SHAPE: ssm-run: note: the compile cache entry {{.*}} is incomplete (manifest.json is not a valid manifest ({{.*}}manifest.json: "steps" of @forward_step: {{.*}}of another shape or dtype)); compiling it again
// SHAPE: exit=0
// A manifest number that is not an integer of its type (fuzz-manifest, UBSan:
// get<int> of 4.1e100) is refused as a malformed entry, not converted.
// RUN: rm -rf %t/cache && cp -r %t/cache-orig %t/cache
// RUN: sh -c 'python3 -c "import json,sys;p=sys.argv[1];m=json.load(open(p));[f.__setitem__(\"step_values\",4.1e100) for f in m[\"functions\"] if f[\"name\"]==\"forward_step\"];json.dump(m,open(p,\"w\"))" %t/cache/*/manifest.json'
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache ssm-run %t/m --prompt a --mode step --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=STEPVALUES
// STEPVALUES: ssm-run: note: the compile cache entry {{.*}} is incomplete (manifest.json is not a valid manifest ({{.*}}manifest.json: malformed "steps" of @forward_step
// STEPVALUES: exit=0
// A manifest.json that is a FIFO (a hostile trial: the lookup hung at its
// open): not a file, so the entry is compiled again.
// RUN: rm -rf %t/cache && cp -r %t/cache-orig %t/cache
// RUN: sh -c 'for m in %t/cache/*/manifest.json; do rm $m && mkfifo $m; done'
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache timeout 60 ssm-run %t/m --prompt a --mode step --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FIFO
// FIFO: ssm-run: note: the compile cache entry {{.*}} is incomplete (manifest.json is not a file); compiling it again
// FIFO: exit=0
// A result that is another value than the manifest's shapes allow (the
// tokens argument as the logits: the runtime copied 256 floats out of a
// 1-int buffer) and another manifest version are found by the same schema
// (test/e2e/ManifestTest.cpp has the rest; a module outside the cache with
// such a manifest is refused when it loads).
// RUN: rm -rf %t/cache && cp -r %t/cache-orig %t/cache
// RUN: sh -c 'python3 -c "import json,sys;p=sys.argv[1];m=json.load(open(p));[f.__setitem__(\"result_values\",[0]+f[\"result_values\"][1:]) for f in m[\"functions\"] if f[\"name\"]==\"forward_step\"];json.dump(m,open(p,\"w\"))" %t/cache/*/manifest.json'
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache ssm-run %t/m --prompt a --mode step --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=RESULTVALUE
// RESULTVALUE: is incomplete (manifest.json is not a valid manifest ({{.*}}manifest.json: "steps" of @forward_step: result 0 ('logits') is value 0 ('tokens'), of another shape or dtype)); compiling it again
// RESULTVALUE: exit=0
// RUN: rm -rf %t/cache && cp -r %t/cache-orig %t/cache
// RUN: sh -c 'python3 -c "import json,sys;p=sys.argv[1];m=json.load(open(p));m[\"version\"]=2;m[\"functions\"].append(m[\"functions\"][0]);json.dump(m,open(p,\"w\"))" %t/cache/*/manifest.json'
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache ssm-run %t/m --prompt a --mode step --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: is incomplete (manifest.json is not a valid manifest ({{.*}}manifest.json: manifest version 2; this runtime reads version 1 (recompile with this ssm-compile))); compiling it again
// VERSION: exit=0

// Options: one file for both outputs, a negative --generate, a file that is
// not a model folder given a prompt.
// SAME: --logits-out and --all-logits-out name the same file
// SAME: exit=2
// GEN: --generate takes a non-negative count, got -1
// GEN: exit=2
// NOTDIR: is not a model folder
// NOTDIR: exit=2
// MMAPFILE: is not a model folder (--prompt, --tokens, --generate and --mmap-weights run the folders ssm-import writes)
// MMAPFILE: exit=2

// Weights read into memory (the default) or mapped (--mmap-weights): the
// same logits, bit for bit, on the reference and cpu engines.
