#!/usr/bin/env python3
"""The Python binding's argument checks and the lifetime of its DLPack views
(runtime/python/ssm_runtime.py, ssm_torch.py), on the model library's RWKV-4 folder.

    python_binding.py <model-dir>

* Token ids are int32 ids of the vocabulary: `step(2**32 + 7)` ran token 7 (ctypes wraps
  modulo 2^32) and `step(True)` token 1; now a bool, a non-integer, a value outside
  [0, 2^31) or outside the vocabulary raises ValueError naming the value, in prefill,
  step and step_streams, and in ssm_torch's Stream (tensors of bool or float dtype too).
* A DLPack view keeps its stream alive: a state view that outlived its stream pointed at
  freed memory, and writing it changed the next stream's state; a logits view taken
  before load() pointed at the buffer load() freed.

Needs torch (Debian python3-torch) for the DLPack consumer; without it the test fails
under CI (CI=true) and is skipped (exit 77) elsewhere.
"""
import gc
import math
import os
import sys
import tempfile
import weakref

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
try:
    import torch
    import torch.utils.dlpack
except ImportError as e:
    print(f"python_binding.py: needs torch ({e})", file=sys.stderr)
    sys.exit(1 if os.environ.get("CI") else 77)
import ssm_runtime  # noqa: E402
import ssm_torch  # noqa: E402
import pycheck  # noqa: E402
from pycheck import check, raises  # noqa: E402

model_dir = sys.argv[1]


def refused(fn, words):
    """fn() raises ValueError whose message holds `words`."""
    return raises(fn, ValueError, words)


model = ssm_runtime.Model(model_dir)
vocab = model.vocab_size
prompt = [34, 105, 110]

# --- token ids -----------------------------------------------------------------
s = ssm_runtime.Stream(model)
ref = ssm_runtime.Stream(model)
ref.prefill(prompt)
for bad, words in [(2 ** 32 + 7, "4294967303 is outside int32"), (-1, "-1 is outside int32"),
                   (2 ** 31, "2147483648 is outside int32"), (vocab, f"{vocab} is outside the vocabulary"),
                   (True, "True is a boolean"), (False, "False is a boolean"),
                   (7.0, "7.0 is not an integer"), ("7", "'7' is not an integer")]:
    check(refused(lambda: s.step(bad), words), f"step({bad!r}) refused: {words}")
    check(refused(lambda: s.prefill([34, bad]), words) and refused(lambda: s.prefill([34, bad]), "index 1"),
          f"prefill([34, {bad!r}]) refused, naming index 1")
    check(refused(lambda: ssm_runtime.step_streams([s], [bad]), words), f"step_streams([{bad!r}]) refused")
check(s.position == 0, "nothing ran for a refused token")
check(list(s.prefill(bytes(prompt))) == list(ref.logits()), "bytes still taken as token ids")
s.reset()
check(list(s.prefill([torch.tensor(34), 105, 110])) == list(ref.logits()),
      "integer scalars (0-d tensors) taken as ids")

ts = ssm_torch.Model(model_dir).stream()
for bad, words in [(torch.tensor([34, 2 ** 32 + 7]), "4294967303 is outside int32"),
                   (torch.tensor([True, False]), "torch.bool tensor"),
                   (torch.tensor([34.0, 105.0]), "torch.float32 tensor")]:
    check(refused(lambda: ts.prefill(bad), words), f"ssm_torch prefill({bad}) refused: {words}")
for bad, words in [(torch.tensor(2 ** 32 + 7), "4294967303 is outside int32"), (True, "True is a boolean"),
                   (torch.tensor(True), "torch.bool tensor"), (torch.tensor(7.9), "torch.float32 tensor"),
                   (7.9, "7.9 is not an integer")]:
    check(refused(lambda: ts.step(bad), words), f"ssm_torch step({bad!r}) refused: {words}")
check(ts.position == 0, "ssm_torch: nothing ran for a refused token")
got = ts.prefill(torch.tensor(prompt, dtype=torch.int64))
check(got.tolist() == list(ref.logits()), "ssm_torch: an int64 tensor of valid ids runs")

# --- States by name: unknown names and shapes refused naming them ---------------
name, shape, numel = model.states()[0]
s = ssm_runtime.Stream(model)
check(refused(lambda: s.state("no-such-state"), "no state 'no-such-state'"),
      "state() of an unknown name: ValueError naming it (was a bare KeyError)")
check(refused(lambda: s.set_state("no-such-state", [0.0]), "no state 'no-such-state'"),
      "set_state() of an unknown name: ValueError naming it")
