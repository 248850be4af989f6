#!/usr/bin/env python3
"""The KV caches' capacity chosen at open through the Python binding
(runtime/python/ssm_runtime.py: Model(dir, context_length=N)) on the model library's
tiny LFM2 (compiled for KV caches of 48 positions).

    python_context.py <model-dir>

At 24 positions: context_length and the caches' bytes say so, a prompt's logits equal
those of the default open (whose kernels hold exactly 48), and a prompt of 25 tokens
raises Error with SSM_ERROR_CONTEXT_FULL; a negative capacity raises
SSM_ERROR_INVALID_ARGUMENT, a float, a bool, a string or a value outside int64
ValueError; the PyTorch wrapper passes the capacity on (where torch
is installed). Standard library only otherwise; prints "python_context: PASS" when
every check passed.
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import ssm_runtime  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print(f"FAIL: {what}", file=sys.stderr)


default = ssm_runtime.Model(sys.argv[1])
small = ssm_runtime.Model(sys.argv[1], context_length=24)
check(default.context_length == 48, f"default context {default.context_length}")
check(small.context_length == 24, f"context_length=24 gives {small.context_length}")
fd, cd, ad = default.state_bytes(10)
fs, cs, as_ = small.state_bytes(10)
check(ad > 0 and as_ * 2 == ad and fs == fd and cs == cd,
      f"state bytes at 24 {(fs, cs, as_)} vs at 48 {(fd, cd, ad)}")
prompt = [(37 * k + 11) % 256 for k in range(20)]
want = ssm_runtime.Stream(default).prefill(prompt)
got = ssm_runtime.Stream(small).prefill(prompt)
scale = max(abs(v) for v in want)
worst = max(abs(a - b) for a, b in zip(got, want))
check(len(got) == len(want) and worst <= 1e-6 + 1e-5 * scale,
      f"logits at 24 vs 48: largest difference {worst}")
try:
    ssm_runtime.Stream(small).prefill([7] * 25)
    check(False, "a prompt of 25 tokens ran at context 24")
except ssm_runtime.Error as e:
    check(e.status == "SSM_ERROR_CONTEXT_FULL", f"25 tokens at 24: {e}")
try:
    ssm_runtime.Model(sys.argv[1], context_length=-2)
    check(False, "context_length=-2 opened")
except ssm_runtime.Error as e:
    check(e.status == "SSM_ERROR_INVALID_ARGUMENT" and "context" in str(e), f"context_length=-2: {e}")
# Not an int64 number of positions: ValueError naming it, nothing opened (before: 1.5
# and True opened at 1, 2**64 wrapped to 0, the model's own 48, and 2**63 to a negative).
for bad in (1.5, True, "24", 2 ** 64, 2 ** 63, -(2 ** 63) - 1):
    try:
        m = ssm_runtime.Model(sys.argv[1], context_length=bad)
        check(False, f"context_length={bad!r} opened at {m.context_length}")
    except ValueError as e:
        check("context_length" in str(e), f"context_length={bad!r}: {e}")
    except ssm_runtime.Error as e:
        check(False, f"context_length={bad!r}: Error, not ValueError: {e}")
# The PyTorch wrapper passes it on (where torch is installed: /usr/bin/python3 on Debian).
try:
    import ssm_torch  # noqa: E402
except ImportError:
    ssm_torch = None
if ssm_torch is not None:
    tm = ssm_torch.Model(sys.argv[1], context_length=24)
    check(tm.context_length == 24, f"ssm_torch.Model(context_length=24): {tm.context_length}")
print("python_context: " + ("PASS" if failures == 0 else f"FAIL ({failures})"))
sys.exit(1 if failures else 0)
