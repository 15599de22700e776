"""Euclidean nearest neighbours: exact brute force or Annoy, one interface.

:func:`nearest_neighbors` returns, for every row of ``X``, the indices and
Euclidean (not squared) distances of its ``n_neighbors`` nearest *other*
rows.  **The point itself is never included**, even when it has duplicates
at distance 0: a duplicate is a real neighbour, the point is not.  Methods
whose convention counts the point itself (UMAP's ``n_neighbors``) ask for one
neighbour fewer and add the self column themselves (see
:func:`smallvis.affinities.umap_graph`).

Each row is sorted by increasing distance; equal distances are ordered by
increasing index.  "Equal" means equal to about 1e-12 relative (squared
distances are compared after rounding to a 40-bit mantissa), so that
mathematically equal distances that differ in their last bits only through
rounding (frequent on gridded data such as iris) also resolve by index.
The distances are always recomputed in float64 (Annoy works in float32),
so the two backends report identical distances for the neighbours they
agree on.

Where the data sit and what units they use does not matter.  Both backends
work on ``X`` divided by a power of two (exact), so data of size 1e-300 or
1e300 neither underflow nor overflow when squared, and the distances are
scaled back.  Annoy's float32 index is built from ``X`` centred in float64
(column means subtracted) and rescaled, so data far from the origin
relative to their spread (projected coordinates in metres, timestamps)
keep the digits that tell the points apart.  The float64 distances need no
centring: the difference of two nearby coordinates is exact however large
they are (Sterbenz's lemma).  Up to rounding of the input, the neighbours
of ``c X + b`` are those of ``X`` for any scale ``c`` and offset ``b``
(tests/test_metamorphic.py).

Backends
--------
``"exact"``
    Brute force over blocks of rows with :func:`scipy.spatial.distance.cdist`
    (squared Euclidean, computed from differences, not from the expanded
    ``|x|^2 + |y|^2 - 2 x.y`` form, so duplicates are at exactly 0).
    O(N^2 d) time, O(block N) memory.  Deterministic: ties at the k-th
    distance are resolved by index.
``"annoy"``
    Spotify's Annoy random-projection forest (``annoy.AnnoyIndex(d,
    "euclidean")``) built on the centred data, queried with a small
    ``search_k``, then up to ``n_refine`` rounds (default 4) of
    neighbour-of-neighbour refinement, the local join of NN-descent and the
    "neighbour exploring" of LargeVis (:func:`smallvis._kernels.knn_refine`):
    each point's list becomes the best ``k`` among its neighbours and the
    ``n_explore`` nearest neighbours of each of them.  After the first
    round only what changed is examined again, so the rounds get cheap
    quickly; they recover what the small forest missed for less than more
    trees would cost (benchmarks/bench_knn.py).  The Annoy queries (Annoy
    releases the GIL while it searches), the candidate distances and the
    refinement run on ``n_threads`` threads; the forest is built on one
    (Annoy's multi-threaded build gives a different forest for each number
    of threads, and even from run to run).  Approximate; deterministic for
    a fixed ``random_state`` (the forest is seeded with ``set_seed``; the
    rest has no randomness), and the same on any number of threads.
``"auto"``
    ``"exact"`` for ``N <= EXACT_MAX_N`` (4096), ``"annoy"`` above.  Up to a
    few thousand points brute force takes well under a second and is exact.
"""

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.spatial.distance import cdist

from . import _progress, _threads
from ._backend import kernels as select_kernels
from ._numeric import power_of_two_exponent, tie_key as _tie_key
from ._validation import check_data, check_integer, check_random_state, check_threads

__all__ = ["nearest_neighbors", "knn_graph", "NEIGHBOR_METHODS", "EXACT_MAX_N",
           "ANNOY_DEFAULT_TREES", "ANNOY_DEFAULT_REFINE", "ANNOY_MAX_TREES",
           "ANNOY_MAX_SEARCH_K"]

