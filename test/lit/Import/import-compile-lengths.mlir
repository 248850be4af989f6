// ssm-import --compile without --seq-len (issue 35 Deliver 4) compiles the
// lengths ssm-run compiles a folder for on first use (tools/CompiledLengths.h):
// calls of 256 tokens and of model.mlir's 16 (the one-token step in seq16 only),
// into compiled/seq16 and compiled/seq256, and says so: before, the lengths
// (stderr); after, the lengths, the folders and the time (stdout). Before,
// it compiled compiled/seq16 only, and a 512-token prompt ran as 32 calls.
// The deployed folder then runs a 300-token prompt (one call of 256, two of
// 16, 12 steps) with no compilation, within 1e-4 of the reference
// interpreter. --seq-len still names the lengths (one module here).
// REQUIRES: ssm-run
// RUN: rm -rf %t %t.cache && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 16 --state 4 --layers 1 --conv 4 --dt-rank 1 --seed 7
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m --compile > %t/out.txt 2> %t/err.txt
// RUN: FileCheck %s --check-prefix=BEFORE < %t/err.txt
// BEFORE: ssm-import: compiling {{.*}}m for calls of 256 and 16 tokens and one-token steps (the lengths ssm-run compiles a folder for on first use; --seq-len N,M,... --compile names others)
// RUN: FileCheck %s --check-prefix=DONE < %t/out.txt
// DONE: ssm-import: compiled calls of 256 and 16 tokens and one-token steps in {{[0-9]+\.[0-9]}} s: {{.*}}m/compiled/seq16, {{.*}}m/compiled/seq256; ssm-run {{.*}}m runs prompts of any length with no compilation
// RUN: ls %t/m/compiled | FileCheck %s --check-prefix=DIRS
// DIRS: {{^}}seq16{{$}}
// DIRS-NEXT: {{^}}seq256{{$}}
// Only seq16 (model.mlir's module) holds the step function: the longer
// length's module is compiled with ssm-compile --functions forward_sequence.
// RUN: grep -c '"name": "forward_step"' %t/m/compiled/seq16/manifest.json | FileCheck %s --check-prefix=STEP16
// STEP16: {{^}}1{{$}}
// RUN: not grep -q forward_step %t/m/compiled/seq256/manifest.json
// RUN: ls -a %t/m | FileCheck %s --check-prefix=NOGRAPHS
// NOGRAPHS-NOT: .seq
//
// RUN: sh -c 'env SSM_CACHE_DIR=%t.cache ssm-run %t/m --prompt "$(printf "%%0300d" 7)" --logits-out %t/c300.npy' 2>&1 | FileCheck %s --check-prefix=NOCOMPILE
// NOCOMPILE-NOT: compiling
// NOCOMPILE: ssm-run: compiled modules in {{.*}}m/compiled: sequence lengths 16, 256, and the step function
// NOCOMPILE-NOT: compiling
// NOCOMPILE: prompt: 300 tokens
// RUN: not ls %t.cache
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt "$(printf "%%0300d" 7)" --logits-out %t/r300.npy'
// RUN: python3 %S/Inputs/compare_npy.py %t/r300.npy %t/c300.npy 1e-4 | FileCheck %s --check-prefix=CMP
// CMP: max_abs_diff={{.*}} PASS
//
// An explicit --seq-len is what is compiled.
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m4 --compile --seq-len 4 2>&1 | FileCheck %s --check-prefix=GIVEN
// GIVEN: ssm-import: compiling {{.*}}m4 for calls of 4 tokens and one-token steps{{$}}
// GIVEN: ssm-import: compiled calls of 4 tokens and one-token steps in {{.*}} s: {{.*}}m4/compiled/seq4;
// RUN: ls %t/m4/compiled | FileCheck %s --check-prefix=ONE
// ONE-NOT: seq256
// ONE: {{^}}seq4{{$}}
// ONE-NOT: seq256
