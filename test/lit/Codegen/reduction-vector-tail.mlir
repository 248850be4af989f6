// Row reductions (RMSNorm's scaled sum of squares: the max |x| of each row,
// then the sum of (x / max)^2, both accumulating into one zero-filled init)
// over 5, 9, 17 and 33 rows: one vector and one more row for vector widths
// 4, 8 and 16 (and 2 x 16 + 1). Halide 14 miscompiled the second
// reduction's update vectorised with GuardWithIf at that extent (the first
// vector accumulated twice, the last row never: Mamba-2's cpu engine was
// 3.7 off the reference at exactly 17 tokens with AVX-512);
// codegen/schedules/StageSchedule.cpp runs such updates scalar.
// REQUIRES: ssm-run
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 3 --engine cpu --check --rtol 1e-5 --atol 1e-5 | FileCheck %s
// CHECK: result0_vs_reference {{.*}} PASS
// CHECK: result1_vs_reference {{.*}} PASS
// CHECK: result2_vs_reference {{.*}} PASS
// CHECK: result3_vs_reference {{.*}} PASS

func.func @main(%h0: tensor<5x64xf32>, %h1: tensor<9x64xf32>, %h2: tensor<17x64xf32>, %h3: tensor<33x64xf32>) -> (tensor<5xf32>, tensor<9xf32>, tensor<17xf32>, tensor<33xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<5xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<5xf32>) -> tensor<5xf32>
  %m0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%h0 : tensor<5x64xf32>) outs(%z0 : tensor<5xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %v = arith.negf %a : f32
      %v1 = arith.maximumf %a, %v : f32
      %v2 = arith.maximumf %acc, %v1 : f32
      linalg.yield %v2 : f32
    } -> tensor<5xf32>
  %inv0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m0 : tensor<5xf32>) outs(%e0 : tensor<5xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %c = arith.constant 1.0 : f32
      %v = arith.maximumf %a, %c : f32
      %v2 = arith.divf %c, %v : f32
      linalg.yield %v2 : f32
    } -> tensor<5xf32>
  %s0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%h0, %inv0 : tensor<5x64xf32>, tensor<5xf32>) outs(%z0 : tensor<5xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %v = arith.mulf %a, %b : f32
      %v2 = arith.mulf %v, %v : f32
      %v3 = arith.addf %acc, %v2 : f32
      linalg.yield %v3 : f32
    } -> tensor<5xf32>
  %e1 = tensor.empty() : tensor<9xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<9xf32>) -> tensor<9xf32>
  %m1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%h1 : tensor<9x64xf32>) outs(%z1 : tensor<9xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %v = arith.negf %a : f32
      %v1 = arith.maximumf %a, %v : f32
      %v2 = arith.maximumf %acc, %v1 : f32
      linalg.yield %v2 : f32
    } -> tensor<9xf32>
  %inv1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m1 : tensor<9xf32>) outs(%e1 : tensor<9xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %c = arith.constant 1.0 : f32
      %v = arith.maximumf %a, %c : f32
      %v2 = arith.divf %c, %v : f32
      linalg.yield %v2 : f32
    } -> tensor<9xf32>
  %s1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%h1, %inv1 : tensor<9x64xf32>, tensor<9xf32>) outs(%z1 : tensor<9xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %v = arith.mulf %a, %b : f32
      %v2 = arith.mulf %v, %v : f32
      %v3 = arith.addf %acc, %v2 : f32
      linalg.yield %v3 : f32
    } -> tensor<9xf32>
  %e2 = tensor.empty() : tensor<17xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<17xf32>) -> tensor<17xf32>
  %m2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%h2 : tensor<17x64xf32>) outs(%z2 : tensor<17xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %v = arith.negf %a : f32
      %v1 = arith.maximumf %a, %v : f32
      %v2 = arith.maximumf %acc, %v1 : f32
      linalg.yield %v2 : f32
    } -> tensor<17xf32>
  %inv2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m2 : tensor<17xf32>) outs(%e2 : tensor<17xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %c = arith.constant 1.0 : f32
      %v = arith.maximumf %a, %c : f32
      %v2 = arith.divf %c, %v : f32
      linalg.yield %v2 : f32
    } -> tensor<17xf32>
  %s2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%h2, %inv2 : tensor<17x64xf32>, tensor<17xf32>) outs(%z2 : tensor<17xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %v = arith.mulf %a, %b : f32
      %v2 = arith.mulf %v, %v : f32
      %v3 = arith.addf %acc, %v2 : f32
      linalg.yield %v3 : f32
    } -> tensor<17xf32>
  %e3 = tensor.empty() : tensor<33xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<33xf32>) -> tensor<33xf32>
  %m3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%h3 : tensor<33x64xf32>) outs(%z3 : tensor<33xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %v = arith.negf %a : f32
      %v1 = arith.maximumf %a, %v : f32
      %v2 = arith.maximumf %acc, %v1 : f32
      linalg.yield %v2 : f32
    } -> tensor<33xf32>
  %inv3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m3 : tensor<33xf32>) outs(%e3 : tensor<33xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %c = arith.constant 1.0 : f32
      %v = arith.maximumf %a, %c : f32
      %v2 = arith.divf %c, %v : f32
      linalg.yield %v2 : f32
    } -> tensor<33xf32>
  %s3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%h3, %inv3 : tensor<33x64xf32>, tensor<33xf32>) outs(%z3 : tensor<33xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %v = arith.mulf %a, %b : f32
      %v2 = arith.mulf %v, %v : f32
      %v3 = arith.addf %acc, %v2 : f32
      linalg.yield %v3 : f32
    } -> tensor<33xf32>
  return %s0, %s1, %s2, %s3 : tensor<5xf32>, tensor<9xf32>, tensor<17xf32>, tensor<33xf32>
}
