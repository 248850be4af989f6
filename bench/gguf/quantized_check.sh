#!/usr/bin/env bash
# llama-quantize's files against llama.cpp: our logits on a quantised GGUF
# (imported, dequantised to f32) next to llama.cpp's on the same file.
#
#   bench/gguf/quantized_check.sh MODEL-F32.gguf TOKENS.npy [TYPES...]   (default Q8_0 Q4_K Q6_K)
#
# Needs llama.cpp built at $LLAMA_CPP (default ~/.cache/ssm-peer/llama.cpp) with
# the llama-quantize target; compiles bench/gguf/llama_logits.cpp against it.
# Writes everything under $OUT (default ~/.cache/ssm-opt-gguf-check), never in
# the tree. Prints, per type, max|ours - llama.cpp| for the reference and cpu
# engines (one sequence call, every position's logits), and the same for the
# F32 file; then llama.cpp on an F32 GGUF of the same dequantised weights
# (gguf-py's dequantize(), $L/gguf-py): ours against it, and llama.cpp's
# quantised run against it. llama.cpp's CPU matmuls quantise the activations
# (Q8_0 / Q8_K blocks) against quantised weights; we multiply the dequantised
# weights by f32 activations, as llama.cpp does on the F32 file.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"; cd "$root"
L=${LLAMA_CPP:-$HOME/.cache/ssm-peer/llama.cpp}
OUT=${OUT:-$HOME/.cache/ssm-opt-gguf-check}
model=$1 tokens=$2; shift 2
types=("$@"); [ ${#types[@]} -eq 0 ] && types=(Q8_0 Q4_K Q6_K)
mkdir -p "$OUT"
dump="$OUT/llama_logits"
g++ -O2 -std=c++17 -I"$L/include" -I"$L/ggml/include" "$here/llama_logits.cpp" \
  -L"$L/build/bin" -lllama -lggml -lggml-base -Wl,-rpath,"$L/build/bin" -o "$dump"
cmp() { python3 "$root/test/lit/Import/Inputs/compare_npy.py" "$1" "$2" "$3"; }
check() {  # name file
  local name=$1 f=$2
  "$dump" "$f" "$tokens" "$OUT/$name-llama.npy" 2 2>/dev/null
  "$root/build/bin/ssm-import" "$f" -o "$OUT/m-$name" --force >/dev/null
  for e in reference cpu; do
    SSM_CACHE_DIR="$OUT/cache" "$root/build/bin/ssm-run" "$OUT/m-$name" --tokens "$tokens" \
      --engine $e --all-logits-out "$OUT/$name-$e.npy" --force 2>/dev/null
    echo "$name $e: $(cmp "$OUT/$name-$e.npy" "$OUT/$name-llama.npy" 1e-3)"
  done
}
check F32 "$model"
for t in "${types[@]}"; do
  "$L/build/bin/llama-quantize" "$model" "$OUT/model-$t.gguf" "$t" 2 > "$OUT/quantize-$t.log" 2>&1
  echo "$t: $(grep -c 'converting to\|size =' "$OUT/quantize-$t.log" || true) tensor lines; types: $(python3 "$root/test/lit/Import/Inputs/gguf_tool.py" info "$OUT/model-$t.gguf" | awk '{print $2}' | sort | uniq -c | tr '\n' ' ')"
  check "$t" "$OUT/model-$t.gguf"
  PYTHONPATH="$L/gguf-py" /usr/bin/python3 - "$OUT/model-$t.gguf" "$OUT/deq-$t.gguf" <<'PY'
import sys, numpy as np
sys.path.insert(0, sys.argv[0] if False else "test/lit/Import/Inputs")
import gguf_tool as g
from gguf import GGUFReader
from gguf.quants import dequantize
v, kvs, ts = g.read(sys.argv[1])
r = {t.name: t for t in GGUFReader(sys.argv[1]).tensors}
out = [[n, ne, 0, dequantize(r[n].data, r[n].tensor_type).astype(np.float32).tobytes()] for n, ne, t, d in ts]
g.write(sys.argv[2], v, [(k, b if k != "general.file_type" else g.kv_raw("u32", 0)) for k, b in kvs], out)
PY
  "$dump" "$OUT/deq-$t.gguf" "$tokens" "$OUT/deq-$t-llama.npy" 2 2>/dev/null
  echo "$t ours vs llama.cpp on its F32 dequantisation: $(cmp "$OUT/$t-reference.npy" "$OUT/deq-$t-llama.npy" 1e-3)"
  echo "$t llama.cpp quantised vs llama.cpp on its F32 dequantisation: $(cmp "$OUT/$t-llama.npy" "$OUT/deq-$t-llama.npy" 1e-3)"
done
