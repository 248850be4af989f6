// A public function that is also called: compiled once, as itself, and the
// caller's steps call it by name.
// RUN: rm -rf %t && ssm-compile %s --target host -o %t
// RUN: FileCheck %s < %t/manifest.json
// CHECK: "name": "leaf",
// CHECK-NEXT: "symbol": "ssm_leaf",
// CHECK-NOT: "internal"
// CHECK: "name": "main",
// CHECK: "function": "leaf",
// CHECK: "function": "leaf",
// CHECK-NOT: "name": "leaf",
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --function main --seed 1 --engine cpu --check | FileCheck %s --check-prefix=RESULT
// RESULT: PASS

#id = affine_map<(i) -> (i)>
func.func @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @leaf(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %z = func.call @leaf(%y) : (tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}
