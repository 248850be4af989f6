// ssm.attention of several streams, each at its own position given as an
// argument (a batched step): compiled, the caches come back in the rows
// form (the kernel writes only each stream's new rows; manifest "append"
// with "rows"), and the cpu engine's whole results, built from the caches
// and those rows, equal the reference interpreter's: 3 streams at
// positions 0, 9 and 14 of a 16-row cache, 2 new rows each (the last call
// ends on the last row), 4 query heads on 2 KV heads, D 12, Dv 8.
// REQUIRES: ssm-run, numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %numpy_python -c "import numpy as np; np.save('%t/pos.npy', np.array([0, 9, 14], dtype=np.int32)); r = np.random.default_rng(3); [np.save('%t/%%s.npy' %% n, r.uniform(-1, 1, s).astype(np.float32)) for n, s in [('q', (3, 2, 4, 12)), ('k', (3, 2, 2, 12)), ('v', (3, 2, 2, 8)), ('kc', (3, 16, 2, 12)), ('vc', (3, 16, 2, 8))]]"
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %s --engine cpu --check --rtol 1e-4 --atol 1e-5 --input q=%t/q.npy --input k=%t/k.npy --input v=%t/v.npy --input kc=%t/kc.npy --input vc=%t/vc.npy --input pos=%t/pos.npy | FileCheck %s
// RUN: ssm-compile %s -o %t/module && FileCheck %s --check-prefix=MANIFEST < %t/module/manifest.json

// CHECK: result0_vs_reference {{.*}} PASS
// CHECK: result1_vs_reference {{.*}} PASS
// CHECK: result2_vs_reference {{.*}} PASS

// MANIFEST: "append": {
// MANIFEST-NEXT: "axis": 1,
// MANIFEST-NEXT: "argument": 3,
// MANIFEST-NEXT: "position": 5,
// MANIFEST-NEXT: "length": 2,
// MANIFEST-NEXT: "rows": true

func.func @main(%q: tensor<3x2x4x12xf32> {ssm.name = "q"}, %k: tensor<3x2x2x12xf32> {ssm.name = "k"},
                %v: tensor<3x2x2x8xf32> {ssm.name = "v"}, %kc: tensor<3x16x2x12xf32> {ssm.name = "kc"},
                %vc: tensor<3x16x2x8xf32> {ssm.name = "vc"}, %pos: tensor<3xi32> {ssm.name = "pos"})
    -> (tensor<3x2x4x8xf32>, tensor<3x16x2x12xf32>, tensor<3x16x2x8xf32>) {
  %o, %kc1, %vc1 = ssm.attention %q, %k, %v, %kc, %vc, %pos {scale = 0.3 : f64}
      : (tensor<3x2x4x12xf32>, tensor<3x2x2x12xf32>, tensor<3x2x2x8xf32>,
         tensor<3x16x2x12xf32>, tensor<3x16x2x8xf32>, tensor<3xi32>)
      -> (tensor<3x2x4x8xf32>, tensor<3x16x2x12xf32>, tensor<3x16x2x8xf32>)
  return %o, %kc1, %vc1 : tensor<3x2x4x8xf32>, tensor<3x16x2x12xf32>, tensor<3x16x2x8xf32>
}
