// A model folder's compiled/ modules run on the engine they were compiled
// for, and ssm-run names that engine: an OpenCL module (ssm-import --compile
// --target host-opencl) is "the opencl engine" in its notes and its timing
// line, with the default engine and with --engine cpu (before: "cpu
// engine"), and its logits agree with the reference interpreter's.
// REQUIRES: ssm-run
// RUN: rm -rf %t %t.cache && mkdir -p %t
// RUN: python3 %S/../Import/Inputs/make_mamba.py %t/a --hidden 32 --state 8 --layers 2 --conv 4 --dt-rank 2 --seed 5
// RUN: env SSM_CACHE_DIR=%t.cache ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m --compile --seq-len 4 --target host-opencl
// RUN: env SSM_CACHE_DIR=%t.empty-cache ssm-run %t/m --prompt 'label' --logits-out %t/ocl.npy 2>&1 | FileCheck %s
// CHECK: ssm-run: running this folder's compiled modules on the opencl engine they were compiled for
// CHECK: prompt: 5 tokens in {{.*}}, sequence, opencl engine
// RUN: env SSM_CACHE_DIR=%t.empty-cache ssm-run %t/m --engine cpu --prompt 'label' 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: ssm-run: note: --engine cpu runs this folder's compiled modules, which are compiled for the opencl engine
// CPU: prompt: 5 tokens in {{.*}}, sequence, opencl engine
// RUN: not ls %t.empty-cache
// RUN: ssm-run %t/m --engine reference --prompt 'label' --logits-out %t/ref.npy
// RUN: python3 %S/../Import/Inputs/compare_npy.py %t/ref.npy %t/ocl.npy 1e-4 | FileCheck %s --check-prefix=CMP
// CMP: max_abs_diff={{.*}} PASS
