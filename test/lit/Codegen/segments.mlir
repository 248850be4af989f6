// A function with calls compiles into a sequence of kernel calls
// (codegen/Segments.h): the callee is one kernel however many calls, the ops
// between calls are outlined into segments, and constants are cloned into
// each segment rather than passed. The compiled sequence agrees with the
// reference interpreter, including a result that is an argument and a value
// returned twice.
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-compile %s --target host -o %t/lib
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/lib/manifest.json
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %s --seed 3 --engine cpu --check | FileCheck %s
// MANIFEST: "name": "main",
// MANIFEST: "steps": [
// MANIFEST: "function": "main__seg0",
// MANIFEST: "function": "layer",
// MANIFEST: "function": "layer",
// MANIFEST: "function": "main__seg1",
// MANIFEST: "step_values": 9,
// MANIFEST: "result_values": [
// MANIFEST: "name": "main__seg0",
// MANIFEST-NEXT: "symbol": "ssm_main__seg0",
// MANIFEST-NEXT: "internal": true,
// MANIFEST: "name": "layer",
// MANIFEST-NOT: "name": "layer",
// CHECK-COUNT-4: _vs_reference {{.*}} PASS

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

// y = tanh(x W^T + b) + x
func.func private @layer(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>)
    -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul_transpose_b ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>)
      outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b, %x : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%m: f32, %bb: f32, %xx: f32, %o: f32):
    %s = arith.addf %m, %bb : f32
    %t = math.tanh %s : f32
    %r = arith.addf %t, %xx : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func @main(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32>, %b0: tensor<8xf32>,
                %w1: tensor<8x8xf32>, %b1: tensor<8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %xs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %half : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %h0 = func.call @layer(%xs, %w0, %b0) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %h1 = func.call @layer(%h0, %w1, %b1) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // The constant and tensor.empty above are cloned into this segment too.
  %out = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %xs : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %c, %half : f32
    %r = arith.subf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %out, %h0, %h0, %b1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>
}
