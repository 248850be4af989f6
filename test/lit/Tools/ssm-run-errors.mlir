// ssm-run on bad input: a clear message naming the problem and CONTRACTS.md's
// exit status (2: could not run; 1: ran and failed), never a signal.
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t

// A golden folder without case.json.
// RUN: mkdir -p %t/empty
// RUN: sh -c 'ssm-run --golden %t/empty; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOCASE
// NOCASE: case.json: cannot open
// NOCASE: exit=2

// A case with an unknown attribute.
// RUN: cp -r %shared/golden/conv_w2_nobias %t/attr && chmod -R u+w %t/attr
// RUN: sed -i 's/"return_final_states"/"dilation": 2, "return_final_states"/' %t/attr/case.json
// RUN: sh -c 'ssm-run --golden %t/attr; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: unknown attribute 'dilation'
// ATTR: exit=2

// An unknown op.
// RUN: cp -r %shared/golden/conv_w2_nobias %t/op && chmod -R u+w %t/op
// RUN: sed -i 's/"op": "causal_conv1d"/"op": "causal_conv2d"/' %t/op/case.json
// RUN: sh -c 'ssm-run --golden %t/op; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OP
// OP: unknown op 'causal_conv2d'
// OP: exit=2

// A missing input file.
// RUN: cp -r %shared/golden/conv_w2_nobias %t/missing && chmod -R u+w %t/missing
// RUN: rm %t/missing/inputs/weight.npy
// RUN: sh -c 'ssm-run --golden %t/missing; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: weight.npy
// MISSING: exit=2

// A truncated input file.
// RUN: cp -r %shared/golden/conv_w2_nobias %t/trunc && chmod -R u+w %t/trunc
// RUN: head -c 150 %shared/golden/conv_w2_nobias/inputs/x.npy > %t/trunc/inputs/x.npy
// RUN: sh -c 'ssm-run --golden %t/trunc; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: x.npy: {{.*}}
// TRUNC: exit=2

// A mis-shaped input: the weight of another case (width 4, not 2).
// RUN: cp -r %shared/golden/conv_w2_nobias %t/shape && chmod -R u+w %t/shape
// RUN: cp %shared/golden/conv_w4_silu/inputs/weight.npy %t/shape/inputs/weight.npy
// RUN: sh -c 'ssm-run --golden %t/shape; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: weight.npy: shape (8, 4) but case.json says (4, 2)
// SHAPE: exit=2

// A check that does not pass: a zero tolerance on a case the reference meets
// only to rounding. Exit 1 with a FAIL line.
// RUN: cp -r %shared/golden/conv_w4_silu %t/tight && chmod -R u+w %t/tight
// RUN: sed -i 's/"rtol": 0.0001/"rtol": 0.0/; s/"atol": 1e-05/"atol": 0.0/' %t/tight/case.json
// RUN: sh -c 'ssm-run --golden %t/tight; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TIGHT
// TIGHT: out max_abs={{.*}} FAIL
// TIGHT: exit=1

// Malformed IR, an unknown op, a missing .mlir, a mis-shaped --input, an unknown engine.
// RUN: sh -c 'ssm-run %S/Inputs/malformed.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: malformed.mlir:{{[0-9]+}}:{{[0-9]+}}: error
// MALFORMED: exit=1
// RUN: sh -c 'ssm-run %S/Inputs/unknown-op.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: unknown-op.mlir:{{[0-9]+}}:{{[0-9]+}}: error
// UNKNOWN: exit=1
// RUN: sh -c 'ssm-run %t/nope.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: cannot open '{{.*}}nope.mlir'
// NOFILE: exit=2
// RUN: sh -c 'ssm-run %s --input %shared/golden/conv_w2_nobias/inputs/weight.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BADSHAPE
// BADSHAPE: weight.npy: shape (4, 2) but argument 0 of @main is (4, 9)
// BADSHAPE: exit=2
// RUN: sh -c 'ssm-run --golden %shared/golden/conv_w2_nobias --engine tpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ENGINE
// ENGINE: unknown engine 'tpu'
// ENGINE: exit=2

// A dynamic shape: named as one whether or not an --input gives its sizes
// (with one, it used to say "shape (3, 64) but argument 0 of @main is
// (-9223372036854775808, 64)"; without, "give it with --input").
// RUN: python3 %S/Inputs/npy_fill.py %t/dyn.npy 1.0 3x64
// RUN: sh -c 'ssm-run %S/Inputs/dynamic-shape.mlir --input %t/dyn.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DYN
// RUN: sh -c 'ssm-run %S/Inputs/dynamic-shape.mlir --seed 1; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DYN
// DYN: argument 0 of @main has a dynamic shape (tensor<?x64xf32>): ssm-run runs functions of static shapes only
// DYN-NOT: -9223372036854775808
// DYN: exit=2

func.func @main(%x: tensor<4x9xf32>) -> tensor<4x9xf32> {
  return %x : tensor<4x9xf32>
}
