"""Annoy + refinement vs exact k-nearest neighbours on synthetic 50-D data, one thread.

Two datasets (fixed seeds), chosen to bracket what Annoy finds easy and hard:

* ``full``: 20 Gaussian clusters in 50 dimensions, centres drawn from
  N(0, 3^2), unit isotropic (full-rank) spread.  Within a cluster the
  neighbours are nearly random, the hard case for random projections.
* ``lowrank``: 20 clusters of intrinsic dimension 5 mapped into 50
  dimensions plus noise of sd 0.1 (``gaussian_clusters`` of bench_sgd.py),
  the structured case real data resemble.

Default mode: times ``smallvis.inputs.neighbors.knn_graph`` with ``method="exact"``
and ``method="annoy"`` (defaults, and variants without refinement or with
the whole-list refinement) and prints the median of the runs, the speed-ups
and each search's recall of the exact neighbour sets.

``--affinity``: t-SNE's input P (perplexity 30, k = 90 neighbours,
calibration and symmetrisation, Cython kernels, one thread) against
openTSNE's ``PerplexityBasedNN(X, perplexity=30, n_jobs=1, method="annoy")``
on the same data (when openTSNE is installed), with each one's recall of the
exact 90 neighbours on 1,000 sampled rows; runs alternate, CPU and wall
seconds, median of ``--repeats``.

``--curve``: the recall/time curve used to choose the defaults: for each
dataset, a grid of (n_trees, search_k / (n_trees (k + 1)), n_explore), each
run once with up to 4 refinement rounds, printing CPU seconds (robust on a
shared machine), wall seconds and recall.

``--stages FILE``: the kNN stage of ``knn_graph(X, k, method=...,
fast=True)`` (``--knn-method``, default "auto" as in ``embed``) on
real-shaped data (the first ``--n`` rows of a dense ``.npy`` from
make_image_data.py or a sparse ``.npz`` from make_text_data.py), split
into its sub-stages (projection, leaf order, forest, Annoy queries,
candidate distances, refinement rounds, exact distances, the recall
check), each in CPU seconds (``time.process_time``: robust on a shared
machine), median of ``--repeats``, and the recall of the exact ``k``
neighbours on 2,000 sampled rows (ranked by BLAS products, so near ties
may swap).

Usage: python benchmarks/bench_knn.py [--repeats 3] [--n 20000] [--dim 50] [--k 15]
       [--data full lowrank] [--curve | --affinity]
       python benchmarks/bench_knn.py --stages FILE [--n 20000] [--k 150]
       [--metric euclidean] [--knn-method auto] [--knn-trees 7] [--threads 1]
       [--repeats 3]
"""

import argparse
import functools
import statistics
import time

import _common  # noqa: F401  (sets single-threaded environment first)
import numpy as np

from _common import median_time, print_table
from bench_sgd import gaussian_clusters
from smallvis.inputs.neighbors import default_n_explore, default_search_k, knn_graph

CURVE_TREES = (5, 7, 10)
CURVE_SEARCH = (0.5, 1.0, 2.0)
CURVE_EXPLORE = (10, 20, None)  # None: whole lists (n_explore = k)


def synthetic(n, dim, n_clusters=20, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 3.0, size=(n_clusters, dim))
    labels = np.arange(n) % n_clusters
    return centres[labels] + rng.standard_normal((n, dim))


def dataset(name, n, dim):
    return synthetic(n, dim) if name == "full" else gaussian_clusters(n, dim)[0]


def recall(exact, approx):
    k = exact.shape[1]
    return np.mean([len(np.intersect1d(a, b)) for a, b in zip(exact, approx)]) / k


def table(X, name, args):
    k = args.k
    rows, results = [], {}
    runs = {
        "exact": dict(method="exact"),
        "annoy (defaults)": dict(method="annoy"),
        "annoy (defaults, no refinement)": dict(method="annoy", n_refine=0),
        "annoy (whole-list refinement)": dict(method="annoy", n_explore=k),
        "annoy (7 trees, as optimizer='sgd')": dict(method="annoy", n_trees=7),
    }
    for label, kwargs in runs.items():
        med, times, res = median_time(
            lambda: knn_graph(X, k, random_state=0, n_threads=1, fast=True, **kwargs),
            args.repeats)
        rows.append((label, med, times))
        results[label] = res
    print_table(f"{k}-NN of {args.n} x {args.dim} '{name}' points, 1 thread "
                f"(default n_explore = {default_n_explore(k)}, search_k = "
                f"{default_search_k(10, k)} for 10 trees)", rows, baseline="exact")
    exact = results["exact"][0]
    print(f"\nrecall of the exact {k}-NN:")
    for label, (approx, _) in results.items():
        if label != "exact":
            print(f"  {label:<40} {recall(exact, approx):.4f}")


