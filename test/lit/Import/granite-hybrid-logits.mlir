// The tiny Granite 4.0-H checkpoint in ../shared (transformers'
// GraniteMoeHybridForCausalLM with a dense shared MLP: Mamba-2 layers and
// one NoPE GQA attention layer, embedding / attention / residual multipliers
// and logits scaling) reproduces its expected logits (a float64 NumPy
// implementation of transformers' semantics, token by token, agreeing with
// llama.cpp; see its README) within 1e-4: sequence and step forms, reference
// and compiled CPU kernels, 40 tokens and 300 (the last 100 decoded from
// position 200). A config with experts is refused naming the field.
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{m} = %shared/models/granite-hybrid/tiny-granite-h-a
// RUN: ssm-import %{m} -o %t/model --context 300 | FileCheck %s --check-prefix=IMPORT
// IMPORT: granitehybrid, 4 layers (3 Mamba-2, 1 attention), context 300, F32 -> F32
// RUN: FileCheck %s --check-prefix=RAW < %t/model/model.mlir
// RAW-NOT: ssm.rope
// RAW: ssm.attention {{.*}} {scale = 0.20000000000000001 : f64}

// RUN: ssm-run %t/model --tokens %{m}/tokens.npy --mode sequence --engine reference --all-logits-out %t/ref-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref-seq.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/model --tokens %{m}/tokens.npy --mode step --engine reference --all-logits-out %t/ref-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref-step.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens.npy --mode sequence --engine cpu --all-logits-out %t/cpu-seq.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-seq.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens.npy --mode step --engine cpu --all-logits-out %t/cpu-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-step.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// CHECK: shape=(40, 256) max_abs_diff={{.*}} PASS

// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens_300.npy --mode sequence --engine cpu --all-logits-out %t/cpu-seq300.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-seq300.npy %{m}/expected_logits_300.npy 1e-4 | FileCheck %s --check-prefix=L300
// L300: shape=(300, 256) max_abs_diff={{.*}} PASS
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/model --tokens %{m}/tokens_300.npy --mode step --decode-from 200 --engine cpu --all-logits-out %t/cpu-dec200.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/cpu-dec200.npy %{m}/expected_logits_300.npy 1e-4 tail | FileCheck %s --check-prefix=TAIL
// TAIL: shape=(100, 256) max_abs_diff={{.*}} PASS

// Experts are refused before anything is written.
// RUN: rm -rf %t/moe && mkdir %t/moe && cp %{m}/model.safetensors %t/moe/
// RUN: python3 -c "import json,sys; c=json.load(open(sys.argv[1])); c['num_local_experts']=8; json.dump(c, open(sys.argv[2],'w'))" %{m}/config.json %t/moe/config.json
// RUN: sh -c 'ssm-import %t/moe -o %t/moe-out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MOE
// MOE: num_local_experts is 8: mixture-of-experts layers are not supported yet
// MOE: exit=2
// RUN: test ! -e %t/moe-out

// RUN: ssm-run %t/model --memory | FileCheck %s --check-prefix=MEM
// MEM: conv_state 3 fixed 1.9 KiB per layer, 5.6 KiB
// MEM: ssm_state 3 fixed 8.0 KiB per layer, 24.0 KiB
// MEM: k_cache 1 cache 128 B per position per layer, 128 B per position
