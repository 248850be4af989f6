// ssm-import --compile killed with kill -9 while ssm-compile runs: the
// ssm-compile it started goes too (--parent-pid: the parent's death kills
// it). Before, the orphan compiled on for nothing (the tiny Granite hybrid's
// compile, several seconds of a core, still running 5 s after the kill).
// The next import removes the killed one's work folder (Tools/stale-work).
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// RUN: sh -c 'env SSM_CACHE_DIR=%t/cache ssm-import %shared/models/granite-hybrid/tiny-granite-h-a -o %t/m --compile > %t/log 2>&1 & p=$!; \
// RUN:   for i in $(seq 100); do pgrep -f "m.tmp-$p" > /dev/null && break; sleep 0.1; done; \
// RUN:   pgrep -f "m.tmp-$p" > /dev/null && echo compiling; kill -9 $p; sleep 1; \
// RUN:   if pgrep -f "m.tmp-$p" > /dev/null; then echo "orphan running"; else echo "none left"; fi' | FileCheck %s
// CHECK: compiling
// CHECK-NEXT: none left