#: Backends accepted by :func:`nearest_neighbors`.
NEIGHBOR_METHODS = ("auto", "exact", "annoy")

#: ``method="auto"`` uses exact search up to this many points.
EXACT_MAX_N = 4096

#: Default number of Annoy trees.  The refinement that follows every search
#: recovers what a small forest misses, more cheaply than more trees or a
#: larger ``search_k``: 10 trees reach a recall of 0.995 of the exact 90
#: neighbours on the full-rank clusters of benchmarks/bench_knn.py, where
#: uwot's 50 trees without refinement took several times as long.
ANNOY_DEFAULT_TREES = 10

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


#: Most Annoy trees accepted (1000 trees on the 1797 digits take about 5 s;
#: the recall gained beyond a few dozen trees is small, and method="exact"
#: is exact).  Checked before anything is built.
ANNOY_MAX_TREES = 1000

#: Largest Annoy ``search_k`` accepted (Annoy takes a C int).  A value above
#: ``n_trees * n_samples`` inspects the whole forest, as that value does, and
#: is lowered to it.
ANNOY_MAX_SEARCH_K = 2**31 - 1

# Annoy queries per chunk: only one chunk's Python lists exist at a time (per
# thread), and chunks this small keep the threads' shares even.
_QUERY_CHUNK = 1024


def _index_dtype(n):
    """int32 for the indices of up to 2**31 - 1 points, else int64."""
    return np.int32 if n < 2**31 else np.int64


def default_search_k(n_trees, n_neighbors):
    """Annoy's ``search_k`` when none is given (see :func:`nearest_neighbors`)."""
    return n_trees * (n_neighbors + 1)


# Rows per cdist block of the exact search: the block's distance matrix has
# _BLOCK_ELEMENTS / N rows, about 32 MB of float64.
_BLOCK_ELEMENTS = 4_000_000


def nearest_neighbors(X, n_neighbors, *, method="auto", n_trees=None,
                      search_k=None, n_refine=None, n_explore=None, random_state=None,
                      n_threads=1, fast=False):
    """Indices and Euclidean distances of the nearest neighbours of each row.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Input data; finite, at least 2 rows.
    n_neighbors : int
        Number of neighbours per point, ``1 <= n_neighbors < n_samples``.
        The point itself is not counted and not returned.
    method : {"auto", "exact", "annoy"}, default="auto"
        ``"auto"`` is ``"exact"`` when ``n_samples <= 4096`` and ``"annoy"``
        otherwise.
    n_trees : int, optional
        Annoy only: number of trees, ``1 <= n_trees <= ANNOY_MAX_TREES``
        (1000).  Default ``ANNOY_DEFAULT_TREES`` (10).  More trees give a
        better recall and a slower search.
    search_k : int, optional
        Annoy only: number of nodes inspected per query,
        ``1 <= search_k <= ANNOY_MAX_SEARCH_K`` (2**31 - 1); values above
        ``n_trees * n_samples`` (the whole forest) are lowered to it, which
        changes nothing.  Default ``n_trees * (n_neighbors + 1)`` (half of
        uwot's rule; the ``+ 1`` is for the point itself, which is queried
        and dropped): the refinement makes up the difference for less.
    n_refine : int, optional
        Annoy only: rounds of neighbour-of-neighbour refinement after the
        search (:func:`smallvis._kernels.knn_refine`, NN-descent's local
        join).  Default ``ANNOY_DEFAULT_REFINE`` (4); the rounds stop early
        once a round changes nothing, and rounds after the first are cheap
        (they only examine what changed in the previous round).  0 returns
        Annoy's neighbours as they are.
    n_explore : int, optional
        Annoy only: how many of each neighbour's nearest neighbours a
        refinement round examines (``>= 1``; values above ``n_neighbors``
        mean all).  Default ``max(10, min(n_neighbors, 2000 //
        n_neighbors))`` (:func:`default_n_explore`).
    random_state : None, int or numpy.random.Generator
        Annoy only: seeds the forest.  A fixed int gives identical results
        on every call.  None draws a fresh seed.
    n_threads : int, default=1
        Annoy only: threads used to query the forest, recompute the
        candidates' distances and refine (-1: all cores; more than
        ``os.cpu_count()`` is lowered to it with a warning).  The queries
        use one thread below :data:`smallvis._threads.ANNOY_MIN_NODES`
        inspected nodes (``n_samples * search_k``).  The forest is always
        built on one thread and the exact search runs on one, so the
        neighbours are the same on any number of threads.
    fast : bool, default=False
        Annoy only: run the refinement with the Cython kernel
        (:mod:`smallvis._kernels`) instead of its NumPy twin in
        :mod:`smallvis.reference`; both return the same neighbours.

    Returns
    -------
    indices : ndarray of shape (n_samples, n_neighbors), int64
        Neighbour indices, nearest first, never the row itself
        (:func:`knn_graph` returns them as int32).
    distances : ndarray of shape (n_samples, n_neighbors), float64
        Euclidean distances, non-decreasing along each row; equal distances
        are ordered by increasing index.
    """
    indices, distances = knn_graph(X, n_neighbors, method=method, n_trees=n_trees,
                                   search_k=search_k, n_refine=n_refine,
                                   n_explore=n_explore, random_state=random_state,
                                   n_threads=n_threads, fast=fast)
    return indices.astype(np.int64), distances


