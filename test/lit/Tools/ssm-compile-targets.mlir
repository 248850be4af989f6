// Cross targets and the autoscheduler baseline.
// REQUIRES: ssm-run
//
// A non-host target (Arm) gets the static library, the header and the
// manifest, and no shared library (it cannot be linked here); the manifest
// says so with "shared_library": null.
// RUN: rm -rf %t.arm && ssm-compile %s --target arm-64-linux -o %t.arm
// RUN: ls %t.arm | FileCheck %s --check-prefix=ARM
// RUN: FileCheck %s --check-prefix=ARM-MANIFEST < %t.arm/manifest.json
// ARM-NOT: libssm_module.so
// ARM: manifest.json
// ARM-NEXT: ssm_main.h
// ARM-NOT: libssm_module.so
// ARM: ssm_module.a
// ARM-NEXT: ssm_module.h
// ARM-MANIFEST: "target": "arm-64-linux
// ARM-MANIFEST: "shared_library": null
//
// "host" resolves to features this CPU runs: Halide 14's avx512_sapphirerapids
// (which lets LLVM use AVX512-FP16) only where the CPU has avx512_fp16, so
// f16 kernels do not die with SIGILL on AMD Zen 5 (codegen/Compile.cpp).
// RUN: ssm-compile --print-target --target host | python3 %S/Inputs/host_features.py | FileCheck %s --check-prefix=HOST
// RUN: ssm-compile --print-target --target host-opencl | python3 %S/Inputs/host_features.py | FileCheck %s --check-prefix=HOST
// HOST: host target: OK
//
// Each of Halide 14's autoscheduler plugins schedules the whole pipeline
// (the IR's schedules ignored) and the result agrees with the reference.
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 2 --engine cpu --check --rtol 1e-4 --atol 1e-5 --autoschedule li2018 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 2 --engine cpu --check --rtol 1e-4 --atol 1e-5 --autoschedule mullapudi2016 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --seed 2 --engine cpu --check --rtol 1e-4 --atol 1e-5 --autoschedule adams2019 | FileCheck %s
// RUN: not ssm-compile %s --autoschedule tvm -o %t.bad 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: result0_vs_reference {{.*}} PASS
// CHECK: result1_vs_reference {{.*}} PASS
// CHECK: result2_vs_reference {{.*}} PASS
// BAD: unknown autoscheduler 'tvm' (expected adams2019, li2018, mullapudi2016)

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<1x24x40xf32>, %w: tensor<24x4xf32> {ssm.param = "w"}, %p: tensor<40x32xf32> {ssm.param = "p"})
    -> (tensor<1x24x40xf32>, tensor<1x24x3xf32>, tensor<24x32xf32>) {
  %o, %f = ssm.causal_conv1d silu %x, %w : (tensor<1x24x40xf32>, tensor<24x4xf32>) -> (tensor<1x24x40xf32>, tensor<1x24x3xf32>)
  %c = tensor.collapse_shape %o [[0, 1], [2]] : tensor<1x24x40xf32> into tensor<24x40xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<24x32xf32>) -> tensor<24x32xf32>
  %m = linalg.matmul ins(%c, %p : tensor<24x40xf32>, tensor<40x32xf32>) outs(%z : tensor<24x32xf32>) -> tensor<24x32xf32>
  %t = math.tanh %m : tensor<24x32xf32>
  return %o, %f, %t : tensor<1x24x40xf32>, tensor<1x24x3xf32>, tensor<24x32xf32>
}
