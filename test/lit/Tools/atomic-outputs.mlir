// REQUIRES: ssm-run, shared-data
// Every output file is written whole or not at all (runtime/AtomicFile.h: a
// temporary beside it, fsync'd, renamed): a write that fails part way (here a
// file size limit, as a full disk would) leaves the old file as it was and no
// temporary behind. Before, --logits-out / --all-logits-out --force truncated
// the old file first and left a corrupt .npy (and SIGXFSZ killed ssm-run).
// RUN: rm -rf %t && mkdir -p %t
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m > /dev/null
// RUN: ssm-run %t/m --engine reference --prompt '"in' --logits-out %t/last.npy --all-logits-out %t/all.npy 2> /dev/null
// RUN: cp %t/last.npy %t/last.keep && cp %t/all.npy %t/all.keep

// 1 KiB at most (the logits are 1152 bytes, every position's 3200): exit 2,
// naming the file and the reason; the old files are byte for byte the same.
// RUN: sh -c 'ulimit -f 1; ssm-run %t/m --engine reference --prompt "xyz" --logits-out %t/last.npy --force; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=LAST
// LAST: ssm-run: error: {{.*}}last.npy: cannot write (File too large); the file was left as it was
// LAST: exit=2
// RUN: cmp %t/last.npy %t/last.keep
// RUN: sh -c 'ulimit -f 1; ssm-run %t/m --engine reference --prompt "xyz" --all-logits-out %t/all.npy --force; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ALL
// ALL: ssm-run: error: {{.*}}all.npy: cannot write (File too large); the file was left as it was
// ALL: exit=2
// RUN: cmp %t/all.npy %t/all.keep
// RUN: ls %t | FileCheck %s --check-prefix=NOTMP
// NOTMP-NOT: tmp

// Without the limit --force replaces them whole.
// RUN: ssm-run %t/m --engine reference --prompt "xyz" --logits-out %t/last.npy --all-logits-out %t/all.npy --force 2> /dev/null
// RUN: not cmp -s %t/last.npy %t/last.keep
// RUN: ls %t | FileCheck %s --check-prefix=NOTMP

// A device or FIFO is written in place, not replaced by a regular file (as
// root, --logits-out /dev/null replaced /dev/null), and needs no --force:
// --logits-out /dev/stdout gives the same bytes as a file (before, it was
// 'exists; pass --force', then 'cannot open for writing'). A symbolic link
// stays a link; the file it names is replaced.
// RUN: ssm-run %t/m --engine reference --prompt "xyz" --logits-out %t/xyz.npy 2> /dev/null
// RUN: ssm-run %t/m --engine reference --prompt "xyz" --logits-out /dev/stdout 2> /dev/null > %t/stdout.npy
// RUN: cmp %t/stdout.npy %t/xyz.npy
// RUN: ssm-run %t/m --engine reference --prompt "xyz" --logits-out /dev/stdout 2> /dev/null | cat > %t/piped.npy
// RUN: cmp %t/piped.npy %t/xyz.npy
// RUN: ln -s xyz.npy %t/link.npy
// RUN: ssm-run %t/m --engine reference --prompt "abc" --logits-out %t/link.npy --force 2> /dev/null
// RUN: test -L %t/link.npy
// RUN: not cmp -s %t/xyz.npy %t/stdout.npy

// ssm-run <graph> --output-dir: the same for its result files.
// RUN: ssm-run %s --seed 1 --output-dir %t/out > /dev/null
// RUN: cp %t/out/result0.npy %t/result0.keep
// RUN: sh -c 'ulimit -f 1; ssm-run %s --seed 2 --output-dir %t/out --force; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: ssm-run: error: {{.*}}result0.npy: cannot write (File too large); the file was left as it was
// RESULT: exit=2
// RUN: cmp %t/out/result0.npy %t/result0.keep
// RUN: ls %t/out | FileCheck %s --check-prefix=NOTMP

func.func @main(%a: tensor<512xf32>) -> tensor<512xf32> {
  %b = arith.addf %a, %a : tensor<512xf32>
  return %b : tensor<512xf32>
}
