// One command to deploy (issue 9): `ssm-compile <model-dir>` (or `ssm-import
// --compile`) compiles the folder's model.mlir into <model-dir>/compiled/seq<L>,
// after which ssm-run
// runs prompts of lengths never compiled from it (no ssm-compile child: the
// compile cache folder is never created) with the logits of rwkv.cpp and of
// the reference interpreter. Output safety as for graphs: a non-empty module
// folder is refused without --force and replaced whole with it; a failed
// compile leaves nothing (no compiled/, no work folder).
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 2

// An old module folder is refused, left as it was, and replaced whole with --force.
// RUN: mkdir -p %t/m/compiled/seq2 && echo old > %t/m/compiled/seq2/stale.txt
// RUN: sh -c 'ssm-compile %t/m; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: ssm-compile: error: '{{.*}}m/compiled/seq2' is not empty; pass --force to replace it
// REFUSED: exit=2
// RUN: ls %t/m/compiled/seq2/stale.txt
// RUN: ssm-compile %t/m --force --progress > %t/out.txt 2> %t/progress.txt
// RUN: FileCheck %s --check-prefix=DEPLOYED < %t/out.txt
// DEPLOYED: ssm-compile: {{.*}}m is deployable: {{.*}}m/compiled/seq2 (ssm-run
// RUN: FileCheck %s --check-prefix=PROGRESS < %t/progress.txt
// PROGRESS: ssm-compile: [1/[[N:[0-9]+]]] parse and passes: {{[0-9.]+}} s
// PROGRESS: ssm-compile: [2/[[N]]] kernel @forward_sequence{{.*}} (at {{[0-9.]+}} s)
// PROGRESS: ssm-compile: [[[N]]/[[N]]] shared library (at {{[0-9.]+}} s)
// PROGRESS: ssm-compile: done in {{[0-9.]+}} s: {{.*}}m/compiled/seq2
// RUN: not ls %t/m/compiled/seq2/stale.txt
// RUN: ls %t/m/compiled/seq2/manifest.json
// RUN: ls -a %t/m | FileCheck %s --check-prefix=NOWORK
// NOWORK-NOT: .ssm-compile.

// Prompts of 3 and 7 tokens (a sequence call of 2, then steps): no compilation.
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %t/m --engine cpu --prompt '"in' --logits-out %t/in.npy 2> %t/in.err
// RUN: FileCheck %s --check-prefix=MODULES < %t/in.err
// MODULES: ssm-run: compiled modules in {{.*}}m/compiled: sequence lengths 2, and the step function
// RUN: python3 %S/../Import/Inputs/compare_logits.py %t/in.npy %shared/models/rwkv/expected-logits-4v0-660K.bin 1e-4 | FileCheck %s --check-prefix=LOGITS
// LOGITS: max_abs_diff={{.*}} PASS
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %t/m --engine cpu --prompt 'seven b' --logits-out %t/seven.npy
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %t/m --engine cpu --prompt 'seven b' --mode step --logits-out %t/seven-step.npy
// RUN: not ls %t/cache
// RUN: ssm-run %t/m --engine reference --prompt 'seven b' --logits-out %t/seven-ref.npy
// RUN: python3 %S/../Import/Inputs/compare_npy.py %t/seven.npy %t/seven-ref.npy 1e-4 | FileCheck %s --check-prefix=LOGITS
// RUN: python3 %S/../Import/Inputs/compare_npy.py %t/seven-step.npy %t/seven-ref.npy 1e-4 | FileCheck %s --check-prefix=LOGITS

// Without --progress, and stderr not a terminal: silent (a graph).
// RUN: ssm-compile %S/Inputs/tune-small.mlir -o %t/quiet 2> %t/quiet.err
// RUN: count 0 < %t/quiet.err

// A failed compile writes nothing; a folder without model.mlir cannot run.
// RUN: mkdir -p %t/bad && cp %t/m/model.json %t/m/weights.safetensors %t/bad/
// RUN: echo 'func.func @forward_sequence(' > %t/bad/model.mlir
// RUN: sh -c 'ssm-compile %t/bad; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: ssm-compile: error: '{{.*}}bad/model.mlir' is not valid IR (see above)
// BAD: exit=1
// RUN: ls -a %t/bad | FileCheck %s --check-prefix=NOTHING
// NOTHING-NOT: compiled
// NOTHING-NOT: .ssm-compile.
// RUN: rm %t/bad/model.mlir
// RUN: sh -c 'ssm-compile %t/bad; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOMLIR
// NOMLIR: ssm-compile: error: '{{.*}}bad' is a model folder without model.mlir
// NOMLIR: exit=2

// ssm-import --compile: the same in one command; a compile that fails
// (an unknown target) publishes nothing.
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/imp --seq-len 2 --compile | FileCheck %s --check-prefix=IMPORT
// IMPORT: ssm-import: compiled calls of 2 tokens and one-token steps in {{.*}} s: {{.*}}imp/compiled/seq2; ssm-run {{.*}}imp runs prompts of any length
// RUN: env SSM_CACHE_DIR=%t/cache2 ssm-run %t/imp --engine cpu --prompt 'seven b' --logits-out %t/imp-seven.npy
// RUN: not ls %t/cache2
// RUN: python3 %S/../Import/Inputs/compare_npy.py %t/imp-seven.npy %t/seven-ref.npy 1e-4 | FileCheck %s --check-prefix=LOGITS
// RUN: sh -c 'ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/badt --compile --target bogus; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BADT
// BADT: ssm-import: error: unknown target 'bogus' (expected a Halide target such as host,
// BADT-NOT: ->
// BADT: exit=2
// RUN: not ls %t/badt
// RUN: ls -a %t | FileCheck %s --check-prefix=NOSTAGING
// NOSTAGING-NOT: .tmp-

// --seq-len N,M --compile: one module per length; a prompt of 7 tokens runs
// as a call of 4, one of 2 and a step, with the reference's logits.
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/ladder --seq-len 4,2 --compile | FileCheck %s --check-prefix=LADDER
// LADDER: ssm-import: compiled calls of 4 and 2 tokens and one-token steps in {{.*}} s: {{.*}}ladder/compiled/seq2, {{.*}}ladder/compiled/seq4; ssm-run {{.*}}ladder runs prompts of any length with no compilation (the longest compiled calls that fit, then steps)
// RUN: env SSM_CACHE_DIR=%t/cache3 ssm-run %t/ladder --engine cpu --prompt 'seven b' --logits-out %t/ladder-seven.npy 2> %t/ladder.err
// RUN: FileCheck %s --check-prefix=LADDERMODULES < %t/ladder.err
// LADDERMODULES: ssm-run: compiled modules in {{.*}}ladder/compiled: sequence lengths 2, 4, and the step function
// RUN: not ls %t/cache3
// RUN: python3 %S/../Import/Inputs/compare_npy.py %t/ladder-seven.npy %t/seven-ref.npy 1e-4 | FileCheck %s --check-prefix=LOGITS
// RUN: sh -c 'ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/nolist --seq-len 4,2; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOLIST
// NOLIST: ssm-import: error: --seq-len with several lengths goes with --compile
// NOLIST: exit=2
// RUN: not ls %t/nolist
