"""Every method with its default settings, on real and structured synthetic data.

Each cell shows the 10-NN classification accuracy of the embedding, its
trustworthiness (15 neighbours; on a 5,000-point subsample above that size),
the wall-clock time, and the optimizer that ran (``E`` exact, ``S``
stochastic).  Every run is ``smallvis.embed(X, method, fast=True,
random_state=0)`` and nothing else: the defaults are what is measured.

Columns: iris, digits, s1k, and the structured synthetic ``curves`` data
(ten classes on curved two-dimensional sheets in 50-D, plus noise;
``smallvis.datasets.curved_clusters``) at 3,000 and 10,000 points.  asne and
ssne calibrate over all pairs, and they run at 10,000 points too (they are
refused above about 13,000).

The floors checked at the end (issue "good maps by default"): on digits
10-NN accuracy >= 0.97 for tsne, largevis, umap, tumap and ncvis, >= 0.93 for
asne and ssne; on every other column, within 0.03 of the best method.

Usage::

    python benchmarks/bench_defaults.py [--methods tsne,umap] [--data iris,digits]
        [--threads 1]
"""

import argparse
import time

import _common  # noqa: F401  (one BLAS thread)
import numpy as np

import smallvis
from smallvis import datasets
from smallvis.metrics import knn_accuracy, trustworthiness

DATA = ("iris", "digits", "s1k", "curves3k", "curves10k")
DIGITS_FLOOR = {"asne": 0.93, "ssne": 0.93}
DIGITS_FLOOR_DEFAULT = 0.97
BEST_MARGIN = 0.03
TRUST_SAMPLE = 5000


def load(name):
    if name.startswith("curves"):
        return datasets.curved_clusters(int(name[len("curves"):-1]) * 1000)
    return datasets.load(name)


def run(method, X, labels, threads):
    start = time.perf_counter()
    result = smallvis.embed(X, method, fast=True, random_state=0, n_threads=threads,
                            return_result=True)
    elapsed = time.perf_counter() - start
    accuracy = knn_accuracy(result.Y, labels, 10)
    rows = np.arange(len(X))
    if len(X) > TRUST_SAMPLE:
        rows = np.random.default_rng(0).choice(len(X), TRUST_SAMPLE, replace=False)
    trust = trustworthiness(X[rows], result.Y[rows], 15)
    return accuracy, trust, elapsed, result.optimizer[0].upper()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--methods", default=",".join(smallvis.list_methods()))
    parser.add_argument("--data", default=",".join(DATA))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    _common.report_provenance()
    methods, names = args.methods.split(","), args.data.split(",")
    cells = {}
    for name in names:
        X, labels = load(name)
        for method in methods:
            cells[method, name] = run(method, X, labels, args.threads)
            acc, trust, secs, opt = cells[method, name]
            print(f"  {method:9s} {name:10s} acc {acc:.3f} trust {trust:.3f} "
                  f"{secs:7.1f}s {opt}", flush=True)

    print(f"\n10-NN accuracy / trustworthiness(15) / seconds / optimizer "
          f"(fast=True, defaults, {args.threads} thread(s))\n")
    print("| method | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for method in methods:
        row = [f"{a:.3f} / {t:.3f} / {s:.1f}s / {o}"
               for a, t, s, o in (cells[method, n] for n in names)]
        print(f"| {method} | " + " | ".join(row) + " |")

    failures = []
    for name in names:
        best = max(cells[m, name][0] for m in methods)
        for method in methods:
            acc = cells[method, name][0]
            if name == "digits":
                floor = DIGITS_FLOOR.get(method, DIGITS_FLOOR_DEFAULT)
                if acc < floor:
                    failures.append(f"{method} on digits: {acc:.3f} < {floor}")
            elif acc < best - BEST_MARGIN:
                failures.append(f"{method} on {name}: {acc:.3f} < best {best:.3f} - "
                                f"{BEST_MARGIN}")
    print("\nfloors: " + ("all met" if not failures else "MISSED: " + "; ".join(failures)))


if __name__ == "__main__":
    main()
