// RUN: ssm-opt %s --ssm-decompose | FileCheck %s
// RUN: ssm-opt %s --ssm-decompose | FileCheck %s --check-prefix=LEFT

// ssm-decompose rewrites ssm.selective_scan into ssm.discretize (zoh A,
// euler B) + ssm.affine_scan along time + a linalg.generic readout, on the
// canonical (batch, L, dim, N) iteration space (d0, d1, d2, d3).

// Only the dynamically shaped scan (last function) is left.
// LEFT-NOT: ssm.selective_scan
// LEFT-LABEL: func.func @dynamic_shapes_are_left_alone(
// LEFT-NEXT: ssm.selective_scan channel_major
// LEFT-NOT: ssm.selective_scan

// CHECK-DAG: #[[ID4:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[SEQ_CM:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>
// CHECK-DAG: #[[SEQ_TM:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[CHAN:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[CONST:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[GROUP_CM:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2 floordiv 4, d3, d1)>
// CHECK-DAG: #[[GROUP_TM:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3)>
// CHECK-DAG: #[[TOKEN_TM:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[ID3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[CHAN_CM3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>

// channel_major, dim 8 in 2 groups of B and C (channel d reads group d floordiv 4),
// with D, z, delta_bias and softplus.
// CHECK-LABEL: func.func @channel_major_grouped(
// CHECK-NOT: ssm.selective_scan
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[TWENTY:.+]] = arith.constant 2.000000e+01 : f32
// delta + delta_bias, then softplus with torch's threshold of 20.
// CHECK: %[[DT:.+]] = linalg.generic {indexing_maps = [#[[SEQ_CM]], #[[CHAN]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1, %arg7 : tensor<1x8x40xf32>, tensor<8xf32>) outs(%{{.+}} : tensor<1x40x8x4xf32>)
// CHECK: %[[BIASED:.+]] = arith.addf
// CHECK: %[[BIG:.+]] = arith.cmpf ogt, %[[BIASED]], %[[TWENTY]] : f32
// CHECK: %[[EXP:.+]] = math.exp %[[BIASED]] : f32
// CHECK: %[[SP:.+]] = math.log1p %[[EXP]] : f32
// CHECK: %[[SEL:.+]] = arith.select %[[BIG]], %[[BIASED]], %[[SP]] : f32
// CHECK: linalg.yield %[[SEL]] : f32
// A and the grouped B broadcast to (batch, L, dim, N).
// CHECK: %[[AFULL:.+]] = linalg.generic {indexing_maps = [#[[CONST]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg2 : tensor<8x4xf32>) outs(%{{.+}} : tensor<1x40x8x4xf32>)
// CHECK: %[[BFULL:.+]] = linalg.generic {indexing_maps = [#[[GROUP_CM]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg3 : tensor<1x2x4x40xf32>) outs(%{{.+}} : tensor<1x40x8x4xf32>)
// CHECK: %[[ABAR:[^ ,]+]], %[[BBAR:[^ ,]+]] = ssm.discretize %[[AFULL]], %[[BFULL]], %[[DT]] methods(zoh, euler) : tensor<1x40x8x4xf32>
// CHECK: %[[BX:.+]] = linalg.generic {indexing_maps = [#[[ID4]], #[[SEQ_CM]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[BBAR]], %arg0 : tensor<1x40x8x4xf32>, tensor<1x8x40xf32>)
// CHECK: arith.mulf
// CHECK: %[[H:[^ ,]+]], %[[HLAST:[^ ,]+]] = ssm.affine_scan %[[ABAR]], %[[BX]] along 1 : (tensor<1x40x8x4xf32>, tensor<1x40x8x4xf32>) -> (tensor<1x40x8x4xf32>, tensor<1x8x4xf32>)
// Readout: y = sum_n h * C, reduced over N straight into u's layout.
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<1x8x40xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID4]], #[[GROUP_CM]], #[[SEQ_CM]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[H]], %arg4 : tensor<1x40x8x4xf32>, tensor<1x2x4x40xf32>) outs(%[[INIT]] : tensor<1x8x40xf32>)
// CHECK: ^bb0(%[[HN:.+]]: f32, %[[CN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[PROD:.+]] = arith.mulf %[[HN]], %[[CN]] : f32
// CHECK: %[[SUM:.+]] = arith.addf %[[ACC]], %[[PROD]] : f32
// CHECK: linalg.yield %[[SUM]] : f32
// D skip and silu(z) gate.
// CHECK: %[[OUT:.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ID3]], #[[CHAN_CM3]], #[[ID3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[Y]], %arg0, %arg5, %arg6 : tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8xf32>, tensor<1x8x40xf32>) outs(%{{.+}} : tensor<1x8x40xf32>)
// CHECK: ^bb0(%[[YN:.+]]: f32, %[[UN:.+]]: f32, %[[DN:.+]]: f32, %[[ZN:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[DU:.+]] = arith.mulf %[[DN]], %[[UN]] : f32
// CHECK: %[[SKIP:.+]] = arith.addf %[[YN]], %[[DU]] : f32
// CHECK: %[[NEGZ:.+]] = arith.negf %[[ZN]] : f32
// CHECK: %[[EZ:.+]] = math.exp %[[NEGZ]] : f32
// CHECK: %[[DEN:.+]] = arith.addf %[[EZ]], %[[ONE]] : f32
// CHECK: %[[SILU:.+]] = arith.divf %[[ZN]], %[[DEN]] : f32
// CHECK: %[[GATED:.+]] = arith.mulf %[[SKIP]], %[[SILU]] : f32
// CHECK: linalg.yield %[[GATED]] : f32
// CHECK-NOT: ssm.selective_scan
// CHECK: return %[[OUT]], %[[HLAST]] : tensor<1x8x40xf32>, tensor<1x8x4xf32>
func.func @channel_major_grouped(%u: tensor<1x8x40xf32>, %dt: tensor<1x8x40xf32>, %A: tensor<8x4xf32>,
                                 %B: tensor<1x2x4x40xf32>, %C: tensor<1x2x4x40xf32>, %D: tensor<8xf32>,
                                 %z: tensor<1x8x40xf32>, %bias: tensor<8xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>) {
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C D(%D) z(%z) delta_bias(%bias) {delta_softplus}
      : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x2x4x40xf32>, tensor<1x2x4x40xf32>,
         tensor<8xf32>, tensor<1x8x40xf32>, tensor<8xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return %y, %h : tensor<1x8x40xf32>, tensor<1x8x4xf32>
}

