// ssm.quantize_activations on the reference interpreter and as compiled CPU
// stages, each against NumPy's rounding of the same rows written from
// ggml's definitions in the test's own terms (Inputs/quantize_activations.py:
// zero blocks, a negative and a tied signed maximum for q8_K, exact half
// steps, f16 / bf16 ties, blocks so small that 127 / amax overflows: 0, not
// NaN). The results are f32 values that both engines
// compute with the same f32 operations: they must match exactly.
// REQUIRES: numpy, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: %numpy_python %S/Inputs/quantize_activations.py %t
// RUN: ssm-run %s --input %t/x.npy --expected %t/q8_0.npy --expected %t/q8_0.npy --expected %t/q8_K.npy --expected %t/f16.npy --expected %t/bf16.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --engine cpu --input %t/x.npy --expected %t/q8_0.npy --expected %t/q8_0.npy --expected %t/q8_K.npy --expected %t/f16.npy --expected %t/bf16.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: result0 {{.*}} PASS
// CHECK: result1 {{.*}} PASS
// CHECK: result2 {{.*}} PASS
// CHECK: result3 {{.*}} PASS
// CHECK: result4 {{.*}} PASS

func.func @main(%x: tensor<7x512xf32>)
    -> (tensor<7x512xf32>, tensor<7x512xf32>, tensor<7x512xf32>, tensor<7x512xf32>, tensor<7x512xf32>) {
  %0 = ssm.quantize_activations %x {format = "q8_0"} : tensor<7x512xf32>
  %1 = ssm.quantize_activations %x {format = "q8_1"} : tensor<7x512xf32>
  %2 = ssm.quantize_activations %x {format = "q8_K"} : tensor<7x512xf32>
  %3 = ssm.quantize_activations %x {format = "f16"} : tensor<7x512xf32>
  %4 = ssm.quantize_activations %x {format = "bf16"} : tensor<7x512xf32>
  return %0, %1, %2, %3, %4 : tensor<7x512xf32>, tensor<7x512xf32>, tensor<7x512xf32>, tensor<7x512xf32>, tensor<7x512xf32>
}
