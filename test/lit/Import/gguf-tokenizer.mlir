// The vocabulary inside a GGUF file (tokenizer.ggml.*) as a tokenizer:
// ssm-tokenize <file.gguf> reads it, and ssm-import <file.gguf> writes it
// into the model folder as tokenizer.json + tokenizer_config.json so that
// ssm-run --prompt uses it. Qwen3's tokenizer.json in ../shared is written
// into a GGUF as llama.cpp's converter does (Inputs/gguf_vocab.py: tokens,
// token types, merges, pre "qwen2"); every case of its cases.json (the ids
// Hugging Face's JavaScript implementation gives) comes out the same, and
// the ids decode back to the same text. (Outside the tests, llama.cpp's own
// vocabulary files and expected ids, models/ggml-vocab-{gpt-2, mpt,
// llama-spm, phi-3, falcon, starcoder, refact}.gguf.inp/.out, agree on all
// 47 texts each: docs/gguf.md.)
// REQUIRES: shared-data, ssm-run

// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{q} = %shared/tokenizers/qwen3
// RUN: python3 %S/Inputs/gguf_vocab.py from-hf %{q}/tokenizer.json qwen2 %t/qwen3-vocab.gguf
// RUN: python3 -c "import json, sys; [print(json.dumps(c['text'])) for c in json.load(open(sys.argv[1]))]" %{q}/cases.json > %t/texts.jsonl
// RUN: python3 -c "import json, sys; [print(json.dumps(c['ids'])) for c in json.load(open(sys.argv[1]))]" %{q}/cases.json > %t/ids.jsonl
// RUN: ssm-tokenize %t/qwen3-vocab.gguf < %t/texts.jsonl > %t/got.jsonl
// RUN: ssm-tokenize %t/qwen3-vocab.gguf --decode < %t/ids.jsonl > %t/decoded.jsonl
// RUN: python3 %S/Inputs/gguf_vocab.py check %{q}/cases.json %t/got.jsonl %t/decoded.jsonl | FileCheck %s --check-prefix=QWEN
// QWEN-NOT: DIFFERENT
// QWEN: 18 cases equal, 0 left out (NFC)
// QWEN: 18 texts decoded back
// RUN: ssm-tokenize %t/qwen3-vocab.gguf --info | FileCheck %s --check-prefix=INFO
// INFO: "eos":151643
// INFO-SAME: "vocab_size":151669

// ssm-import writes the vocabulary of the tiny Granite GGUF (the first 256
// tokens of llama.cpp's GPT-NeoX vocabulary; merges naming tokens past them
// left out) and ssm-run --prompt tokenizes with it.
// DEFINE: %{g} = %shared/models/granite-hybrid/tiny-granite-h-a
// RUN: ssm-import %{g}/model-f32.gguf -o %t/granite | FileCheck %s --check-prefix=IMPORT
// IMPORT: ssm-import: tokenizer: tokenizer.json, tokenizer_config.json from the GGUF's vocabulary (gpt2 (pre mpt), 256 tokens, 11 merges (49998 naming strings not in the vocabulary left out))
// RUN: echo '"Hello world"' | ssm-tokenize %t/granite | FileCheck %s --check-prefix=IDS
// RUN: echo '"Hello world"' | ssm-tokenize %{g}/model-f32.gguf | FileCheck %s --check-prefix=IDS
// IDS: [41,70,77,77,80,209,88,80,83,77,69]
// RUN: ssm-run %t/granite --prompt "Hello world" --generate 2 --engine reference 2>&1 | FileCheck %s --check-prefix=PROMPT
// PROMPT: the prompt is 11 tokens of {{.*}}tokenizer.json: 41 70 77 77 80 209 88 80 83 77 69

// A vocabulary of a kind not converted: the model is written without a tokenizer, with a warning.
// RUN: python3 %S/Inputs/gguf_tool.py setkv %{g}/model-f32.gguf %t/t5.gguf tokenizer.ggml.model str t5
// RUN: ssm-import %t/t5.gguf -o %t/t5 2>&1 | FileCheck %s --check-prefix=T5
// T5: warning: no tokenizer is written (the model runs from token ids): {{.*}}t5.gguf: tokenizer.ggml.model 't5' is not a vocabulary ssm-import converts (gpt2, llama)
// RUN: test ! -e %t/t5/tokenizer.json
// RUN: sh -c 'ssm-tokenize %t/t5.gguf < /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=T5TOK
// T5TOK: tokenizer.ggml.model 't5' is not a vocabulary
// T5TOK: exit=2
