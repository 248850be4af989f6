#!/usr/bin/env python3
"""The Python binding's sampling (runtime/python/ssm_runtime.py: Sampler, Stream.generate) on
the model library's RWKV-4 (byte tokens).

    python_sampling.py <model-dir>

Greedy generation is the argmax loop; a seed repeats a stream, another seed changes it;
temperature 0 and top-k 1 are greedy; a stop string cuts the text; on_text stops it, and
an exception it raises comes out of generate; bad values raise Error naming the field.
Standard library only; prints "python_sampling: PASS" when every check passed.
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import ssm_runtime  # noqa: E402

model = ssm_runtime.Model(sys.argv[1])
prompt = b'"in'
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print(f"FAIL: {what}", file=sys.stderr)


def argmax_loop(n):
    s = ssm_runtime.Stream(model)
    logits = s.prefill(prompt)
    out = []
    while True:
        out.append(max(range(len(logits)), key=lambda i: (logits[i], -i)))
        if len(out) == n:
            return out
        logits = s.step(out[-1])


def run(n, sampler=None, **kw):
    s = ssm_runtime.Stream(model)
    s.prefill(prompt)
    if sampler is not None:
        sampler.accept(prompt)
    return s.generate(n, sampler=sampler, **kw)


greedy = run(20)
check(greedy.tokens == argmax_loop(20), f"greedy generate {greedy.tokens} is not the argmax loop")
check(greedy.reason == "max_tokens", f"reason {greedy.reason}")
check(run(20, ssm_runtime.Sampler(temperature=0, seed=3)).tokens == greedy.tokens, "temperature 0 is not greedy")
check(run(20, ssm_runtime.Sampler(temperature=1.5, top_k=1, seed=3)).tokens == greedy.tokens,
      "top-k 1 is not greedy")

kw = dict(temperature=1.0, top_p=0.95, min_p=0.02, repetition_penalty=1.1)
a = run(24, ssm_runtime.Sampler(seed=11, **kw))
b = run(24, ssm_runtime.Sampler(seed=11, **kw))
c = run(24, ssm_runtime.Sampler(seed=12, **kw))
check(len(a.tokens) == 24 and a.tokens == b.tokens and a.text == b.text, "a seed does not repeat the stream")
check(a.tokens != c.tokens, "another seed gives the same tokens")
check(a.tokens != greedy.tokens, "sampling gives the greedy tokens")
check(isinstance(a.text, str) and a.text, f"text {a.text!r}")

# A stop string: the greedy text's first printable ASCII character past the start.
i = next(k for k in range(1, len(greedy.text)) if " " < greedy.text[k] < "\x7f")
cut = run(20, stop=[greedy.text[i]])
check(cut.reason == "string", f"stop string: reason {cut.reason}")
check(cut.text == greedy.text[:greedy.text.index(greedy.text[i])], f"stop string: text {cut.text!r}")
pieces = []
run(20, on_text=lambda token, text: pieces.append((token, text)))
check("".join(t for _, t in pieces) == greedy.text, "on_text's pieces are not the text")
stopped = run(20, on_text=lambda token, text: token == greedy.tokens[1])
check(stopped.reason == "callback" and stopped.tokens == greedy.tokens[:2], f"on_text stop: {stopped}")
by_token = run(20, stop_tokens=[greedy.tokens[0]])
check(by_token.reason == "token" and by_token.tokens == [], f"stop token: {by_token}")


def boom(token, text):
    raise KeyError("from on_text")


try:
    run(5, on_text=boom)
    check(False, "on_text's exception was swallowed")
except KeyError:
    pass

check(ssm_runtime.Sampler().sample([0.0, 3.0, 1.0]) == 1, "greedy sample of a list")
for bad, field in ((dict(temperature=-1), "temperature"), (dict(top_p=1.5), "top_p"),
                   (dict(min_p=2), "min_p"), (dict(top_k=-1), "top_k"), (dict(repetition_penalty=0), "repetition_penalty")):
    try:
        ssm_runtime.Sampler(**bad)
        check(False, f"{bad} accepted")
    except ssm_runtime.Error as e:
        check(e.status == "SSM_ERROR_INVALID_ARGUMENT" and field in e.message, f"{bad}: {e}")
try:
    ssm_runtime.Stream(model).generate(3)
    check(False, "generate at position 0 accepted")
except ssm_runtime.Error as e:
    check("prefill" in e.message, str(e))

if failures:
    print(f"python_sampling: {failures} check(s) failed", file=sys.stderr)
    sys.exit(1)
print("python_sampling: PASS")
