// ssm.gated_delta_rule on the GPU engine %gpu (opencl by default: its GPU
// schedule runs on PoCL in CI) against the independent float64 NumPy oracle
// of Dialect/gated-delta-rule-golden.mlir (the graphs are that test's), with
// its tolerance, rtol 1e-4 / atol 1e-5, token by token and chunked: two
// value heads per key head with an initial state, a gate per key channel, and
// L 4096 with decays and betas near 0 and near 1.
// REQUIRES: ssm-run, numpy
// DEFINE: %{g} = %S/../Dialect/gated-delta-rule-golden.mlir
// RUN: %numpy_python %S/../Dialect/Inputs/gated_delta_rule_golden.py %t/gdn gdn
// RUN: %numpy_python %S/../Dialect/Inputs/gated_delta_rule_golden.py %t/kda kda
// RUN: %numpy_python %S/../Dialect/Inputs/gated_delta_rule_golden.py %t/long long
// RUN: env SSM_CACHE_DIR=%cache ssm-run %{g} --function gdn %gpu --input %t/gdn/q.npy --input %t/gdn/k.npy --input %t/gdn/v.npy --input %t/gdn/g.npy --input %t/gdn/beta.npy --input %t/gdn/s0.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --expected %t/gdn/out.npy --expected %t/gdn/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=GDN
// RUN: env SSM_CACHE_DIR=%cache ssm-run %{g} --function kda %gpu --input %t/kda/q.npy --input %t/kda/k.npy --input %t/kda/v.npy --input %t/kda/g.npy --input %t/kda/beta.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --expected %t/kda/out.npy --expected %t/kda/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=KDA
// RUN: env SSM_CACHE_DIR=%cache ssm-run %{g} --function long %gpu --input %t/long/q.npy --input %t/long/k.npy --input %t/long/v.npy --input %t/long/g.npy --input %t/long/beta.npy --input %t/long/s0.npy --expected %t/long/out.npy --expected %t/long/final_state.npy --expected %t/long/out.npy --expected %t/long/final_state.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=LONG
// GDN: result0{{.*}} PASS
// GDN: result1{{.*}} PASS
// GDN: result2{{.*}} PASS
// GDN: result3{{.*}} PASS
// GDN: result4{{.*}} PASS
// GDN: result5{{.*}} PASS
// KDA: result0{{.*}} PASS
// KDA: result1{{.*}} PASS
// KDA: result2{{.*}} PASS
// KDA: result3{{.*}} PASS
// KDA: result4{{.*}} PASS
// KDA: result5{{.*}} PASS
// LONG: result0{{.*}} PASS
// LONG: result1{{.*}} PASS
// LONG: result2{{.*}} PASS
// LONG: result3{{.*}} PASS
