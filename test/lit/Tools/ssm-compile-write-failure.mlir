// REQUIRES: ssm-run
// ssm-compile when a write fails (a full disk, a file size limit): the kernels,
// the runtime and the static library are written by Halide's own LLVM, whose
// raw_fd_ostream calls report_fatal_error ("IO failure on output stream")
// instead of returning an error. Before, that aborted ssm-compile (SIGABRT;
// under ulimit -f, SIGXFSZ with LLVM's crash dump) and left its work folder
// (out.tmp-<pid>, <model>/.ssm-compile.tmp-<pid>). Now it exits 2 naming the
// folder and the reason, and nothing is left. A file size limit of 40 KiB
// stands in for a full disk (the runtime object is 150 KB).
// RUN: rm -rf %t && mkdir -p %t
// RUN: sh -c 'ulimit -f 40; ssm-compile %s -o %t/out --progress=false; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=GRAPH
// GRAPH-NOT: Stack dump
// GRAPH: ssm-compile: error: a write failed while compiling into {{.*}}out.tmp-{{[0-9]+}} (LLVM: IO failure on output stream: File too large); it was removed, and nothing was written to {{.*}}/out
// GRAPH-NEXT: exit=2
// RUN: ls -A %t | count 0

// An existing output with --force stays as it was.
// RUN: ssm-compile %s -o %t/out --progress=false
// RUN: ls %t/out > %t/before.txt
// RUN: sh -c 'ulimit -f 40; ssm-compile %s -o %t/out --force --progress=false; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FORCE
// FORCE: exit=2
// RUN: ls %t/out | cmp - %t/before.txt
// RUN: ls -A %t | FileCheck %s --check-prefix=LEFT
// LEFT-NOT: tmp

// ssm-compile <model-dir>: <model-dir>/.ssm-compile.tmp-<pid> removed, no compiled/.
// REQUIRES: shared-data
// RUN: ssm-import rwkv %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin -o %t/m --seq-len 1 > /dev/null
// RUN: sh -c 'ulimit -f 40; ssm-compile %t/m --progress=false; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MODEL
// MODEL: ssm-compile: error: a write failed while compiling into {{.*}}m/.ssm-compile.tmp-{{[0-9]+}} (LLVM: IO failure on output stream: File too large); it was removed, and nothing was written to {{.*}}m/compiled/seq1
// MODEL-NEXT: exit=2
// RUN: ls -A %t/m | FileCheck %s --check-prefix=MODELLS
// MODELLS-NOT: compiled
// MODELLS-NOT: .ssm-compile

func.func @main(%a: tensor<512xf32>) -> tensor<512xf32> {
  %b = arith.addf %a, %a : tensor<512xf32>
  return %b : tensor<512xf32>
}
