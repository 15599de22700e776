"""The attraction-repulsion spectrum, measured: Neg-t-SNE's z_bar, InfoNCE's m, late exaggeration, dof.

Each row is one ``smallvis.embed(X, method, fast=True, random_state=0,
**setting)`` with everything else at its default (the exact optimizer at
these sizes, unless the row says ``sgd``):

* ``negtsne`` along a log grid of its fixed normalisation Z̄ (``z_bar``),
  from 0.1 N, well below t-SNE's partition function Z = Σ_{k≠l} 1/(1 + d_kl²)
  at t-SNE's map (printed above each table), to N(N − 1)/m, where
  c = Z̄ m/(N(N − 1)) = 1, UMAP's balance of negative sampling
  (docs/theory.md §3.10);
* ``infonce`` (stochastic at every size) with m = ``negative_sample_rate``
  1, 2, 5, 20, 100 negatives per positive sample (docs/theory.md §3.11);
* ``tsne`` with ``late_exaggeration`` 2, 4, 8 (Böhm, Berens & Kobak 2022);
* ``tsne`` with ``dof`` 0.5, 2, 100 (Kobak et al. 2019);
* ``tsne`` (which is ``late_exaggeration=1``, ``dof=1``), ``ncvis`` and
  ``umap`` at their defaults, and ``umap`` with its stochastic optimizer.

Columns: 10-NN accuracy of the labels; 15-NN preservation and
trustworthiness (15 neighbours) of the data's neighbourhoods; a global
measure, the Spearman correlation of the distances of 20,000 random pairs
in X and in Y (:func:`distance_correlation`); the map's span; the 15-NN
overlap of each map with the default tsne and umap maps (the share of a
point's 15 map neighbours that are also its 15 neighbours in that map).
Data: ``digits`` (N = 1,797) and ``curves3k`` (3,000 points of
``smallvis.datasets.curved_clusters``, ten classes on curved sheets in
50-D).

What the numbers show (one run of this script, one thread).  In
smallvis's convention, which is the paper's (the model is q = φ/Z̄), the
LARGEST Z̄, N(N − 1)/m, is the UMAP-like end: the most compact map (span 36
on digits, 45 on curves, as stochastic umap's 29 and 28 and ncvis's 34 and
29) with the lowest 15-NN preservation (0.468, 0.268; stochastic umap
0.533, 0.320), as t-SNE with late exaggeration 4 (0.452, 0.273), which
Böhm et al. find UMAP-like.  Shrinking Z̄ adds repulsion: the local
measures rise and level off from about 10 N down, near t-SNE's own
partition function (6.6 N on digits, 16 N on curves), a little below
t-SNE's (15-NN preservation 0.546 against 0.588 on digits, 0.372 against
0.410 on curves); below about N the map only spreads further (past t-SNE).
Issue 27 put it the other way round ("small Z̄ is close to umap"): that is
true of 1/Z̄, not of Z̄ as defined here.  The global measure does not fall
along the way for Neg-t-SNE: on digits the distance correlation rises as Z̄
shrinks (0.408 to 0.545; stochastic umap 0.377, tsne 0.515), on curves it
stays at 0.60.  Late exaggeration walks tsne toward the UMAP end (local
measures fall); its distance correlation rises on curves (0.510 to 0.576)
and falls on digits (0.515 to 0.433).  Every negtsne map shares more
neighbours with tsne's map than with exact umap's (which is itself less
compact than stochastic umap's).  dof = 0.5 loses a little of the local
measures (it splits clusters: tutorial 08); dof = 100 approaches ssne.

InfoNCE (stochastic, one run each of ``--only infonce,ncvis``) walks the
same way with m, as Damrich et al. find: more negatives, closer to t-SNE.
On digits, m = 1, 2, 5, 20, 100 give 15-NN preservation 0.507, 0.523,
0.543, 0.570, 0.594 (ncvis 0.509, tsne 0.588), trustworthiness 0.982 to
0.992 (tsne 0.990), spans 51, 60, 73, 101, 123 (tsne 137) and a 15-NN
overlap with tsne's map from 0.574 to 0.648, while the distance correlation
falls from 0.432 to 0.392 (tsne 0.515).  On curves the preservation rises
from 0.342 to 0.403 (tsne 0.410), the span from 45 to 120 (tsne 119) and
the overlap with tsne from 0.506 to 0.563; the distance correlation stays
at 0.55-0.57.  The 10-NN accuracy is 0.974-0.982 on digits, 0.996-0.998
on curves.  The run's time grows with m (digits: 3.9 s at m = 1, 76 s at
100, on a loaded machine).

Usage::

    python benchmarks/bench_spectrum.py [--quick] [--data digits,curves3k]

``--quick``: digits only, three values of each knob counting the tsne row.
"""

import argparse
import time

import _common  # noqa: F401  (one BLAS thread)
import numpy as np
from scipy.spatial.distance import pdist
from scipy.stats import spearmanr

import smallvis
from smallvis import datasets
from smallvis.metrics import knn_accuracy, knn_preservation, trustworthiness

DATA = ("digits", "curves3k")
#: Z̄ in units of N; the grid ends at N (N - 1) / m (c = 1).
Z_BAR_PER_N = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
LATE_EXAGGERATION = (2.0, 4.0, 8.0)
DOF = (0.5, 2.0, 100.0)
INFONCE_NEGATIVES = (1, 2, 5, 20, 100)
QUICK = {"z_bar": (1.0, 10.0), "late": (2.0, 4.0), "dof": (0.5, 2.0), "infonce": (1, 20)}
NEGATIVE_SAMPLE_RATE = 5.0
N_PAIRS = 20_000
K_ACCURACY, K_LOCAL = 10, 15


