// A hybrid's --context shorter than model.mlir's sequence length: without
// --seq-len, the default 16 becomes the context (before, --context 8 failed
// with the attention op's verifier error on the generated graph, "operand 'q'
// has 16 tokens but the caches hold only C = 8 positions"); an explicit
// --seq-len longer than the context, or such a length in a --compile list, is
// refused naming both flags, and nothing is written. Needs ../shared's tiny LFM2.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import %shared/models/lfm2/tiny-lfm2-a -o %t/c8 --context 8 | FileCheck %s --check-prefix=CLAMP
// CLAMP: context 8, {{.*}}, seq-len 8{{$}}
// RUN: ssm-run %t/c8 --engine reference --prompt 'abcdefgh' 2>&1 | FileCheck %s --check-prefix=RUNS
// RUNS: prompt: 8 tokens
//
// RUN: sh -c 'ssm-import %shared/models/lfm2/tiny-lfm2-a -o %t/long --context 8 --seq-len 16; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: ssm-import: error: a sequence of 16 tokens (--seq-len) is longer than the 8 positions the KV caches hold (--context): give --seq-len at most 8 or a longer --context
// LONG: exit=2
// RUN: not ls %t/long
//
// RUN: sh -c 'ssm-import %shared/models/lfm2/tiny-lfm2-a -o %t/list --context 8 --seq-len 4,12 --compile; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=LIST
// LIST: ssm-import: error: --compile: a sequence of 12 tokens (--seq-len) is longer than the 8 positions the KV caches hold (--context); nothing was written to
// LIST: exit=2
// RUN: not ls %t/list
// RUN: ls -a %t | FileCheck %s --check-prefix=NOSTAGING
// NOSTAGING-NOT: .tmp-
