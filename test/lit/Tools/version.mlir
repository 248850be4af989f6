// Every tool in tools/ answers --version with the project's version (CMakeLists.txt
// project(VERSION), one number for the package), the C API's version and the
// file formats' versions, exit 0 (before: LLVM's version; ssm-import had none).
// RUN: ssm-opt --version | FileCheck %s -DTOOL=ssm-opt -DVERSION=%ssm_version
// RUN: ssm-compile --version | FileCheck %s -DTOOL=ssm-compile -DVERSION=%ssm_version
// RUN: ssm-run --version | FileCheck %s -DTOOL=ssm-run -DVERSION=%ssm_version
// RUN: ssm-tune --version | FileCheck %s -DTOOL=ssm-tune -DVERSION=%ssm_version
// RUN: ssm-import --version | FileCheck %s -DTOOL=ssm-import -DVERSION=%ssm_version
// RUN: ssm-tokenize --version | FileCheck %s -DTOOL=ssm-tokenize -DVERSION=%ssm_version
// RUN: ssm-serve --version | FileCheck %s -DTOOL=ssm-serve -DVERSION=%ssm_version
// CHECK: [[TOOL]] (ssm-opt) [[VERSION]]{{$}}
// CHECK-NEXT: C API (libssm_runtime) {{[0-9]+\.[0-9]+\.[0-9]+$}}
// CHECK-NEXT: formats: model.json 1, module manifest 1, state file 1, tuning database 1
// CHECK-NEXT: built with MLIR 19, Halide 14
// CHECK-NOT: LLVM

// A model folder written by another ssm-import (a future model.json version)
// is refused naming both versions, exit 2.
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m > /dev/null
// RUN: sed -i 's/"version": 1,/"version": 2,/' %t/m/model.json
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FUTURE
// FUTURE: model.json version 2; this runtime reads version 1 (import the model again with this ssm-import)
// FUTURE: exit=2
