"""The headline call at 1 and 2 threads: time and map quality, per seed.

Runs ``smallvis.embed(X, "largevis", fast=True, n_threads=T,
random_state=seed)`` on an image-like set (benchmarks/make_image_data.py)
for every thread count and seed, thread counts taking turns, and prints
for each thread count the median wall-clock time of the whole call (kNN
graph included) and the median map quality: the leave-one-out 10-NN
accuracy (:func:`smallvis.metrics.knn_accuracy`) and the pieces per class
of benchmarks/bench_real.py (:func:`pieces_per_class`).  With ``--json``
every run is also written to a file.

The package imported is the first ``smallvis`` on ``sys.path``: to compare
two versions of the stochastic loop (say the lock-free schedule of an older
commit and the deterministic one), run the script once with each on
``PYTHONPATH``.

With ``--kernel-epochs E`` it times only the stochastic loop instead:
LargeVis's input affinities are built once, then
``_kernels.sgd_epochs`` runs epochs 0 to E on the same problem and start,
thread counts taking turns, three times each (the median is printed).

Usage: python benchmarks/bench_sgd_schedule.py DATA.npy LABELS.npy
       [--threads 1 2] [--seeds 0 1 2] [--json OUT.json] [--kernel-epochs E]
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402
from bench_real import pieces_per_class  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("labels")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--json")
    ap.add_argument("--kernel-epochs", type=int)
    args = ap.parse_args()
    _common.report_provenance()
    if args.kernel_epochs:
        kernel_only(args)
        return

    import smallvis
    from smallvis.metrics import knn_accuracy

    X = np.load(args.data).astype(np.float64)
    labels = np.load(args.labels)
    print(f"smallvis from {os.path.dirname(smallvis.__file__)}; X {X.shape}; "
          f"load {os.getloadavg()[0]:.2f}; cores {len(os.sched_getaffinity(0))}", flush=True)
    runs = []
    for seed in args.seeds:
        for n_threads in args.threads:
            start = time.perf_counter()
            Y = smallvis.embed(X, "largevis", fast=True, n_threads=n_threads,
                               random_state=seed)
            seconds = time.perf_counter() - start
            run = {"threads": n_threads, "seed": seed, "seconds": seconds,
                   "acc10": float(knn_accuracy(Y, labels, 10)),
                   "pieces": float(pieces_per_class(Y, labels)),
                   "load": os.getloadavg()[0]}
            runs.append(run)
            print(run, flush=True)
    print(f"\n{'threads':>7} {'median s':>9} {'10-NN acc':>10} {'pieces/class':>13}")
    for n_threads in args.threads:
        mine = [r for r in runs if r["threads"] == n_threads]
        print(f"{n_threads:>7} {statistics.median(r['seconds'] for r in mine):>9.2f} "
              f"{statistics.median(r['acc10'] for r in mine):>10.4f} "
              f"{statistics.median(r['pieces'] for r in mine):>13.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(runs, fh, indent=1)


def kernel_only(args):
    """Median seconds of ``sgd_epochs`` over ``args.kernel_epochs`` epochs, per thread count."""
    import copy

    import smallvis
    from smallvis.backends import _kernels
    from smallvis.engines import sgd
    from smallvis.registry import METHODS

    X = np.load(args.data).astype(np.float64)
    m = METHODS["largevis"]
    P = smallvis.affinities(X, "largevis", fast=True)
    _, cost_params = m.split_params(dict(m.sgd.param_defaults), X.shape[0])
    E = args.kernel_epochs
    prob = sgd.prepare(m.sgd, P, E, m.sgd.unit_params(**cost_params), m.sgd.learning_rate,
                       _kernels)
    Y0 = np.random.default_rng(0).normal(scale=1e-4, size=(X.shape[0], 2))
    times = {t: [] for t in args.threads}
    for _ in range(3):
        for n_threads in args.threads:
            problem, Y = copy.deepcopy(prob), Y0.copy()
            start = time.perf_counter()
            _kernels.sgd_epochs(problem, Y, 7, 0, E, n_threads)
            times[n_threads].append(time.perf_counter() - start)
    print(f"smallvis from {os.path.dirname(smallvis.__file__)}; load "
          f"{os.getloadavg()[0]:.2f}; {E} epochs of LargeVis's loop")
    for n_threads, runs in times.items():
        print(f"{n_threads} thread(s): median {statistics.median(runs):.3f} s "
              f"({', '.join(f'{r:.3f}' for r in runs)})")


if __name__ == "__main__":
    main()
