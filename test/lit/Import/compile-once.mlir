// A model folder without compiled modules is compiled once, on first use, not
// once per new prompt length: the first cpu run compiles the graph for its
// 7-token prompt (into the compile cache, and its length into the cache's
// lengths/ index); runs with 9 and 40 tokens, and in step mode, use that
// module (its sequence calls and step) with no compilation, and agree with the
// reference interpreter within 1e-4. The cache then holds one module. (A run
// with --all-logits-out builds the graph variant that returns every row: that
// variant is compiled once of its own.)
// REQUIRES: ssm-run
// RUN: rm -rf %t %t.cache && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 32 --state 8 --layers 2 --conv 4 --dt-rank 2 --seed 11
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt 'seven!!' --logits-out %t/c7.npy 2>&1 | FileCheck %s --check-prefix=FIRST
// FIRST-NOT: uses the module compiled
// FIRST: prompt: 7 tokens
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt 'nine!!!!!' --logits-out %t/c9.npy 2>&1 | FileCheck %s --check-prefix=REUSE
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt 'forty tokens of prompt, forty of them!!!' --logits-out %t/c40.npy 2>&1 | FileCheck %s --check-prefix=REUSE
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --mode step --prompt 'nine!!!!!' --logits-out %t/s9.npy 2>&1 | FileCheck %s --check-prefix=REUSE
// REUSE: ssm-run: uses the module compiled for 7-token prompts of this model ({{.*}}): other lengths run as its sequence calls and steps, no compilation
// RUN: ls %t.cache | grep -c '^[0-9a-f]\{32\}$' | FileCheck %s --check-prefix=ENTRIES
// ENTRIES: {{^}}1{{$}}
// RUN: ssm-run %t/m --prompt 'seven!!' --logits-out %t/r7.npy
// RUN: ssm-run %t/m --prompt 'nine!!!!!' --logits-out %t/r9.npy
// RUN: ssm-run %t/m --prompt 'forty tokens of prompt, forty of them!!!' --logits-out %t/r40.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/r7.npy %t/c7.npy 1e-4 | FileCheck %s --check-prefix=CMP
// RUN: python3 %S/Inputs/compare_npy.py %t/r9.npy %t/c9.npy 1e-4 | FileCheck %s --check-prefix=CMP
// RUN: python3 %S/Inputs/compare_npy.py %t/r9.npy %t/s9.npy 1e-4 | FileCheck %s --check-prefix=CMP
// RUN: python3 %S/Inputs/compare_npy.py %t/r40.npy %t/c40.npy 1e-4 | FileCheck %s --check-prefix=CMP
// CMP: max_abs_diff={{.*}} PASS