// time_major, constant B, per-token C, h0; no D, z, delta_bias or softplus.
// CHECK-LABEL: func.func @time_major_constant_B(
// CHECK-NOT: ssm.selective_scan
// CHECK: %[[DT:.+]] = linalg.generic {indexing_maps = [#[[SEQ_TM]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x16x8xf32>) outs(%{{.+}} : tensor<2x16x8x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: %[[AFULL:.+]] = linalg.generic {indexing_maps = [#[[CONST]], #[[ID4]]], {{.*}} ins(%arg2 : tensor<8x4xf32>)
// CHECK: %[[BFULL:.+]] = linalg.generic {indexing_maps = [#[[CONST]], #[[ID4]]], {{.*}} ins(%arg3 : tensor<8x4xf32>)
// CHECK: %[[ABAR:[^ ,]+]], %[[BBAR:[^ ,]+]] = ssm.discretize %[[AFULL]], %[[BFULL]], %[[DT]] methods(zoh, euler) : tensor<2x16x8x4xf32>
// CHECK: %[[BX:.+]] = linalg.generic {indexing_maps = [#[[ID4]], #[[SEQ_TM]], #[[ID4]]], {{.*}} ins(%[[BBAR]], %arg0 : tensor<2x16x8x4xf32>, tensor<2x16x8xf32>)
// CHECK: %[[H:[^ ,]+]], %[[HLAST:[^ ,]+]] = ssm.affine_scan %[[ABAR]], %[[BX]] h0(%arg5) along 1 : (tensor<2x16x8x4xf32>, tensor<2x16x8x4xf32>, tensor<2x8x4xf32>) -> (tensor<2x16x8x4xf32>, tensor<2x8x4xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID4]], #[[TOKEN_TM]], #[[SEQ_TM]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[H]], %arg4 : tensor<2x16x8x4xf32>, tensor<2x16x4xf32>) outs(%{{.+}} : tensor<2x16x8xf32>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: ssm.selective_scan
// CHECK: return %[[Y]], %[[HLAST]] : tensor<2x16x8xf32>, tensor<2x8x4xf32>
func.func @time_major_constant_B(%u: tensor<2x16x8xf32>, %dt: tensor<2x16x8xf32>, %A: tensor<8x4xf32>,
                                 %B: tensor<8x4xf32>, %C: tensor<2x16x4xf32>, %h0: tensor<2x8x4xf32>)
    -> (tensor<2x16x8xf32>, tensor<2x8x4xf32>) {
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C h0(%h0)
      : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<2x16x4xf32>, tensor<2x8x4xf32>)
        -> (tensor<2x16x8xf32>, tensor<2x8x4xf32>)
  return %y, %h : tensor<2x16x8xf32>, tensor<2x8x4xf32>
}

