// A model folder's compiled/ with entries no ssm-compile writes: a symbolic
// link loop, a manifest.json that is a FIFO, one that links to /dev/zero.
// Each is named (exit 2) or passed over; before, the loop aborted ssm-run
// (an uncaught filesystem_error in Model::addCompiledModules), the FIFO hung
// it at the manifest's open and /dev/zero would have been read without end.
// REQUIRES: ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 16 --state 4 --layers 1 --conv 4 --dt-rank 1 --seed 7
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m > /dev/null
// RUN: mkdir -p %t/m/compiled/seqF %t/m/compiled/seqZ
// RUN: ln -s loop %t/m/compiled/loop
// RUN: mkfifo %t/m/compiled/seqF/manifest.json
// RUN: ln -s /dev/zero %t/m/compiled/seqZ/manifest.json
// RUN: sh -c 'timeout 20 ssm-run %t/m --prompt hi; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FIFO
// FIFO: ssm-run: error: {{.*}}compiled/seqF/manifest.json: is a FIFO, not a manifest (an ssm-compile output's manifest.json is a file)
// FIFO: exit=2
// RUN: rm -rf %t/m/compiled/seqF
// RUN: sh -c 'timeout 20 ssm-run %t/m --prompt hi; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: ssm-run: error: {{.*}}compiled/seqZ/manifest.json: is a device or socket, not a manifest
// ZERO: exit=2