def curve(X, name, args):
    k = args.k
    exact = knn_graph(X, k, method="exact")[0]
    print(f"\nrecall/time curve, {k}-NN of {args.n} x {args.dim} '{name}' points, 1 thread")
    print(f"{'trees':>5} {'search_k':>8} {'explore':>7} {'cpu s':>7} {'wall s':>7} {'recall':>7}")
    for n_trees in args.trees:
        for mult in CURVE_SEARCH:
            search_k = int(mult * default_search_k(n_trees, k))
            for explore in CURVE_EXPLORE:
                explore = k if explore is None else explore
                c, t = time.process_time(), time.perf_counter()
                idx, _ = knn_graph(X, k, method="annoy", n_trees=n_trees, search_k=search_k,
                                   n_explore=explore, random_state=0, n_threads=1, fast=True)
                c, t = time.process_time() - c, time.perf_counter() - t
                print(f"{n_trees:>5} {search_k:>8} {explore:>7} {c:>7.2f} {t:>7.2f} "
                      f"{recall(exact, idx):>7.4f}", flush=True)


def sampled_recall(X, indices, k, n_rows=1000):
    """Recall of the exact k-NN on ``n_rows`` sampled rows (brute force)."""
    from scipy.spatial.distance import cdist

    rows = np.random.default_rng(0).choice(len(X), size=min(n_rows, len(X)), replace=False)
    D = cdist(X[rows], X, "sqeuclidean")
    D[np.arange(len(rows)), rows] = np.inf
    exact = np.argpartition(D, k - 1, axis=1)[:, :k]
    return recall(exact, indices[rows][:, :k])


def affinity(X, name, args):
    import importlib
    import statistics

    from smallvis.backends import _kernels

    aff = importlib.import_module("smallvis.inputs.affinities")
    try:
        from openTSNE.affinity import PerplexityBasedNN
    except ImportError:
        PerplexityBasedNN = None
        print("openTSNE is not installed: smallvis only")
    runs = {"smallvis joint_perplexity_knn (Cython)": lambda: aff.joint_perplexity_knn(
        X, 30.0, _kernels, knn_method="annoy", random_state=0, n_threads=1)}
    if PerplexityBasedNN is not None:
        runs["openTSNE PerplexityBasedNN (annoy)"] = lambda: PerplexityBasedNN(
            X, perplexity=30, n_jobs=1, method="annoy", random_state=0)
    cpu = {r: [] for r in runs}
    wall = {r: [] for r in runs}
    last = {}
    for _ in range(args.repeats):
        for label, fn in runs.items():
            c, t = time.process_time(), time.perf_counter()
            last[label] = fn()
            cpu[label].append(time.process_time() - c)
            wall[label].append(time.perf_counter() - t)
    first = next(iter(runs))
    print(f"\nt-SNE P (perplexity 30, 90 neighbours) of {args.n} x {args.dim} '{name}' "
          f"points, 1 thread, {args.repeats} alternating rounds")
    print(f"{'implementation':<40} {'cpu s':>7} {'wall s':>7} {'cpu ratio':>10} {'recall':>7}")
    # the same search as inside joint_perplexity_knn (same seed), for the recall
    ours = knn_graph(X, 90, method="annoy", random_state=0, n_threads=1, fast=True)[0]
    for label in runs:
        ratio = statistics.median(a / b for a, b in zip(cpu[label], cpu[first]))
        if label == first:
            rec = sampled_recall(X, ours, 90)
        else:  # openTSNE keeps no neighbour lists: the same search again, untimed
            from openTSNE.nearest_neighbors import Annoy

            theirs = Annoy(X, 90, metric="euclidean", n_jobs=1, random_state=0).build()[0]
            rec = sampled_recall(X, theirs, 90)
        print(f"{label:<40} {statistics.median(cpu[label]):>7.2f} "
              f"{statistics.median(wall[label]):>7.2f} {ratio:>9.2f}x {rec:>7.4f}")


# (module, function) pairs whose CPU seconds --stages reports, by the names
# the search calls them under (the projected search's own forest under
# forest_build and forest_candidates)
STAGE_FUNCTIONS = (
    ("smallvis.inputs.projected_search", "fit_search_projection"),
    ("smallvis.inputs.projected_search", "leaf_order"),
    ("smallvis.inputs.search_forest", "build"),
    ("smallvis.inputs.search_forest", "candidates"),
    ("smallvis.inputs.neighbors", "build_forest"),
    ("smallvis.inputs.neighbors", "annoy_candidates"),
    ("smallvis.inputs.neighbors", "candidate_sq_distances"),
    ("smallvis.inputs.neighbors", "refine"),
    ("smallvis.inputs.projected_search", "exact_neighbours"),
    ("smallvis.inputs.neighbors", "fill_short_rows"),
    ("smallvis.inputs.sparse_search", "annoy_candidates"),
    ("smallvis.inputs.sparse_search", "candidate_sq_distances"),
    ("smallvis.inputs.sparse_search", "refine"),
    ("smallvis.inputs.sparse_search", "build_forest"),
)


