"""The exact optimizer against the stochastic one below 5,000 points, on a panel.

``optimizer="auto"`` picks between the two forms of a method that has both
by the number of points.  This script scores the two side by side on the
sizes where the choice is made, at the method's defaults otherwise, so
that a change of that rule is chosen on a varied panel (GUIDE: image-like,
text compared by cosine, manifolds, clusters of unequal size and density,
real data) and not on one set.  Each call is::

    smallvis.embed(X, method, optimizer=o, random_state=seed, metric=m,
                   return_result=True)

with ``metric="cosine"`` for sparse data, on ``--threads`` threads.  Its
default, None, is the package's default (the cores the process may use)
only when the script runs with ``SMALLVIS_BENCH_DEFAULT_THREADS=1`` in the
environment; without it the benchmarks' one-thread cap
(``benchmarks/_common.py``) makes it 1.  The output's first lines say how
many ran.  umap-learn's ``UMAP(random_state=seed)`` (``metric="cosine"``
for sparse data; a seed makes it run on one thread) runs on the same data
beside ``umap``, when it is installed, its loops compiled first (untimed)
on both metrics.  With the seed-free ``spca`` start of dense data, the
exact optimizer draws the same map on every seed.

Data (``--data``, comma-separated):

* ``iris``, ``digits``, ``s1k``: the bundled sets;
* ``NAME:N``: ``N`` rows of ``NAME`` taken from its classes in turn
  (:func:`balanced_head`; the same rows for every seed), for the small
  sets where the rule's lower end is decided;
* any other name: ``DIR/NAME.npy`` (dense) or ``DIR/NAME.npz`` (sparse,
  :func:`scipy.sparse.save_npz`) with ``DIR/NAME_labels.npy``, as written
  by ``make_image_data.py``, ``make_text_data.py`` and
  ``make_panel_data.py`` (``--n 3000``).

Columns, medians over the seeds (then each seed's value where they differ):

* seconds: the call's wall clock;
* 10-NN accuracy (:func:`smallvis.metrics.knn_accuracy`; fewer neighbours
  when the smallest class has fewer than 11 points);
* 15-NN preservation (:func:`smallvis.metrics.knn_preservation`; cosine
  neighbours in X for sparse data);
* pieces per class (``bench_real.pieces_per_class``; needs scikit-learn);
* strays: points whose nearest other point in the map is farther than
  :data:`STRAY_FACTOR` times the median distance to the 15th nearest: a
  point thrown out of the map, whatever the shape of its class.

Usage: python benchmarks/bench_small_optimizer.py [DIR] [--methods umap,tumap]
       [--data iris,digits,...] [--seeds 3] [--threads N]
"""

import argparse
import statistics
import time
import warnings

import _common  # noqa: F401  (one BLAS thread)
import numpy as np
import scipy.sparse as sp
from scipy.spatial import cKDTree

import smallvis
from smallvis import datasets
from smallvis._threads import default_threads
from smallvis.metrics import knn_accuracy, knn_preservation
from bench_real import pieces_per_class

OPTIMIZERS = ("exact", "sgd")
#: A point is a stray when its nearest other point in the map lies farther
#: than this many times the median distance to the 15th nearest point.
STRAY_FACTOR = 3.0


def balanced_head(labels, n, seed):
    """``n`` rows taken from the classes in turn, each class's rows in a seeded shuffle.

    A class runs out before the others only when it has fewer than
    ``n / n_classes`` rows, so small classes are over-represented.
    """
    rng = np.random.default_rng(seed)
    per_class = [rng.permutation(np.flatnonzero(labels == c)) for c in np.unique(labels)]
    order = [rows[i] for i in range(max(map(len, per_class)))
             for rows in per_class if i < len(rows)]
    return np.sort(np.asarray(order[:n]))


def load(name, data_dir):
    """X, labels and the metric of one panel member."""
    base, _, size = name.partition(":")
    if base in datasets.names():
        X, labels = datasets.load(base)
    else:
        try:
            X = np.load(f"{data_dir}/{base}.npy")
        except FileNotFoundError:
            X = sp.load_npz(f"{data_dir}/{base}.npz").tocsr()
        labels = np.load(f"{data_dir}/{base}_labels.npy")
    if size:
        rows = balanced_head(labels, int(size), 0)
        X, labels = X[rows], labels[rows]
    metric = "cosine" if sp.issparse(X) else "euclidean"
    return X, labels, metric


