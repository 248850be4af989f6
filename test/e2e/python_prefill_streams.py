#!/usr/bin/env python3
"""ssm_runtime.prefill_streams (ssm_streams_prefill, Model::prefillTogether) on the
batched-prefill fixture's folders (compiled calls of 4 and 2 tokens, a batched step
and a batched prefill of 3 streams per call):

    python_prefill_streams.py <model-dir>...

* Four streams' prompts of 9 (4+4+1), 6 (4+2), 4 and 3 (2+1) tokens prefilled
  together end with the position and the logits of each prompt prefilled alone
  (Stream.prefill), within 1e-6 + 1e-5 x the largest magnitude of the logits alone
  (the batched kernels sum in another order; the C++ test BatchedPrefill compares
  every state too).
* Bad calls raise and run nothing: one prompt fewer than streams, an empty prompt,
  a token outside the vocabulary (naming the stream), a repeated stream
  (ssm_runtime.Error naming it).
Standard library only.
"""
import os
import random
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import ssm_runtime  # noqa: E402
import pycheck  # noqa: E402
from pycheck import check, raises  # noqa: E402


for model_dir in sys.argv[1:]:
    name = os.path.basename(model_dir.rstrip("/"))
    model = ssm_runtime.Model(model_dir)
    check(model.prefill_batch == 3, f"{name}: prefill_batch is 3 (got {model.prefill_batch})")
    vocab = model.vocab_size
    rng = random.Random(3)
    prompts = [[rng.randrange(vocab) for _ in range(n)] for n in (9, 6, 4, 3)]
    together = [ssm_runtime.Stream(model) for _ in prompts]

    check(raises(lambda: ssm_runtime.prefill_streams(together, prompts[:3]), ValueError, "one prompt per stream"),
          f"{name}: one prompt fewer than streams refused")
    check(raises(lambda: ssm_runtime.prefill_streams(together[:2], [prompts[0], []]), ValueError,
                 "stream 1 has no tokens"), f"{name}: an empty prompt refused, naming its stream")
    check(raises(lambda: ssm_runtime.prefill_streams(together[:2], [prompts[0], [1, vocab]]), ValueError,
                 "stream 1"), f"{name}: a token outside the vocabulary refused, naming its stream")
    check(raises(lambda: ssm_runtime.prefill_streams([together[0], together[0]], prompts[:2]),
                 ssm_runtime.Error, "stream 1"), f"{name}: a repeated stream refused, naming it")
    check(all(s.position == 0 for s in together), f"{name}: nothing ran for the refused calls")

    got = ssm_runtime.prefill_streams(together, prompts)
    for i, p in enumerate(prompts):
        alone = ssm_runtime.Stream(model)
        want = alone.prefill(p)
        tol = 1e-6 + 1e-5 * max(abs(v) for v in want)
        worst = max(abs(a - b) for a, b in zip(got[i], want))
        check(together[i].position == len(p) and len(got[i]) == vocab and worst <= tol,
              f"{name}: stream {i} ({len(p)} tokens) as prefilled alone "
              f"(largest difference {worst:.3g}, tolerance {tol:.3g})")
        check(list(together[i].logits()) == list(got[i]), f"{name}: stream {i}'s logits() are those returned")

print("python_prefill_streams: " + ("PASS" if pycheck.failures == 0 else f"FAIL ({pycheck.failures})"))
sys.exit(1 if pycheck.failures else 0)