def _timed_stages(seconds):
    """Wrap :data:`STAGE_FUNCTIONS` so that each call adds its CPU seconds to ``seconds``."""
    import importlib

    for module_name, name in STAGE_FUNCTIONS:
        module = importlib.import_module(module_name)
        if not hasattr(module, name):
            continue
        function = getattr(module, name)

        own = f"forest_{name}" if module_name.endswith(".search_forest") else name

        def timed(*args, _function=function, _name=name, _own=own, **kwargs):
            label = kwargs.get("label", _name) if _name == "candidate_sq_distances" else _own
            start = time.process_time()
            try:
                return _function(*args, **kwargs)
            finally:
                seconds[label] = seconds.get(label, 0.0) + time.process_time() - start

        setattr(module, name, functools.wraps(function)(timed))


def load_rows(path, n):
    """The first ``n`` rows of a dense ``.npy`` (as float64) or a sparse ``.npz``."""
    import scipy.sparse as sp

    if path.endswith(".npz"):
        return sp.load_npz(path).tocsr()[:n]
    return np.ascontiguousarray(np.load(path, mmap_mode="r")[:n], dtype=np.float64)


def sampled_exact(X, k, metric, n_rows=2000):
    """Sampled rows and their exact ``k`` neighbours, ranked by BLAS products."""
    import scipy.sparse as sp

    rows = np.sort(np.random.default_rng(0).choice(X.shape[0], min(n_rows, X.shape[0]),
                                                   replace=False))
    if metric == "cosine":  # unit rows: the cosine ranks as the Euclidean distance
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
                        else np.einsum("ij,ij->i", X, X))
        X = sp.diags(1.0 / norms) @ X if sp.issparse(X) else X / norms[:, None]
    sq = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
          else np.einsum("ij,ij->i", X, X))
    G = X[rows] @ X.T
    d2 = sq[rows, None] + sq[None, :] - 2.0 * (G.toarray() if sp.issparse(G) else G)
    d2[np.arange(len(rows)), rows] = np.inf
    return rows, np.argpartition(d2, k - 1, axis=1)[:, :k]


def stages(args):
    X = load_rows(args.stages, args.n)
    k = args.k
    seconds = {}
    _timed_stages(seconds)
    runs = []
    for _ in range(args.repeats):
        seconds.clear()
        c, t = time.process_time(), time.perf_counter()
        indices = knn_graph(X, k, method=args.knn_method, n_trees=args.knn_trees, random_state=0,
                            n_threads=args.threads, fast=True, metric=args.metric)[0]
        seconds["kNN stage (total)"] = time.process_time() - c
        seconds["kNN stage, wall"] = time.perf_counter() - t
        runs.append(dict(seconds))
    rows, exact = sampled_exact(X, k, args.metric)
    print(f"\n{k}-NN of {X.shape[0]} x {X.shape[1]} rows of {args.stages} "
          f"({args.knn_method}, {args.metric}, {args.knn_trees} trees, {args.threads} thread(s)), "
          f"CPU seconds, median of {args.repeats}")
    for label in runs[0]:
        values = [run.get(label, 0.0) for run in runs]
        print(f"  {label:<40} {statistics.median(values):>7.2f}   "
              + " ".join(f"{v:.2f}" for v in values))
    print(f"  recall of the exact {k}-NN on {len(rows)} rows: "
          f"{recall(exact, indices[rows]):.4f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--dim", type=int, default=50)
    parser.add_argument("--k", type=int, default=15)
    parser.add_argument("--data", nargs="+", default=["full", "lowrank"],
                        choices=["full", "lowrank"])
    parser.add_argument("--curve", action="store_true",
                        help="print the recall/time grid instead of the table")
    parser.add_argument("--affinity", action="store_true",
                        help="t-SNE's P (k = 90) against openTSNE's affinity step")
    parser.add_argument("--trees", type=int, nargs="+", default=list(CURVE_TREES),
                        help="--curve: the n_trees of the grid")
    parser.add_argument("--stages", metavar="FILE",
                        help="CPU seconds of each sub-stage of the kNN stage on FILE "
                             "(.npy dense or .npz sparse), and its recall")
    parser.add_argument("--metric", default="euclidean", help="--stages: the metric")
    parser.add_argument("--knn-method", default="auto", choices=["auto", "exact", "annoy"],
                        help="--stages: the search (auto: embed's default)")
    parser.add_argument("--knn-trees", type=int, default=7,
                        help="--stages: n_trees (7: the stochastic optimizer's default)")
    parser.add_argument("--threads", type=int, default=1, help="--stages: n_threads")
    args = parser.parse_args()
    _common.report_provenance()
    if args.stages:
        stages(args)
        return
    for name in args.data:
        X = dataset(name, args.n, args.dim)
        (curve if args.curve else affinity if args.affinity else table)(X, name, args)


if __name__ == "__main__":
    main()
