// ssm-compile --functions f,g compiles only the named public functions (the
// others are dropped before the passes: no symbol, no manifest entry); a
// name the input lacks, or a private one, is refused naming the public
// functions it has. ssm-import and ssm-run use it to compile a model
// folder's further sequence lengths without the step functions.
// RUN: rm -rf %t && ssm-compile %s --functions scale -o %t/one
// RUN: FileCheck %s --check-prefix=ONE < %t/one/manifest.json
// ONE: "name": "scale"
// ONE-NOT: "name": "shift"
// RUN: nm %t/one/ssm_module.a | FileCheck %s --check-prefix=SYMS
// SYMS-NOT: ssm_shift
// SYMS: T ssm_scale
// SYMS-NOT: ssm_shift
// RUN: ssm-compile %s --functions shift,scale -o %t/both
// RUN: FileCheck %s --check-prefix=BOTH < %t/both/manifest.json
// BOTH-DAG: "name": "scale"
// BOTH-DAG: "name": "shift"
// RUN: sh -c 'ssm-compile %s --functions scale,nope -o %t/bad; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: ssm-compile: error: --functions: '{{.*}}ssm-compile-functions.mlir' has no public function 'nope' (it has scale, shift)
// BAD: exit=2
// RUN: not ls %t/bad
// A model folder's module without the step function is not called
// deployable: ssm-run needs a module with @forward_step beside it.
// REQUIRES: ssm-run
// RUN: python3 %S/../Import/Inputs/make_mamba.py %t/a --hidden 16 --state 4 --layers 1 --conv 4 --dt-rank 1 --seed 7
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m
// RUN: ssm-compile %t/m --functions forward_sequence | FileCheck %s --check-prefix=SEQONLY
// SEQONLY: ssm-compile: compiled {{.*}}m/compiled/seq16 (--functions): ssm-run {{.*}}m uses it beside a module that holds @forward_step (the steps); without one it compiles the model on first use
// A module written outside the folder's compiled/ is not one ssm-run finds
// (was: "<dir> is deployable: <out> (ssm-run <dir> runs prompts ... from it").
// RUN: ssm-compile %t/m --functions forward_step -o %t/elsewhere | FileCheck %s --check-prefix=ELSEWHERE
// ELSEWHERE: ssm-compile: compiled {{.*}}elsewhere, outside {{.*}}m/compiled: ssm-run {{.*}}m loads the modules there only (move it in, or load it with ssm_model_add_module / Model.add_module)

func.func @scale(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant dense<2.0> : tensor<8xf32>
  %y = arith.mulf %x, %c : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @shift(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant dense<1.0> : tensor<8xf32>
  %y = arith.addf %x, %c : tensor<8xf32>
  return %y : tensor<8xf32>
}
