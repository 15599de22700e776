"""Exact nearest neighbours by brute force, and the tie rule every search shares.

:func:`sq_distances` is the one place a search measures a Euclidean
distance; :func:`select_nearest` and :func:`k_smallest` pick the ``k``
nearest by the package's tie rule ((snapped squared distance, index),
:func:`smallvis._numeric.tie_key`); :func:`exact_neighbors` is the brute
force search of the training points, in blocks of rows, and
:func:`fill_short_rows` the brute force of the rows an approximate search
left short.  :func:`monotone_finish` turns the core distances of sorted
rows into the metric's distances.
"""

import numpy as np
from scipy.spatial.distance import cdist

from .. import _progress
from .._numeric import tie_key as _tie_key
from . import distances as metrics


# Rows per cdist block of the exact search: the block's distance matrix has
# BLOCK_ELEMENTS / N rows, about 32 MB of float64.
BLOCK_ELEMENTS = 4_000_000


def sq_distances(A, B):
    """Squared distances between the rows of ``A`` and the rows of ``B``.

    The one place where the searches measure a distance: the exact search
    of the training points and of new points, the candidates of new points
    on the Annoy path, far points and rows Annoy left short.  Euclidean
    (:func:`scipy.spatial.distance.cdist` ``"sqeuclidean"``: each square
    summed feature by feature, in order, from differences, so duplicates are
    at exactly 0 and the Annoy path's twin kernels ``knn_candidates`` and
    ``knn_refine``, which sum in the same order, give the same bits).  The
    core quantity of the Euclidean, cosine and correlation metrics
    (:func:`smallvis.inputs.distances.core_distances`).
    """
    return cdist(A, B, "sqeuclidean")


def select_nearest(d2, cand, k):
    """The ``k`` candidates with smallest (snapped ``d2``, index); sorted."""
    order = np.lexsort((cand, _tie_key(d2)))[:k]
    return cand[order], d2[order]


def k_smallest(D2, k):
    """Per row of ``D2``, the columns of its ``k`` smallest entries, and the entries.

    The package's tie rule: ordered by (:func:`smallvis._numeric.tie_key`
    of the squared distance, index).  Every column at (up to rounding) the
    ``k``-th smallest value of its row is a candidate, so ties, however
    many, resolve by index.
    """
    kth = np.partition(D2, k - 1, axis=1)[:, k - 1]
    limit = kth * (1.0 + 1e-9)
    indices = np.empty((D2.shape[0], k), dtype=np.int64)
    sq_dist = np.empty((D2.shape[0], k))
    for r in range(D2.shape[0]):
        cand = np.flatnonzero(D2[r] <= limit[r])
        indices[r], sq_dist[r] = select_nearest(D2[r, cand], cand, k)
    return indices, sq_dist


def exact_neighbors(X, k, metric="euclidean"):
    """Each row's ``k`` nearest other rows of ``X`` by brute force, in blocks of rows.

    ``X`` holds :func:`smallvis.inputs.distances.prepare`'s rows; the
    distances are ``metric``'s, in the units of ``X``.
    """
    n = X.shape[0]
    indices = np.empty((n, k), dtype=np.int64)
    distances = np.empty((n, k), dtype=np.float64)
    block = max(1, BLOCK_ELEMENTS // n)
    progress = _progress.counter("kNN", "exact rows", n)
    for start in range(0, n, block):
        stop = min(n, start + block)
        D2 = metrics.core_distances(X[start:stop], X, metric)
        rows = np.arange(stop - start)
        D2[rows, start + rows] = np.inf  # never the point itself
        indices[start:stop], distances[start:stop] = k_smallest(D2, k)
        progress.advance(stop - start)
    return indices, monotone_finish(distances, metric, X.shape[1])


def monotone_finish(d2, metric, n_features, out=None):
    """The distances of core rows sorted up to rounding, made non-decreasing.

    Within a group of snapped ties the raw values can decrease by an ulp;
    the running maximum removes that (a change of at most ~1e-12 relative).
    ``out`` (may be ``d2``) receives the result (the square root of the
    running maximum for the Euclidean metric;
    :func:`smallvis.inputs.distances.finish`).
    """
    out = np.maximum.accumulate(d2, axis=1, out=out)
    return metrics.finish(out, metric, n_features, out=out)


def fill_short_rows(X, indices, sq_dist, metric="euclidean"):
    """Brute force the rows that still have empty slots (index -1)."""
    n, k = indices.shape
    for i in np.flatnonzero(indices[:, -1] < 0):
        others = np.delete(np.arange(n), i)
        row = metrics.core_distances(X[i:i + 1], X[others], metric)[0]
        indices[i], sq_dist[i] = select_nearest(row, others, k)
