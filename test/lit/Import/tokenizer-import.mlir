// A checkpoint's tokenizer: ssm-import copies tokenizer.json and
// tokenizer_config.json from the checkpoint folder into the model folder;
// ssm-run --prompt tokenizes with it (with its special tokens: <s> here) and
// prints the generated text (the ids on stderr); ssm-tokenize reads the model
// folder. Without one, a model whose vocabulary is not bytes says so, exit 2.
// The tokenizer is Inputs/tiny-tokenizer (a SentencePiece-style BPE of 24
// tokens, test/unit/TokenizerTest.cpp's), on a synthetic Mamba-1 of vocab 64.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/make_mamba.py %t/ckpt --hidden 16 --state 4 --layers 1 --conv 4 --dt-rank 2 --vocab 64 --seed 1

// No tokenizer: token ids run, a prompt is refused.
// RUN: ssm-import %t/ckpt -o %t/plain | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: ssm-import: tokenizer:
// RUN: sh -c 'ssm-run %t/plain --engine reference --prompt hi; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOTOK
// NOTOK: plain: this model has no tokenizer (no tokenizer.json in the folder, and its vocabulary of 64 is not bytes): give the token ids with --tokens FILE.npy
// NOTOK: exit=2
// RUN: sh -c 'ssm-tokenize %t/plain < /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TOKNOTOK
// TOKNOTOK: plain: this model folder has no tokenizer
// TOKNOTOK: exit=2

// With one: copied, and used.
// RUN: cp %S/Inputs/tiny-tokenizer/tokenizer.json %S/Inputs/tiny-tokenizer/tokenizer_config.json %t/ckpt/
// RUN: ssm-import %t/ckpt -o %t/m | FileCheck %s --check-prefix=IMPORT
// IMPORT: ssm-import: tokenizer: tokenizer.json, tokenizer_config.json (BPE, 24 tokens, 10 merges, byte fallback, 3 added tokens, 24 ids)
// RUN: cmp %S/Inputs/tiny-tokenizer/tokenizer.json %t/m/tokenizer.json
// RUN: cmp %S/Inputs/tiny-tokenizer/tokenizer_config.json %t/m/tokenizer_config.json
// RUN: ssm-run %t/m --engine reference --prompt 'hello world' --generate 4 > %t/gen.txt 2> %t/gen.err
// RUN: FileCheck %s --check-prefix=PROMPT < %t/gen.err
// PROMPT: ssm-run: the prompt is 3 tokens of {{.*}}/m/tokenizer.json: 1 18 22
// PROMPT: ssm-run: generated ids: 22 22 22 22
// PROMPT: ssm-run: generated 4 tokens
// The text (the seeded model repeats "▁world"; the decoder strips the first space).
// RUN: FileCheck %s --check-prefix=GEN --match-full-lines < %t/gen.txt
// GEN: world world world world
// GEN-NOT: {{.}}
// A stop string across tokens ("d w" spans "▁world▁world"): the text before it.
// RUN: ssm-run %t/m --engine reference --prompt 'hello world' --generate 4 --stop 'd w' 2> %t/stop.err | FileCheck %s --check-prefix=STOP --match-full-lines
// STOP: worl
// RUN: FileCheck %s --check-prefix=STOPERR < %t/stop.err
// STOPERR: ssm-run: generated 2 tokens in {{.*}}, stopped at --stop 'd w'
// Sampling at a seed: the same text twice.
// RUN: ssm-run %t/m --engine reference --prompt 'hello world' --generate 8 --temperature 2 --seed 11 > %t/s1.txt
// RUN: ssm-run %t/m --engine reference --prompt 'hello world' --generate 8 --temperature 2 --seed 11 > %t/s2.txt
// RUN: cmp %t/s1.txt %t/s2.txt
// RUN: echo '"hello world"' | ssm-tokenize %t/m | FileCheck %s --check-prefix=TOKENIZE
// TOKENIZE: [18,22]
// RUN: echo '"hello world"' | ssm-tokenize %t/m --add-special | FileCheck %s --check-prefix=SPECIAL
// SPECIAL: [1,18,22]

// A tokenizer the runtime cannot read is left out with a warning; the import succeeds.
// RUN: rm -f %t/ckpt/tokenizer_config.json
// RUN: echo '{"model": {"type": "Unigram", "vocab": [["a", 0.0]]}}' > %t/ckpt/tokenizer.json
// RUN: ssm-import %t/ckpt -o %t/u 2>&1 | FileCheck %s --check-prefix=UNIGRAM
// UNIGRAM: ssm-import: warning: the tokenizer is not copied (the model runs from token ids): {{.*}}tokenizer.json: model: model type 'Unigram' is not supported (supported: BPE)
// RUN: not ls %t/u/tokenizer.json
