// The tuning search space comes from one table (ssm::scheduleFields, which the
// verifier reads too): ssm-tune --print-space prints it, and the field tables
// of dialect/SsmAttrs.td (the generated docs) state the same legal values and
// the same fields per op.
// RUN: ssm-tune --print-space > %t.space
// RUN: FileCheck %s --input-file %t.space
// RUN: python3 %S/Inputs/space_vs_docs.py %S/../../../dialect/SsmAttrs.td %t.space | FileCheck %s --check-prefix=DOCS
// CHECK: #ssm.schedule
// CHECK-NEXT: vector_width: 1, 2, 4, 8, 16, 32
// CHECK-NEXT: channel_tile: 1 .. 65536 (1 or a multiple of vector_width)
// CHECK: gpu_threads: 1 .. 1024 (GPU targets only, not searched)
// CHECK: #ssm.matmul
// CHECK-NEXT: algorithm: tiled, dot
// CHECK: tile_rows: 1 .. 16  --
// CHECK: tile_cols: 1 .. 4096 (dot: 1 .. 64) (tiled: 1 or a multiple of vector_width)
// CHECK: col_tiles: 1 .. 4096{{.*}}(algorithm = dot only)
// CHECK: gpu_tile: 1 .. 32 (GPU targets only, not searched)
// CHECK: ssm.selective_scan: vector_width, channel_tile, parallel, unroll_state
// DOCS: 0 disagreements

// Candidates are measured on a CPU target: a GPU target is refused up front.
// RUN: not ssm-tune %S/Inputs/tune-small.mlir --target host-opencl --db %t.gpu.db 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not test -e %t.gpu.db
// GPU: ssm-tune: error: target 'host-opencl' is a GPU target: ssm-tune measures CPU schedules

// Kernel keys: op, attributes, shapes and dtypes. The two identical matmuls of
// the graph are one kernel; the scan another.
// RUN: ssm-tune %S/Inputs/tune-small.mlir --list | FileCheck %s --check-prefix=LIST
// LIST: ssm.selective_scan:{{[0-9a-f]+}}  x1  1x40x24xf32
// LIST-NEXT: linalg.matmul_transpose_b:{{[0-9a-f]+}}  x2  40x24xf32, 24x24xf32, 40x24xf32 -> 40x24xf32
// LIST-NOT: linalg
