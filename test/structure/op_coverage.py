#!/usr/bin/env python3
"""Every ssm op is covered by every layer that is not checked by the compiler.

The interpreter (reference/Interpreter.cpp), the lowerings
(codegen/lowerings/Ssm.cpp), ScheduledOpInterface (dialect/OpScheduling.cpp)
and ssm-tune's op listing reach each op through dialect/SsmOpList.h, so a
missing handler there fails the build. This test checks the rest, reading
the op list from the ODS source (dialect/SsmOps.td), not from our C++:

  * the op is round-tripped by a dialect lit test (test/lit/Dialect),
  * it has a graph in the schedule grid (test/schedules/graphs/, every
    schedule field against the reference; ops that take no schedule are
    exempt, see SCHEDULE_FREE),
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

# Ops that take no #ssm.schedule (ScheduledOpInterface::getScheduleFields is
# empty): nothing for the schedule grid to vary.
SCHEDULE_FREE = {"dequantize"}


def texts(folder, pattern):
    return [p.read_text() for p in sorted((root / folder).glob(pattern))]


dialect_tests = texts("test/lit/Dialect", "*.mlir")
grid_graphs = texts("test/schedules/graphs", "*.mlir")
readme = (root / "README.md").read_text()

failures = []
for op in ops:
    full = f"ssm.{op}"
    uses = re.compile(re.escape(full) + r"\b")
    if not any(uses.search(t) for t in dialect_tests):
        failures.append(f"{full}: no lit test in test/lit/Dialect uses it")
    if op not in SCHEDULE_FREE and not any(uses.search(t) for t in grid_graphs):
        failures.append(f"{full}: no schedule-grid graph in test/schedules/graphs uses it")
    if f"| `{full}` |" not in readme:
        failures.append(f"{full}: no row in the README's op table")
    print(f"{full}: checked")

for f in failures:
    print("op_coverage: " + f, file=sys.stderr)
print(f"{len(ops) * 3 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
