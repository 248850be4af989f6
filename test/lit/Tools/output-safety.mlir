// No tool overwrites a user's file or non-empty folder without --force, and
// none leaves partial output when it fails (CONTRACTS.md).
// RUN: rm -rf %t && mkdir -p %t

// ssm-opt -o: an existing file (even the input itself) is refused, exit 2,
// and left as it was; --force replaces it whole.
// RUN: cp %s %t/in.mlir
// RUN: echo keep > %t/existing.mlir
// RUN: sh -c 'ssm-opt %t/in.mlir -o %t/existing.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EXISTS
// EXISTS: ssm-opt: error: output file '{{.*}}.mlir' exists; pass --force to replace it
// EXISTS: exit=2
// RUN: FileCheck %s --check-prefix=KEPT < %t/existing.mlir
// KEPT: keep
// RUN: sh -c 'ssm-opt %t/in.mlir -o %t/in.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EXISTS
// RUN: cmp %s %t/in.mlir
// RUN: ssm-opt %t/in.mlir -o %t/in.mlir --force
// RUN: FileCheck %s --check-prefix=FORCED < %t/in.mlir
// FORCED: func.func @main
// A failed run writes nothing, and with --force keeps the old file.
// RUN: sh -c 'ssm-opt %S/Inputs/malformed.mlir -o %t/failed.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FAILED
// FAILED: exit=1
// RUN: not ls %t/failed.mlir
// RUN: not ssm-opt %S/Inputs/malformed.mlir -o %t/existing.mlir --force
// RUN: FileCheck %s --check-prefix=KEPT < %t/existing.mlir

// ssm-opt with an unknown target in a pass option: could not run, exit 2.
// RUN: sh -c 'ssm-opt %s --pass-pipeline="builtin.module(func.func(ssm-assign-schedules{target=bogus-arch}))"; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: ssm-opt: error: unknown target 'bogus-arch' (expected a Halide target such as host
// TARGET: exit=2

// ssm-run --output-dir: a non-empty folder is refused before anything is
// written (before: result0.npy was written, then result1.npy refused).
// RUN: mkdir -p %t/out && echo x > %t/out/result1.npy
// RUN: sh -c 'ssm-run %s --seed 1 --output-dir %t/out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: ssm-run: error: '{{.*}}out' is not empty; pass --force to write into it
// OUTDIR: exit=2
// RUN: not ls %t/out/result0.npy
// RUN: echo x > %t/file.mlir
// RUN: sh -c 'ssm-run %s --seed 1 --output-dir %t/file.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OUTFILE
// OUTFILE: ssm-run: error: '{{.*}}file.mlir' exists and is not a folder
// OUTFILE: exit=2
// RUN: ssm-run %s --seed 1 --output-dir %t/out --force > /dev/null
// RUN: ls %t/out | FileCheck %s --check-prefix=WRITTEN
// WRITTEN: result0.npy
// WRITTEN-NEXT: result1.npy
// WRITTEN-NOT: tmp
// RUN: ssm-run %s --seed 1 --output-dir %t/fresh > /dev/null
// RUN: ls %t/fresh | count 2

// ssm-compile: a failed compile leaves no output folder (it builds in a
// temporary sibling and renames it at the end).
// RUN: mkdir -p %t/c
// RUN: sh -c 'ssm-compile %S/Inputs/unknown-op.mlir -o %t/c/lib; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=COMPILEFAIL
// COMPILEFAIL: exit=1
// RUN: ls %t/c | count 0

func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %b = arith.addf %a, %a : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
