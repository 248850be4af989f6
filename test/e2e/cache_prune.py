"""Pruning the compile cache of ssm-run (driver/CompileCache.cpp).

usage: cache_prune.py <build/bin>

Checks, against the cache folder's own files:
  * `ssm-run --cache-prune --cache-max-mb M` removes entries least recently
    used first (the folder's modification time) until the rest fit in M,
    never one whose manifest a process holds a shared lock on (as every
    ssm-run that uses an entry does), prints each removal and a summary, and
    leaves no temporaries;
  * `ssm-run --cache-prune` alone removes every entry not in use;
  * with SSM_CACHE_MAX_MB, a run that compiles a new entry prunes the older
    ones (its own, in use, stays), says so on stderr, and its entry is whole
    and found by the next run;
  * a bad SSM_CACHE_MAX_MB or --cache-max-mb is refused (exit 2).
Exit 0 when all hold.
"""
import fcntl
import json
import os
import subprocess
import sys
import tempfile

GRAPH = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {{
  %c = arith.constant dense<{c}> : tensor<4xf32>
  %b = arith.addf %a, %c : tensor<4xf32>
  return %b : tensor<4xf32>
}}
"""
MB = 1 << 20


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def fake_entry(cache, key, size, mtime):
    """A whole entry as CompileCache's checkEntry sees it: a manifest naming a
    library of the recorded size."""
    path = os.path.join(cache, key)
    os.makedirs(path)
    with open(os.path.join(path, "libssm_module.so"), "wb") as f:
        f.truncate(size)
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump({"shared_library": "libssm_module.so", "shared_library_bytes": size}, f)
    os.utime(path, (mtime, mtime))
    return path


def entries(cache):
    return sorted(e for e in os.listdir(cache) if os.path.isdir(os.path.join(cache, e)))


def ssm_run(bindir, args, env, expect_rc=0):
    p = subprocess.run([os.path.join(bindir, "ssm-run")] + args, env=env, capture_output=True,
                       text=True, timeout=300)
    if p.returncode != expect_rc:
        fail("ssm-run %s exited %d (expected %d):\n%s%s" % (" ".join(args), p.returncode,
                                                           expect_rc, p.stdout, p.stderr))
    return p


def main():
    bindir = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="ssm-prune-test-") as tmp:
        cache = os.path.join(tmp, "cache")
        os.makedirs(cache)
        env = dict(os.environ, SSM_CACHE_DIR=cache)
        env.pop("SSM_CACHE_MAX_MB", None)
        a = "a" * 32
        b = "b" * 32
        c = "c" * 32
        fake_entry(cache, a, 3 * MB, 1000)  # least recently used
        pb = fake_entry(cache, b, 2 * MB, 2000)
        fake_entry(cache, c, 1 * MB, 3000)  # most recently used
        # b is in use: a shared lock on its manifest, as ssm-run holds.
        held = open(os.path.join(pb, "manifest.json"))
        fcntl.flock(held, fcntl.LOCK_SH)

        # 6 MB to 2.5: a goes (3 MB, oldest), b is in use, c goes.
        p = ssm_run(bindir, ["--cache-prune", "--cache-max-mb", "2.5"], env)
        if entries(cache) != [b]:
            fail("after pruning to 2.5 MB the cache holds %s, expected only the entry in use:\n%s"
                 % (entries(cache), p.stdout))
        for key, size in ((a, "3.0"), (c, "1.0")):
            if "ssm-run: removed %s (%s MB, last used 19" % (key, size) not in p.stdout:
                fail("--cache-prune did not report removing %s:\n%s" % (key, p.stdout))
        if "removed 2 entries (4.0 MB), kept 1 (2.0 MB, 1 in use)" not in p.stdout:
            fail("unexpected summary:\n" + p.stdout)
        if p.stdout.index(a) > p.stdout.index(c):
            fail("entries not removed least recently used first:\n" + p.stdout)

        # Released: --cache-prune alone empties the cache.
        held.close()
        p = ssm_run(bindir, ["--cache-prune"], env)
        if entries(cache) or os.listdir(cache):
            fail("--cache-prune left %s" % os.listdir(cache))
        if "removed 1 entry (2.0 MB), kept 0 (0.0 MB)" not in p.stdout:
            fail("unexpected summary:\n" + p.stdout)

        # A cap on every run: the new entry stays (in use), the old one goes.
        g1 = os.path.join(tmp, "g1.mlir")
        g2 = os.path.join(tmp, "g2.mlir")
        open(g1, "w").write(GRAPH.format(c="1.0"))
        open(g2, "w").write(GRAPH.format(c="2.0"))
        ssm_run(bindir, [g1, "--seed", "0", "--engine", "cpu"], env)
        [first] = entries(cache)
        capped = dict(env, SSM_CACHE_MAX_MB="0.001")
        p = ssm_run(bindir, [g2, "--seed", "0", "--engine", "cpu"], capped)
        [second] = entries(cache) or [None]
        if second is None or second == first:
            fail("with SSM_CACHE_MAX_MB=0.001 the cache holds %s (first entry %s)"
                 % (entries(cache), first))
        if ("is over SSM_CACHE_MAX_MB" not in p.stderr or first not in p.stderr or
                "1 in use" not in p.stderr):
            fail("the capped run did not say what it removed:\n" + p.stderr)
        m = json.load(open(os.path.join(cache, second, "manifest.json")))
        if os.path.getsize(os.path.join(cache, second, m["shared_library"])) != \
                m["shared_library_bytes"]:
            fail("the kept entry is not whole")
        leftovers = [e for e in os.listdir(cache) if "." in e]
        if leftovers:
            fail("temporaries left in the cache: %s" % leftovers)
        p = ssm_run(bindir, [g2, "--seed", "0", "--engine", "cpu"], capped)
        if "over SSM_CACHE_MAX_MB" in p.stderr or entries(cache) != [second]:
            fail("the second run of g2 did not find its entry:\n" + p.stderr)

        # Bad caps.
        p = ssm_run(bindir, [g2, "--seed", "0", "--engine", "cpu"],
                    dict(env, SSM_CACHE_MAX_MB="lots"), expect_rc=2)
        if "SSM_CACHE_MAX_MB must be a non-negative number" not in p.stderr:
            fail("a bad SSM_CACHE_MAX_MB was not refused by name:\n" + p.stderr)
        p = ssm_run(bindir, ["--cache-prune", "--cache-max-mb", "-1"], env, expect_rc=2)
        p = ssm_run(bindir, [g2, "--cache-prune"], env, expect_rc=2)
        print("PASS: pruned least recently used first, entries in use kept, the cap applied "
              "after a compile, bad caps refused")


if __name__ == "__main__":
    main()
