// ssm-compile --name: the library's files and every exported symbol take the name,
// the folder carries Halide's runtime header (which the library's header includes),
// and a name that is not a C identifier is refused.
// RUN: rm -rf %t && ssm-compile %s --name foo -o %t/foo
// RUN: ls %t/foo | FileCheck %s --check-prefix=FILES
// FILES: HalideBuffer.h
// FILES: HalideRuntime.h
// FILES: foo.a
// FILES: foo.h
// FILES: foo_scale.h
// FILES: libfoo.so
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/foo/manifest.json
// MANIFEST: "symbol_prefix": "foo"
// MANIFEST: "symbol": "foo_scale"
// RUN: FileCheck %s --check-prefix=HEADER < %t/foo/foo.h
// HEADER: #include "HalideRuntime.h"
// HEADER: #include "foo_scale.h"
// RUN: nm %t/foo/foo.a | FileCheck %s --check-prefix=SYMS
// SYMS: T foo_scale
// RUN: sh -c 'ssm-compile %s --name foo-bar -o %t/bad; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: --name 'foo-bar' is not a C identifier
// BAD: exit=2

func.func @scale(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant dense<2.0> : tensor<8xf32>
  %y = arith.mulf %x, %c : tensor<8xf32>
  return %y : tensor<8xf32>
}
