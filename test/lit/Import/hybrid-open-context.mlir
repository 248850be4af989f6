// `ssm-run <model-dir> --context N`: the KV caches' capacity chosen when the
// model is opened, not only at import (ssm-import --context, the default).
// The tiny LFM2 imported for 320 positions and run at 48 on the reference
// interpreter (which defines the semantics) reproduces transformers' logits
// (expected_logits.npy, see lfm2-logits.mlir) at every position; at 30, its
// 40-token prompt is the named context error, exit 2, nothing written, on
// the reference and cpu engines (checked before anything is compiled). The
// memory report shows the caches at the chosen capacity. Bad values are
// refused by name; a pure SSM takes --context and says it has no bound.
// (The compiled kernels at other capacities: ModelLibraryTest's
// ContextChosenAtOpen.)
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{m} = %shared/models/lfm2/tiny-lfm2-a
// RUN: ssm-import %{m} -o %t/model --context 320 > /dev/null

// RUN: ssm-run %t/model --context 48 --tokens %{m}/tokens.npy --mode sequence --engine reference --all-logits-out %t/ref48.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref48.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// RUN: ssm-run %t/model --context 40 --tokens %{m}/tokens.npy --mode step --engine reference --all-logits-out %t/ref40.npy
// RUN: python3 %S/Inputs/compare_npy.py %t/ref40.npy %{m}/expected_logits.npy 1e-4 | FileCheck %s
// CHECK: shape=(40, 256) max_abs_diff={{.*}} PASS

// RUN: sh -c 'ssm-run %t/model --context 30 --tokens %{m}/tokens.npy --engine reference --logits-out %t/none.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: sh -c 'ssm-run %t/model --context 39 --tokens %{m}/tokens.npy --engine cpu --logits-out %t/none.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FULL39
// FULL: 40 tokens at position 0 would pass the 30 positions cache state 'layers.2.k_cache' holds
// FULL: exit=2
// FULL39: 40 tokens at position 0 would pass the 39 positions cache state 'layers.2.k_cache' holds
// FULL39: exit=2
// RUN: test ! -e %t/none.npy
// --generate past the context: the generated tokens are printed, then the
// error says what filled it (was the stream API's "reset the stream" alone).
// RUN: sh -c 'ssm-run %t/model --context 41 --tokens %{m}/tokens.npy --engine reference --generate 3; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GENFULL
// GENFULL: ssm-run: error: --generate 3: the context of 41 positions (the prompt's 40 and the generated tokens) is full after 2 generated tokens; give a larger --context, or fewer --generate (1 token at position 41 would pass the 41 positions
// GENFULL: exit=2

// RUN: ssm-run %t/model --memory --context 64 | FileCheck %s --check-prefix=MEM
// MEM: k_cache 2 cache 128 B per position per layer, 256 B per position
// MEM: 1000 2.0 KiB 500.0 KiB 502.0 KiB (past the context of 64)
// MEM: allocated per stream: 34.0 KiB (the KV caches at their capacity of 64 positions; --context; the model's own is 320)
// RUN: ssm-run %t/model --memory | FileCheck %s --check-prefix=MEMDEF
// MEMDEF: allocated per stream: 162.0 KiB (the KV caches at their capacity of 320 positions; --context N sets it at open

// RUN: sh -c 'ssm-run %t/model --context 0 --tokens %{m}/tokens.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: ssm-run: error: --context takes a number of positions >= 1, got 0
// ZERO: exit=2
// RUN: sh -c 'ssm-run %t/model --context 2000000000 --tokens %{m}/tokens.npy; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: ssm-run: error: --context 2000000000: a stream's KV caches hold from 1 to 1073741824 positions (this model's default is 320)
// HUGE: exit=2
// RUN: sh -c 'ssm-run %t/model --context 2000000000 --memory; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=HUGE
// Caches of 8 GB under a 2 GB address-space limit: named, exit 2 (was LLVM's
// "out of memory" abort); --memory still reports them.
// RUN: sh -c 'ulimit -v 2000000; ssm-run %t/model --context 16000000 --tokens %{m}/tokens.npy --engine reference; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ULIMIT
// ULIMIT: ssm-run: error: --context 16000000: one stream's states (the KV caches at that capacity) take 8.19 GB, more than the 2.05 GB this process may use (the machine's memory, or ulimit -v); give a smaller --context
// ULIMIT: exit=2
// RUN: sh -c 'ulimit -v 2000000; ssm-run %t/model --context 16000000 --memory' | FileCheck %s --check-prefix=ULIMITMEM
// ULIMITMEM: allocated per stream: 7.6 GiB

// A pure state space model: no KV cache, no bound; --context is accepted and said to change nothing.
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/mamba --seq-len 2 > /dev/null
// RUN: ssm-run %t/mamba --engine reference --prompt abcdef --context 3 --logits-out %t/ctx3.npy 2>&1 | FileCheck %s --check-prefix=PURE
// PURE: ssm-run: note: --context 3: {{.*}} has no KV cache (its states are the same size at every position), so it holds any number of positions
// RUN: ssm-run %t/mamba --engine reference --prompt abcdef --logits-out %t/plain.npy
// RUN: cmp %t/ctx3.npy %t/plain.npy
// RUN: ssm-run %t/mamba --memory --context 3 | FileCheck %s --check-prefix=PUREMEM
// PUREMEM: allocated per stream: {{.*}} (no KV cache: the same at every position; --context changes nothing)
