// Label full (ctest lit.full): six chunk variants compiled for OpenCL; the
// GPU default keeps the token-by-token form (grid-opencl runs its base).
// ssm.wkv7 on the GPU engine %gpu (opencl by default: PoCL in CI), its
// GPU schedules of both forms (token by token, and the chunked WY form, one
// device stage per chunk-local stage and the pass one thread per value row)
// against the independent float64 NumPy oracle of
// Dialect/wkv7-chunked-golden.mlir (its @rwkv graph: chunks 0, 1, 7, 16, 64
// and the default over 70 tokens with an initial state, 2 streams), rtol
// 1e-4 / atol 1e-5.
// REQUIRES: ssm-run, numpy
// DEFINE: %{g} = %S/../Dialect/wkv7-chunked-golden.mlir
// RUN: %numpy_python %S/../Dialect/Inputs/wkv7_chunked_golden.py %t/rwkv rwkv
// RUN: env SSM_CACHE_DIR=%cache ssm-run %{g} --function rwkv %gpu --input %t/rwkv/r.npy --input %t/rwkv/w.npy --input %t/rwkv/k.npy --input %t/rwkv/v.npy --input %t/rwkv/a.npy --input %t/rwkv/b.npy --input %t/rwkv/s0.npy --expected %t/rwkv/y.npy --expected %t/rwkv/final_state.npy --expected %t/rwkv/y.npy --expected %t/rwkv/final_state.npy --expected %t/rwkv/y.npy --expected %t/rwkv/final_state.npy --expected %t/rwkv/y.npy --expected %t/rwkv/final_state.npy --expected %t/rwkv/y.npy --expected %t/rwkv/final_state.npy --expected %t/rwkv/y.npy --expected %t/rwkv/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// CHECK: result0{{.*}} PASS
// CHECK: result1{{.*}} PASS
// CHECK: result2{{.*}} PASS
// CHECK: result3{{.*}} PASS
// CHECK: result4{{.*}} PASS
// CHECK: result5{{.*}} PASS
// CHECK: result6{{.*}} PASS
// CHECK: result7{{.*}} PASS
// CHECK: result8{{.*}} PASS
// CHECK: result9{{.*}} PASS
// CHECK: result10{{.*}} PASS
// CHECK: result11{{.*}} PASS
