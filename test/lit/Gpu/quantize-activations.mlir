// ssm.quantize_activations on the GPU engine %gpu (opencl by default: its
// GPU schedule runs on PoCL in CI) against the NumPy expectations of
// Dialect/quantize-activations-run.mlir (the graph and inputs are that
// test's), exactly: q8_0 / q8_1 / q8_K codes and f16 subnormal steps that
// fall half-way round to even (NumPy's rint, ggml's x86 quantize_row_q8_0).
// Before codegen/kernels/RoundEven.h the opencl engine rounded them away
// from zero (Halide 14 prints OpenCL's round()): q8_0 max_abs 1, f16 2^-24.
// REQUIRES: numpy, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: %numpy_python %S/../Dialect/Inputs/quantize_activations.py %t
// RUN: env SSM_CACHE_DIR=%cache ssm-run %S/../Dialect/quantize-activations-run.mlir %gpu --input %t/x.npy --expected %t/q8_0.npy --expected %t/q8_0.npy --expected %t/q8_K.npy --expected %t/f16.npy --expected %t/bf16.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: result0 {{.*}} PASS
// CHECK: result1 {{.*}} PASS
// CHECK: result2 {{.*}} PASS
// CHECK: result3 {{.*}} PASS
// CHECK: result4 {{.*}} PASS
