// ssm-tokenize (CONTRACTS.md): one JSON string per line in, one JSON array of
// token ids per line out, and with --decode the reverse, on ../shared's Qwen3
// tokenizer.json; every case of its cases.json through the tool and back; bad
// input named, exit 2, the lines before it written.
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/tokenizer_cases.py %shared/tokenizers/qwen3/cases.json %t

// Every case: the ids Hugging Face's implementation gives, and their text back.
// RUN: ssm-tokenize %shared/tokenizers/qwen3 < %t/texts.jsonl > %t/ids-got.jsonl
// RUN: diff %t/ids.jsonl %t/ids-got.jsonl
// RUN: ssm-tokenize %shared/tokenizers/qwen3/tokenizer.json --decode < %t/ids.jsonl > %t/decoded-got.jsonl
// RUN: diff %t/decoded.jsonl %t/decoded-got.jsonl

// Round trip of texts in other scripts (NFC already, so they come back as they went).
// RUN: printf '%%s\n' '"Привет, мир! Ωραία ημέρα. مرحبا"' '"नमस्ते 안녕하세요 สวัสดี 👨‍👩‍👧"' \
// RUN:   '"tabs\tand\r\nlines\u00a0nbsp"' '"<|im_start|>system\nok<|im_end|>"' > %t/round.jsonl
// RUN: ssm-tokenize %shared/tokenizers/qwen3 < %t/round.jsonl | ssm-tokenize %shared/tokenizers/qwen3 --decode > %t/round-back.jsonl
// RUN: ssm-tokenize %shared/tokenizers/qwen3 < %t/round-back.jsonl > %t/round-ids2.jsonl
// RUN: ssm-tokenize %shared/tokenizers/qwen3 < %t/round.jsonl | diff - %t/round-ids2.jsonl
// RUN: python3 -c "import json,sys; a=[json.loads(l) for l in open(sys.argv[1])]; b=[json.loads(l) for l in open(sys.argv[2])]; sys.exit(a != b)" %t/round.jsonl %t/round-back.jsonl

// Special tokens written in the text are matched; --skip-special leaves them out.
// RUN: echo '"<|im_start|>user\nhi<|im_end|>"' | ssm-tokenize %shared/tokenizers/qwen3 | FileCheck %s --check-prefix=SPECIAL
// SPECIAL: [151644,872,198,6023,151645]
// RUN: echo '[151644,872,198,6023,151645]' | ssm-tokenize %shared/tokenizers/qwen3 --decode --skip-special | FileCheck %s --check-prefix=SKIP
// SKIP: "user\nhi"
// RUN: ssm-tokenize %shared/tokenizers/qwen3 --info | FileCheck %s --check-prefix=INFO
// INFO: "bos":-1,"description":"BPE, 151643 tokens, 151387 merges, 26 added tokens","eos":151645,"pad":151643,"unk":-1,"vocab_size":151669

// --help, --version: exit 0.
// RUN: ssm-tokenize --help | FileCheck %s --check-prefix=HELP
// HELP: ssm-tokenize <tokenizer.json | model-dir | model.gguf> [--add-special]
// HELP: ssm-tokenize <tokenizer.json | model-dir | model.gguf> --decode [--skip-special]
// RUN: ssm-tokenize --version | FileCheck %s --check-prefix=VERSION -DVERSION=%ssm_version
// VERSION: ssm-tokenize (ssm-opt) [[VERSION]]{{$}}

// Bad arguments and files: exit 2 and a message naming the problem.
// RUN: sh -c 'ssm-tokenize; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOARG
// NOARG: ssm-tokenize: error: no tokenizer given
// NOARG: exit=2
// RUN: sh -c 'ssm-tokenize %shared/tokenizers/qwen3 --frobnicate; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: unknown option '--frobnicate'
// OPT: exit=2
// RUN: sh -c 'ssm-tokenize %t/missing.json < /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: missing.json: no such file or folder
// MISSING: exit=2
// RUN: mkdir -p %t/model && echo '{}' > %t/model/model.json
// RUN: sh -c 'ssm-tokenize %t/model < /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOTOK
// NOTOK: model: this model folder has no tokenizer
// NOTOK: exit=2
// RUN: mkdir -p %t/bad && echo '{"model": {"type": "BPE", "vocab": {' > %t/bad/tokenizer.json
// RUN: sh -c 'ssm-tokenize %t/bad < /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: bad/tokenizer.json: not valid JSON
// MALFORMED: exit=2
// RUN: mkdir -p %t/wp && echo '{"model": {"type": "WordPiece", "vocab": {}}}' > %t/wp/tokenizer.json
// RUN: sh -c 'ssm-tokenize %t/wp < /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=WORDPIECE
// WORDPIECE: wp/tokenizer.json: model: model type 'WordPiece' is not supported (supported: BPE)
// WORDPIECE: exit=2

// Bad lines: the lines before are answered, then the message names the line.
// RUN: printf '"ok"\n42\n"never"\n' > %t/badline.jsonl
// RUN: sh -c 'ssm-tokenize %shared/tokenizers/qwen3 < %t/badline.jsonl; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BADLINE
// BADLINE: [562]
// BADLINE-NEXT: ssm-tokenize: error: <stdin>:2: expected a JSON string (the text), got number
// BADLINE-NEXT: exit=2
// RUN: sh -c 'echo "not json" | ssm-tokenize %shared/tokenizers/qwen3; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOTJSON
// NOTJSON: <stdin>:1: not valid JSON
// NOTJSON: exit=2
// RUN: sh -c 'echo "[9707, -1]" | ssm-tokenize %shared/tokenizers/qwen3 --decode; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: <stdin>:1: id -1 at index 1 is negative
// NEGATIVE: exit=2
// RUN: sh -c 'echo "[9707, \"x\"]" | ssm-tokenize %shared/tokenizers/qwen3 --decode; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOTID
// NOTID: <stdin>:1: element 1 ("x") is not an int32 token id
// NOTID: exit=2
