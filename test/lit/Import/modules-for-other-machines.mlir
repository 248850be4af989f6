// A model folder may hold modules for several machines: `ssm-compile <dir>
// --target T` writes compiled/seq<L>-<T> beside the host's modules. The model
// library (Model::addCompiledModules, so ssm-run, ssm-serve and the C API)
// skips the ones compiled for another machine (a cross target such as
// arm-64-linux, with no shared library; avx512_knl's instructions, which no
// CPU this runs on has) and runs the others, and ssm-run names what it
// skipped. Before, such a folder was refused whole ("this CPU cannot run its
// 'avx512_knl' instructions"), although ssm-compile had just called it
// deployable (it now says where such a module runs). A folder whose modules all belong to another machine is still
// refused, naming the first.
// REQUIRES: ssm-run
// RUN: rm -rf %t %t.cache && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/a --hidden 16 --state 4 --layers 1 --conv 4 --dt-rank 1 --seed 21
// RUN: env SSM_CACHE_DIR=%t.cache ssm-import mamba %t/a/model.safetensors --config %t/a/config.json -o %t/m --compile --seq-len 4
// ssm-compile says where such a module runs, not that this folder is deployable by it.
// RUN: env SSM_CACHE_DIR=%t.cache ssm-compile %t/m --target x86-64-linux-avx512_knl | FileCheck %s --check-prefix=KNL
// KNL: ssm-compile: compiled {{.*}}m/compiled/seq4-x86-64-linux-avx512_knl for x86-64-linux-avx512_knl: a CPU with its 'avx512_knl' instructions runs {{.*}}m from it; this one cannot, and ssm-run skips it here
// RUN: env SSM_CACHE_DIR=%t.cache ssm-compile %t/m --target arm-64-linux | FileCheck %s --check-prefix=ARM
// ARM: ssm-compile: compiled {{.*}}m/compiled/seq4-arm-64-linux for arm-64-linux, another machine: link its static library into a program there (docs/embedding.md); the model library skips it on this one
// RUN: env SSM_CACHE_DIR=%t.empty-cache ssm-run %t/m --prompt 'several machines' --logits-out %t/cpu.npy 2>&1 | FileCheck %s --check-prefix=SKIP
// SKIP-DAG: ssm-run: note: skips {{.*}}m/compiled/seq4-arm-64-linux (compiled for arm-64-linux), another machine's module (this CPU runs the folder's others)
// SKIP-DAG: ssm-run: note: skips {{.*}}m/compiled/seq4-x86-64-linux-avx512_knl (compiled for x86-64-linux-avx512_knl), another machine's module
// SKIP: ssm-run: compiled modules in {{.*}}m/compiled: sequence lengths 4, and the step function
// SKIP: prompt: 16 tokens in {{.*}}, sequence, cpu engine
// RUN: not ls %t.empty-cache
// RUN: ssm-run %t/m --engine reference --prompt 'several machines' --logits-out %t/ref.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref.npy %t/cpu.npy 1e-4 | FileCheck %s --check-prefix=CMP
// CMP: max_abs_diff={{.*}} PASS
//
// RUN: rm -r %t/m/compiled/seq4
// RUN: sh -c 'env SSM_CACHE_DIR=%t.cache ssm-run %t/m --engine cpu --prompt ab; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: ssm-run: error: {{.*}}seq4-arm-64-linux/manifest.json: names no shared library (compiled for arm-64-linux, another machine: link its static library there)
// NONE: exit=2
