// RWKV's World tokenizer (issue 34): rwkv_vocab_v20230424.txt beside a .bin
// is checked and copied into the model folder by ssm-import; ssm-tokenize
// and ssm-run --prompt then use it. A small vocabulary in the file's format
// (ids under the tiny model's 256): "abcab c" is, by the longest match at
// each byte, 6 ("abc"), 5 ("ab"), 7 (" "), 4 ("c"); "好" (e5 a5 bd) is 9 + 8.
// The run from the prompt's text equals the run from those ids written by hand.
// REQUIRES: shared-data, numpy
// RUN: rm -rf %t && mkdir -p %t/ckpt
// RUN: cp %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin %t/ckpt/
// RUN: printf '%%s\n' "2 'a' 1" "3 'b' 1" "4 'c' 1" "5 'ab' 2" "6 'abc' 3" "7 ' ' 1" "8 b'\\xbd' 1" "9 b'\\xe5\\xa5' 2" > %t/ckpt/rwkv_vocab_v20230424.txt
// RUN: ssm-import rwkv %t/ckpt/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 2 | FileCheck %s --check-prefix=IMPORT
// IMPORT: ssm-import: tokenizer: rwkv_vocab_v20230424.txt (RWKV World (greedy longest match over 8 byte tokens))
// RUN: ls %t/m/rwkv_vocab_v20230424.txt
// RUN: printf '%%s\n' '"abcab c"' '"\u597d"' | ssm-tokenize %t/m | FileCheck %s --check-prefix=IDS
// IDS: [6,5,7,4]
// IDS-NEXT: [9,8]
// RUN: printf '%%s\n' '[6,5,7,4]' '[9,8]' | ssm-tokenize %t/m --decode | FileCheck %s --check-prefix=TEXT
// TEXT: "abcab c"
// TEXT-NEXT: "好"
// RUN: ssm-run %t/m --engine reference --prompt 'abcab c' --logits-out %t/text.npy 2>&1 | FileCheck %s --check-prefix=PROMPT
// PROMPT: ssm-run: the prompt is 4 tokens of {{.*}}m/rwkv_vocab_v20230424.txt: 6 5 7 4
// RUN: %numpy_python -c "import numpy; numpy.save('%t/ids.npy', numpy.array([6, 5, 7, 4], dtype=numpy.int32))"
// RUN: ssm-run %t/m --engine reference --tokens %t/ids.npy --logits-out %t/ids-logits.npy
// RUN: %numpy_python %S/Inputs/compare_npy.py %t/text.npy %t/ids-logits.npy 0 | FileCheck %s --check-prefix=SAME
// SAME: PASS
// A damaged vocabulary is not copied (a warning names the line); the model runs from ids.
// RUN: mkdir -p %t/bad && cp %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin %t/bad/
// RUN: printf '%%s\n' "2 'a' 1" "3 'ab' 1" > %t/bad/rwkv_vocab_v20230424.txt
// RUN: ssm-import rwkv %t/bad/tiny-rwkv-4v0-660K-FP32.bin -o %t/mb --seq-len 2 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: ssm-import: warning: the World vocabulary is not copied (the model runs from token ids): {{.*}}rwkv_vocab_v20230424.txt:2: the literal has 2 bytes, the line says 1
// RUN: not ls %t/mb/rwkv_vocab_v20230424.txt
