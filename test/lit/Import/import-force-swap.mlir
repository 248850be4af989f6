// REQUIRES: shared-data
// ssm-import --force over a model folder is all or nothing: the new folder is
// built beside the old one and the two swap in one rename. Before, the files
// were moved in one by one: a stale compiled/ stayed beside the new
// model.json (plain --force), and --force --compile over a compiled folder
// failed part way (compiled/ could not replace the old one) with the new
// model.json and weights already beside the old compiled/, so neither opened.
// RUN: rm -rf %t && mkdir -p %t/bin
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 2 > /dev/null
// RUN: mkdir -p %t/m/compiled/l2 && echo stale > %t/m/compiled/l2/manifest.json
// RUN: echo mine > %t/m/notes.txt

// Plain --force: the old compiled/ goes (it belongs to the old model.mlir),
// a file the user added stays, nothing is left beside the folder.
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 3 --force > /dev/null
// RUN: ls %t/m | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: compiled
// PLAIN: model.json
// PLAIN: model.mlir
// PLAIN: notes.txt
// PLAIN: weights.safetensors
// RUN: FileCheck %s --check-prefix=SEQ3 < %t/m/model.mlir
// SEQ3: tensor<3xi32>
// RUN: FileCheck %s --check-prefix=NOTES < %t/m/notes.txt
// NOTES: mine
// RUN: ls %t | FileCheck %s --check-prefix=CLEAN
// CLEAN-NOT: tmp
// CLEAN-NOT: old

// --force --compile over a compiled folder, with a stand-in ssm-compile next
// to a copy of ssm-import (it writes compiled/seq2/ into the staged folder):
// the new compiled/ replaces the old one whole.
// RUN: sh -c 'cp "$(command -v ssm-import)" %t/bin/ssm-import'
// RUN: printf '#!/bin/sh\nmkdir -p "$1/compiled/seq2" && echo new > "$1/compiled/seq2/manifest.json"\n' > %t/bin/ssm-compile
// RUN: chmod +x %t/bin/ssm-compile
// RUN: mkdir -p %t/m/compiled/l2 && echo stale > %t/m/compiled/l2/manifest.json
// RUN: %t/bin/ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 2 --force --compile | FileCheck %s --check-prefix=COMPILED
// COMPILED: ssm-import: compiled {{.*}}m/compiled/seq2
// RUN: ls %t/m/compiled | FileCheck %s --check-prefix=ONLYNEW
// ONLYNEW-NOT: l2
// ONLYNEW: seq2
// ONLYNEW-NOT: l2
// RUN: FileCheck %s --check-prefix=SEQ2 < %t/m/model.mlir
// SEQ2: tensor<2xi32>
// RUN: ls %t | FileCheck %s --check-prefix=CLEAN

// A failing compile publishes nothing: the folder is as it was.
// RUN: cp %t/m/model.mlir %t/model.mlir.keep
// RUN: printf '#!/bin/sh\nexit 1\n' > %t/bin/ssm-compile
// RUN: sh -c '%t/bin/ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 4 --force --compile; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FAILED
// FAILED: nothing was written to
// FAILED: exit=1
// RUN: cmp %t/m/model.mlir %t/model.mlir.keep
// RUN: ls %t/m/compiled | FileCheck %s --check-prefix=ONLYNEW
// RUN: ls %t | FileCheck %s --check-prefix=CLEAN
