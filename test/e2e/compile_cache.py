"""The compile cache of ssm-run under damage and concurrency (driver/CompileCache.cpp).

usage: compile_cache.py <build/bin> [--rounds N] [--seed S]

Checks, each against the cache's own files (not the tool's word):
  * an entry without manifest.json, and one with a truncated .so, are reported
    ("is incomplete") and rebuilt, and the run succeeds;
  * a work folder of a dead process (<key>.tmp-<pid>) is removed;
  * N rounds: several ssm-run processes compile the same new graph at once,
    some are killed with SIGKILL at random delays, then one more run must
    succeed, every entry must be whole (manifest + library of the recorded
    size) and no temporaries may remain.
Exit 0 when all hold; prints what failed otherwise.
"""
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

GRAPH = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %c = arith.constant dense<{c}> : tensor<4xf32>
  %b = arith.addf %a, %c : tensor<4xf32>
  return %b : tensor<4xf32>
}}
"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def entries(cache):
    return sorted(os.listdir(cache)) if os.path.isdir(cache) else []


def check_cache(cache, where):
    for name in entries(cache):
        path = os.path.join(cache, name)
        if ".tmp-" in name or ".broken-" in name:
            fail("%s: temporary %s left in the cache" % (where, name))
        if not os.path.isdir(path):
            continue  # failed-<key>.mlir inputs kept for bug reports
        try:
            m = json.load(open(os.path.join(path, "manifest.json")))
            lib = os.path.join(path, m["shared_library"])
            if os.path.getsize(lib) != m["shared_library_bytes"]:
                fail("%s: %s: library size differs from the manifest" % (where, name))
        except (OSError, ValueError, KeyError) as e:
            fail("%s: entry %s is not whole: %s" % (where, name, e))


def run(bindir, graph, cache, expect_note=None):
    env = dict(os.environ, SSM_CACHE_DIR=cache)
    p = subprocess.run([os.path.join(bindir, "ssm-run"), graph, "--seed", "0", "--engine", "cpu"],
                       env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        fail("ssm-run %s exited %d:\n%s" % (graph, p.returncode, p.stderr))
    if expect_note and expect_note not in p.stderr:
        fail("ssm-run did not report %r:\n%s" % (expect_note, p.stderr))
    return p


def main():
    bindir = sys.argv[1]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 4
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="ssm-cache-test-") as tmp:
        cache = os.path.join(tmp, "cache")
        graph = os.path.join(tmp, "g0.mlir")
        open(graph, "w").write(GRAPH.format(c="1.0"))
        run(bindir, graph, cache)
        check_cache(cache, "first run")
        [key] = [e for e in entries(cache) if os.path.isdir(os.path.join(cache, e))]
        entry = os.path.join(cache, key)

        # No manifest: reported, rebuilt.
        os.remove(os.path.join(entry, "manifest.json"))
        run(bindir, graph, cache, "is incomplete (no manifest.json); compiling it again")
        check_cache(cache, "after a missing manifest")

        # A truncated library: reported, rebuilt.
        lib = [f for f in os.listdir(entry) if f.endswith(".so")][0]
        with open(os.path.join(entry, lib), "r+b") as f:
            f.truncate(1000)
        run(bindir, graph, cache, "has 1000 bytes, the manifest says")
        check_cache(cache, "after a truncated library")

        # A work folder of a dead process: removed by the next run.
        dead = subprocess.Popen(["true"])
        dead.wait()
        os.makedirs(os.path.join(cache, key + ".tmp-%d" % dead.pid, "module"))
        run(bindir, graph, cache)
        check_cache(cache, "after an orphaned work folder")

        # Concurrent first compiles, some killed mid-way.
        env = dict(os.environ, SSM_CACHE_DIR=cache)
        kills = 0
        for r in range(rounds):
            g = os.path.join(tmp, "r%d.mlir" % r)
            open(g, "w").write(GRAPH.format(c="%d.5" % (r + 2)))
            procs = [subprocess.Popen([os.path.join(bindir, "ssm-run"), g, "--seed", "0",
                                       "--engine", "cpu"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True) for _ in range(4)]
            victims = rng.sample(procs, rng.randint(1, 3))
            time.sleep(rng.uniform(0.0, 2.5))
            for p in victims:
                if p.poll() is None:
                    p.send_signal(signal.SIGKILL)
                    kills += 1
            for p in procs:
                _, err = p.communicate(timeout=300)
                if p not in victims and p.returncode != 0:
                    fail("round %d: a concurrent ssm-run exited %d:\n%s" % (r, p.returncode, err))
            run(bindir, g, cache)
            check_cache(cache, "round %d" % r)
        print("PASS: damaged entries rebuilt, orphans removed, %d rounds with %d kills "
              "left a whole cache" % (rounds, kills))


if __name__ == "__main__":
    main()
