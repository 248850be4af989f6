#!/usr/bin/env bash
# One ctest case of the distributed prefill (label mpi): needs ../shared/models
# (fails loudly when it is missing), mpirun and a build with MPI.
#
#   run_case.sh <bin-dir> <work-dir> equal <model-kind> <model-path> <ranks> [slices]
#       imports the model, runs its tokens.npy single-process (cpu engine,
#       --state-out, --logits-out), then under mpirun with <ranks> ranks
#       (SSM_DISTRIBUTED_SLICES=<slices> when given; SSM_DISTRIBUTED_CHUNK
#       passed on from the environment) and compares the last
#       logits and every final state within 1e-4 (compare_states.py).
#   run_case.sh <bin-dir> <work-dir> expected <model-kind> <model-path> <ranks> <slices> <expected.bin>
#       the same as equal on the bytes of "in (34, 105, 110), and the last logits
#       also against <expected.bin> (256 float32 from rwkv.cpp, ../shared/models/rwkv)
#       within 1e-4 (max |a - b|).
#   run_case.sh <bin-dir> <work-dir> refuse <model-kind> <model-path> <ranks> <message> [flag]
#       expects every rank to exit non-zero naming <message>, before any kernel
#       runs (no "distributed prefill:" line); <flag> is added to the command.
#   run_case.sh <bin-dir> <work-dir> capi <model-kind> <model-path> <ranks> <capi_prefill>
#       the same through the C entry ssm_distributed_prefill (even slices).
#   run_case.sh <bin-dir> <work-dir> dies <model-kind> <model-path> <ranks> <rank>
#       rank <rank> exits mid-run (SSM_DISTRIBUTED_TEST_EXIT_RANK): mpirun must
#       end the others with a message within 60 s.
set -euo pipefail
bin=$1 work=$2 what=$3 kind=$4 src=$5 ranks=$6 extra=${7:-} expected=${8:-}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e "$src" ]; then
  echo "FAIL: $src is missing: the distributed tests need ../shared/models" >&2
  exit 1
fi
# Open MPI refuses root unless told (CI runs as root); extra ranks on few cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
mpirun=(mpirun --oversubscribe -np "$ranks")
mkdir -p "$work"
model=$work/model
case $kind in
  mamba) "$bin/ssm-import" mamba "$src/model.safetensors" -o "$model" --force > /dev/null ;;
  folder) "$bin/ssm-import" "$src" -o "$model" --force > /dev/null ;;
  rwkv) "$bin/ssm-import" rwkv "$src" -o "$model" --force > /dev/null ;;
  *) echo "unknown model kind $kind" >&2; exit 2 ;;
esac
tokens=$src/tokens.npy
[ -e "$tokens" ] || tokens=$(dirname "$src")/../mamba/tiny-mamba-seed5/tokens.npy
if [ "$what" = expected ]; then
  if [ ! -e "$expected" ]; then echo "FAIL: $expected is missing" >&2; exit 1; fi
  tokens=$work/in.npy
  /usr/bin/python3 -c "import numpy; numpy.save('$tokens', numpy.array([34, 105, 110], numpy.int32))"
  what=equal
fi

case $what in
  equal)
    "$bin/ssm-run" "$model" --tokens "$tokens" --engine cpu --logits-out "$work/single.npy" \
      --state-out "$work/single.state" --force
    # SSM_DISTRIBUTED_CHUNK (from the test's environment) goes to every rank.
    SSM_DISTRIBUTED_SLICES=$extra SSM_DISTRIBUTED_CHUNK=${SSM_DISTRIBUTED_CHUNK:-} "${mpirun[@]}" \
      -x SSM_DISTRIBUTED_SLICES -x SSM_DISTRIBUTED_CHUNK "$bin/ssm-run" "$model" \
      --tokens "$tokens" --engine cpu --distributed --logits-out "$work/dist.npy" \
      --state-out "$work/dist.state" --force
    /usr/bin/python3 "$here/compare_states.py" "$work/dist.state" "$work/single.state" \
      "$work/dist.npy" "$work/single.npy" --tol 1e-4
    if [ -n "$expected" ]; then
      /usr/bin/python3 - "$work/dist.npy" "$expected" <<'PY'
