// ssm-tune, ssm-compile --tuning-db and ssm-run --tuning-db on bad input: a
// clear message, exit 2, and the user's files untouched.
// RUN: rm -rf %t && mkdir -p %t

// A budget of 0 or no duration.
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t/a.db --budget 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: --budget is 0
// ZERO: exit=2
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t/a.db --budget 5x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BADBUDGET
// BADBUDGET: error: --budget '5x' is not a duration
// BADBUDGET: exit=2
// RUN: not test -e %t/a.db

// A graph with nothing to tune.
// RUN: sh -c 'ssm-tune %s --db %t/a.db --budget 5s; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOTHING
// NOTHING: error: nothing to tune in '{{.*}}ssm-tune-errors.mlir': no ssm op or linalg matmul with static shapes
// NOTHING: exit=2
// RUN: not test -e %t/a.db

// A damaged file and another program's SQLite database: refused, unchanged.
// RUN: head -c 4096 %S/Inputs/tune-small.mlir > %t/corrupt.db && cp %t/corrupt.db %t/corrupt.orig
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t/corrupt.db --budget 5s; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: sh -c 'ssm-compile %S/Inputs/tune-small.mlir --tuning-db %t/corrupt.db -o %t/out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: '{{.*}}corrupt.db' is not a SQLite database or is damaged
// CORRUPT: exit=2
// RUN: cmp %t/corrupt.db %t/corrupt.orig
// RUN: python3 -c "import sqlite3; c = sqlite3.connect('%t/foreign.db'); c.execute('create table notes(x)'); c.commit()"
// RUN: cp %t/foreign.db %t/foreign.orig
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t/foreign.db --budget 5s; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t/foreign.db --report; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: sh -c 'ssm-compile %S/Inputs/tune-small.mlir --tuning-db %t/foreign.db -o %t/out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FOREIGN
// FOREIGN: '{{.*}}foreign.db' is not an ssm-tune database (another program's SQLite file)
// FOREIGN: exit=2
// RUN: cmp %t/foreign.db %t/foreign.orig
// RUN: not test -e %t/out

// An unwritable path, a folder, a database that does not exist (to read).
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t/no/such/dir/t.db --budget 5s; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: error: cannot open the tuning database '{{.*}}no/such/dir/t.db': unable to open database file
// UNWRITABLE: exit=2
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t --budget 5s; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FOLDER
// FOLDER: is not a regular file
// FOLDER: exit=2
// RUN: sh -c 'ssm-compile %S/Inputs/tune-small.mlir --tuning-db %t/none.db -o %t/out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: sh -c 'ssm-run %S/Inputs/tune-small.mlir --engine cpu --seed 1 --tuning-db %t/none.db; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t/none.db --report; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: no tuning database '{{.*}}none.db' (ssm-tune --db writes one)
// NONE: exit=2
// RUN: not test -e %t/none.db

// Options that contradict each other; an --export file that exists.
// RUN: sh -c 'ssm-run %S/Inputs/tune-small.mlir --seed 1 --tuning-db %t/foreign.db; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ENGINE
// ENGINE: --tuning-db applies to the cpu engine
// ENGINE: exit=2
// RUN: sh -c 'ssm-compile %S/Inputs/tune-small.mlir --tuning-db %t/foreign.db --autoschedule li2018 -o %t/out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=AUTO
// AUTO: --tuning-db schedules the ops itself: it does not combine with --autoschedule
// AUTO: exit=2
// RUN: echo keep > %t/exists.mlir
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t/foreign.db --export %t/exists.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EXISTS
// EXISTS: --export '{{.*}}exists.mlir' exists; pass --force to overwrite it
// EXISTS: exit=2
// RUN: grep -qx keep %t/exists.mlir

// An unknown target.
// RUN: sh -c 'ssm-tune %S/Inputs/tune-small.mlir --db %t/b.db --target pdp-11; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: unknown target 'pdp-11'
// TARGET: exit=2
// RUN: not test -e %t/b.db

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
