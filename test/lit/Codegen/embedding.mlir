// An embedding lookup (tensor.extract inside linalg.generic, i32 token ids)
// runs on both engines and agrees; out-of-range ids are an error in the
// reference interpreter.
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-run %s --function tokens --output-dir %t/tok
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %s --input arg0=%t/tok/result0.npy --seed 1 --engine cpu --check | FileCheck %s
// RUN: ssm-run %s --function badtokens --output-dir %t/bad
// RUN: sh -c 'ssm-run %s --input arg0=%t/bad/result0.npy --seed 1; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: result0_vs_reference {{.*}} PASS
// BAD: tensor.extract index 256 is out of range for dim 0 of size 256
// BAD: exit=2

#tok = affine_map<(l, j) -> (l)>
#out = affine_map<(l, j) -> (l, j)>
func.func @main(%tokens: tensor<5xi32>, %emb: tensor<256x8xf32> {ssm.param = "emb"}) -> tensor<5x8xf32> {
  %e = tensor.empty() : tensor<5x8xf32>
  %r = linalg.generic {indexing_maps = [#tok, #out], iterator_types = ["parallel", "parallel"]}
      ins(%tokens : tensor<5xi32>) outs(%e : tensor<5x8xf32>) {
  ^bb0(%t: i32, %o: f32):
    %i = arith.index_cast %t : i32 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %emb[%i, %j] : tensor<256x8xf32>
    linalg.yield %v : f32
  } -> tensor<5x8xf32>
  return %r : tensor<5x8xf32>
}

func.func private @tokens() -> tensor<5xi32> {
  %t = arith.constant dense<[34, 105, 110, 0, 255]> : tensor<5xi32>
  return %t : tensor<5xi32>
}

func.func private @badtokens() -> tensor<5xi32> {
  %t = arith.constant dense<[34, 105, 110, 0, 256]> : tensor<5xi32>
  return %t : tensor<5xi32>
}
