"""PASS/FAIL lines and a failure count for the e2e Python scripts (python_binding.py,
python_prefill_streams.py): `check(ok, what)` prints one line per check and counts
the failures in `pycheck.failures`; `raises(fn, kind, words)` is true when fn() raises
`kind` with `words` in its message (else it prints what happened instead).
Standard library only.
"""

failures = 0


def check(ok, what):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} {what}")
    failures += not ok


def raises(fn, kind, words):
    try:
        fn()
    except kind as e:
        return words in str(e) or print(f"  message: {e}")
    except Exception as e:  # noqa: BLE001
        print(f"  raised {type(e).__name__}: {e}")
        return False
    print("  nothing raised")
    return False
