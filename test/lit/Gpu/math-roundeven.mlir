// math.roundeven on the reference interpreter, the cpu engine and the GPU
// engine %gpu (opencl by default) against NumPy's rint (ties to even):
// exact halves of both signs, values next to them, a zero of each sign, in
// an elementwise op and in a linalg.generic body (both lower through
// scalarExpr). Before codegen/kernels/RoundEven.h the opencl engine rounded
// the halves away from zero (Halide 14 prints OpenCL's round()).
// REQUIRES: numpy, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: %numpy_python -c "import numpy as np; h = np.float32(0.5); x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.5, 126.5, -127.5, np.nextafter(h, 0), np.nextafter(h, 1), 0.0, -0.0, 0.3, -0.3], np.float32); np.save('%t/x.npy', x); np.save('%t/r.npy', np.rint(x))"
// RUN: ssm-run %s --input %t/x.npy --expected %t/r.npy --expected %t/r.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --engine cpu --input %t/x.npy --expected %t/r.npy --expected %t/r.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s %gpu --input %t/x.npy --expected %t/r.npy --expected %t/r.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: result0 {{.*}} PASS
// CHECK: result1 {{.*}} PASS

#map = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = math.roundeven %x : tensor<16xf32>
  %e = tensor.empty() : tensor<16xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = math.roundeven %a : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %0, %1 : tensor<16xf32>, tensor<16xf32>
}