def knn_graph(X, n_neighbors, *, method="auto", n_trees=None, search_k=None, n_refine=None,
              n_explore=None, random_state=None, n_threads=1, fast=False):
    """:func:`nearest_neighbors` with int32 indices (int64 from 2**31 points on).

    The form the affinities use: half the memory of int64 indices.
    Parameters and the rest of the result as :func:`nearest_neighbors`.
    """
    X = check_data(X)
    n = X.shape[0]
    n_neighbors = check_integer(n_neighbors, "n_neighbors", 1, n - 1)
    if not isinstance(method, str) or method not in NEIGHBOR_METHODS:
        raise ValueError(
            f"method must be one of {', '.join(map(repr, NEIGHBOR_METHODS))}; got {method!r}"
        )
    n_trees = check_search_params(method, n_trees)
    if search_k is not None:
        search_k = check_integer(search_k, "search_k", low=1, high=ANNOY_MAX_SEARCH_K)
    if n_refine is not None:
        n_refine = check_integer(n_refine, "n_refine", low=0)
    if n_explore is not None:
        n_explore = check_integer(n_explore, "n_explore", low=1)
    n_threads = check_threads(n_threads)
    rng = check_random_state(random_state)
    if method == "auto":
        method = "exact" if n <= EXACT_MAX_N else "annoy"
    kernels = select_kernels(fast)
    # search on X / 2**e (exact for normal numbers) so squared distances of
    # very large or very small data neither overflow nor underflow
    e = power_of_two_exponent(X)
    Xs = np.ascontiguousarray(np.ldexp(X, -e) if e else X, dtype=np.float64)
    if method == "exact":
        with _progress.stage("kNN", f"exact, {n_neighbors} neighbours of {n} points"):
            indices, distances = _exact(Xs, n_neighbors)
        indices = indices.astype(_index_dtype(n))
    else:
        if n_trees is None:
            n_trees = ANNOY_DEFAULT_TREES
        if search_k is None:
            search_k = default_search_k(n_trees, n_neighbors)
        search_k = min(search_k, n_trees * n)
        if n_refine is None:
            n_refine = ANNOY_DEFAULT_REFINE
        if n_explore is None:
            n_explore = default_n_explore(n_neighbors)
        seed = int(rng.integers(1, 2**31 - 1))
        with _progress.stage("kNN", f"annoy, {n_neighbors} neighbours of {n} points"):
            indices, sq_dist = _annoy(Xs, _centred_unit(Xs), n_neighbors, n_trees,
                                      search_k, seed, n_threads, kernels)
            indices, sq_dist = _refine(Xs, indices, sq_dist, n_refine, n_explore,
                                       n_threads, kernels)
            _fill_short_rows(Xs, indices, sq_dist)
        # sqrt in place: the squared distances are not needed any more
        distances = _monotone_sqrt(sq_dist, out=sq_dist)
    if e:
        np.ldexp(distances, e, out=distances)
    return indices, distances


