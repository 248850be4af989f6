// A model folder without compiled modules is compiled once, on first use, for
// every prompt length: cpu runs compile the model's graphs for calls of the
// import's --seq-len (model.json seq_len, 16 here, with the one-token steps)
// and of 256 tokens (the sequence function alone) into the compile cache,
// the latter when a prompt first reaches 256 tokens, whatever the first
// prompt's length (7 tokens here). Runs with 9 and 40 tokens and in step
// mode use the 16-token module with no compilation; the first 300-token run
// compiles the 256-token call once (one 256-token call, two of 16, 12
// steps), a second finds both. All agree with the reference interpreter
// within 1e-4. The cache then holds two modules. Before, the first prompt's
// own length was compiled and reused: after a 7-token first prompt, a
// 300-token prompt ran as 42 calls of 7 and 6 steps; and a first run
// compiled the 256-token call even for short prompts. (A run with
// --all-logits-out builds the graph variants that return every row: those
// are compiled once of their own.)
// REQUIRES: ssm-run
// RUN: rm -rf %t %t.cache && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 32 --state 8 --layers 2 --conv 4 --dt-rank 2 --seed 11
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt 'seven!!' --logits-out %t/c7.npy 2>&1 | FileCheck %s --check-prefix=FIRST
// FIRST: ssm-run: compiling {{.*}}m for calls of 16 tokens and one-token steps, once: prompts of every length run as those (a prompt of 256 tokens or more first compiles calls of 256)
// FIRST: prompt: 7 tokens
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt 'nine!!!!!' --logits-out %t/c9.npy 2>&1 | FileCheck %s --check-prefix=REUSE16
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt 'forty tokens of prompt, forty of them!!!' --logits-out %t/c40.npy 2>&1 | FileCheck %s --check-prefix=REUSE16
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --mode step --prompt 'nine!!!!!' --logits-out %t/s9.npy 2>&1 | FileCheck %s --check-prefix=REUSE16
// REUSE16-NOT: compiling
// REUSE16: ssm-run: uses the modules compiled for calls of 16 tokens and one-token steps of this model ({{.*}}): no compilation
// REUSE16-NOT: compiling
// RUN: sh -c 'env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt "$(printf "%%0300d" 7)" --logits-out %t/c300.npy' 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: ssm-run: compiling {{.*}}m for calls of 256 tokens, once
// LONG: prompt: 300 tokens
// RUN: sh -c 'env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt "$(printf "%%0300d" 7)" --logits-out %t/d300.npy' 2>&1 | FileCheck %s --check-prefix=REUSE
// REUSE-NOT: compiling
// REUSE: ssm-run: uses the modules compiled for calls of 256 and 16 tokens and one-token steps of this model ({{.*}}): no compilation
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
// RUN: python3 %S/Inputs/compare_npy.py %t/c300.npy %t/d300.npy 0 | FileCheck %s --check-prefix=CMP
// CMP: max_abs_diff={{.*}} PASS

// The import's --seq-len is the shorter chunk: --seq-len 5 compiles calls of
// 5 tokens (and of 256 once a prompt reaches it).
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m5 --seq-len 5
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m5 --engine cpu --prompt 'twelve!!!!!!' --logits-out %t/c12.npy 2>&1 | FileCheck %s --check-prefix=FIVE
// FIVE: ssm-run: compiling {{.*}}m5 for calls of 5 tokens and one-token steps, once
// RUN: ssm-run %t/m5 --engine reference --prompt 'twelve!!!!!!' --logits-out %t/r12.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/r12.npy %t/c12.npy 1e-4 | FileCheck %s --check-prefix=CMP
