"""Exact t-SNE on the 1797-point digits data, 1000 iterations, one thread.

Times, in one run: smallvis fast=True (Cython), smallvis fast=False (NumPy
reference) and scikit-learn's ``TSNE(method="exact")`` when it is installed.
All three use perplexity 30, PCA initialisation, early exaggeration 12 for
250 iterations, learning rate "auto" and no early stopping.

Usage: python benchmarks/bench_tsne_exact.py [--repeats 3] [--skip-numpy]
"""

import argparse

import _common  # noqa: F401  (sets single-threaded environment first)
import numpy as np

import smallvis
from _common import median_time, print_table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-iter", type=int, default=1000)
    parser.add_argument("--skip-numpy", action="store_true")
    args = parser.parse_args()
    X, labels = smallvis.datasets.load("digits")
    rows, costs = [], {}

    def ours(fast):
        return smallvis.embed(X, "tsne", fast=fast, n_iter=args.n_iter, tol=0,
                              random_state=0, n_threads=1, return_result=True)

    med, times, res = median_time(lambda: ours(True), args.repeats)
    rows.append(("smallvis fast=True (Cython)", med, times))
    costs["smallvis fast=True (Cython)"] = res.cost
    if not args.skip_numpy:
        med, times, res = median_time(lambda: ours(False), args.repeats)
        rows.append(("smallvis fast=False (NumPy)", med, times))
        costs["smallvis fast=False (NumPy)"] = res.cost
    try:
        from sklearn.manifold import TSNE
    except ImportError:
        print("scikit-learn is not installed: skipping TSNE(method='exact')")
    else:
        def sk():
            return TSNE(method="exact", perplexity=30, max_iter=args.n_iter, init="pca",
                        learning_rate="auto", early_exaggeration=12, min_grad_norm=0,
                        n_iter_without_progress=args.n_iter, random_state=0,
                        n_jobs=1).fit(X)
        med, times, model = median_time(sk, args.repeats)
        rows.append(("scikit-learn TSNE(method='exact')", med, times))
        costs["scikit-learn TSNE(method='exact')"] = model.kl_divergence_
    print_table(f"exact t-SNE, digits (N={len(X)}), {args.n_iter} iterations, 1 thread",
                rows, "scikit-learn TSNE(method='exact')" if len(rows) > 2 or "scikit" in rows[-1][0]
                else rows[-1][0])
    print_table("same, ratios against the NumPy reference", rows, "smallvis fast=False (NumPy)")
    print("\nfinal KL divergence:")
    for name, c in costs.items():
        print(f"  {name:<38} {c:.4f}")


if __name__ == "__main__":
    main()
