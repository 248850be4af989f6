// --flush-cache / --flush-args: the timed runs of a graph with its arguments
// (or the listed ones) evicted from the caches before each (ssm-run), and
// ssm-tune's runs timed with the kernels' weights and states evicted (default
// for model folders, --flush-cache for a graph). The results are still
// checked against the reference interpreter.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %s --engine cpu --seed 1 --threads 2 --repeat 5 --flush-cache --check 2>&1 | FileCheck %s --check-prefix=TIMED
// RUN: ssm-run %s --engine cpu --seed 1 --flush-cache --check 2>&1 | FileCheck %s --check-prefix=NOREPEAT
// RUN: env SSM_CACHE_DIR=%t/cache ssm-run %s --engine cpu --seed 1 --repeat 3 --flush-args=1 --check 2>&1 | FileCheck %s --check-prefix=TIMED
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache ssm-run %s --engine cpu --seed 1 --repeat 3 --flush-args=0,2; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BADARG
// RUN: env SSM_CACHE_DIR=%t/cache ssm-tune %S/Inputs/tune-small.mlir --db %t/t.db --budget 4s --final-rounds 0 --no-baselines --flush-cache 2>&1 | FileCheck %s --check-prefix=TUNE
// RUN: env SSM_CACHE_DIR=%t/cache ssm-tune %S/Inputs/tune-small.mlir --db %t/u.db --budget 4s --final-rounds 0 --no-baselines 2>&1 | FileCheck %s --check-prefix=TUNEHOT
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 3 > /dev/null
// RUN: sh -c 'ssm-run %t/m --prompt a --engine cpu --repeat 2 --flush-cache; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: sh -c 'ssm-run %t/m --prompt a --engine cpu --repeat 2 --flush-args=0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MODEL

// TIMED: result0_vs_reference {{.*}}PASS
// TIMED: median_ms={{[0-9.]+}} threads=2
// NOREPEAT: result0_vs_reference {{.*}}PASS
// NOREPEAT-NOT: median_ms
// TUNE: budget 4.00 s, seed 0, weights and states flushed from the caches before each timed call
// TUNEHOT: budget 4.00 s, seed 0{{$}}
// BADARG: --flush-args names argument 2, but @main takes 2
// BADARG: exit={{[12]}}
// MODEL: --flush-cache and --flush-args time the runs of a graph; a model folder's --repeat runs whole prompts
// MODEL: exit=2

func.func @main(%x: tensor<1x768xf32>, %w: tensor<384x768xf32> {ssm.param = "w"}) -> tensor<1x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x384xf32>) -> tensor<1x384xf32>
  %y = linalg.matmul_transpose_b ins(%x, %w : tensor<1x768xf32>, tensor<384x768xf32>) outs(%f : tensor<1x384xf32>) -> tensor<1x384xf32>
  return %y : tensor<1x384xf32>
}
