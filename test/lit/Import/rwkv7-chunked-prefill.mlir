// The tiny RWKV-7 (../shared/models/rwkv) with the chunked ssm.wkv7 that
// ssm-assign-schedules gives calls of 64 tokens or more on a CPU (chunk 16:
// lit Passes/wkv7-default-chunk): a 356-byte prompt runs as one 256-token
// call (chunked: 16 chunks), then calls of 16 tokens and steps; its logits on the cpu engine
// within 1e-4 of the float64 reference interpreter's (--check) in the
// sequence form. The 256-token graph is checked to get chunk 16.
// (rwkv67-models-cpu.mlir keeps the rwkv.cpp logits of 3-token prompts.)
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin -o %t/7 --seq-len 256
// RUN: ssm-opt %t/7/model.mlir --ssm-assign-schedules | FileCheck %s --check-prefix=SCHED
// SCHED: ssm.wkv7 {{.*}}chunk = 16>{{.*}}tensor<1x256x1x64xf32>
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin -o %t/7d --seq-len 3
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/7d --engine cpu --mode sequence --check --rtol 1e-4 --atol 1e-4 --prompt 'The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs! The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs! The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs! The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs! The quick br' 2>&1 | FileCheck %s
// CHECK: calls of 256
// CHECK: logits_vs_reference {{.*}} PASS
