// A model folder without compiled modules is compiled once, on first use, for
// every prompt length: the first cpu run compiles the model's graphs for
// calls of 256 tokens and of the import's --seq-len (model.json seq_len, 16
// here), each with the one-token step, into the compile cache, whatever the
// first prompt's length (7 tokens here). Runs with 9, 40 and 300 tokens (one
// 256-token call, two of 16, 12 steps) and in step mode use those modules
// with no compilation, and agree with the reference interpreter within 1e-4.
// The cache then holds two modules. Before, the first prompt's own length
// was compiled and reused: after a 7-token first prompt, a 300-token prompt
// ran as 42 calls of 7 and 6 steps. (A run with --all-logits-out builds the
// graph variants that return every row: those are compiled once of their
// own.)
// REQUIRES: ssm-run
// RUN: rm -rf %t %t.cache && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 32 --state 8 --layers 2 --conv 4 --dt-rank 2 --seed 11
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt 'seven!!' --logits-out %t/c7.npy 2>&1 | FileCheck %s --check-prefix=FIRST
// FIRST: ssm-run: compiling {{.*}}m for calls of 256 and 16 tokens and one-token steps, once
// FIRST: prompt: 7 tokens
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt 'nine!!!!!' --logits-out %t/c9.npy 2>&1 | FileCheck %s --check-prefix=REUSE
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt 'forty tokens of prompt, forty of them!!!' --logits-out %t/c40.npy 2>&1 | FileCheck %s --check-prefix=REUSE
// RUN: sh -c 'env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt "$(printf "%%0300d" 7)" --logits-out %t/c300.npy' 2>&1 | FileCheck %s --check-prefix=REUSE
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --mode step --prompt 'nine!!!!!' --logits-out %t/s9.npy 2>&1 | FileCheck %s --check-prefix=REUSE
// REUSE-NOT: compiling
// REUSE: ssm-run: uses the modules compiled for calls of 256 and 16 tokens of this model ({{.*}}): no compilation
// REUSE-NOT: compiling
// RUN: ls %t.cache | grep -c '^[0-9a-f]\{32\}$' | FileCheck %s --check-prefix=ENTRIES
// ENTRIES: {{^}}2{{$}}
// RUN: ssm-run %t/m --engine reference --prompt 'seven!!' --logits-out %t/r7.npy
// RUN: ssm-run %t/m --engine reference --prompt 'nine!!!!!' --logits-out %t/r9.npy
// RUN: ssm-run %t/m --engine reference --prompt 'forty tokens of prompt, forty of them!!!' --logits-out %t/r40.npy
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt "$(printf "%%0300d" 7)" --logits-out %t/r300.npy'
// RUN: python3 %S/Inputs/compare_npy.py %t/r7.npy %t/c7.npy 1e-4 | FileCheck %s --check-prefix=CMP
// RUN: python3 %S/Inputs/compare_npy.py %t/r9.npy %t/c9.npy 1e-4 | FileCheck %s --check-prefix=CMP
// RUN: python3 %S/Inputs/compare_npy.py %t/r9.npy %t/s9.npy 1e-4 | FileCheck %s --check-prefix=CMP
// RUN: python3 %S/Inputs/compare_npy.py %t/r40.npy %t/c40.npy 1e-4 | FileCheck %s --check-prefix=CMP
// RUN: python3 %S/Inputs/compare_npy.py %t/r300.npy %t/c300.npy 1e-4 | FileCheck %s --check-prefix=CMP
// CMP: max_abs_diff={{.*}} PASS

// The import's --seq-len is the shorter chunk: --seq-len 5 compiles calls of
// 256 and 5 tokens.
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m5 --seq-len 5
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m5 --engine cpu --prompt 'twelve!!!!!!' --logits-out %t/c12.npy 2>&1 | FileCheck %s --check-prefix=FIVE
// FIVE: ssm-run: compiling {{.*}}m5 for calls of 256 and 5 tokens and one-token steps, once
// RUN: ssm-run %t/m5 --engine reference --prompt 'twelve!!!!!!' --logits-out %t/r12.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/r12.npy %t/c12.npy 1e-4 | FileCheck %s --check-prefix=CMP
