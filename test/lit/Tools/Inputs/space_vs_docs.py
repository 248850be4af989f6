#!/usr/bin/env python3
"""Checks that the field tables in dialect/SsmAttrs.td (the generated docs)
state the legal values `ssm-tune --print-space` prints from ssm::scheduleFields
(the table the verifier and the tuner read), and the same fields per ssm op.

Usage: space_vs_docs.py SsmAttrs.td PRINT_SPACE_OUTPUT. Prints one line per
checked field; exit 1 naming every disagreement.
"""
import re
import sys

td = open(sys.argv[1]).read()
space = open(sys.argv[2]).read()

# The printed space: {family: {field: legal-values text}} and {op: [fields]}.
printed, per_op, family = {}, {}, None
for line in space.splitlines():
    if line.startswith("#ssm."):
        family = line[5:].strip()
        printed[family] = {}
    elif line.startswith("fields per ssm op:"):
        family = None
    elif family and line.startswith("  "):
        name, rest = line.strip().split(": ", 1)
        printed[family][name] = rest.split("  -- ")[0]
    elif line.startswith("  ssm."):
        op, fields = line.strip().split(": ", 1)
        per_op[op] = [f.strip() for f in fields.split(",")]


def numbers(text):
    """The integers a legal-values cell names, '2^30' read as a power."""
    text = re.sub(r"(\d+)\^(\d+)", lambda m: str(int(m.group(1)) ** int(m.group(2))), text)
    return [int(x) for x in re.findall(r"\b\d+\b", text)]


errors = []
checked = 0
# The attribute definitions in order: schedule, matmul, stage.
for family, body in zip(["schedule", "matmul", "stage"],
                        re.split(r"\ndef SSM_\w+Attr ", td)[1:]):
    rows = re.findall(r"^\s*\| `(\w+)` \| [^|]* \| ([^|]*) \|", body, re.M)
    for name, legal in rows:
        if name.startswith("ssm."):
            continue
        got = printed.get(family, {}).get(name)
        if got is None:
            errors.append(f"#ssm.{family}: the docs list '{name}', the table has no such field")
            continue
        checked += 1
        if "true, false" in legal or "true, false" in got:
            ok = ("true, false" in legal) == ("true, false" in got)
        elif re.search(r"[a-z]+", got.split(" (")[0]) and not numbers(got):
            ok = all(v.strip() in legal for v in got.split(" (")[0].split(","))
        else:
            ok = numbers(legal)[:2] == numbers(got)[:2] or numbers(legal) == numbers(got.split(" (")[0])
        print(f"#ssm.{family} {name}: docs '{legal.strip()}' table '{got}' {'ok' if ok else 'DIFFER'}")
        if not ok:
            errors.append(f"#ssm.{family} {name}: the docs say '{legal.strip()}', the table '{got}'")
    for name in printed.get(family, {}):
        if name not in [r[0] for r in rows]:
            errors.append(f"#ssm.{family}: the table has '{name}', the docs do not list it")
# The per-op table of #ssm.schedule.
header = re.search(r"\| op \| ([^\n]*) \|\n", td)
columns = [c.strip(" `") for c in header.group(1).split("|")]
for op, cells in re.findall(r"^\s*\| `(ssm\.\w+)` \|([^\n]*)\|$", td, re.M):
    marks = [c.strip() for c in cells.split("|")]
    docs = [f for f, m in zip(columns, marks) if m == "yes"]
    checked += 1
    if docs != per_op.get(op):
        errors.append(f"{op}: the docs accept {docs}, scheduleFieldsOf {per_op.get(op)}")
for e in errors:
    print("error: " + e, file=sys.stderr)
print(f"checked {checked} fields, {len(errors)} disagreements")
sys.exit(1 if errors else 0)
