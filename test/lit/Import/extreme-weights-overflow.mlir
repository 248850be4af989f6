// A D of 1e38 in the first layer of ../shared's tiny Mamba overflows float32
// in the cpu engine (D * u past 3.4e38, then inf - inf) while the float64
// reference interpreter stays finite: ssm-run names the first non-finite
// logit, as a warning (exit 0) and with --check as an error (exit 1), in both
// forms (docs/numerics.md).
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/st_set.py %shared/models/mamba/tiny-mamba-seed5/model.safetensors %t/d.safetensors backbone.layers.0.mixer.D --fill 1e38
// RUN: ssm-import mamba %t/d.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/md
// RUN: ssm-run %t/md --engine reference --prompt 'ABBA, A.' --logits-out %t/d-ref.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/d-ref.npy %t/d-ref.npy 0 | FileCheck %s --check-prefix=REF
// REF: shape=(256) max_abs_diff=0 PASS
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/md --engine cpu --prompt 'ABBA, A.' 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: env SSM_CACHE_DIR=%cache ssm-run %t/md --engine cpu --prompt 'ABBA, A.' --mode step 2>&1 | FileCheck %s --check-prefix=WARN
// WARN: ssm-run: warning: logits[{{[0-9]+}}] = {{-?(nan|inf)}} after the prompt: the cpu engine's float32 overflowed
// RUN: env SSM_CACHE_DIR=%cache not ssm-run %t/md --engine cpu --check --prompt 'ABBA, A.' --generate 4 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: ssm-run: error: logits[{{[0-9]+}}] = {{-?(nan|inf)}} after the prompt
// ERR-NOT: generated
