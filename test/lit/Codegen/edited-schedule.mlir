// A schedule edited in a model graph reaches the compiled module, and the
// edited module still agrees with the reference interpreter.
// REQUIRES: ssm-run
//
// The heuristic schedules for AVX2, as ssm-compile would choose them:
// RUN: rm -f %t.mlir && ssm-opt %S/../../../examples/mamba1_layer.mlir -ssm-cpu-pipeline="target=x86-64-linux-avx2" -o %t.mlir
// Edit the selective scan: 4 lanes instead of 8, no unrolling of the state.
// RUN: sed -e 's/vector_width = 8, channel_tile = 8, parallel = true, unroll_state = true/vector_width = 4, channel_tile = 4, parallel = true, unroll_state = false/' %t.mlir > %t.edit.mlir
// RUN: FileCheck %s --check-prefix=EDIT < %t.edit.mlir
// EDIT: ssm.selective_scan {{.*}}#ssm.schedule<vector_width = 4, channel_tile = 4, parallel = true, unroll_state = false>
// RUN: rm -rf %t.base %t.edited
// RUN: ssm-compile %t.mlir --target x86-64-linux-avx2 --emit-stmt -o %t.base
// RUN: ssm-compile %t.edit.mlir --target x86-64-linux-avx2 --emit-stmt -o %t.edited
// The base scan runs 8-lane vectors over channels, the edited one 4-lane.
// RUN: FileCheck %s --check-prefix=BASE < %t.base/ssm_main.stmt
// RUN: FileCheck %s --check-prefix=EDITED < %t.edited/ssm_main.stmt
// BASE: ss_state{{.*}}float32x8
// EDITED: ss_state{{.*}}float32x4
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t.edit.mlir --seed 0 --engine cpu --target x86-64-linux-avx2 --check --rtol 1e-4 --atol 1e-6 | FileCheck %s
// CHECK: result0_vs_reference {{.*}} PASS
