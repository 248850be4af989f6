#!/usr/bin/env python3
"""A Python program on the model library (ssm_runtime.py, ctypes over libssm_runtime):
prefill a prompt, check its logits, stream greedy tokens, and hand the logits and a state
to PyTorch through DLPack without copying (when torch is installed).

    stream.py <model-dir> --prompt TEXT [--expected F.bin] [--tol X] [--generate N]

Exit 0 when every check passes, 1 when one fails, 2 on an error. Finds ssm_runtime.py
through PYTHONPATH (an installed prefix's lib/ssm-opt/python).
"""
import argparse
import array
import sys

import ssm_runtime

p = argparse.ArgumentParser()
p.add_argument("model")
p.add_argument("--prompt", required=True)
p.add_argument("--expected")
p.add_argument("--tol", type=float, default=1e-4)
p.add_argument("--generate", type=int, default=0)
a = p.parse_args()

try:
    model = ssm_runtime.Model(a.model)
    stream = ssm_runtime.Stream(model)
    logits = stream.prefill(a.prompt.encode())
except ssm_runtime.Error as e:
    print(f"stream.py: {e}", file=sys.stderr)
    sys.exit(2)
ok = True
if a.expected:
    want = array.array("f", open(a.expected, "rb").read())
    worst = max(abs(x - y) for x, y in zip(logits, want))
    good = len(want) == len(logits) and worst <= a.tol
    print(f"max_abs_diff={worst:g} {'PASS' if good else 'FAIL'}")
    ok &= good

capsule = stream.logits_dlpack()
same = ssm_runtime.dlpack_data_pointer(capsule) == stream.logits_pointer()
try:
    import torch.utils.dlpack
except ImportError:
    torch = None
if torch is not None:
    t = torch.utils.dlpack.from_dlpack(capsule)
    same = same and t.data_ptr() == stream.logits_pointer()
    name, shape, _ = model.states()[0]
    h = torch.utils.dlpack.from_dlpack(stream.state_dlpack(name))
    h.fill_(0.5)  # the stream's own state, written in place
    same = same and tuple(h.shape) == shape and stream.state(name)[0] == 0.5
    stream.reset()
print(f"dlpack: no copy {'PASS' if same else 'FAIL'}"
      + ("" if torch is not None else " (torch is not installed: the capsule's pointer was checked)"))
ok &= same

text = []
stream.reset()
logits = stream.prefill(a.prompt.encode())
for _ in range(a.generate):
    nxt = max(range(len(logits)), key=logits.__getitem__)
    text.append(chr(nxt) if 32 <= nxt < 127 else "?")
    logits = stream.step(nxt)
if a.generate:
    print("generated:", "".join(text))
sys.exit(0 if ok else 1)
