// Work folders of killed runs carry their process id in their names and are
// removed by the next run, when that process is gone; a folder whose process
// is alive (pid 1 here) is left alone. Before, a kill -9 left ssm-compile's
// staging folders and ssm-tune's $TMPDIR/ssm-tune-* folders (3-13 MB each)
// for good. A dead pid: the pid of a shell that has exited.
// RUN: rm -rf %t && mkdir -p %t/tmp

// ssm-compile -o DIR: DIR.tmp-<pid> beside DIR.
// RUN: sh -c 'p=$(sh -c "echo \$\$"); mkdir %t/out.tmp-$p && echo $p > %t/dead.pid'
// RUN: mkdir %t/out.tmp-1
// RUN: ssm-compile %s -o %t/out 2>&1 | FileCheck %s --check-prefix=COMPILE
// COMPILE: ssm-compile: removed {{.*}}out.tmp-{{[0-9]+}}, the work folder of a run that was killed
// RUN: ls %t | FileCheck %s --check-prefix=OUT
// OUT: out
// OUT-NEXT: out.tmp-1
// OUT-NEXT: tmp

// ssm-compile <model-dir>: <model-dir>/.ssm-compile.tmp-<pid> and .old-<pid>.
// REQUIRES: shared-data
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 1 > /dev/null
// RUN: sh -c 'p=$(cat %t/dead.pid); mkdir %t/m/.ssm-compile.tmp-$p %t/m/.ssm-compile.old-$p %t/m/.ssm-compile.tmp-1'
// RUN: ssm-compile %t/m 2>&1 | FileCheck %s --check-prefix=MODEL
// MODEL-DAG: ssm-compile: removed {{.*}}m/.ssm-compile.tmp-{{[0-9]+}}, the work folder
// MODEL-DAG: ssm-compile: removed {{.*}}m/.ssm-compile.old-{{[0-9]+}}, the work folder
// RUN: ls -a %t/m | FileCheck %s --check-prefix=MODELLS
// MODELLS-NOT: .ssm-compile.old
// MODELLS: .ssm-compile.tmp-1
// MODELLS-NEXT: compiled

// ssm-import -o DIR: DIR.tmp-<pid> (a staged model) removed; DIR.tmp-<pid>-old
// (the old folder moved aside where there is no RENAME_EXCHANGE) removed when
// DIR exists, put back when it does not. Before, they stayed for good.
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/imp --seq-len 1 > /dev/null
// RUN: sh -c 'p=$(cat %t/dead.pid); mkdir %t/imp.tmp-$p %t/imp.tmp-$p-old %t/imp.tmp-1 && touch %t/imp.tmp-$p-old/model.json'
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/imp --seq-len 1 --force 2>&1 | FileCheck %s --check-prefix=IMPORT
// IMPORT-DAG: ssm-import: removed {{.*}}imp.tmp-{{[0-9]+}}, the work folder of a run that was killed
// IMPORT-DAG: ssm-import: removed {{.*}}imp.tmp-{{[0-9]+}}-old, the old folder a killed run had moved aside
// RUN: ls %t | FileCheck %s --check-prefix=IMPORTLS
// IMPORTLS: imp
// IMPORTLS-NEXT: imp.tmp-1
// IMPORTLS-NOT: imp.tmp
// RUN: sh -c 'p=$(cat %t/dead.pid); mkdir %t/gone.tmp-$p-old && touch %t/gone.tmp-$p-old/model.json'
// RUN: not ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/gone --seq-len 1 2>&1 | FileCheck %s --check-prefix=BACK
// BACK: ssm-import: put back {{.*}}gone from {{.*}}gone.tmp-{{[0-9]+}}-old, where a killed run had moved it aside
// BACK: ssm-import: error: {{.*}}gone: exists and is not empty; pass --force to write into it
// RUN: test -f %t/gone/model.json

// ssm-tune: $TMPDIR/ssm-tune-<pid>-XXXXXX (the older ssm-tune-XXXXXX form,
// which names no process, is not touched).
// RUN: sh -c 'p=$(cat %t/dead.pid); mkdir %t/tmp/ssm-tune-$p-abc123 %t/tmp/ssm-tune-1-abc123 %t/tmp/ssm-tune-123456'
// RUN: env TMPDIR=%t/tmp SSM_CACHE_DIR=%t/cache ssm-tune %S/Inputs/tune-small.mlir --db %t/a.db --budget 2s 2>&1 | FileCheck %s --check-prefix=TUNE
// TUNE: ssm-tune: removed {{.*}}tmp/ssm-tune-{{[0-9]+}}-abc123, the work folder of a run that was killed
// RUN: ls %t/tmp | FileCheck %s --check-prefix=TUNELS
// TUNELS: ssm-tune-1-abc123
// TUNELS-NEXT: ssm-tune-123456
// TUNELS-NOT: ssm-tune

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = arith.addf %a, %a : tensor<4xf32>
  return %b : tensor<4xf32>
}
