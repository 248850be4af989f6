#!/usr/bin/env python3
"""The Python binding's Tokenizer (runtime/python/ssm_runtime.py) on ../shared's Qwen3 tokenizer.

    python_tokenizer.py <shared>/tokenizers/qwen3

Every case of cases.json (ids and decoded text), the special-token ids, the lookups,
and the errors a caller sees (ssm_runtime.Error with the C status, ValueError for a bool id).
Standard library only; prints "python_tokenizer: PASS" when every check passed.
"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import ssm_runtime  # noqa: E402

folder = sys.argv[1]
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print(f"FAIL: {what}", file=sys.stderr)


cases_path = os.path.join(folder, "cases.json")
if not os.path.exists(cases_path):
    print(f"python_tokenizer: the shared tokenizer cases are missing: {cases_path}", file=sys.stderr)
    sys.exit(1)
tok = ssm_runtime.Tokenizer(folder)
with open(cases_path, encoding="utf-8") as f:
    cases = json.load(f)
for c in cases:
    ids = tok.encode(c["text"])
    check(ids == c["ids"], f"ids of {c['text']!r}: {ids} != {c['ids']}")
    check(tok.decode(ids) == c["decoded"], f"decode of {c['text']!r}")
check(tok.encode("Hello World".encode("utf-8")) == [9707, 4337], "encode of bytes")
check(tok.decode([151644, 872, 151645], skip_special=True) == "user", "skip_special")
check(tok.vocab_size == 151669, f"vocab_size {tok.vocab_size}")
check((tok.bos_id, tok.eos_id, tok.pad_id) == (None, 151645, 151643),
      f"special ids {(tok.bos_id, tok.eos_id, tok.pad_id)}")
check(tok.token_id("<|im_end|>") == 151645 and tok.token_id("no such token") is None, "token_id")
check(tok.token_text(151645) == ("<|im_end|>", True), "token_text")
try:
    tok.encode(b"bad \xff")
    check(False, "invalid UTF-8 accepted")
except ssm_runtime.Error as e:
    check(e.status == "SSM_ERROR_INVALID_ARGUMENT", f"status {e.status}")
try:
    tok.decode([True])
    check(False, "a bool id accepted")
except ValueError:
    pass
try:
    ssm_runtime.Tokenizer(os.path.join(folder, "no-such-file.json"))
    check(False, "a missing file opened")
except ssm_runtime.Error as e:
    check(e.status == "SSM_ERROR_NOT_FOUND", f"status {e.status}")
print("python_tokenizer: PASS" if failures == 0 else f"python_tokenizer: {failures} failures")
sys.exit(1 if failures else 0)