def check_search_params(method, n_trees, name="method"):
    """Check a neighbour-search backend name and Annoy tree count.

    Returns ``n_trees`` as an int (or None); raises ``ValueError`` or
    ``TypeError`` naming the argument (``name`` for the backend).
    """
    if not isinstance(method, str) or method not in NEIGHBOR_METHODS:
        raise ValueError(
            f"{name} must be one of {', '.join(map(repr, NEIGHBOR_METHODS))}; got {method!r}"
        )
    if n_trees is not None:
        n_trees = check_integer(n_trees, "n_trees", low=1, high=ANNOY_MAX_TREES)
    return n_trees


def _centred_unit(X):
    """``X`` (with entries below 1 in size) centred in float64 and rescaled.

    The column means are subtracted, then the result is divided by a power
    of two so that its largest entry lies in [0.5, 1): Annoy's float32 copy
    then keeps the digits that distinguish the points however far they sit
    from the origin.  Only the index is built from it; distances are
    computed from ``X``.
    """
    Xc = X - X.mean(axis=0)
    e = power_of_two_exponent(Xc)
    if e:
        np.ldexp(Xc, -e, out=Xc)
    return Xc


def _select(d2, cand, k):
    """The ``k`` candidates with smallest (snapped ``d2``, index); sorted."""
    order = np.lexsort((cand, _tie_key(d2)))[:k]
    return cand[order], d2[order]


