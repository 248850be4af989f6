#!/usr/bin/env python3
"""A seeded fuzz of the Python binding's argument checks (issue 35: "one for the
Python binding's argument checks joins the CI smoke"), on the model library's tiny
LFM2 (KV caches, compiled modules).

    python_fuzz.py <model-dir> [iterations] [seed]

Each iteration calls one entry of runtime/python/ssm_runtime.py (Model with
context_length, Stream.step / prefill / state / set_state / save / load, Sampler
and its sample / accept) with values drawn from a pool of the kinds a caller gets
wrong: ints past int32 and int64, negatives, bools, floats, NaN, strings, bytes,
None, nested and mixed lists, paths with NUL bytes or in missing folders, state
files of random bytes. Each call must return or raise one of ValueError,
TypeError, OverflowError, ctypes.ArgumentError or ssm_runtime.Error (a named
refusal); any other exception fails the test, and a crash or hang fails it under
ctest. Every 8 iterations the stream is reset and must still give the logits a
fresh stream gives for the same token (a refused call changed nothing it kept).
Standard library only.
"""
import ctypes
import math
import os
import random
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import ssm_runtime  # noqa: E402

model_dir = os.path.abspath(sys.argv[1])
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 400
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
ALLOWED = (ValueError, TypeError, OverflowError, ctypes.ArgumentError, ssm_runtime.Error)

model = ssm_runtime.Model(model_dir)
vocab = model.vocab_size
stream = ssm_runtime.Stream(model)
names = [s[0] if isinstance(s, tuple) else getattr(s, "name", s) for s in model.states()]
fresh = ssm_runtime.Stream(model)
fresh.step(1)
expected = list(fresh.logits())

SCALARS = [0, 1, -1, 7, vocab - 1, vocab, 2**31 - 1, 2**31, 2**32 + 7, 2**63 - 1, 2**63, -2**63,
           -2**63 - 1, 2**64, True, False, None, 1.5, -0.0, float("nan"), float("inf"), "7", b"7",
           "", "\0", object()]


def value(depth=0):
    r = rng.random()
    if r < 0.6 or depth > 1:
        return rng.choice(SCALARS)
    if r < 0.85:
        return [value(depth + 1) for _ in range(rng.randrange(0, 4))]
    return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 5)))


tmp = tempfile.mkdtemp(prefix="ssm-pyfuzz-")
os.chdir(tmp)  # a relative path a call accepts writes here, not in the caller's folder
good_state = os.path.join(tmp, "good.state")
stream.step(1)
stream.save(good_state)
stream.reset()
raw = open(good_state, "rb").read()


def path_value():
    r = rng.random()
    if r < 0.3:
        return rng.choice(["", "\0", os.path.join(tmp, "a\0b"), os.path.join(tmp, "missing", "x"),
                           tmp, "/dev/null", 7, None, os.fsencode(tmp) + b"/\xff", good_state])
    # A damaged copy of a real state file: bytes flipped or cut.
    data = bytearray(raw)
    for _ in range(rng.randrange(1, 4)):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    if rng.random() < 0.5:
        data = data[:rng.randrange(len(data))]
    p = os.path.join(tmp, "damaged.state")
    with open(p, "wb") as f:
        f.write(data)
    return p


def act():
    kind = rng.randrange(10)
    if kind == 0:
        stream.step(value())
    elif kind == 1:
        stream.prefill(value() if rng.random() < 0.3 else [value() for _ in range(rng.randrange(4))])
    elif kind == 2:
        m = ssm_runtime.Model(model_dir, context_length=value())
        ssm_runtime.Stream(m).step(1)
    elif kind == 3:
        stream.state(rng.choice(names + [value()]))
    elif kind == 4:
        stream.set_state(rng.choice(names + [value()]), value())
    elif kind == 5:
        fields = ["temperature", "top_k", "top_p", "min_p", "repetition_penalty",
                  "presence_penalty", "frequency_penalty", "penalty_last_n", "seed"]
        s = ssm_runtime.Sampler(**{rng.choice(fields): value()})
        s.sample(value() if rng.random() < 0.5 else expected)
    elif kind == 6:
        ssm_runtime.Sampler().accept(value())
    elif kind == 7:
        stream.save(path_value())
    elif kind == 8:
        stream.load(path_value())
    else:
        ssm_runtime.step_streams([stream], [value()])


failures = 0
outcomes = {"returned": 0, "refused": 0}
for i in range(iterations):
    try:
        act()
        outcomes["returned"] += 1
    except ALLOWED:
        outcomes["refused"] += 1
    except Exception as e:  # noqa: BLE001: anything else is a finding
        failures += 1
        print(f"FAIL iteration {i}: {type(e).__name__}: {e}")
    if i % 8 == 7:
        stream.reset()
        stream.step(1)
        got = list(stream.logits())
        if len(got) != len(expected) or any(not math.isfinite(a) or a != b
                                            for a, b in zip(got, expected)):
            failures += 1
            print(f"FAIL iteration {i}: after reset the stream's logits differ from a fresh stream's")
import shutil  # noqa: E402
shutil.rmtree(tmp, ignore_errors=True)
print(f"python_fuzz: {iterations} calls, seed {sys.argv[3] if len(sys.argv) > 3 else 1}: "
      f"{outcomes['returned']} returned, {outcomes['refused']} refused by name")
print("python_fuzz: PASS" if failures == 0 else f"python_fuzz: {failures} FAILED")
sys.exit(1 if failures else 0)
