#!/usr/bin/env python3
"""Halide's runtime object is compiled once per target and reused (codegen/RuntimeCache.h).

    runtime_cache.py <build-bin-dir> <work-dir> <graph.mlir>

With SSM_HALIDE_RUNTIME_CACHE pointing at a fresh folder: the first ssm-compile
publishes one entry; the second copies it (its halide_runtime.o is byte for byte the
first's, which is what compile_standalone_runtime wrote) and its module runs and
agrees with the reference interpreter; a truncated entry is not used but replaced
with a whole one; no temporary is left; SSM_HALIDE_RUNTIME_CACHE=off creates nothing.
"""
import filecmp
import glob
import os
import subprocess
import sys

bin_dir, work, graph = sys.argv[1:4]
cache = os.path.join(work, "runtime-cache")
subprocess.run(["rm", "-rf", work], check=True)
os.makedirs(work)
env = dict(os.environ, SSM_HALIDE_RUNTIME_CACHE=cache, SSM_CACHE_DIR=os.path.join(work, "cc"))
failures = 0


def check(ok, what):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} {what}")
    failures += not ok


def compile_to(name, extra_env=None):
    out = os.path.join(work, name)
    subprocess.run([os.path.join(bin_dir, "ssm-compile"), graph, "-o", out],
                   env=dict(env, **(extra_env or {})), check=True, stdout=subprocess.DEVNULL)
    return out


first = compile_to("first")
entries = glob.glob(os.path.join(cache, "runtime-*.o"))
check(len(entries) == 1, f"the first compile published one entry: {entries}")
second = compile_to("second")
check(filecmp.cmp(os.path.join(first, "halide_runtime.o"), os.path.join(second, "halide_runtime.o"),
                  shallow=False), "the second compile's runtime is the first's, byte for byte")
check(filecmp.cmp(entries[0], os.path.join(first, "halide_runtime.o"), shallow=False),
      "the entry holds what Halide compiled")
run = subprocess.run([os.path.join(bin_dir, "ssm-run"), graph, "--engine", "cpu", "--seed", "1",
                      "--check"], env=env, capture_output=True, text=True)
check(run.returncode == 0 and "FAIL" not in run.stdout,
      "a module linked with the cached runtime agrees with the reference interpreter")

# A truncated entry (a compile killed while publishing cannot leave one: it is
# renamed in whole; this is a disk that lost its tail) is not used, and replaced.
size = os.path.getsize(entries[0])
with open(entries[0], "r+b") as f:
    f.truncate(size // 2)
third = compile_to("third")
check(os.path.getsize(os.path.join(third, "halide_runtime.o")) == size,
      "a truncated entry is not copied: the runtime is compiled again")
check(os.path.getsize(entries[0]) == size, "and the entry is whole again")
check(not glob.glob(os.path.join(cache, "*.tmp-*")), "no temporary left in the cache")

subprocess.run(["rm", "-rf", cache], check=True)
compile_to("fourth", {"SSM_HALIDE_RUNTIME_CACHE": "off"})
check(not os.path.exists(cache), "SSM_HALIDE_RUNTIME_CACHE=off writes no cache")
print(f"runtime_cache: {'PASS' if failures == 0 else f'{failures} FAILED'}")
sys.exit(1 if failures else 0)