def _exact(X, k):
    n = X.shape[0]
    indices = np.empty((n, k), dtype=np.int64)
    distances = np.empty((n, k), dtype=np.float64)
    block = max(1, _BLOCK_ELEMENTS // n)
    for start in range(0, n, block):
        stop = min(n, start + block)
        D2 = cdist(X[start:stop], X, "sqeuclidean")
        rows = np.arange(stop - start)
        D2[rows, start + rows] = np.inf  # never the point itself
        # k-th smallest value per row; every candidate at or (up to rounding)
        # below it is kept, then sorted by (snapped distance, index).
        kth = np.partition(D2, k - 1, axis=1)[:, k - 1]
        limit = kth * (1.0 + 1e-9)
        for r in range(stop - start):
            cand = np.flatnonzero(D2[r] <= limit[r])
            indices[start + r], distances[start + r] = _select(D2[r, cand], cand, k)
    return indices, _monotone_sqrt(distances)


def _monotone_sqrt(d2, out=None):
    """sqrt of rows that are sorted up to rounding, made non-decreasing.

    Within a group of snapped ties the raw values can decrease by an ulp;
    the running maximum removes that (a change of at most ~1e-12 relative).
    ``out`` (may be ``d2``) receives the result.
    """
    out = np.maximum.accumulate(d2, axis=1, out=out)
    return np.sqrt(out, out=out)


def _annoy(X, X_index, k, n_trees, search_k, seed, n_threads, kernels):
    """Annoy's ``k + 1`` candidates per row, indexed on ``X_index``.

    Returns int32 indices and float64 squared distances (from ``X``) of
    shape (n, k): each row's best candidates in the package order, padded
    with index -1 and distance inf when Annoy found fewer than ``k`` other
    points (the refinement fills those slots).  The forest is built on one
    thread: Annoy's multi-threaded build seeds each thread differently and
    stores the trees in the order the threads finish, so its forest depends
    on the number of threads and changes from run to run.  The queries
    (:func:`_query`) may use ``n_threads`` threads; then the twin kernel
    ``knn_candidates`` recomputes the distances in float64, drops the point
    itself and sorts each row.
    """
    from annoy import AnnoyIndex

    n, dim = X.shape
    t = time.perf_counter()
    index = AnnoyIndex(dim, "euclidean")
    index.set_seed(seed)
    for i in range(n):
        index.add_item(i, X_index[i])
    index.build(n_trees, n_jobs=1)
    t = _progress.step("kNN", f"{n_trees} trees built", t)
    m = k + 1  # the point itself is found too
    cand = np.full((n, m), -1, dtype=np.int32)
    threads = _threads.annoy_query_threads(n_threads, n, search_k)
    _query(index, cand, search_k, threads)
    index.unload()
    del index
    t = _progress.step("kNN", f"{n} queries", t)
    indices = np.empty((n, k), dtype=np.int32)
    sq_dist = np.empty((n, k))
    kernels.knn_candidates(X, cand, indices, sq_dist, n_threads)
    _progress.step("kNN", "candidate distances", t)
    return indices, sq_dist


def _query(index, cand, search_k, n_threads):
    """Fill ``cand[i]`` with ``index.get_nns_by_item(i, m, search_k)``, m = ``cand.shape[1]``.

    The rows are queried in chunks of ``_QUERY_CHUNK``: only one chunk's
    Python lists exist at a time per thread.  With ``n_threads > 1`` a pool
    of threads takes the chunks one after another (Annoy releases the GIL
    while it searches, so the searches run in parallel); a thread that loses
    its core for a while simply takes fewer chunks.  Each query depends only
    on the index and its row, and each chunk writes its own rows, so the
    result is the same on any number of threads.
    """
    n, m = cand.shape

    def run(start):
        stop = min(n, start + _QUERY_CHUNK)
        found = [index.get_nns_by_item(i, m, search_k=search_k) for i in range(start, stop)]
        if all(len(row) == m for row in found):  # the usual case: one conversion
            cand[start:stop] = found
        else:
            for i, row in enumerate(found, start):
                cand[i, :len(row)] = row

    starts = range(0, n, _QUERY_CHUNK)
    if n_threads == 1 or len(starts) == 1:
        for start in starts:
            run(start)
        return
    with ThreadPoolExecutor(max_workers=min(n_threads, len(starts))) as pool:
        for _ in pool.map(run, starts):  # re-raises the first error, if any
            pass


def _fill_short_rows(X, indices, sq_dist):
    """Brute force the rows that still have empty slots (index -1)."""
    n, k = indices.shape
    for i in np.flatnonzero(indices[:, -1] < 0):
        others = np.delete(np.arange(n), i)
        row = cdist(X[i:i + 1], X[others], "sqeuclidean")[0]
        indices[i], sq_dist[i] = _select(row, others, k)


def _refine(X, indices, sq_dist, n_rounds, n_explore, n_threads, kernels):
    """``n_rounds`` of the twin kernel ``knn_refine`` (squared distances)."""
    flags = np.full(indices.shape, 3, dtype=np.uint8)
    out_indices, out_sq_dist = np.empty_like(indices), np.empty_like(sq_dist)
    out_flags = np.empty_like(flags)
    for round_number in range(1, n_rounds + 1):
        t = time.perf_counter()
        n_changed = kernels.knn_refine(X, indices, sq_dist, flags, n_explore, out_indices,
                                       out_sq_dist, out_flags, n_threads)
        indices, out_indices = out_indices, indices
        sq_dist, out_sq_dist = out_sq_dist, sq_dist
        flags, out_flags = out_flags, flags
        _progress.step("kNN", f"refinement round {round_number} "
                       f"({n_changed} rows changed)", t)
        if not n_changed:
            break
    return indices, sq_dist
