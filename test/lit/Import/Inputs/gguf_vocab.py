#!/usr/bin/env python3
"""gguf_vocab.py: GGUF vocabularies for the GGUF tokenizer tests (test data only; no NumPy).

  gguf_vocab.py from-hf TOKENIZER_JSON PRE OUT.gguf
      a GGUF holding only the vocabulary of a Hugging Face byte-level BPE
      tokenizer.json, as llama.cpp's converter writes it (conversion/base.py
      _set_vocab_gpt2): tokenizer.ggml.model gpt2, tokenizer.ggml.pre PRE,
      tokens by id (holes filled with [PADn]), token_type 1 normal / 3 control
      (special added tokens) / 4 user-defined (other added tokens), merges
      "a b", eos = the <|endoftext|> token when there is one.
  gguf_vocab.py check CASES_JSON IDS_JSONL [DECODED_JSONL]
      compares ssm-tokenize's output lines with the cases' ids, leaving out the
      cases whose text NFC changes (transformers' tokenizer.json applies NFC,
      llama.cpp does not); prints "N cases equal, M left out (NFC)"; with
      DECODED_JSONL (ssm-tokenize --decode of the cases' ids) also
      "N texts decoded back".
"""
import json
import os
import struct
import sys
import unicodedata

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_tool  # noqa: E402


def string_array(values):
    return struct.pack("<IIQ", 9, 8, len(values)) + b"".join(gguf_tool.pack_string(v) for v in values)


def from_hf(path, pre, out):
    t = json.load(open(path, encoding="utf-8"))
    vocab = dict(t["model"]["vocab"])
    types = {}
    for a in t.get("added_tokens", []):
        vocab[a["content"]] = a["id"]
        types[a["id"]] = 3 if a.get("special") else 4
    n = max(vocab.values()) + 1
    tokens = ["[PAD%d]" % i for i in range(n)]
    for s, i in vocab.items():
        tokens[i] = s
    merges = [m if isinstance(m, str) else " ".join(m) for m in t["model"]["merges"]]
    kvs = [("general.architecture", gguf_tool.kv_raw("str", "qwen3")),
           ("tokenizer.ggml.model", gguf_tool.kv_raw("str", "gpt2")),
           ("tokenizer.ggml.pre", gguf_tool.kv_raw("str", pre)),
           ("tokenizer.ggml.tokens", string_array(tokens)),
           ("tokenizer.ggml.token_type", gguf_tool.int_array_raw([types.get(i, 1) for i in range(n)])),
           ("tokenizer.ggml.merges", string_array(merges))]
    if "<|endoftext|>" in vocab:
        kvs.append(("tokenizer.ggml.eos_token_id", gguf_tool.kv_raw("u32", vocab["<|endoftext|>"])))
    gguf_tool.write(out, 3, kvs, [])


def check(cases_path, ids_path, decoded_path=None):
    cases = json.load(open(cases_path, encoding="utf-8"))
    got = [json.loads(l) for l in open(ids_path) if l.strip()]
    equal = skipped = 0
    for c, g in zip(cases, got):
        if unicodedata.normalize("NFC", c["text"]) != c["text"]:
            skipped += 1
        elif g == c["ids"]:
            equal += 1
        else:
            print("DIFFERENT: %r: %s, expected %s" % (c["text"], g, c["ids"]))
    if len(got) != len(cases):
        print("DIFFERENT: %d outputs for %d cases" % (len(got), len(cases)))
    print("%d cases equal, %d left out (NFC)" % (equal, skipped))
    if decoded_path:
        texts = [json.loads(l) for l in open(decoded_path, encoding="utf-8") if l.strip()]
        same = 0
        for c, t in zip(cases, texts):
            if t == c["decoded"]:
                same += 1
            else:
                print("DIFFERENT: %r decoded as %r" % (c["decoded"], t))
        print("%d texts decoded back" % same)


if __name__ == "__main__":
    if sys.argv[1] == "from-hf":
        from_hf(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "check":
        check(*sys.argv[2:5])
    else:
        sys.exit("unknown command " + sys.argv[1])
