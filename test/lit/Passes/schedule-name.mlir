// RUN: ssm-opt %s -ssm-cpu-pipeline -split-input-file -verify-diagnostics

// A schedule under a name without the dialect prefix is no dialect attribute
// the parser can check, and codegen reads 'ssm.schedule' only: the schedule
// assignment (every compile runs it) refuses it rather than compiling the
// heuristic schedule beside it (passes/AssignSchedules.cpp).

func.func @unprefixed(%x: tensor<1x8x16xf32>, %w: tensor<8x4xf32>) -> tensor<1x8x16xf32> {
  // expected-error @+1 {{schedule attribute 'schedule' is not read: name it 'ssm.schedule'}}
  %o, %f = ssm.causal_conv1d identity %x, %w {schedule = #ssm.schedule<parallel = false>}
      : (tensor<1x8x16xf32>, tensor<8x4xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x3xf32>)
  return %o : tensor<1x8x16xf32>
}

// -----

func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{schedule attribute 'schedule' is not read: name it 'ssm.schedule'}}
  %y = linalg.matmul_transpose_b {schedule = #ssm.matmul<algorithm = dot>} ins(%a, %b : tensor<4x8xf32>, tensor<16x8xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
