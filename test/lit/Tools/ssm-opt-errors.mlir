// Exit codes and diagnostics of ssm-opt (CONTRACTS.md): 0 on success, 1 when
// the input is invalid (parse or verifier error, reported as file:line:col),
// 2 when it could not run at all (missing input file).

// A missing input file: exit 2, and the file named.
// RUN: rm -f %t.missing.mlir
// RUN: sh -c 'ssm-opt %t.missing.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: ssm-opt: error: cannot open input file '{{.*}}.missing.mlir': No such file or directory
// MISSING-NEXT: exit=2

// Malformed IR: exit 1, error at file:line:col.
// RUN: sh -c 'ssm-opt %S/Inputs/malformed.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: {{.*}}Inputs{{/|\\}}malformed.mlir:3:22: error: expected SSA operand
// MALFORMED: exit=1

// An op the ssm dialect does not have: exit 1.
// RUN: sh -c 'ssm-opt %S/Inputs/unknown-op.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: {{.*}}Inputs{{/|\\}}unknown-op.mlir:3:8: error: custom op 'ssm.frobnicate' is unknown
// UNKNOWN: exit=1

// A verifier error: exit 1, error at the op.
// RUN: sh -c 'ssm-opt %S/Inputs/bad-shape.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: {{.*}}Inputs{{/|\\}}bad-shape.mlir:3:15: error: 'ssm.affine_scan' op scan dimension 2 is out of range for operand 'b' of shape (4, 16)
// VERIFY: exit=1

// `not` inverts the exit status of each failing case.
// RUN: not ssm-opt %t.missing.mlir
// RUN: not ssm-opt %S/Inputs/malformed.mlir
// RUN: not ssm-opt %S/Inputs/unknown-op.mlir

// Valid input: exit 0, from a file, from stdin, and with -o (whose argument
// is an output, not a missing input).
// RUN: sh -c 'ssm-opt %s; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OK
// RUN: sh -c 'ssm-opt < %s; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OK
// RUN: rm -f %t.out.mlir
// RUN: ssm-opt %s -o %t.out.mlir
// RUN: FileCheck %s --check-prefix=OK-FILE < %t.out.mlir
// OK: func.func @ok
// OK: exit=0
// OK-FILE: func.func @ok

func.func @ok(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
