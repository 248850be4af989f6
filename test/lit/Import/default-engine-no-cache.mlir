// The default engine of a model folder is cpu (issue 35 Deliver 4): where the
// first-use compile cannot happen (here the compile cache is a regular file,
// as on a read-only home), the error says that the cpu engine was the default
// and that --engine reference runs the interpreter with no compilation (before:
// only the cache's error); the interpreter then runs. With --engine cpu asked
// for, no hint.
// REQUIRES: ssm-run
// RUN: rm -rf %t && mkdir -p %t && echo x > %t/not-a-folder
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 16 --state 4 --layers 1 --conv 4 --dt-rank 1 --seed 9
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m
// RUN: sh -c 'env SSM_CACHE_DIR=%t/not-a-folder ssm-run %t/m --prompt "ab"; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: ssm-run: error: cannot create the compile cache folder {{.*}}not-a-folder{{.*}} (the cpu engine is the default for a model folder; --engine reference runs the interpreter instead, with no compilation)
// DEFAULT: exit=2
// RUN: sh -c 'env SSM_CACHE_DIR=%t/not-a-folder ssm-run %t/m --engine cpu --prompt "ab"; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ASKED
// ASKED: ssm-run: error: cannot create the compile cache folder
// ASKED-NOT: the cpu engine is the default
// ASKED: exit=2
// RUN: env SSM_CACHE_DIR=%t/not-a-folder ssm-run %t/m --engine reference --prompt 'ab' 2>&1 | FileCheck %s --check-prefix=REF
// REF: prompt: 2 tokens in {{.*}}, sequence, reference engine
