// ssm-serve names, at start, each batched function model.json names
// (functions.step_batched, functions.sequence_batched) that no compiled module of the
// folder has, one warning line each; it used to serve without it silently. A warning,
// not an error: the folder serves correctly without it (each stream in its own step
// and prefill calls, as ssm-run and the C API run it), only without the batched
// kernels' speed, so an operator is told but a working folder is not refused. A
// function that is named and compiled, or not named at all, gets no line.
// The tiny Mamba-1, its step and batched step compiled alone (~3 s); each server
// stops (SIGTERM) once it says it listens.
// REQUIRES: shared-data

// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/m --seq-len 2 --batch 2 > /dev/null
// RUN: ssm-compile %t/m/model.mlir -o %t/m/compiled/step --functions forward_step,forward_step_batched > /dev/null
// RUN: python3 -c "import json, sys; p = sys.argv[1]; j = json.load(open(p)); j['functions']['sequence_batched'] = {'name': 'forward_sequence_batched', 'batch': 3}; json.dump(j, open(p, 'w'))" %t/m/model.json
// RUN: sh -c 'ssm-serve %t/m --port 0 2> %t/err1 & pid=$!; i=0; while [ $i -lt 300 ] && ! grep -q listening %t/err1; do sleep 0.1; i=$((i+1)); done; kill -TERM $pid; wait $pid'
// RUN: FileCheck %s --check-prefix=SEQ --implicit-check-not=warning < %t/err1
// SEQ: ssm-serve: {{.*}}batched step of 2;
// SEQ: ssm-serve: warning: {{.*}}/m/model.json names @forward_sequence_batched (functions.sequence_batched, 3 per call), but no module in {{.*}}/m/compiled has it: each prompt is prefilled in its own calls (import it again with --prefill-batch 3 --compile)
// SEQ: ssm-serve: listening on

// Named and compiled, or not named: no line.
// RUN: python3 -c "import json, sys; p = sys.argv[1]; j = json.load(open(p)); del j['functions']['sequence_batched']; json.dump(j, open(p, 'w'))" %t/m/model.json
// RUN: sh -c 'ssm-serve %t/m --port 0 2> %t/err2 & pid=$!; i=0; while [ $i -lt 300 ] && ! grep -q listening %t/err2; do sleep 0.1; i=$((i+1)); done; kill -TERM $pid; wait $pid'
// RUN: FileCheck %s --check-prefix=NONE --implicit-check-not=warning < %t/err2
// NONE: ssm-serve: listening on

// The batched step named under a name no module has.
// RUN: python3 -c "import json, sys; p = sys.argv[1]; j = json.load(open(p)); j['functions']['step_batched']['name'] = 'forward_step_batched_8'; j['functions']['step_batched']['batch'] = 8; json.dump(j, open(p, 'w'))" %t/m/model.json
// RUN: sh -c 'ssm-serve %t/m --port 0 2> %t/err3 & pid=$!; i=0; while [ $i -lt 300 ] && ! grep -q listening %t/err3; do sleep 0.1; i=$((i+1)); done; kill -TERM $pid; wait $pid'
// RUN: FileCheck %s --check-prefix=STEP --implicit-check-not=warning < %t/err3
// STEP: ssm-serve: {{.*}}per-stream steps;
// STEP: ssm-serve: warning: {{.*}}/m/model.json names @forward_step_batched_8 (functions.step_batched, 8 per call), but no module in {{.*}}/m/compiled has it: each slot decodes in its own step calls (import it again with --batch 8 --compile)
// STEP: ssm-serve: listening on
