"""Stochastic (SGD) optimizer on 70,000 x 50 synthetic data, one thread.

Times, in one run, from raw X to Y (kNN, affinities, initialisation and
optimisation): smallvis ``fast=True, optimizer="sgd"`` for umap, tumap and
largevis, and umap-learn ``UMAP(n_jobs=1)`` (umap, and ``a=b=1`` for t-UMAP)
when it is installed, with the same number of epochs (200, umap-learn's
default above 10,000 points).  umap-learn is called once on small data first
so that numba's JIT compilation is not timed.  The NumPy twin of the SGD loop
is for teaching and is not timed here.

The data: 20 Gaussian clusters of intrinsic dimension 5 in 50 dimensions
(fixed seed, see ``gaussian_clusters``).  Quality: 15-NN
preservation (smallvis.metrics.knn_preservation) computed within a random
subsample of 5,000 points (the neighbours of the subsample in X and in Y).

Usage: python benchmarks/bench_sgd.py [--n 70000] [--repeats 1] [--skip-largevis]
       [--skip-tumap] [--largevis-epochs 1000 500]
"""

import argparse

import _common  # noqa: F401  (sets single-threaded environment first)
import numpy as np

import smallvis
from _common import median_time, print_table
from smallvis.metrics import knn_preservation


def gaussian_clusters(n, dim=50, n_clusters=20, latent_dim=5, seed=0):
    """``n`` points in ``n_clusters`` Gaussian clusters in ``dim`` dimensions.

    Each cluster is a ``latent_dim``-dimensional Gaussian mapped into ``dim``
    dimensions by its own random linear map, plus isotropic noise of sd 0.1,
    so that nearest neighbours carry structure (in full-rank Gaussian noise
    they would be nearly random).  Cluster centres have sd 4 per coordinate.
    """
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(n_clusters, dim))
    maps = rng.normal(scale=1.0 / np.sqrt(latent_dim), size=(n_clusters, latent_dim, dim))
    labels = rng.integers(n_clusters, size=n)
    latent = rng.normal(size=(n, latent_dim))
    X = centres[labels] + np.einsum("nl,nld->nd", latent, maps[labels])
    return X + rng.normal(scale=0.1, size=(n, dim)), labels


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=70_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--n-epochs", type=int, default=200)
    parser.add_argument("--skip-largevis", action="store_true")
    parser.add_argument("--skip-tumap", action="store_true")
    parser.add_argument("--largevis-epochs", type=int, nargs="*", default=[1000],
                        help="largevis runs (epochs of N samples; 1000 is its default "
                             "above 10,000 points); each timed once")
    parser.add_argument("--subsample", type=int, default=5000)
    args = parser.parse_args()
    _common.report_provenance()
    X, _ = gaussian_clusters(args.n)
    sub = np.random.default_rng(1).choice(len(X), size=min(args.subsample, len(X)),
                                          replace=False)
    rows, quality, timings = [], {}, {}

    def record(name, fn, repeats=None):
        med, times, Y = median_time(fn, repeats or args.repeats)
        rows.append((name, med, times))
        quality[name] = knn_preservation(X[sub], Y[sub], 15)
        print(f"{name:<40} {med:8.2f} s  15-NN preservation {quality[name]:.3f}",
              flush=True)

    def ours(method, n_epochs=args.n_epochs):
        def run():
            r = smallvis.embed(X, method, fast=True, optimizer="sgd", n_epochs=n_epochs,
                               random_state=0, n_threads=1, return_result=True)
            timings[method] = r.timings
            return r.Y
        return run

    try:
        from umap import UMAP
    except ImportError:
        UMAP = None
        print("umap-learn is not installed: skipping the peer")
    if UMAP is not None:
        warm = X[:5000]  # > 4096 points: umap-learn then JIT-compiles NNDescent too
        UMAP(n_jobs=1, n_epochs=20, random_state=0).fit_transform(warm)
        UMAP(n_jobs=1, n_epochs=20, a=1.0, b=1.0, random_state=0).fit_transform(warm)
        record("umap-learn UMAP(n_jobs=1)",
               lambda: UMAP(n_jobs=1, n_epochs=args.n_epochs).fit_transform(X))
    record("smallvis umap (sgd, fast=True)", ours("umap"))
    if UMAP is not None and not args.skip_tumap:
        record("umap-learn UMAP(n_jobs=1, a=1, b=1)",
               lambda: UMAP(n_jobs=1, n_epochs=args.n_epochs, a=1.0, b=1.0).fit_transform(X))
    if not args.skip_tumap:
        record("smallvis tumap (sgd, fast=True)", ours("tumap"))
    if not args.skip_largevis:
        for epochs in args.largevis_epochs:
            record(f"smallvis largevis (sgd, {epochs} epochs)", ours("largevis", epochs), 1)
    title = (f"SGD, {args.n} x {X.shape[1]} Gaussian clusters, {args.n_epochs} epochs "
             f"(largevis: as labelled, 1 run), 1 thread, median of {args.repeats} run(s)")
    baseline = rows[0][0]
    print_table(title, rows, baseline)
    print("\nsmallvis time split (s):")
    for method, t in timings.items():
        print(f"  {method:<10} " + "  ".join(f"{k} {v:.2f}" for k, v in t.items()))
    print("  (largevis: its last run)")
    print(f"\n15-NN preservation within a {len(sub)}-point subsample:")
    for name, q in quality.items():
        print(f"  {name:<40} {q:.3f}")


if __name__ == "__main__":
    main()
