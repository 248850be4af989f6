"""Splits a tokenizer cases.json ([{text, ids, decoded}]) into the line files ssm-tokenize reads and writes.

usage: tokenizer_cases.py CASES.json OUT_DIR
writes OUT_DIR/texts.jsonl (one JSON string per line), ids.jsonl (one JSON array per
line, compact, as ssm-tokenize writes them) and decoded.jsonl (one JSON string per line).
"""
import json
import os
import sys

cases = json.load(open(sys.argv[1], encoding="utf-8"))
out = sys.argv[2]


def write(name, values):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        for v in values:
            f.write(json.dumps(v, ensure_ascii=False, separators=(",", ":")) + "\n")


write("texts.jsonl", [c["text"] for c in cases])
write("ids.jsonl", [c["ids"] for c in cases])
write("decoded.jsonl", [c["decoded"] for c in cases])
