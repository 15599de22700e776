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

Usage: python benchmarks/bench_sgd_schedule.py DATA.npy LABELS.npy
       [--threads 1 2] [--seeds 0 1 2] [--json OUT.json]
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_real import pieces_per_class  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("labels")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--json")
    args = ap.parse_args()

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


if __name__ == "__main__":
    main()
