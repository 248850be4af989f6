#!/usr/bin/env python3
"""Every ssm op is covered by every layer that is not checked by the compiler.

The interpreter (reference/Interpreter.cpp), the lowerings
(codegen/lowerings/Ssm.cpp), ScheduledOpInterface (dialect/OpScheduling.cpp)
and ssm-tune's op listing reach each op through dialect/SsmOpList.h, so a
missing handler there fails the build. This test checks the rest, reading
the op list from the ODS source (dialect/SsmOps.td), not from our C++:

  * the op is round-tripped by a dialect lit test (test/lit/Dialect),
  * the schedule grid (test/schedules/grid.py: every schedule field against
    the reference) runs a graph of test/schedules/graphs/ that uses it, in
    GRID (CPU targets) and, when the op has a GPU schedule, in GPU_GRID; ops
    that take no schedule (getScheduleFields() returns {} in
    dialect/OpScheduling.cpp) are exempt,
  * the README's op table has a row for it.

Usage: op_coverage.py SOURCE_DIR. Exit 1 naming each op and layer missing.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
td = (root / "dialect/SsmOps.td").read_text()
ops = re.findall(r'^def \w+ : SSM_Op<"(\w+)"', td, re.M)
if len(ops) < 10:
    sys.exit(f"op_coverage: found only {len(ops)} ops in dialect/SsmOps.td: the pattern is stale")

# Class name -> mnemonic, and what dialect/OpScheduling.cpp says of each op.
classes = dict(re.findall(r'^def SSM_(\w+) : SSM_Op<"(\w+)"', td, re.M))
sched = (root / "dialect/OpScheduling.cpp").read_text()
# Ops that take no #ssm.schedule: nothing for the schedule grid to vary.
SCHEDULE_FREE = {classes[c] for c in
                 re.findall(r"^ArrayRef<StringRef> (\w+)::getScheduleFields\(\) \{ return \{\}; \}",
                            sched, re.M)}
GPU = {classes[c] for c in
       re.findall(r"^bool (\w+)::hasGpuSchedule\(\) \{ return true; \}", sched, re.M)}
if len(SCHEDULE_FREE | GPU) < len(ops) // 2:
    sys.exit("op_coverage: dialect/OpScheduling.cpp no longer matches this test's patterns")
sys.path.insert(0, str(root / "test/schedules"))
import grid  # noqa: E402  (test/schedules/grid.py: GRID, GPU_GRID)


def texts(folder, pattern):
    return [p.read_text() for p in sorted((root / folder).glob(pattern))]


dialect_tests = texts("test/lit/Dialect", "*.mlir")
graph_dir = root / "test/schedules/graphs"


def grid_graphs(table):
    return [(graph_dir / (name + ".mlir")).read_text() for name in table
            if (graph_dir / (name + ".mlir")).exists()]


cpu_grid, gpu_grid = grid_graphs(grid.GRID), grid_graphs(grid.GPU_GRID)
readme = (root / "README.md").read_text()

failures = []
for op in ops:
    full = f"ssm.{op}"
    uses = re.compile(re.escape(full) + r"\b")
    if not any(uses.search(t) for t in dialect_tests):
        failures.append(f"{full}: no lit test in test/lit/Dialect uses it")
    if op not in SCHEDULE_FREE and not any(uses.search(t) for t in cpu_grid):
        failures.append(f"{full}: no graph of the schedule grid's GRID (test/schedules/grid.py) uses it")
    if op not in SCHEDULE_FREE and op in GPU and not any(uses.search(t) for t in gpu_grid):
        failures.append(f"{full}: has a GPU schedule, but no graph of GPU_GRID uses it")
    if f"| `{full}` |" not in readme:
        failures.append(f"{full}: no row in the README's op table")
    print(f"{full}: checked")

for f in failures:
    print("op_coverage: " + f, file=sys.stderr)
print(f"{len(ops) * 4 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