import sys
import numpy as np
got = np.load(sys.argv[1]).reshape(-1)
want = np.fromfile(sys.argv[2], "<f4")
err = float(np.max(np.abs(got - want))) if got.shape == want.shape else float("inf")
ok = err <= 1e-4
print(f"{'expected ok' if ok else 'FAIL'}: logits against {sys.argv[2]}: max |diff| {err:.3g} (tol 1e-4)")
sys.exit(0 if ok else 1)
PY
    fi
    ;;
  capi)
    # ssm_distributed_prefill from a program of our own (capi_prefill.cpp, path
    # in <extra>), one module for the even slices, against the single process.
    "$bin/ssm-run" "$model" --tokens "$tokens" --engine cpu --logits-out "$work/single.npy" \
      --state-out "$work/single.state" --force
    n=$(/usr/bin/python3 -c "import numpy; print(len(numpy.load('$tokens')))")
    if [ $((n % ranks)) -ne 0 ]; then echo "capi: $n tokens do not split evenly over $ranks"; exit 2; fi
    "$bin/ssm-import" mamba "$src/model.safetensors" -o "$work/slice-model" --force \
      --seq-len $((n / ranks)) > /dev/null
    "$bin/ssm-opt" --ssm-distribute-prefill "$work/slice-model/model.mlir" -o "$work/dist.mlir" --force
    "$bin/ssm-compile" "$work/dist.mlir" -o "$work/module" --force --progress=false
    vocab=$(/usr/bin/python3 -c "import json; print(json.load(open('$model/model.json'))['config']['vocab_size'])")
    "${mpirun[@]}" "$extra" "$model" "$work/module" "$tokens" "$vocab" "$work/dist.state" "$work/dist.npy"
    /usr/bin/python3 "$here/compare_states.py" "$work/dist.state" "$work/single.state" \
      "$work/dist.npy" "$work/single.npy" --tol 1e-4
    ;;
  refuse)
    if "${mpirun[@]}" "$bin/ssm-run" "$model" --tokens "$tokens" --engine cpu --distributed \
         ${expected:+"$expected"} > "$work/out.log" 2>&1; then
      echo "FAIL: the run succeeded"; exit 1
    fi
    cat "$work/out.log"
    n=$(grep -c "error: .*$extra" "$work/out.log" || true)
    if [ "$n" -ne "$ranks" ]; then echo "FAIL: $n of $ranks ranks named '$extra'"; exit 1; fi
    if grep -q "distributed prefill:" "$work/out.log"; then echo "FAIL: a rank computed"; exit 1; fi
    echo "PASS: refused by every rank"
    ;;
  dies)
    start=$(date +%s)
    if SSM_DISTRIBUTED_TEST_EXIT_RANK=$extra timeout 60 "${mpirun[@]}" -x SSM_DISTRIBUTED_TEST_EXIT_RANK \
         "$bin/ssm-run" "$model" --tokens "$tokens" --engine cpu --distributed > "$work/out.log" 2>&1; then
      echo "FAIL: the run succeeded"; exit 1
    fi
    rc=$?
    cat "$work/out.log"
    if [ "$rc" -eq 124 ]; then echo "FAIL: still running after 60 s"; exit 1; fi
    grep -q "rank $extra of $ranks: exiting now" "$work/out.log"
    grep -q "exited with non-zero status\|aborted" "$work/out.log"
    echo "PASS: the job ended in $(( $(date +%s) - start )) s after rank $extra died (exit $rc)"
    ;;
  *) echo "unknown check $what" >&2; exit 2 ;;
esac
