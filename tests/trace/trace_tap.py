# SPDX-License-Identifier: MIT
"""TAP lines for the slog-trace tests (trace_test.py, trace_mpi_test.py)."""

RESULTS = []


def ok(cond, name, detail=""):
    """Print one TAP result; on failure, up to 40 lines of detail as comments."""
    RESULTS.append(bool(cond))
    print(f"{'ok' if cond else 'not ok'} {len(RESULTS)} - {name}")
    if not cond and detail:
        for line in str(detail).splitlines()[:40]:
            print(f"# {line}")
    return bool(cond)


def all_passed():
    return all(RESULTS)
