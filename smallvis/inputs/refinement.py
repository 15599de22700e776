"""From candidate lists to the ``k`` nearest: candidate distances and refinement rounds.

:func:`candidate_sq_distances` keeps the best ``k`` of each row's
candidates by exact distances (the twin kernel ``knn_candidates``);
:func:`refine` runs rounds of neighbour-of-neighbour refinement (the twin
kernel ``knn_refine``: NN-descent's local join, LargeVis's neighbour
exploring), each examining the ``n_explore`` nearest neighbours of each
neighbour, until a round changes nothing.
"""

import time

import numpy as np

from .. import _progress


#: Default rounds of neighbour-of-neighbour refinement after an Annoy search
#: (at most: they stop when a round changes nothing).
ANNOY_DEFAULT_REFINE = 4

#: Candidate budget of a refinement round per point: by default a round
#: examines the ``n_explore = max(10, min(k, ANNOY_EXPLORE_BUDGET // k))``
#: nearest neighbours of each of the ``k`` neighbours (LargeVis's neighbour
#: exploring; NN-descent joins whole lists).  A round costs about
#: ``k * n_explore`` distances per point, so whole lists (``k**2``) are
#: examined up to k = 44 and a window of 22 at k = 90 (t-SNE), 13 at
#: k = 150 (LargeVis): recall 0.99 or better at a fraction of the cost of
#: whole lists there (benchmarks/bench_knn.py).
ANNOY_EXPLORE_BUDGET = 2000


def default_n_explore(n_neighbors):
    """``n_explore`` when none is given (see :data:`ANNOY_EXPLORE_BUDGET`)."""
    return max(10, min(n_neighbors, ANNOY_EXPLORE_BUDGET // n_neighbors))


def candidate_sq_distances(X, cand, k, n_threads, kernels, metric_code=0, order=None,
                           label="candidate distances"):
    """The best ``k`` of each row's candidates (twin kernel ``knn_candidates``).

    Returns int32 indices and float64 squared distances of shape (n, k), in
    the package order, padded with index -1 and distance inf where a row
    has fewer than ``k`` candidates other than itself (the refinement and
    :func:`smallvis.inputs.exact_search.fill_short_rows` fill those
    slots).  ``order`` (a permutation of the rows, int64) is the order the
    rows are visited in; it changes the speed only.  ``label`` names the step in the progress lines.
    """
    t = time.perf_counter()
    n = X.shape[0]
    if order is not None and (order.dtype != np.int64 or order.shape != (n,)):
        raise ValueError(f"order must be an int64 permutation of {n} rows")
    indices = np.empty((n, k), dtype=np.int32)
    sq_dist = np.empty((n, k))
    progress = _progress.counter("kNN", label, n)
    for start, stop in progress.spans():  # one span when not reporting
        kernels.knn_candidates(X, cand, indices, sq_dist, n_threads, metric_code, start, stop,
                               order)
    _progress.step("kNN", label, t)
    return indices, sq_dist


def refine(X, indices, sq_dist, n_rounds, n_explore, n_threads, kernels, metric_code=0):
    """``n_rounds`` of the twin kernel ``knn_refine`` (squared distances).

    The rounds read the previous round's indices and flags (two copies
    of each), but a row reads only its own distances: ``sq_dist`` is
    updated in place, one array of 8 bytes per neighbour fewer.  The
    caller's ``sq_dist`` is overwritten.
    """
    flags = np.full(indices.shape, 3, dtype=np.uint8)
    out_indices = np.empty_like(indices)
    out_flags = np.empty_like(flags)
    for round_number in range(1, n_rounds + 1):
        t = time.perf_counter()
        n_changed = 0
        progress = _progress.counter("kNN", f"refinement round {round_number}, rows",
                                     indices.shape[0])
        for start, stop in progress.spans():  # one span when not reporting
            n_changed += kernels.knn_refine(X, indices, sq_dist, flags, n_explore,
                                            out_indices, sq_dist, out_flags, n_threads,
                                            metric_code, start, stop)
        indices, out_indices = out_indices, indices
        flags, out_flags = out_flags, flags
        _progress.step("kNN", f"refinement round {round_number} "
                       f"({n_changed} rows changed)", t)
        if not n_changed:
            break
    return indices, sq_dist
