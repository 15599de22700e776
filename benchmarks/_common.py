"""Helpers shared by the benchmark scripts: single-threaded timing, tables."""

import os

# One thread everywhere: set before numpy/scipy/BLAS are imported.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import statistics  # noqa: E402
import time  # noqa: E402


def median_time(fn, repeats):
    """Median wall-clock seconds of ``repeats`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, result


def print_table(title, rows, baseline):
    """Print name, median seconds, runs and speed-up relative to ``baseline``."""
    base = dict((r[0], r[1]) for r in rows).get(baseline)
    print(f"\n{title}")
    print(f"{'implementation':<38} {'median s':>10} {'runs':>28} {'x vs ' + baseline:>22}")
    for name, median, times in rows:
        ratio = f"{base / median:.1f}x" if base else "-"
        runs = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name:<38} {median:>10.3f} {runs:>28} {ratio:>22}")
