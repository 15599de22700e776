"""Annoy's random-projection forest: its settings, its build, and its queries.

The forest is built on one thread from rows centred in float64 and scaled
by a power of two (:func:`centred_unit`), seeded, so it is the same in
every process; its queries (:func:`annoy_candidates` for the indexed items,
:func:`annoy_vector_candidates` for new points) run in chunks on
``n_threads`` threads, since Annoy releases the GIL while it searches.
The candidates they return are refined by :mod:`smallvis.inputs.refinement`.
"""

import time

import numpy as np

from .. import _progress, _threads
from .._numeric import power_of_two_exponent


#: Default number of Annoy trees.  The refinement that follows every search
#: recovers what a small forest misses, more cheaply than more trees or a
#: larger ``search_k``: 10 trees reach a recall of 0.995 of the exact 90
#: neighbours on the full-rank clusters of benchmarks/bench_knn.py, where
#: uwot's 50 trees without refinement took several times as long.
ANNOY_DEFAULT_TREES = 10

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


def default_search_k(n_trees, n_neighbors):
    """Annoy's ``search_k`` when none is given.

    See :func:`smallvis.inputs.neighbors.nearest_neighbors`.
    """
    return n_trees * (n_neighbors + 1)


def centred_unit(X):
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


def build_forest(X_index, n_trees, seed, space="euclidean"):
    """Annoy's forest of ``n_trees`` trees over the rows of ``X_index``, seeded.

    Built on one thread: Annoy's multi-threaded build seeds each thread
    differently and stores the trees in the order the threads finish, so
    its forest depends on the number of threads and changes from run to
    run.  One seed and one thread give the same forest in every process.
    """
    from annoy import AnnoyIndex

    n, dim = X_index.shape
    t = time.perf_counter()
    forest = AnnoyIndex(dim, space)
    forest.set_seed(seed)
    progress = _progress.counter("kNN", "rows added to the forest", n)
    for start, stop in progress.spans():  # one span when not reporting
        for i in range(start, stop):
            forest.add_item(i, X_index[i])
    estimate = _build_seconds(X_index, n_trees, seed, space) if _progress.active() else None
    with _progress.ticking("kNN", f"building {n_trees} trees", estimate):
        forest.build(n_trees, n_jobs=1)
    _progress.step("kNN", f"{n_trees} trees built", t)
    return forest


# Rows of the trial forest that times a build (:func:`_build_seconds`).
_TRIAL_ROWS = 1000


def _build_seconds(X_index, n_trees, seed, space):
    """Expected seconds of Annoy's ``build`` in :func:`build_forest` (for the ETA).

    ``build`` is one C call, so its progress cannot be counted; it is
    estimated from a trial: ``n_trees`` trees over the first
    ``_TRIAL_ROWS`` rows, timed and scaled by ``n log n`` (a tree splits
    ``n`` points about ``log n`` levels deep).  Only run when reporting
    is on, and only for data more than 4 times the trial's size; a few
    hundredths of a second (mostly Annoy's ``add_item``).  None: no
    estimate.
    """
    from annoy import AnnoyIndex

    n, dim = X_index.shape
    m = _TRIAL_ROWS
    if n <= 4 * m:
        return None
    trial = AnnoyIndex(dim, space)
    trial.set_seed(seed)
    for i in range(m):
        trial.add_item(i, X_index[i])
    t = time.perf_counter()
    trial.build(n_trees, n_jobs=1)
    took = time.perf_counter() - t
    trial.unload()
    return took * (n * np.log2(n)) / (m * np.log2(m))


def _store(cand, start, found):
    """Write the lists ``found`` into ``cand`` from row ``start`` (short lists padded)."""
    m = cand.shape[1]
    if all(len(row) == m for row in found):  # the usual case: one conversion
        cand[start:start + len(found)] = found
    else:
        for i, row in enumerate(found, start):
            cand[i, :len(row)] = row


def annoy_candidates(forest, n, m, search_k, n_threads):
    """Annoy's ``m`` nearest items of each of the ``n`` indexed items: (n, m) int32, -1 pads.

    The queries use ``n_threads`` threads when there is enough work
    (:func:`smallvis._threads.annoy_query_threads`).
    """
    cand = np.full((n, m), -1, dtype=np.int32)
    _query(forest, cand, search_k, _threads.annoy_query_threads(n_threads, n, search_k))
    return cand


def annoy_vector_candidates(forest, queries, m, search_k, n_threads):
    """Annoy's ``m`` nearest items of each row of ``queries``: int64, -1 pads."""
    cand = np.full((queries.shape[0], m), -1, dtype=np.int64)
    _query(forest, cand, search_k,
           _threads.annoy_query_threads(n_threads, queries.shape[0], search_k), queries)
    return cand


def _query(index, cand, search_k, n_threads, queries=None):
    """Fill ``cand`` with Annoy's ``m = cand.shape[1]`` nearest items, row by row.

    Row ``i`` gets ``index.get_nns_by_item(i, m, search_k)`` or, given
    ``queries`` (vectors that are not in the index),
    ``index.get_nns_by_vector(queries[i], m, search_k)``.  The rows are
    queried in chunks of ``_QUERY_CHUNK``, shared among the threads by
    :func:`smallvis._threads.each_block` (Annoy releases the GIL while it
    searches): only one chunk's Python lists exist at a time per thread.  Each query depends
    only on the index and its row, so the result is the same on any number
    of threads.  With reporting on, a progress line (rows done, ETA) comes
    after a chunk when one is due.
    """
    n, m = cand.shape
    label = "queries" if queries is None else "queries of new points"
    progress = _progress.counter("kNN", label, n)

    def fill(start):
        stop = min(n, start + _QUERY_CHUNK)
        if queries is None:
            found = [index.get_nns_by_item(i, m, search_k=search_k) for i in range(start, stop)]
        else:
            found = [index.get_nns_by_vector(queries[s], m, search_k=search_k)
                     for s in range(start, stop)]
        _store(cand, start, found)
        progress.advance(stop - start)

    _threads.each_block(fill, range(0, n, _QUERY_CHUNK), n_threads)
