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