// time_major, dim 8 in 4 groups (group d floordiv 2), delta_bias without
// softplus, z without D.
// CHECK-LABEL: func.func @time_major_grouped_z(
// CHECK-NOT: ssm.selective_scan
// CHECK: %[[DT:.+]] = linalg.generic {indexing_maps = [#[[SEQ_TM]], #[[CHAN]], #[[ID4]]], {{.*}} ins(%arg1, %arg5 : tensor<2x16x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[BIAS:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[IN]], %[[BIAS]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: %[[BFULL:.+]] = linalg.generic {indexing_maps = [#[[GROUP_TM]], #[[ID4]]], {{.*}} ins(%arg3 : tensor<2x16x4x4xf32>)
// CHECK: ssm.discretize %{{.+}}, %[[BFULL]], %[[DT]] methods(zoh, euler) : tensor<2x16x8x4xf32>
// CHECK: %[[H:[^ ,]+]], %[[HLAST:[^ ,]+]] = ssm.affine_scan %{{.+}}, %{{.+}} along 1 : (tensor<2x16x8x4xf32>, tensor<2x16x8x4xf32>) -> (tensor<2x16x8x4xf32>, tensor<2x8x4xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[ID4]], #[[GROUP_TM]], #[[SEQ_TM]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[H]], %arg3 : tensor<2x16x8x4xf32>, tensor<2x16x4x4xf32>)
// CHECK: %[[OUT:.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ID3]], #[[ID3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[Y]], %arg0, %arg4 : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>)
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.mulf
// CHECK-NOT: ssm.selective_scan
// CHECK: return %[[OUT]], %[[HLAST]]
func.func @time_major_grouped_z(%u: tensor<2x16x8xf32>, %dt: tensor<2x16x8xf32>, %A: tensor<8x4xf32>,
                                %BC: tensor<2x16x4x4xf32>, %z: tensor<2x16x8xf32>, %bias: tensor<8xf32>)
    -> (tensor<2x16x8xf32>, tensor<2x8x4xf32>) {
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %BC, %BC z(%z) delta_bias(%bias)
      : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<8x4xf32>, tensor<2x16x4x4xf32>, tensor<2x16x4x4xf32>,
         tensor<2x16x8xf32>, tensor<8xf32>) -> (tensor<2x16x8xf32>, tensor<2x8x4xf32>)
  return %y, %h : tensor<2x16x8xf32>, tensor<2x8x4xf32>
}

// The pattern needs static shapes: a dynamic scan stays as it is.
// CHECK-LABEL: func.func @dynamic_shapes_are_left_alone(
// CHECK: ssm.selective_scan channel_major %arg0, %arg0, %arg1, %arg1, %arg1 : (tensor<?x8x?xf32>, tensor<?x8x?xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<?x8x?xf32>, tensor<?x8x4xf32>)
func.func @dynamic_shapes_are_left_alone(%u: tensor<?x8x?xf32>, %A: tensor<8x4xf32>) -> tensor<?x8x?xf32> {
  %y, %h = ssm.selective_scan channel_major %u, %u, %A, %A, %A
      : (tensor<?x8x?xf32>, tensor<?x8x?xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> (tensor<?x8x?xf32>, tensor<?x8x4xf32>)
  return %y : tensor<?x8x?xf32>
}
