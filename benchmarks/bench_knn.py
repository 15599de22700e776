"""Annoy vs exact 15-nearest neighbours on 20,000 synthetic 50-D points, one thread.

Data (fixed seed 0): 20 Gaussian clusters in 50 dimensions, centres drawn
from N(0, 3^2), unit isotropic spread, 1,000 points each.  Times
``smallvis.neighbors.nearest_neighbors`` with ``method="exact"`` and
``method="annoy"`` (default n_trees = 50, search_k = 2 * n_trees * (k + 1),
random_state = 0, n_threads = 1) with its default refinement (up to four
rounds of neighbour-of-neighbour search) and without it (``n_refine=0``), and
Annoy with the 10 trees that ``optimizer="sgd"`` uses; prints the median of
the runs, the speed-ups and each approximate search's recall of the exact
neighbour sets.

Usage: python benchmarks/bench_knn.py [--repeats 3] [--n 20000] [--dim 50] [--k 15]
"""

import argparse

import _common  # noqa: F401  (sets single-threaded environment first)
import numpy as np

from _common import median_time, print_table
from smallvis.neighbors import nearest_neighbors


def synthetic(n, dim, n_clusters=20, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 3.0, size=(n_clusters, dim))
    labels = np.arange(n) % n_clusters
    return centres[labels] + rng.standard_normal((n, dim))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--dim", type=int, default=50)
    parser.add_argument("--k", type=int, default=15)
    args = parser.parse_args()
    X = synthetic(args.n, args.dim)
    rows, results = [], {}
    runs = {
        "exact": dict(method="exact"),
        "annoy (50 trees, refined)": dict(method="annoy"),
        "annoy (50 trees, no refinement)": dict(method="annoy", n_refine=0),
        "annoy (10 trees, refined)": dict(method="annoy", n_trees=10),
        "annoy (10 trees, no refinement)": dict(method="annoy", n_trees=10, n_refine=0),
    }
    for name, kwargs in runs.items():
        med, times, res = median_time(
            lambda: nearest_neighbors(X, args.k, random_state=0, n_threads=1, fast=True,
                                      **kwargs),
            args.repeats)
        rows.append((name, med, times))
        results[name] = res
    print_table(f"{args.k}-NN of {args.n} x {args.dim} synthetic points, 1 thread",
                rows, baseline="exact")
    exact = results["exact"][0]
    print(f"\nrecall of the exact {args.k}-NN:")
    for name, (approx, _) in results.items():
        if name != "exact":
            recall = np.mean([len(set(a) & set(b)) for a, b in zip(exact, approx)]) / args.k
            print(f"  {name:<40} {recall:.4f}")

if __name__ == "__main__":
    main()