def strays(Y, k=15):
    """Points whose nearest other map point is beyond ``STRAY_FACTOR`` times the median ``k``-th."""
    k = min(k, len(Y) - 1)
    dist, _ = cKDTree(Y).query(Y, k=k + 1)
    return int(np.count_nonzero(dist[:, 1] > STRAY_FACTOR * np.median(dist[:, k])))


def preservation(X, Y, metric, k=15):
    k = min(k, len(Y) - 2)
    if metric == "cosine":
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1))).ravel()
        X = sp.diags(1.0 / np.maximum(norms, 1e-300)) @ X
        X = X.toarray()
    return knn_preservation(np.asarray(X, dtype=float), Y, k)


def score(X, labels, metric, Y, seconds):
    # a small set's smallest class bounds the vote's neighbours
    k = max(1, min(10, int(np.bincount(np.unique(labels, return_inverse=True)[1]).min()) - 1))
    return {"s": seconds, "acc": knn_accuracy(Y, labels, k),
            "pres": preservation(X, Y, metric),
            "pieces": pieces_per_class(Y, labels, k=min(15, len(Y) - 1),
                                       min_samples=min(10, max(2, len(Y) // 20))),
            "strays": strays(Y)}


def run_smallvis(X, metric, method, optimizer, seed, threads):
    start = time.perf_counter()
    result = smallvis.embed(X, method, optimizer=optimizer, random_state=seed,
                            metric=metric, n_threads=threads, return_result=True)
    return result.Y, time.perf_counter() - start


def run_umap_learn(X, metric, seed):
    import umap
    start = time.perf_counter()
    Y = umap.UMAP(metric=metric, random_state=seed).fit_transform(X)
    return np.asarray(Y, dtype=float), time.perf_counter() - start


def cell(runs, key, fmt):
    values = [r[key] for r in runs]
    med = fmt.format(statistics.median(values))
    each = [fmt.format(v) for v in values]
    return med if len(set(each)) == 1 else f"{med} ({', '.join(each)})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", nargs="?", default=".")
    parser.add_argument("--methods", default="umap,tumap")
    parser.add_argument("--data", default="iris,digits,s1k")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    _common.report_provenance()
    threads = args.threads if args.threads is not None else default_threads()
    print(f"# threads: smallvis {threads}", flush=True)
    # small sets lower n_neighbors with a warning, and umap-learn warns
    # that a seed turns its threads off: the table says what ran
    warnings.simplefilter("ignore")
    try:
        import umap
        # numba compiles umap-learn's loops on the first call of each kind
        # (seeded, each metric and input type): not timed
        warm = np.abs(np.random.default_rng(0).normal(size=(300, 20)))
        umap.UMAP(n_epochs=2, random_state=0).fit_transform(warm)
        umap.UMAP(n_epochs=2, random_state=0, metric="cosine").fit_transform(
            sp.csr_matrix(warm))
        peer = True
    except ImportError:
        peer = False
    rows = []
    for name in args.data.split(","):
        X, labels, metric = load(name, args.data_dir)
        for method in args.methods.split(","):
            arms = [(method, o) for o in OPTIMIZERS]
            if method == "umap" and peer:
                arms.append(("umap-learn", "sgd"))
            for who, optimizer in arms:
                runs = []
                for seed in range(args.seeds):
                    if who == "umap-learn":
                        Y, secs = run_umap_learn(X, metric, seed)
                    else:
                        Y, secs = run_smallvis(X, metric, who, optimizer, seed, args.threads)
                    runs.append(score(X, labels, metric, Y, secs))
                row = (name, f"{who} {optimizer}" if who != "umap-learn" else who,
                       cell(runs, "s", "{:.1f}"), cell(runs, "acc", "{:.3f}"),
                       cell(runs, "pres", "{:.3f}"), cell(runs, "pieces", "{:.2f}"),
                       cell(runs, "strays", "{:.0f}"))
                rows.append(row)
                print(" | ".join(row), flush=True)
    print("\n| data | call | seconds | 10-NN accuracy | 15-NN preservation "
          "| pieces per class | strays |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
