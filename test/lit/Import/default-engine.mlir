// The default engine (issue 35 Deliver 4): a model folder runs on the cpu
// engine unless --engine says otherwise, and says so: a folder with compiled
// modules runs them (no compilation), a folder without compiles its kernels
// once on first use (into the compile cache). --engine reference still runs
// the interpreter, and the default's logits agree with it within 1e-4. A
// graph (.mlir) keeps the reference engine by default, as a golden case does
// (../shared/CONTRACTS.md).
// REQUIRES: ssm-run
// RUN: rm -rf %t %t.cache %t.empty-cache && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 32 --state 8 --layers 2 --conv 4 --dt-rank 2 --seed 5
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/plain
// RUN: env SSM_CACHE_DIR=%t.cache ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/deployed --compile --seq-len 4
//
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/plain --prompt 'default engine' --logits-out %t/plain.npy 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN: ssm-run: running on the cpu engine, the default for a model folder (no compiled modules: kernels compiled once on first use, and cached; --engine reference runs the reference interpreter)
// PLAIN: prompt: 14 tokens in {{.*}}, sequence, cpu engine
//
// RUN: env SSM_CACHE_DIR=%t.empty-cache ssm-run %t/deployed --prompt 'default engine' --logits-out %t/deployed.npy 2>&1 | FileCheck %s --check-prefix=DEPLOYED
// DEPLOYED-NOT: compiling
// DEPLOYED: ssm-run: running on the cpu engine, the default for a model folder (its compiled modules; --engine reference runs the reference interpreter)
// DEPLOYED-NOT: compiling
// DEPLOYED: prompt: 14 tokens in {{.*}}, sequence, cpu engine
// RUN: not ls %t.empty-cache
//
// RUN: ssm-run %t/deployed --engine reference --prompt 'default engine' --logits-out %t/ref.npy 2>&1 | FileCheck %s --check-prefix=REF
// REF-NOT: running on the cpu engine
// REF: prompt: 14 tokens in {{.*}}, sequence, reference engine
// RUN: python3 %S/Inputs/compare_npy.py %t/ref.npy %t/plain.npy 1e-4 | FileCheck %s --check-prefix=CMP
// RUN: python3 %S/Inputs/compare_npy.py %t/ref.npy %t/deployed.npy 1e-4 | FileCheck %s --check-prefix=CMP
// CMP: max_abs_diff={{.*}} PASS
//
// A compiled entry that holds nothing to run is said in a note, not ignored
// silently: an empty compiled/, a file named compiled, a folder in compiled/
// without manifest.json. The run goes on as without it (the plain folder's
// modules from the same cache: no compilation).
// RUN: cp -r %t/plain %t/empty && mkdir %t/empty/compiled
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/empty --prompt 'default engine' --logits-out %t/empty.npy 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: ssm-run: note: {{.*}}empty/compiled holds no compiled module: ignored
// EMPTY-NEXT: (no compiled modules: kernels compiled once on first use
// EMPTY-NOT: compiling
// RUN: python3 %S/Inputs/compare_npy.py %t/ref.npy %t/empty.npy 1e-4 | FileCheck %s --check-prefix=CMP
// RUN: cp -r %t/plain %t/filec && echo x > %t/filec/compiled
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/filec --prompt 'default engine' 2>&1 | FileCheck %s --check-prefix=FILEC
// FILEC: ssm-run: note: {{.*}}filec/compiled is not a folder: ignored (ssm-compile {{.*}}filec writes its modules into a compiled/ folder there)
// FILEC-NOT: compiling
// RUN: cp -r %t/deployed %t/half && mkdir %t/half/compiled/seq8
// RUN: env SSM_CACHE_DIR=%t.empty-cache ssm-run %t/half --prompt 'default engine' 2>&1 | FileCheck %s --check-prefix=HALF
// HALF: ssm-run: note: skips {{.*}}half/compiled/seq8, a folder without manifest.json (not an ssm-compile output)
// HALF-NEXT: (its compiled modules;
// HALF-NOT: holds no compiled module
//
// A module of the same format from another ssm-opt (its manifest's compiler
// names ssm-opt 0.2, MLIR 18, Halide 13) runs, and a note says so (before: it
// loaded silently).
// RUN: cp -r %t/deployed %t/older && sed -i 's/"compiler": "ssm-opt [^"]*"/"compiler": "ssm-opt 0.2 (MLIR 18, Halide 13)"/' %t/older/compiled/seq4/manifest.json
// RUN: env SSM_CACHE_DIR=%t.empty-cache ssm-run %t/older --prompt 'default engine' --logits-out %t/older.npy 2>&1 | FileCheck %s --check-prefix=OLDER
// OLDER: ssm-run: note: {{.*}}older/compiled/seq4 was compiled by ssm-opt 0.2 (MLIR 18, Halide 13); this is ssm-opt {{[0-9.]+}} (MLIR 19, Halide 14): it runs (the same module format); ssm-compile --force recompiles it with this version
// RUN: python3 %S/Inputs/compare_npy.py %t/deployed.npy %t/older.npy 0 | FileCheck %s --check-prefix=CMP
// RUN: env SSM_CACHE_DIR=%t.empty-cache ssm-run %t/deployed --prompt 'default engine' 2>&1 | FileCheck %s --check-prefix=SAME
// SAME-NOT: was compiled by
//
// A graph: the reference engine unless told.
// RUN: ssm-run %t/plain/model.mlir --function forward_step --seed 1 2>&1 | FileCheck %s --check-prefix=GRAPH
// GRAPH: @forward_step ran on the reference engine
//
// A folder whose modules this CPU cannot run (avx512_knl: Knights Landing's
// instructions, on no CPU this runs on) is refused as with --engine cpu, and
// the message says that the default was the cpu engine and how to run the
// interpreter instead.
// RUN: env SSM_CACHE_DIR=%t.cache ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/knl --compile --seq-len 4 --target x86-64-linux-avx512_knl
// RUN: not ssm-run %t/knl --prompt 'default engine' 2>&1 | FileCheck %s --check-prefix=KNL
// KNL: this CPU cannot run its 'avx512_knl' instructions (compile it here with --target host) (the cpu engine is the default for a model folder; --engine reference runs the interpreter instead)
// RUN: ssm-run %t/knl --engine reference --prompt 'default engine' --logits-out %t/knl-ref.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref.npy %t/knl-ref.npy 0 | FileCheck %s --check-prefix=CMP
