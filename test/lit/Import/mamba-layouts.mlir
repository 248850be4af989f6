// One Mamba-1 model in the layouts and precisions people have it in, written
// by Inputs/make_mamba.py from one seed: transformers' (MambaForCausalLM,
// backbone.embeddings.weight, MambaConfig fields) and mamba_ssm's
// (MambaLMHeadModel, backbone.embedding.weight, d_model / n_layer / ssm_cfg,
// vocabulary padded to pad_vocab_size_multiple). ssm-import finds the layout
// from what the files hold; both give the same logits. A BF16 and an F16
// file give exactly the logits of an F32 file holding the same rounded
// values (the import widens them without loss).
// REQUIRES: ssm-run
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{make} = python3 %S/Inputs/make_mamba.py --hidden 24 --state 8 --layers 2 --conv 4 --dt-rank 2 --seed 11
// RUN: %{make} %t/hf --layout transformers
// RUN: %{make} %t/ms --layout mamba_ssm --pad-vocab 16
// RUN: ssm-import mamba %t/hf/model.safetensors -o %t/mhf | FileCheck %s --check-prefix=HF
// HF: mamba1, transformers layout, F32 -> F32
// RUN: ssm-import mamba %t/ms/model.safetensors --config %t/ms/config.json -o %t/mms | FileCheck %s --check-prefix=MS
// MS: mamba1, mamba_ssm layout, F32 -> F32
// RUN: FileCheck %s --check-prefix=MSJSON < %t/mms/model.json
// MSJSON-DAG: "source_layout": "mamba_ssm"
// MSJSON-DAG: "source_config": "mamba_ssm"
// MSJSON-DAG: "vocab_size": 256
// RUN: ssm-run %t/mhf --engine reference --prompt 'two layouts, one model' --all-logits-out %t/hf.npy
// RUN: ssm-run %t/mms --engine reference --prompt 'two layouts, one model' --all-logits-out %t/ms.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/hf.npy %t/ms.npy 0 | FileCheck %s --check-prefix=SAME
// RUN: ssm-run %t/mms --engine reference --prompt 'two layouts, one model' --mode step --all-logits-out %t/ms-step.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/hf.npy %t/ms-step.npy 1e-4 | FileCheck %s --check-prefix=SAME
// SAME: shape=(22, 256) max_abs_diff={{.*}} PASS

// BF16 and F16 files against F32 files of their rounded values.
// RUN: %{make} %t/bf --layout transformers --dtype bf16
// RUN: %{make} %t/bf32 --layout transformers --round bf16
// RUN: %{make} %t/h --layout mamba_ssm --dtype f16
// RUN: %{make} %t/h32 --layout mamba_ssm --round f16
// RUN: ssm-import mamba %t/bf/model.safetensors -o %t/mbf | FileCheck %s --check-prefix=BF
// BF: transformers layout, BF16 -> BF16
// RUN: ssm-import mamba %t/bf32/model.safetensors -o %t/mbf32
// RUN: ssm-import mamba %t/h/model.safetensors -o %t/mh | FileCheck %s --check-prefix=H
// H: mamba_ssm layout, F16 -> F16
// RUN: ssm-import mamba %t/h32/model.safetensors -o %t/mh32
// RUN: ssm-run %t/mbf --engine reference --prompt 'half precision' --all-logits-out %t/bf.npy
// RUN: ssm-run %t/mbf32 --engine reference --prompt 'half precision' --all-logits-out %t/bf32.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/bf.npy %t/bf32.npy 0 | FileCheck %s --check-prefix=HALF
// RUN: ssm-run %t/mh --engine reference --prompt 'half precision' --all-logits-out %t/h.npy
// RUN: ssm-run %t/mh32 --engine reference --prompt 'half precision' --all-logits-out %t/h32.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/h.npy %t/h32.npy 0 | FileCheck %s --check-prefix=HALF
// HALF: shape=(14, 256) max_abs_diff=0 PASS
// The rounding is real: the BF16 model's logits are not the F32 model's.
// RUN: ssm-run %t/mhf --engine reference --prompt 'half precision' --all-logits-out %t/hf-short.npy
// RUN: not python3 %S/Inputs/compare_npy.py %t/bf.npy %t/hf-short.npy 1e-6

// Without --config and no config.json beside the model: exit 2, saying so.
// RUN: mkdir -p %t/alone && cp %t/hf/model.safetensors %t/alone/
// RUN: sh -c 'ssm-import mamba %t/alone/model.safetensors -o %t/malone; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOCFG
// NOCFG: mamba needs --config <config.json> (no {{.*}}alone/config.json beside the model)
// NOCFG: exit=2
