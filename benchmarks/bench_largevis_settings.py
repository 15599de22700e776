"""The headline call's map quality under other settings, per seed: trials for a default.

Runs ``smallvis.embed(X, "largevis", fast=True, n_threads=T,
random_state=seed, **setting)`` for every setting given (a JSON object of
keyword arguments, ``{}`` being the defaults) and every seed, and prints,
per run and as medians per setting, the three measures of
benchmarks/bench_real.py: the leave-one-out 10-NN accuracy, the 15-NN
preservation on its fixed sample of rows, and the pieces per class.  The
whole call runs each time (kNN graph included), so each row is exactly
what a user calling with that setting gets.  Times are printed too, but
trials are for quality: run ``bench_real.py`` on a quiet machine for time.

A default is chosen on a panel of varied data, never on one set (a
setting that helps one set can hurt another: docs/experiments.md,
2026-12-03): run this on each member with the same settings.

Usage: python benchmarks/bench_largevis_settings.py DATA LABELS.npy
       --setting '{}' --setting '{"early_epochs": 750}' [--seeds 0 1 2]
       [--metric euclidean] [--threads 1] [--json OUT.json]

``DATA``: a dense ``.npy`` or a sparse ``.npz``, as for bench_real.py.
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
from bench_real import (exact_neighbors_of, fixed_rows, knn_preservation_at,  # noqa: E402
                        load_data, pieces_per_class)


def parse_setting(text):
    """A ``--setting`` value: a JSON object of keyword arguments to ``embed``."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"a setting is a JSON object, got {text!r}")
    return value


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("labels")
    ap.add_argument("--setting", type=parse_setting, action="append", required=True,
                    help="keyword arguments of embed as a JSON object; repeat for more")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--metric", default="euclidean")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json")
    args = ap.parse_args()
    _common.report_provenance()

    import smallvis
    from smallvis.metrics import knn_accuracy

    X, labels = load_data(args.data), np.load(args.labels)
    rows = fixed_rows(X.shape[0])
    nn_x = exact_neighbors_of(X, rows, 15, args.metric)
    runs = []
    for setting in args.setting:
        for seed in args.seeds:
            start = time.perf_counter()
            Y = smallvis.embed(X, "largevis", fast=True, metric=args.metric,
                               n_threads=args.threads, random_state=seed, **setting)
            run = {"setting": setting, "seed": seed,
                   "seconds": time.perf_counter() - start,
                   "acc10": float(knn_accuracy(Y, labels, 10)),
                   "pres15": float(knn_preservation_at(nn_x, Y, rows, 15)),
                   "pieces": float(pieces_per_class(Y, labels))}
            runs.append(run)
            print(run, flush=True)
    print("\n| setting | 10-NN accuracy | 15-NN preservation | pieces per class | median s |")
    print("|---|---:|---:|---:|---:|")
    for setting in args.setting:
        mine = [r for r in runs if r["setting"] == setting]
        medians = [statistics.median(r[key] for r in mine)
                   for key in ("acc10", "pres15", "pieces", "seconds")]
        print(f"| `{json.dumps(setting)}` | {medians[0]:.4f} | {medians[1]:.4f} "
              f"| {medians[2]:.2f} | {medians[3]:.1f} |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(runs, fh, indent=1)


if __name__ == "__main__":
    main()
