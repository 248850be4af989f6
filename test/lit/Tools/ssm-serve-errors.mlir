// ssm-serve's command line: --help (exit 0), and what keeps it from starting:
// a message naming the problem, exit 2 (CONTRACTS.md), before it listens.
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t

// RUN: ssm-serve --help | FileCheck %s --check-prefix=HELP
// HELP: usage:
// HELP: ssm-serve <model-dir> [--host H] [--port P] [--parallel N] [--context N]
// HELP: POST /v1/completions
// HELP: POST /v1/chat/completions
// HELP: GET  /health, /v1/models, /metrics

// RUN: sh -c 'ssm-serve; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: ssm-serve: error: no model folder given
// NODIR: exit=2
// RUN: sh -c 'ssm-serve %t/none; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: ssm-serve: error: {{.*}}none/model.json
// MISSING: exit=2
// RUN: sh -c 'ssm-serve %t/none --port 70000; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=PORT
// PORT: ssm-serve: error: --port takes an integer in [0, 65535], got '70000'
// PORT: exit=2
// RUN: sh -c 'ssm-serve %t/none --parallel x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=PARALLEL
// PARALLEL: ssm-serve: error: --parallel takes an integer in [1, 1024], got 'x'
// PARALLEL: exit=2
// RUN: sh -c 'ssm-serve %t/none --bogus 1; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: ssm-serve: error: unknown option --bogus
// UNKNOWN: exit=2
// RUN: sh -c 'ssm-serve %t/none --port; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOVALUE
// NOVALUE: ssm-serve: error: --port needs a value
// NOVALUE: exit=2

// A folder with nothing compiled: the server compiles nothing.
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m > /dev/null
// RUN: sh -c 'ssm-serve %t/m --port 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOSTEP
// NOSTEP: ssm-serve: error: {{.*}}: no compiled step function in {{.*}}/compiled (ssm-import --compile, or ssm-compile <dir>)
// NOSTEP: exit=2

// A context of no positions.
// RUN: sh -c 'ssm-serve %t/m --context 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=CONTEXT
// CONTEXT: ssm-serve: error: --context takes an integer in [1, 1099511627776], got '0'
// CONTEXT: exit=2

// A hybrid's --context sizes its KV caches at open: past what they may hold,
// named before anything is loaded further.
// RUN: ssm-import %shared/models/lfm2/tiny-lfm2-a -o %t/lfm2 --context 64 > /dev/null
// RUN: sh -c 'ssm-serve %t/lfm2 --context 2000000000; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=KVCONTEXT
// KVCONTEXT: ssm-serve: error: --context 2000000000: a stream's KV caches hold from 1 to 1073741824 positions (this model's default is 64)
// KVCONTEXT: exit=2
// Slots whose caches together pass this machine's memory (1024 x 8 GB): named
// at start, before any is allocated (was: the slots allocated until the
// kernel's OOM killer ended the server).
// RUN: sh -c 'ssm-serve %t/lfm2 --context 16000000 --parallel 1024; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SLOTSMEM
// SLOTSMEM: ssm-serve: error: --parallel 1024 slots of 8.19 GB of states each (the KV caches at --context 16000000) take {{[0-9.]+}} GB, more than the {{[0-9.]+}} GB this process may use (the machine's memory, or ulimit -v): give a smaller --context or --parallel
// SLOTSMEM: exit=2
