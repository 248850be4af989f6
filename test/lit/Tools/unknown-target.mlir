// An unknown --target is refused alike by every tool that takes one, before it
// does any work: ssm-compile's check (Halide's target grammar) and message,
// exit 2. ssm-run asks ssm-compile (--print-target) whatever the engine, on a
// graph and on a deployed model folder, whose modules would otherwise run and
// the flag be ignored; ssm-import --compile before it reads or writes anything.
// REQUIRES: ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/../Import/Inputs/make_mamba.py %t/a --hidden 16 --state 4 --layers 1 --conv 4 --dt-rank 1 --seed 3
// RUN: ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m --compile --seq-len 4
// RUN: not ssm-compile %s --target bogus-arch -o %t/c 2>&1 | FileCheck %s -DT=bogus-arch
// RUN: not ssm-run %s --seed 1 --target bogus-arch 2>&1 | FileCheck %s -DT=bogus-arch
// RUN: not ssm-run %s --seed 1 --engine cpu --target x86-64-linux-avx3 2>&1 | FileCheck %s -DT=x86-64-linux-avx3
// RUN: not ssm-run %t/m --prompt 'ab' --engine cpu --target bogus-arch 2>&1 | FileCheck %s -DT=bogus-arch
// RUN: not ssm-run %t/m --engine reference --prompt 'ab' --target bogus-arch 2>&1 | FileCheck %s -DT=bogus-arch
// RUN: not ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m2 --compile --target bogus-arch 2>&1 | FileCheck %s -DT=bogus-arch
// RUN: not ls %t/m2
// RUN: not ssm-tune %S/Inputs/tune-small.mlir --db %t/t.db --target bogus-arch --budget 1 2>&1 | FileCheck %s -DT=bogus-arch
// CHECK: error: unknown target '[[T]]' (expected a Halide target such as host, x86-64-linux-avx2, x86-64-linux-avx512_skylake, arm-64-linux)
// A valid target is accepted, and the deployed folder runs.
// RUN: ssm-run %t/m --prompt 'ab' --engine cpu --target x86-64-linux 2>&1 | FileCheck %s --check-prefix=OK
// OK: prompt: 2 tokens

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