check(refused(lambda: s.set_state(name, [0.0] * (numel + 1)), f"has {numel} values, not {numel + 1}"),
      "set_state() with one value too many: ValueError naming both counts")
t2 = torch.arange(numel, dtype=torch.float32).reshape(shape)
s.set_state(name, t2)
check(list(s.state(name)) == t2.flatten().tolist(),
      "set_state() takes a tensor of the state's shape (was 'only one element tensors ...')")

# --- A path with an embedded NUL: ValueError, not the path cut at the NUL -------
# (before: save("<dir>/cut\0x") wrote <dir>/cut, and load read it).
with tempfile.TemporaryDirectory() as nul_dir:
    cut = os.path.join(nul_dir, "cut")
    for what, call in (("save", lambda: s.save(cut + "\0x")), ("load", lambda: s.load(cut + "\0x")),
                       ("Model", lambda: ssm_runtime.Model(model_dir + "\0x"))):
        try:
            call()
            check(False, f"{what} of a path with a NUL ran")
        except ValueError as e:
            check("null byte" in str(e), f"{what} with a NUL: {e}")
        except ssm_runtime.Error as e:
            check(False, f"{what} with a NUL: the library's error, the path cut: {e}")
    check(not os.path.exists(cut), "nothing written at the path before the NUL")

# --- DLPack views keep their stream alive ---------------------------------------
views_before = ssm_runtime.live_views()
a = ssm_runtime.Stream(model)
a.prefill(prompt)
alive = weakref.ref(a)
h = torch.utils.dlpack.from_dlpack(a.state_dlpack(name))
lg = torch.utils.dlpack.from_dlpack(a.logits_dlpack())
lg_values = lg.clone()
del a
gc.collect()
check(alive() is not None, "a stream with live state and logits views is not freed")
# A stream made now must not share memory with the views of the old one.
b = ssm_runtime.Stream(model)
b_state = list(b.state(name))
h.fill_(float("nan"))
check(list(b.state(name)) == b_state, "writing an outliving state view leaves a new stream's state alone")
b.prefill(prompt)
check(all(math.isfinite(x) for x in b.logits()) and list(b.logits()) == list(ref.logits()),
      "the new stream's logits are its own (finite, as a fresh stream's)")
check(torch.equal(lg, lg_values), "the outliving logits view still reads the old stream's logits")
check(b.first_nonfinite() == "", "first_nonfinite: every value finite")
bad = list(b.state(name))
bad[2] = float("inf")
b.set_state(name, bad)
check(b.first_nonfinite() == f"state '{name}'[2] = inf", "first_nonfinite names the state and the index")
del h, lg
gc.collect()
check(alive() is None, "the stream is freed once its views are gone")
check(ssm_runtime.live_views() == views_before, "no view left registered")

# An unconsumed capsule also holds its stream, and releases it when collected.
c = ssm_runtime.Stream(model)
c.prefill(prompt)
alive_c = weakref.ref(c)
cap = c.logits_dlpack()
del c
gc.collect()
check(alive_c() is not None, "an unconsumed capsule keeps its stream")
del cap
gc.collect()
check(alive_c() is None and ssm_runtime.live_views() == views_before,
      "an unconsumed capsule frees its view and its stream when collected")

# A logits view taken before load() reads the loaded logits, in the same buffer.
with tempfile.TemporaryDirectory() as tmp:
    d = ssm_runtime.Stream(model)
    d.prefill(prompt)
    path = os.path.join(tmp, "s.ssmstate")
    d.save(path)
    view = torch.utils.dlpack.from_dlpack(d.logits_dlpack())
    state_view = torch.utils.dlpack.from_dlpack(d.state_dlpack(name))
    d.step(32)
    d.load(path)
    check(view.data_ptr() == d.logits_pointer(), "load() keeps the logits buffer a view points at")
    check(view.tolist() == list(ref.logits()), "the view reads the loaded logits")
    check(state_view.flatten().tolist() == list(d.state(name)), "a state view reads the loaded state")
    t = ssm_torch.Model(model_dir).stream()
    t.prefill(prompt)
    tv = t.logits()
    t.save(path)
    t.step(32)
    t.load(path)
    check(tv.tolist() == list(ref.logits()), "ssm_torch: a logits tensor taken before load() reads the loaded logits")

print("python_binding: " + ("PASS" if pycheck.failures == 0 else f"{pycheck.failures} FAILED"))
sys.exit(1 if pycheck.failures else 0)
