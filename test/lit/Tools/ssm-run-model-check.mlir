// ssm-run <model-dir> --check on a compiled engine (the default for a model
// folder) runs the prompt on the reference interpreter too, the same way
// (sequence, or steps from --decode-from), and compares the logits it writes
// (the last position's, or every position's with --all-logits-out) in
// CONTRACTS.md's line: exit 1 on FAIL. Before, --check on a model folder only
// made a non-finite value an error: it compared nothing, whatever --help said.
// A graph's flags (--expected, --input, --function, --output-dir, --print,
// --report-scratch, --autoschedule, --conv-algorithm) are refused on a model
// folder, exit 2, where they were ignored (--expected left an unchecked run
// exit 0), and so are --rtol / --atol without --check.
// REQUIRES: ssm-run
// RUN: rm -rf %t %t.cache && mkdir -p %t
// RUN: python3 %S/../Import/Inputs/make_mamba.py %t/a --hidden 16 --state 4 --layers 1 --conv 4 --dt-rank 1 --seed 13
// RUN: env SSM_CACHE_DIR=%t.cache ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m --compile --seq-len 4
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --prompt 'a prompt of 21 tokens' --check 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --prompt 'a prompt of 21 tokens' --check --mode step --decode-from 5 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --prompt 'a prompt of 21 tokens' --check --all-logits-out %t/all.npy 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: ssm-run: --check: the reference interpreter ran the prompt in
// PASS: logits_vs_reference max_abs={{.*}} max_rel={{.*}} worst={{.*}} PASS
//
// No tolerance: float32 against float64 differs somewhere, and that fails.
// RUN: sh -c 'env SSM_CACHE_DIR=%t.cache ssm-run %t/m --prompt "a prompt" --check --rtol 0 --atol 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: logits_vs_reference max_abs={{.*}} FAIL
// FAIL: ssm-run: error: --check: the cpu engine's logits differ from the reference interpreter's past rtol 0 / atol 0
// FAIL: exit=1
//
// RUN: sh -c 'ssm-run %t/m --prompt ab --expected %t/all.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GRAPHFLAG -DF=expected -DW='a graph (.mlir)'
// RUN: sh -c 'ssm-run %t/m --prompt ab --input %t/all.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GRAPHFLAG -DF=input -DW='a graph (.mlir)'
// RUN: sh -c 'ssm-run %t/m --prompt ab --function forward_step; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GRAPHFLAG -DF=function -DW='a graph (.mlir)'
// RUN: sh -c 'ssm-run %t/m --prompt ab --output-dir %t/od; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GRAPHFLAG -DF=output-dir -DW='a graph (.mlir)'
// RUN: sh -c 'ssm-run %t/m --prompt ab --print; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GRAPHFLAG -DF=print -DW='a graph (.mlir)'
// RUN: sh -c 'ssm-run %t/m --prompt ab --report-scratch; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GRAPHFLAG -DF=report-scratch -DW='a graph (.mlir) or --golden'
// RUN: sh -c 'ssm-run %t/m --prompt ab --autoschedule adams2019; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GRAPHFLAG -DF=autoschedule -DW='a graph (.mlir) or --golden'
// RUN: sh -c 'ssm-run %t/m --prompt ab --conv-algorithm fft; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GRAPHFLAG -DF=conv-algorithm -DW='--golden'
// GRAPHFLAG: ssm-run: error: --[[F]] goes with [[W]], not a model folder (--logits-out, --all-logits-out and --check cover a model run)
// GRAPHFLAG-NOT: prompt:
// GRAPHFLAG: exit=2
// RUN: not ls %t/od
// RUN: sh -c 'ssm-run %t/m --prompt ab --rtol 1e-3; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TOL
// TOL: ssm-run: error: --rtol and --atol go with --check on a model folder
// TOL: exit=2
//
// --target (and --tuning-db) choose how kernels are compiled: on a folder
// whose modules are compiled they choose nothing, and ssm-run says so
// (before: silently ignored).
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --prompt ab --target x86-64-linux 2>&1 | FileCheck %s --check-prefix=TARGETNOTE
// TARGETNOTE: ssm-run: note: --target chooses how kernels are compiled, and this folder's modules are already compiled: they run as they are (ssm-compile {{.*}}m takes the same flags)
// TARGETNOTE: prompt: 2 tokens
// RUN: env SSM_CACHE_DIR=%t.cache ssm-run %t/m --prompt ab 2>&1 | FileCheck %s --check-prefix=NONOTE
// NONOTE-NOT: note:
// NONOTE: prompt: 2 tokens
