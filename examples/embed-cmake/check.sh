#!/bin/sh
# Installs ssm-opt into a fresh prefix and, with nothing but that prefix, builds and runs
# the examples as an embedder would: examples/embed-cmake through find_package(ssm-opt)
# and examples/embed-model/stream.c through pkg-config; deployed model folders run by the
# installed ssm-run with no compilation. Needs ../shared/models (tiny RWKV-4 and Mamba).
# usage: check.sh <ssm-opt build dir> <shared dir> <work dir>
set -eu
build=${1:?usage: check.sh <build dir> <shared dir> <work dir>}
shared=${2:?}
work=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
models=$shared/models/rwkv
model=$models/reseeded-rwkv-4v0-seed1-FP32.bin
expected=$models/expected-logits-reseeded-4v0-seed1.bin
if [ ! -f "$model" ] || [ ! -f "$expected" ] || [ ! -d "$shared/models/mamba/tiny-mamba-seed5" ]; then
  echo "check.sh: $shared/models lacks the tiny RWKV-4 or Mamba files: this test needs ../shared" >&2
  exit 1
fi
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
bin=$prefix/bin
export SSM_CACHE_DIR=$work/cache

# The installed tools: ssm-run compiles the prompt's 3-token graph (cached) for the logits
# the examples must reproduce. Then a deployed model folder: the model compiled for 2-token
# sequence calls, so that prompts of any length run as such calls plus steps.
"$bin/ssm-import" rwkv "$model" -o "$work/model" --seq-len 2 > /dev/null
"$bin/ssm-run" "$work/model" --engine cpu --prompt '"in' --logits-out "$work/ssm-run.npy" 2> /dev/null
"$bin/ssm-compile" "$work/model/model.mlir" -o "$work/model/compiled/seq2"
# A length never seen runs from the deployed modules: no compilation, no cache entry.
SSM_CACHE_DIR=$work/cache-new "$bin/ssm-run" "$work/model" --engine cpu --prompt 'seven b' \
  --logits-out "$work/seven.npy" 2> "$work/seven.err"
if [ -e "$work/cache-new" ]; then
  echo "ssm-run compiled for a deployed folder: $(ls "$work/cache-new")" >&2
  exit 1
fi
grep "compiled modules in" "$work/seven.err"

# The tiny Mamba-1 deployed the same way (4-token calls): its 46-token prompt, a length
# never compiled, against the logits of the reference implementation at every position.
mamba=$shared/models/mamba/tiny-mamba-seed5
"$bin/ssm-import" mamba "$mamba/model.safetensors" --config "$mamba/config.json" \
  -o "$work/mamba" --seq-len 4 > /dev/null
"$bin/ssm-compile" "$work/mamba/model.mlir" -o "$work/mamba/compiled/seq4"
SSM_CACHE_DIR=$work/cache-new "$bin/ssm-run" "$work/mamba" --engine cpu --tokens "$mamba/tokens.npy" \
  --all-logits-out "$work/mamba-all.npy" 2> /dev/null
[ ! -e "$work/cache-new" ]
python3 "$here/../../test/lit/Import/Inputs/compare_npy.py" "$work/mamba-all.npy" \
  "$mamba/expected_logits.npy" 1e-4

echo "== find_package(ssm-opt): examples/embed-cmake"
cmake -S "$here" -B "$work/app" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/app-configure.log"
cmake --build "$work/app" > "$work/app-build.log"
"$work/app/embed-cmake" "$work/model" "$expected" "$work/ssm-run.npy"

echo "== pkg-config ssm-runtime: examples/embed-model/stream.c"
export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name ssm-runtime.pc)")"
# The .pc file's Libs carry the rpath: the program finds libssm_runtime.so with
# no LD_LIBRARY_PATH and no -rpath of its own.
${CC:-cc} -O2 -std=c11 -Wall "$here/../embed-model/stream.c" $(pkg-config --cflags --libs ssm-runtime) \
  -lm -o "$work/stream"
"$work/stream" "$work/model" --prompt '"in' --expected "$expected" --tol 1e-4
# Save after the prompt, resume in a new process: the same tokens and logits, bit for bit.
"$work/stream" "$work/model" --prompt '"in' --save "$work/in.ssmstate" --generate 24 \
  --logits-out "$work/unbroken.bin" > "$work/unbroken.txt"
"$work/stream" "$work/model" --load "$work/in.ssmstate" --generate 24 \
  --logits-out "$work/resumed.bin" > "$work/resumed.txt"
cmp "$work/unbroken.bin" "$work/resumed.bin"
cmp "$work/unbroken.txt" "$work/resumed.txt"
echo "resumed in a new process: $(cat "$work/resumed.txt") (identical)"
echo "== Python (lib/ssm-opt/python/ssm_runtime.py): examples/embed-python/stream.py"
PYTHONPATH="$(dirname "$(find "$prefix" -name ssm_runtime.py)")" python3 "$here/../embed-python/stream.py" \
  "$work/model" --prompt '"in' --expected "$expected" --generate 8
echo "== PyTorch (lib/ssm-opt/python/ssm_torch.py): examples/embed-python/scan_op.py"
# A kernel module compiled by the installed ssm-compile, its functions as torch ops.
# Debian's python3-torch is for /usr/bin/python3 ($SSM_TORCH_PYTHON overrides).
torch_python=${SSM_TORCH_PYTHON:-/usr/bin/python3}
if "$torch_python" -c "import torch" 2> /dev/null; then
  "$bin/ssm-compile" "$here/../embed-kernels/short_scan.mlir" -o "$work/short_scan" > /dev/null
  PYTHONPATH="$(dirname "$(find "$prefix" -name ssm_torch.py)")" "$torch_python" \
    "$here/../embed-python/scan_op.py" "$work/short_scan"
elif [ -n "${CI:-}" ]; then
  echo "check.sh: $torch_python has no torch (Debian python3-torch): CI installs it" >&2
  exit 1
else
  echo "SKIP PyTorch: $torch_python has no torch"
fi
# A damaged state file is refused with a message (exit 2), not run.
head -c 100 "$work/in.ssmstate" > "$work/cut.ssmstate"
if "$work/stream" "$work/model" --load "$work/cut.ssmstate" 2> "$work/cut.err"; then
  echo "a truncated state file was accepted" >&2
  exit 1
fi
grep -q "truncated state file" "$work/cut.err"
echo "PASS"
