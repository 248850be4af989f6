// ssm-run --golden CASE --emit-graph F writes the function built for a golden
// case, its arguments and results named as in case.json (ssm.name), so that a
// module compiled from it names its tensors as the case does
// (scripts/gpu_pack.py compiles the golden cases this way for GPU machines
// without a compiler). The written graph, run on the cpu engine with the case's
// inputs bound by name, matches the case's expected outputs within its
// tolerances; an existing file is kept without --force.
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{c} = %shared/golden/su_mamba1
// RUN: ssm-run --golden %{c} --emit-graph %t/su.mlir
// RUN: FileCheck %s --input-file %t/su.mlir
// CHECK: func.func @main(%C: tensor<2x16xf32> {ssm.name = "C"}, %B: {{.*}} {ssm.name = "B"}
// CHECK-SAME: %dt_bias: tensor<64xf32> {ssm.name = "dt_bias"}) -> (tensor<2x64xf32> {ssm.name = "out"}, tensor<2x64x16xf32> {ssm.name = "new_state"})
// CHECK: ssm.selective_update

// RUN: ssm-run %t/su.mlir --engine cpu --input state=%{c}/inputs/state.npy --input x=%{c}/inputs/x.npy \
// RUN:   --input dt=%{c}/inputs/dt.npy --input A=%{c}/inputs/A.npy --input B=%{c}/inputs/B.npy \
// RUN:   --input C=%{c}/inputs/C.npy --input D=%{c}/inputs/D.npy --input z=%{c}/inputs/z.npy \
// RUN:   --input dt_bias=%{c}/inputs/dt_bias.npy --expected %{c}/expected/out.npy \
// RUN:   --expected %{c}/expected/new_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=CPU
// CPU-COUNT-2: PASS

// RUN: cp %t/su.mlir %t/before.mlir
// RUN: not ssm-run --golden %{c} --emit-graph %t/su.mlir 2>&1 | FileCheck %s --check-prefix=EXISTS
// EXISTS: ssm-run: error: '{{.*}}su.mlir' exists; pass --force to overwrite it
// RUN: cmp %t/su.mlir %t/before.mlir
// RUN: ssm-run --golden %{c} --emit-graph %t/su.mlir --force
// RUN: not ssm-run %t/su.mlir --emit-graph %t/other.mlir 2>&1 | FileCheck %s --check-prefix=NOGOLDEN
// NOGOLDEN: --emit-graph goes with --golden <case-dir>
