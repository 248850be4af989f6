// (Its long part, label full: gguf-import-300.full.mlir.)
// ssm-import <file.gguf>: the tiny LFM2, Granite 4.0-H and Qwen3.5 GGUFs in ../shared
// (written by gguf-py from the same weights as the safetensors beside them;
// llama.cpp computed llama_logits.npy from them, F32 KV cache, see their
// READMEs) give llama.cpp's logits within 2e-4 and the safetensors import's
// expected logits within 1e-4, in the sequence and step forms, on the
// reference interpreter and on compiled CPU kernels, 40 tokens and 300.
// Granite's gated norm follows llama.cpp (per group); with one group, as
// here, transformers' is the same. Qwen3.5's q/k L2 norm follows llama.cpp
// (x / max(|x|, rms_norm_eps), not transformers' x rsqrt(|x|^2 + 1e-6)): the
// GGUF import is within 2e-5 of llama.cpp and 6e-5 of the transformers
// reference (the README's "l2norm convention" difference, 5.9e-5); the
// safetensors import (Import/qwen35-logits) follows transformers.
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{l} = %shared/models/lfm2/tiny-lfm2-a
// DEFINE: %{g} = %shared/models/granite-hybrid/tiny-granite-h-a
// DEFINE: %{cmp} = python3 %S/Inputs/compare_npy.py

// RUN: ssm-import %{l}/model-f32.gguf -o %t/lfm2 --context 320 | FileCheck %s --check-prefix=LIMPORT
// LIMPORT: lfm2, 6 layers (4 gated short conv, 2 attention), context 320, F32 (GGUF lfm2: F32) -> F32
// RUN: FileCheck %s --check-prefix=LJSON < %t/lfm2/model.json
// LJSON: "architecture": "lfm2"
// LJSON: "layer_types": [
// LJSON-NEXT: "conv",
// LJSON-NEXT: "conv",
// LJSON-NEXT: "full_attention",
// RUN: ssm-run %t/lfm2 --tokens %{l}/tokens.npy --mode sequence --engine reference --all-logits-out %t/l-ref-seq.npy
// RUN: %{cmp} %t/l-ref-seq.npy %{l}/llama_logits.npy 2e-4 | FileCheck %s
// RUN: %{cmp} %t/l-ref-seq.npy %{l}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/lfm2 --tokens %{l}/tokens.npy --mode step --engine reference --all-logits-out %t/l-ref-step.npy
// RUN: %{cmp} %t/l-ref-step.npy %{l}/llama_logits.npy 2e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/lfm2 --tokens %{l}/tokens.npy --mode sequence --engine cpu --all-logits-out %t/l-cpu-seq.npy
// RUN: %{cmp} %t/l-cpu-seq.npy %{l}/llama_logits.npy 2e-4 | FileCheck %s
// RUN: %{cmp} %t/l-cpu-seq.npy %{l}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/lfm2 --tokens %{l}/tokens.npy --mode step --engine cpu --all-logits-out %t/l-cpu-step.npy
// RUN: %{cmp} %t/l-cpu-step.npy %{l}/llama_logits.npy 2e-4 | FileCheck %s

// RUN: ssm-import %{g}/model-f32.gguf -o %t/granite --context 320 | FileCheck %s --check-prefix=GIMPORT
// GIMPORT: granitehybrid, 4 layers (3 Mamba-2, 1 attention), context 320, F32 (GGUF granitehybrid: F32) -> F32
// RUN: FileCheck %s --check-prefix=GJSON < %t/granite/model.json
// GJSON: "position_embedding_type": "nope"
// GJSON: "ssm_opt_gated_norm_per_group": true
// RUN: ssm-run %t/granite --tokens %{g}/tokens.npy --mode sequence --engine reference --all-logits-out %t/g-ref-seq.npy
// RUN: %{cmp} %t/g-ref-seq.npy %{g}/llama_logits.npy 2e-4 | FileCheck %s
// RUN: %{cmp} %t/g-ref-seq.npy %{g}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/granite --tokens %{g}/tokens.npy --mode step --engine reference --all-logits-out %t/g-ref-step.npy
// RUN: %{cmp} %t/g-ref-step.npy %{g}/llama_logits.npy 2e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/granite --tokens %{g}/tokens.npy --mode sequence --engine cpu --all-logits-out %t/g-cpu-seq.npy
// RUN: %{cmp} %t/g-cpu-seq.npy %{g}/llama_logits.npy 2e-4 | FileCheck %s
// RUN: %{cmp} %t/g-cpu-seq.npy %{g}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/granite --tokens %{g}/tokens.npy --mode step --engine cpu --all-logits-out %t/g-cpu-step.npy
// RUN: %{cmp} %t/g-cpu-step.npy %{g}/llama_logits.npy 2e-4 | FileCheck %s
// CHECK: shape=(40, 256) max_abs_diff={{.*}} PASS
// L300: shape=(300, 256) max_abs_diff={{.*}} PASS

// DEFINE: %{q} = %shared/models/qwen35/tiny-qwen35-a
// RUN: ssm-import %{q}/model-f32.gguf -o %t/qwen35 --context 320 | FileCheck %s --check-prefix=QIMPORT
// QIMPORT: qwen35, 4 layers (3 gated delta net, 1 attention), context 320, F32 (GGUF qwen35: F32) -> F32
// RUN: FileCheck %s --check-prefix=QJSON < %t/qwen35/model.json
// QJSON: "ssm_opt_l2norm_eps": 9.999999974752427e-07
// RUN: ssm-run %t/qwen35 --tokens %{q}/tokens.npy --mode sequence --engine reference --all-logits-out %t/q-ref-seq.npy
// RUN: %{cmp} %t/q-ref-seq.npy %{q}/llama_logits.npy 2e-5 | FileCheck %s
// RUN: %{cmp} %t/q-ref-seq.npy %{q}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/qwen35 --tokens %{q}/tokens.npy --mode step --engine reference --all-logits-out %t/q-ref-step.npy
// RUN: %{cmp} %t/q-ref-step.npy %{q}/llama_logits.npy 2e-5 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/qwen35 --tokens %{q}/tokens.npy --mode sequence --engine cpu --all-logits-out %t/q-cpu-seq.npy
// RUN: %{cmp} %t/q-cpu-seq.npy %{q}/llama_logits.npy 2e-4 | FileCheck %s
// RUN: %{cmp} %t/q-cpu-seq.npy %{q}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/qwen35 --tokens %{q}/tokens.npy --mode step --engine cpu --all-logits-out %t/q-cpu-step.npy
// RUN: %{cmp} %t/q-cpu-step.npy %{q}/llama_logits.npy 2e-4 | FileCheck %s