def sampled_pairs(n_samples, n_pairs, rng):
    """``n_pairs`` random pairs ``(i, j)`` of distinct points, drawn with replacement.

    Returns
    -------
    i, j : ndarray of int
        Each pair drawn uniformly among the ``n (n - 1) / 2`` unordered pairs.
    """
    i = rng.integers(0, n_samples, n_pairs)
    j = (i + rng.integers(1, n_samples, n_pairs)) % n_samples
    return i, j


def distance_correlation(X, Y, n_pairs=N_PAIRS, random_state=0):
    """Spearman correlation of the distances of the same pairs in ``X`` and ``Y``.

    A global measure: 1 when the map orders all distances as the data do,
    whatever it does to their sizes.

    Parameters
    ----------
    X, Y : ndarray of shape (n_samples, n_features) and (n_samples, n_components)
    n_pairs : int or None
        Random pairs of distinct points (:func:`sampled_pairs`); ``None``:
        every pair once.
    random_state : int

    Returns
    -------
    float
    """
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    if n_pairs is None:
        dx, dy = pdist(X), pdist(Y)
    else:
        i, j = sampled_pairs(len(X), n_pairs, np.random.default_rng(random_state))
        dx = np.linalg.norm(X[i] - X[j], axis=1)
        dy = np.linalg.norm(Y[i] - Y[j], axis=1)
    return float(spearmanr(dx, dy)[0])


def partition_function(Y):
    r"""t-SNE's :math:`Z = \sum_{k \ne l} 1 / (1 + d_{kl}^2)` of a map (ordered pairs)."""
    return 2.0 * float(np.sum(1.0 / (1.0 + pdist(Y, "sqeuclidean"))))


def measures(X, labels, Y):
    """The row's quality columns: accuracy, preservation, trustworthiness, distance correlation."""
    return (knn_accuracy(Y, labels, K_ACCURACY), knn_preservation(X, Y, K_LOCAL),
            trustworthiness(X, Y, K_LOCAL), distance_correlation(X, Y))


def settings(n_samples, quick):
    """(label, method, parameters) of every row."""
    grid = QUICK if quick else {"z_bar": Z_BAR_PER_N, "late": LATE_EXAGGERATION, "dof": DOF,
                                "infonce": INFONCE_NEGATIVES}
    umap_like = n_samples * (n_samples - 1.0) / NEGATIVE_SAMPLE_RATE
    rows = [("tsne", "tsne", {}), ("ncvis", "ncvis", {}), ("umap", "umap", {}),
            ("umap sgd", "umap", {"optimizer": "sgd"})]
    for per_n in grid["z_bar"]:
        rows.append((f"negtsne z_bar={per_n:g} N", "negtsne", {"z_bar": per_n * n_samples}))
    rows.append(("negtsne z_bar=N(N-1)/m", "negtsne", {"z_bar": umap_like}))
    for m in grid["infonce"]:
        rows.append((f"infonce m={m}", "infonce", {"negative_sample_rate": m}))
    for late in grid["late"]:
        rows.append((f"tsne late_exaggeration={late:g}", "tsne", {"late_exaggeration": late}))
    for dof in grid["dof"]:
        rows.append((f"tsne dof={dof:g}", "tsne", {"dof": dof}))
    return rows


def load(name):
    if name.startswith("curves"):
        return datasets.curved_clusters(int(name[len("curves"):-1]) * 1000)
    return datasets.load(name)


def run_data(name, quick, only=None):
    """Print and return the rows of one data set (of the methods in ``only``, if given)."""
    X, labels = load(name)
    maps, times = {}, {}
    for label, method, params in settings(len(X), quick):
        if only is not None and method not in only and label not in ("tsne", "umap"):
            continue
        start = time.perf_counter()
        maps[label] = smallvis.embed(X, method, fast=True, random_state=0, **params)
        times[label] = time.perf_counter() - start
    rows = [(label, *measures(X, labels, Y), np.ptp(Y, axis=0).max(),
             knn_preservation(maps["tsne"], Y, K_LOCAL),
             knn_preservation(maps["umap"], Y, K_LOCAL), times[label])
            for label, Y in maps.items()]
    print(f"\n{name} (N = {len(X)}): t-SNE's partition function at its map "
          f"Z = {partition_function(maps['tsne']):.3g} = "
          f"{partition_function(maps['tsne']) / len(X):.2g} N; N(N - 1)/m = "
          f"{len(X) * (len(X) - 1) / NEGATIVE_SAMPLE_RATE:.3g}\n")
    print("| setting | 10-NN acc | 15-NN pres | trust | dist corr | span | "
          "15-NN ∩ tsne | 15-NN ∩ umap | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, *values, elapsed in rows:
        cells = " | ".join(f"{v:.3f}" for v in values[:4])
        cells += f" | {values[4]:.0f} | {values[5]:.3f} | {values[6]:.3f} | {elapsed:.1f}"
        print(f"| {label} | {cells} |", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="digits only, three values of each knob counting the tsne row")
    parser.add_argument("--only", default=None,
                        help="comma-separated methods: only their rows, and the tsne and "
                             "umap rows the overlap columns need")
    parser.add_argument("--data", default=None,
                        help=f"comma-separated, from {', '.join(DATA)} (default: all; "
                             "--quick: digits)")
    args = parser.parse_args()
    _common.report_provenance()
    names = args.data.split(",") if args.data else (["digits"] if args.quick else list(DATA))
    unknown = sorted(set(names) - set(DATA))
    if unknown:
        parser.error(f"--data: unknown {unknown}; allowed: {', '.join(DATA)}")
    only = None if args.only is None else set(args.only.split(","))
    for name in names:
        run_data(name, args.quick, only)


if __name__ == "__main__":
    main()
