// math.round (MLIR's meaning: ties away from zero, C's round) on the
// reference interpreter, the cpu engine and the GPU engine %gpu (opencl by
// default) against NumPy's sign(x) * floor(|x| + 1/2) computed in float64
// (exact for these values): halves of both signs, the floats next to 0.5,
// zeros of both signs, values past 2^23 (already integers), in an
// elementwise op and in a linalg.generic body (both lower through
// scalarExpr). math.roundeven (ties to even) is Gpu/math-roundeven.mlir;
// until this test both ops rounded ties to even here.
// REQUIRES: numpy, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: %numpy_python -c "import numpy as np; h = np.float32(0.5); x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.5, 126.5, -127.5, np.nextafter(h, 0), np.nextafter(h, 1), 0.0, -0.0, 0.3, -0.3, 8388609.0, -8388609.0, 1e9, -1e9], np.float32); np.save('%t/x.npy', x); d = x.astype(np.float64); np.save('%t/r.npy', (np.sign(d) * np.floor(np.abs(d) + 0.5)).astype(np.float32))"
// RUN: ssm-run %s --input %t/x.npy --expected %t/r.npy --expected %t/r.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --engine cpu --input %t/x.npy --expected %t/r.npy --expected %t/r.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s %gpu --input %t/x.npy --expected %t/r.npy --expected %t/r.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: result0 {{.*}} PASS
// CHECK: result1 {{.*}} PASS

#map = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<20xf32>) -> (tensor<20xf32>, tensor<20xf32>) {
  %0 = math.round %x : tensor<20xf32>
  %e = tensor.empty() : tensor<20xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<20xf32>) outs(%e : tensor<20xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = math.round %a : f32
    linalg.yield %r : f32
  } -> tensor<20xf32>
  return %0, %1 : tensor<20xf32>, tensor<20xf32>
}
