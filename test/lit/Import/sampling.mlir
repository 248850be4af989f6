// ssm-run --generate with sampling (runtime/Sampling.h) on the shared tiny
// Mamba-1 (byte vocabulary, reference engine): the text printed as it comes
// is valid UTF-8 (bytes that do not form a character are U+FFFD); the same
// seed gives the same text, another seed another; temperature 0 and top-k 1
// are the greedy text; --stop ends the text before the string; bad values
// are refused naming the flag, exit 2.
// REQUIRES: shared-data, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import mamba %shared/models/mamba/tiny-mamba-seed5/model.safetensors --config %shared/models/mamba/tiny-mamba-seed5/config.json -o %t/m > /dev/null

// Greedy (the default), and its equals.
// RUN: ssm-run %t/m --engine reference --prompt 'The ' --generate 24 > %t/greedy.txt 2> %t/greedy.err
// RUN: FileCheck %s --check-prefix=GREEDY < %t/greedy.err
// GREEDY: ssm-run: generated 24 tokens in {{[0-9.]+}} ms ({{[0-9.]+}} tokens/s, greedy)
// RUN: python3 -c "import sys; t = open(sys.argv[1], 'rb').read().decode('utf-8'); assert len(t) > 1, t" %t/greedy.txt
// RUN: ssm-run %t/m --engine reference --prompt 'The ' --generate 24 --temperature 0 --top-p 0.5 --seed 3 > %t/t0.txt 2> %t/t0.err
// RUN: cmp %t/greedy.txt %t/t0.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/t0.err
// NOTE: ssm-run: note: --top-p has no effect at temperature 0 (greedy); give --temperature T > 0
// RUN: ssm-run %t/m --engine reference --prompt 'The ' --generate 24 --temperature 1.5 --top-k 1 --seed 3 > %t/k1.txt
// RUN: cmp %t/greedy.txt %t/k1.txt

// Sampled: one seed, one text; another seed, another text.
// RUN: ssm-run %t/m --engine reference --prompt 'The ' --generate 24 --temperature 1 --top-p 0.95 --min-p 0.01 --repeat-penalty 1.1 --seed 7 > %t/s7a.txt 2> %t/s7a.err
// RUN: ssm-run %t/m --engine reference --prompt 'The ' --generate 24 --temperature 1 --top-p 0.95 --min-p 0.01 --repeat-penalty 1.1 --seed 7 > %t/s7b.txt
// RUN: cmp %t/s7a.txt %t/s7b.txt
// RUN: not cmp -s %t/s7a.txt %t/greedy.txt
// RUN: ssm-run %t/m --engine reference --prompt 'The ' --generate 24 --temperature 1 --top-p 0.95 --min-p 0.01 --repeat-penalty 1.1 --seed 8 > %t/s8.txt
// RUN: not cmp -s %t/s7a.txt %t/s8.txt
// RUN: python3 -c "import sys; open(sys.argv[1], 'rb').read().decode('utf-8')" %t/s7a.txt
// RUN: FileCheck %s --check-prefix=SAMPLED < %t/s7a.err
// SAMPLED-NOT: sampling with seed
// SAMPLED: ssm-run: generated 24 tokens in {{[0-9.]+}} ms ({{[0-9.]+}} tokens/s, sampled)
// Without --seed, a random one, printed so that the run can be repeated.
// RUN: ssm-run %t/m --engine reference --prompt 'The ' --generate 4 --temperature 1 2>&1 > /dev/null | FileCheck %s --check-prefix=RANDOM
// RANDOM: ssm-run: sampling with seed {{[0-9]+}} (--seed {{[0-9]+}} repeats this run)

// --stop: the greedy text cut before the first "o" (the text has one after its start).
// RUN: python3 -c "import sys; t = open(sys.argv[1], encoding='utf-8').read(); i = t.index('o', 1); open(sys.argv[2], 'w', encoding='utf-8').write(t[:i] + '\n')" %t/greedy.txt %t/want-stop.txt
// RUN: ssm-run %t/m --engine reference --prompt 'The ' --generate 24 --stop o --stop zzz > %t/stop.txt 2> %t/stop.err
// RUN: cmp %t/want-stop.txt %t/stop.txt
// RUN: FileCheck %s --check-prefix=STOP < %t/stop.err
// STOP: ssm-run: generated {{[0-9]+}} tokens in {{.*}}, stopped at --stop 'o'

// Bad values: exit 2, the flag named.
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --temperature -1; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TEMP
// TEMP: --temperature takes a number >= 0 (0: greedy), got -1
// TEMP: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --temperature nan; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TEMPNAN
// TEMPNAN: --temperature takes a number >= 0
// TEMPNAN: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --temperature hot; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TEMPTEXT
// TEMPTEXT: temperature
// TEMPTEXT: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --temperature 1 --top-p 1.5; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TOPP
// TOPP: --top-p takes a probability in [0, 1] (1: no top-p filter), got 1.5
// TOPP: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --temperature 1 --min-p -0.1; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MINP
// MINP: --min-p takes a probability in [0, 1] (0: no min-p filter), got -0.1
// MINP: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --temperature 1 --top-k -3; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TOPK
// TOPK: --top-k takes a count >= 0 (0: every token), got -3
// TOPK: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --repeat-penalty 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=REP
// REP: --repeat-penalty takes a number > 0 (1: none), got 0
// REP: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --repeat-last-n -2; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=LASTN
// LASTN: --repeat-last-n takes a count >= -1 (-1: every token, 0: no penalties), got -2
// LASTN: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --temperature 1 --seed -5; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: --seed takes a number >= 0, got -5
// SEED: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --generate 2 --stop ""; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EMPTYSTOP
// EMPTYSTOP: --stop takes a non-empty string
// EMPTYSTOP: exit=2
// RUN: sh -c 'ssm-run %t/m --engine reference --prompt a --temperature 1; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOGEN
// NOGEN: --temperature chooses the tokens of --generate N: give --generate too
// NOGEN: exit=2
