// Functions with calls that cannot run: a clear error naming the function
// and exit 2 (CONTRACTS.md), never a crash.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sh -c 'ssm-run %s --function recursive --seed 1; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=REC
// REC: function 'recursive' calls itself (directly or through other calls); recursion is not supported
// REC: exit=2
// RUN: sh -c 'ssm-run %s --function nested --seed 1 --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: calls @middle, which itself holds calls; compiled engines support one level of calls
// NESTED: exit=2
// RUN: sh -c 'ssm-run %s --function external --seed 1 --engine cpu; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EXT
// EXT: calls @nobody, which has no body to compile
// EXT: exit=2
// The reference interpreter runs nested calls.
// RUN: ssm-run %s --function nested --seed 1 | FileCheck %s --check-prefix=REF
// REF: result0 shape=(4,)

#id = affine_map<(i) -> (i)>
func.func private @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @middle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @leaf(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @middle(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @recursive(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @recursive(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @nobody(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @external(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @nobody(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
