// The imported tiny Mamba-1 model reproduces the independent logits in
// ../shared (alxndrTL/mamba.py; state-spaces/mamba and causal-conv1d
// reference functions) at every position, within 1e-4, in prefill (scan)
// and decode (state update, token by token) form, on the reference
// interpreter and on compiled CPU kernels. The comparison runs @same below
// (the identity) with the logits as input and the expected logits as the
// expected result.
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/model
// RUN: ssm-run %t/model --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode sequence --engine reference --all-logits-out %t/ref-seq.npy
// RUN: ssm-run %s --function same --input %t/ref-seq.npy --expected %shared/models/mamba/tiny-mamba-seed5/expected_logits.npy --rtol 0 --atol 1e-4 | FileCheck %s
// RUN: ssm-run %t/model --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode step --engine reference --all-logits-out %t/ref-step.npy
// RUN: ssm-run %s --function same --input %t/ref-step.npy --expected %shared/models/mamba/tiny-mamba-seed5/expected_logits.npy --rtol 0 --atol 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode sequence --engine cpu --all-logits-out %t/cpu-seq.npy
// RUN: ssm-run %s --function same --input %t/cpu-seq.npy --expected %shared/models/mamba/tiny-mamba-seed5/expected_logits.npy --rtol 0 --atol 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %shared/models/mamba/tiny-mamba-seed5/tokens.npy --mode step --engine cpu --all-logits-out %t/cpu-step.npy
// RUN: ssm-run %s --function same --input %t/cpu-step.npy --expected %shared/models/mamba/tiny-mamba-seed5/expected_logits.npy --rtol 0 --atol 1e-4 | FileCheck %s

// CHECK: result0 max_abs={{.*}} PASS

func.func @same(%logits: tensor<46x256xf32>) -> tensor<46x256xf32> {
  return %logits : tensor<46x256xf32>
}
