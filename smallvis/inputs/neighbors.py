"""Nearest neighbours: one index for the fit and for new points.

:class:`KNNIndex` holds a training set and the search settings and answers
both questions the package asks: each training point's own nearest other
points (:meth:`KNNIndex.neighbors`, the fit's kNN graph, which
:func:`nearest_neighbors` and :func:`knn_graph` return) and the nearest
training points of new points (:meth:`KNNIndex.query`, what
:class:`smallvis.transform.TrainingMap` places new points with).  Both use
one distance (a ``metric`` of :mod:`smallvis.inputs.distances`, computed
from the core quantity that module defines), one tie rule, the same backend rule, the same Annoy forest and the
same refinement, so a new point gets the recall of a training point.  New
points are measured in the fit's units and far points are ranked by the
projection form of the distance (:mod:`smallvis.inputs._new_points`).  The index
pickles without its forest, which is rebuilt identically on first use.

:func:`nearest_neighbors` returns, for every row of ``X``, the indices and
distances (Euclidean by default, not squared) of its ``n_neighbors`` nearest *other*
rows.  **The point itself is never included**, even when it has duplicates
at distance 0: a duplicate is a real neighbour, the point is not.  Methods
whose convention counts the point itself (UMAP's ``n_neighbors``) ask for one
neighbour fewer and add the self column themselves (see
:func:`smallvis.inputs.affinities.fuzzy_graph`).

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
    "neighbour exploring" of LargeVis (:func:`smallvis.backends._kernels.knn_refine`):
    each point's list becomes the best ``k`` among its neighbours and the
    ``n_explore`` nearest neighbours of each of them.  After the first
    round only what changed is examined again, so the rounds get cheap
    quickly; they recover what the small forest missed for less than more
    trees would cost (benchmarks/bench_knn.py).  The search works on the
    points renumbered in leaf order
    (:func:`smallvis.inputs.projected_search.leaf_order`: near points get
    neighbouring numbers), so that the queries, the candidate distances
    and the rounds read rows from the cache (docs/experiments.md,
    2026-11-24), and the lists are numbered back and their ties re-sorted
    by index at the end.  Where exact ties straddle the k-th place, the
    search keeps the one of smaller working number; Hamming distances,
    which are counts and tie at the k-th place all the time, keep the
    training numbers, so their ties go by index as on the exact path.  The
    Annoy queries (Annoy
    releases the GIL while it searches), the candidate distances and the
    refinement run on ``n_threads`` threads; the forest is built on one
    (Annoy's multi-threaded build gives a different forest for each number
    of threads, and even from run to run).  Approximate; deterministic for
    a fixed ``random_state`` (the forest is seeded with ``set_seed``; the
    rest has no randomness), and the same on any number of threads.  New
    points (:meth:`KNNIndex.query`) are looked up in the same forest (as
    vectors, centred and scaled as the data) and refined by the same rule
    against the training points' own graph (computed once per index),
    point by point, so a point's answer does not depend on its batch.
    Dense data of many features (from
    :data:`smallvis.inputs.projected_search.MIN_FEATURES`, 500, for the
    Euclidean, cosine and correlation metrics) are searched in a
    projection instead: a forest and the refinement run on the scores of
    a randomised PCA, for more candidates than ``k``, and the ``k`` are
    chosen among them by exact distances in the original space
    (:mod:`smallvis.inputs.projected_search`); the reported distances and
    the tie rule are the same.  The training points' forest there is the
    package's own (:mod:`smallvis.inputs.search_forest`, built on the
    threads, walked by all rows in one compiled call); their new points
    are looked up in Annoy's forest of the same scores.
``"auto"``
    ``"exact"`` for ``N <= EXACT_MAX_N`` (4096), ``"annoy"`` above.  Up to a
    few thousand points brute force takes well under a second and is exact.

Modules
-------
This module holds the public functions and :class:`KNNIndex`, which
chooses and runs the pieces: :mod:`smallvis.inputs.knn_checks` (the
input checks), :mod:`smallvis.inputs.exact_search` (brute force and the
tie rule), :mod:`smallvis.inputs.annoy_forest` (the forest's build and
queries) and :mod:`smallvis.inputs.refinement` (candidate distances and
the refinement rounds).
"""

import time
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .. import _progress
from ..backends._backend import kernels as select_kernels
from . import distances as metrics
from . import projected_search, search_forest, sparse_search
from . import _new_points
from ._new_points import centre_and_extent, distance_units, far_keys, far_points, forest_queries
from .annoy_forest import (ANNOY_DEFAULT_TREES, ANNOY_MAX_SEARCH_K, ANNOY_MAX_TREES,
                           annoy_candidates, annoy_vector_candidates, build_forest,
                           centred_unit, default_search_k)
from .exact_search import (BLOCK_ELEMENTS, exact_neighbors, fill_short_rows, k_smallest,
                           monotone_finish, select_nearest, sq_distances)
from .knn_checks import NEIGHBOR_METHODS, check_fit_input, check_points, check_search_params
from .refinement import ANNOY_DEFAULT_REFINE, candidate_sq_distances, default_n_explore, refine
from .projection import row_products as _row_products
from .._numeric import in_units, row_exponents, tie_key as _tie_key
from .._validation import (MAX_REFINE_ROUNDS, ParameterError, check_integer, check_iterations,
                           check_random_state, check_threads)

__all__ = ["nearest_neighbors", "knn_graph", "NEIGHBOR_METHODS", "EXACT_MAX_N",
           "ANNOY_DEFAULT_TREES", "ANNOY_DEFAULT_REFINE", "ANNOY_MAX_TREES",
           "ANNOY_MAX_SEARCH_K", "KNNIndex", "NewNeighbours", "sq_distances"]

#: ``method="auto"`` uses exact search up to this many points.
EXACT_MAX_N = 4096


def _index_dtype(n):
    """int32 for the indices of up to 2**31 - 1 points, else int64."""
    return np.int32 if n < 2**31 else np.int64


# Rows whose ties KNNIndex._in_package_order re-sorts at a time: their
# snapped keys take 8 k bytes a row, and the temporaries of making them
# (frexp, rounding, ldexp) about 40 k bytes, so 4,096 rows bound them at
# 25 MB, well below the rest of the search (docs/experiments.md,
# 2026-11-25).
_TIE_CHUNK = 4096


def nearest_neighbors(X, n_neighbors, *, method="auto", n_trees=None,
                      search_k=None, n_refine=None, n_explore=None, random_state=None,
                      n_threads=None, fast=False, metric="euclidean"):
    """Indices and distances of the nearest neighbours of each row.

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
        search (:func:`smallvis.backends._kernels.knn_refine`, NN-descent's local
        join), at most ``MAX_REFINE_ROUNDS`` (1000).  Default
        ``ANNOY_DEFAULT_REFINE`` (4); the rounds stop early
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
    n_threads : int or None, default=None
        Annoy only: threads used to query the forest, recompute the
        candidates' distances and refine (None: the cores this process may
        use; -1 and the rule for larger counts:
        :func:`smallvis._validation.check_threads`).  The queries
        use one thread below :data:`smallvis._threads.ANNOY_MIN_NODES`
        inspected nodes (``n_samples * search_k``).  The forest is always
        built on one thread and the exact search runs on one, so the
        neighbours are the same on any number of threads.
    fast : bool, default=False
        Annoy only: run the refinement with the Cython kernel
        (:mod:`smallvis.backends._kernels`) instead of its NumPy twin in
        :mod:`smallvis.backends.reference`; both return the same neighbours.
    metric : {"euclidean", "cosine", "correlation", "manhattan", "hamming"}, default="euclidean"
        The distance (:mod:`smallvis.inputs.distances`), on every backend.

    Returns
    -------
    indices : ndarray of shape (n_samples, n_neighbors), int64
        Neighbour indices, nearest first, never the row itself
        (:func:`knn_graph` returns them as int32).
    distances : ndarray of shape (n_samples, n_neighbors), float64
        Distances of ``metric``, non-decreasing along each row; equal
        distances are ordered by increasing index.
    """
    indices, distances = knn_graph(X, n_neighbors, method=method, n_trees=n_trees,
                                   search_k=search_k, n_refine=n_refine,
                                   n_explore=n_explore, random_state=random_state,
                                   n_threads=n_threads, fast=fast, metric=metric)
    return indices.astype(np.int64), distances


def knn_graph(X, n_neighbors, *, method="auto", n_trees=None, search_k=None, n_refine=None,
              n_explore=None, random_state=None, n_threads=None, fast=False, metric="euclidean"):
    """:func:`nearest_neighbors` with int32 indices (int64 from 2**31 points on).

    The form the affinities use: half the memory of int64 indices.
    Parameters and the rest of the result as :func:`nearest_neighbors`;
    the search is :meth:`KNNIndex.neighbors` of a :class:`KNNIndex` over
    ``X``.
    """
    X = check_points(X, n_threads=n_threads)
    n_neighbors = check_integer(n_neighbors, "n_neighbors", 1, X.shape[0] - 1)
    index = KNNIndex._of_checked(X, method=method, n_trees=n_trees, search_k=search_k,
                     n_refine=n_refine, n_explore=n_explore, random_state=random_state,
                     n_threads=n_threads, fast=fast, metric=metric)
    return index.neighbors(n_neighbors)


# ---------------------------------------------------------------------------
# the index: one search over a training set, for the fit and for new points
# ---------------------------------------------------------------------------

class NewNeighbours(NamedTuple):
    """:meth:`KNNIndex.query_scaled`'s answer for ``M`` new points and ``k`` neighbours."""

    #: (M, k) int64 training indices, nearest first, ties by index.
    indices: np.ndarray
    #: (M, k) Euclidean distances divided by ``2**units`` (row by row).
    distances: np.ndarray
    #: (M,) int64 power of two of each row's units (:meth:`KNNIndex.distance_units`).
    units: np.ndarray
    #: (M, k) for far points (:meth:`KNNIndex.far_points`), squared distances
    #: minus the row's smallest, up to a positive factor of the row; NaN
    #: for the other points.
    far_sq: np.ndarray


class KNNIndex:
    """The nearest-neighbour search over a training set, for the fit and for new points.

    One object holds the training data and the search settings, and answers
    both questions the package asks: the training points' own ``k`` nearest
    other points (:meth:`neighbors`, the fit's kNN graph) and the ``k``
    nearest training points of new points (:meth:`query`, ``transform``).
    Both use the same distance (:func:`sq_distances`), the same tie rule
    ((snapped squared distance, index), :func:`smallvis._numeric.tie_key`)
    and, on the Annoy path, the same forest and the same
    neighbour-of-neighbour refinement.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training data; finite, at least 2 rows.  Kept (as float64), not
        copied when it is already C-contiguous float64.
    method : {"auto", "exact", "annoy"}, default="auto"
        ``"auto"`` is ``"exact"`` when ``n_samples <= EXACT_MAX_N`` (4096)
        and ``"annoy"`` otherwise.
    n_trees, search_k, n_refine, n_explore, n_threads, fast
        As :func:`nearest_neighbors`.  ``search_k`` and ``n_explore`` (None)
        take their defaults for each ``k`` asked.
    random_state : None, int or numpy.random.Generator
        Annoy only: one integer is drawn from it, here, to seed the forest
        (:attr:`seed`); nothing is drawn for the exact search.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
    method : {"exact", "annoy"}
    seed : int or None
        The forest's seed (None on the exact path).

    Notes
    -----
    The Annoy forest is built on first use, on one thread, from the data
    centred in float64 and scaled by a power of two (:func:`centred_unit`),
    and kept for the queries of new points; a search of the training points
    that builds it releases it afterwards (the fit needs it once).  A pickle
    holds the data, the settings and the seed, not the forest nor anything
    else derived from the data: they are rebuilt on first use, identically,
    so the answers are the same in every process.
    """

    def __init__(self, X, *, method="auto", n_trees=None, search_k=None, n_refine=None,
                 n_explore=None, random_state=None, n_threads=None, fast=False,
                 metric="euclidean"):
        self._configure(check_points(X, n_threads=n_threads), method=method, n_trees=n_trees,
                        search_k=search_k, n_refine=n_refine, n_explore=n_explore,
                        random_state=random_state, n_threads=n_threads, fast=fast,
                        metric=metric)

    @classmethod
    def _of_checked(cls, X, **settings):
        """Internal: the index over ``X`` that the caller has already checked.

        ``X`` is finite, 2-D, with at least 2 rows
        (:func:`smallvis._validation.check_data`);
        it is not scanned again.  ``settings`` as the constructor's.
        """
        index = cls.__new__(cls)
        if not sp.issparse(X):
            X = np.ascontiguousarray(X, dtype=np.float64)
        index._configure(X, **settings)
        return index

    def _configure(self, X, *, method="auto", n_trees=None, search_k=None, n_refine=None,
                   n_explore=None, random_state=None, n_threads=None, fast=False,
                   metric="euclidean"):
        """The constructor's work on checked data ``X``: settings checked and stored."""
        n_trees = check_search_params(method, n_trees)
        self.metric = metrics.check_metric(metric)
        if search_k is not None:
            search_k = check_integer(search_k, "search_k", low=1, high=ANNOY_MAX_SEARCH_K)
        if n_refine is not None:
            n_refine = check_iterations(n_refine, "n_refine", high=MAX_REFINE_ROUNDS)
        if n_explore is not None:
            n_explore = check_integer(n_explore, "n_explore", low=1)
        self.n_threads = check_threads(n_threads)
        rng = check_random_state(random_state)
        if sp.issparse(X):
            if self.metric == metrics.PRECOMPUTED:
                raise ValueError("a sparse X with metric='precomputed' is a kNN graph: pass "
                                 "it to embed or affinities, which read its neighbours")
            sparse_search.check_sparse_metric(self.metric)
        elif self.metric == metrics.PRECOMPUTED:
            metrics.check_distance_matrix(X)
            if method == "annoy":
                raise ParameterError("knn_method='annoy' cannot search precomputed distances "
                                     "(there are no vectors to index); use 'exact' or 'auto'",
                                     ("knn_method",))
            method = "exact"  # a selection among the rows of the distances
        if method == "auto":
            exact = (sparse_search.searched_exactly(X) if sp.issparse(X)
                     else X.shape[0] <= EXACT_MAX_N)
            method = "exact" if exact else "annoy"
        self.X = X
        self.method = method
        if n_trees is None:
            projected = (not sp.issparse(X) and method == "annoy"
                         and projected_search.uses_projection(X.shape[1], self.metric))
            n_trees = projected_search.DEFAULT_TREES if projected else ANNOY_DEFAULT_TREES
        self.n_trees = n_trees
        self.search_k = search_k
        self.n_refine = ANNOY_DEFAULT_REFINE if n_refine is None else n_refine
        self.n_explore = n_explore
        self.fast = bool(fast)
        self.seed = int(rng.integers(1, 2**31 - 1)) if method == "annoy" else None
        # the projection a search of many features runs in (kept and pickled:
        # new points are projected by the one the fit used)
        self._search_projection = None
        self._clear_derived()
        self._points()  # a row the metric cannot measure is refused here

    # ---- pickling: the data and settings only --------------------------

    def _clear_derived(self):
        self._forest = None  # the Annoy forest
        self._exponent = None  # e of X / 2**e
        self._centre = None  # (column means, exponent of the centred data)
        self._graphs = {}  # width -> the training points' own neighbours
        self._prepared = None  # the metric's rows (distances.prepare)
        self._categories = None  # hamming: the columns' values (the forest's codes)
        self._sparse = None  # sparse X: its search structures (sparse_search.SparseIndex)
        self._score_frame = None  # projected search: centre and extent of the forest's scores
        self._leaf_order = None  # the training row of each forest item (_forest_order)

    def __getstate__(self):
        state = self.__dict__.copy()
        for derived in ("_forest", "_exponent", "_centre", "_graphs", "_prepared",
                        "_categories", "_sparse", "_score_frame", "_leaf_order"):
            state.pop(derived, None)
        return state

    def __setstate__(self, state):
        state.setdefault("metric", "euclidean")  # pickles made before metrics existed
        state.setdefault("_search_projection", None)  # and before the projected search
        self.__dict__.update(state)
        self._clear_derived()

    def _points(self):
        """The training rows the metric measures (:func:`smallvis.inputs.distances.prepare`)."""
        if self._prepared is None:
            self._prepared = (sparse_search.prepare_sparse(self.X, self.metric)
                              if sp.issparse(self.X) else metrics.prepare(self.X, self.metric))
        return self._prepared

    def _sparse_index(self):
        """Sparse X: the exact or projected search (:mod:`smallvis.inputs.sparse_search`)."""
        if self._sparse is None:
            self._sparse = sparse_search.SparseIndex(
                self._points(), exponent=self._data_exponent(), method=self.method,
                n_trees=self.n_trees,
                seed=self.seed, n_refine=self.n_refine, fast=self.fast,
                n_threads=self.n_threads, kernels=select_kernels(self.fast),
                dense_index=KNNIndex._of_checked,
                n_explore=lambda k: min(self._n_explore(k), k))
        return self._sparse

    def _scaled_metric(self):
        """Whether distances change with the data's scale (searched in powers of two)."""
        return self.metric in metrics.SCALED_METRICS

    # ---- the training points' own neighbours (the fit) ------------------

    def neighbors(self, n_neighbors):
        """Indices and distances (of :attr:`metric`) of each training point's nearest other points.

        What :func:`knn_graph` returns (see there and
        :func:`nearest_neighbors`): the point itself excluded, rows in the
        package order, int32 indices (int64 from 2**31 points on),
        distances in the data's units, progress lines in the stage "kNN".
        """
        n = self.X.shape[0]
        k = check_integer(n_neighbors, "n_neighbors", 1, n - 1)
        e = self._data_exponent()
        if sp.issparse(self.X):  # searched in units of 2**e, as dense data
            with _progress.stage("kNN", f"{self.method} (sparse), {k} neighbours of {n} points"):
                indices, sq_dist = self._sparse_index().neighbors(k)
            indices = indices.astype(_index_dtype(n))
            distances = monotone_finish(sq_dist, self.metric, self.X.shape[1], out=sq_dist)
        elif self.method == "exact":
            Xs = self._scaled_data()
            with _progress.stage("kNN", f"exact, {k} neighbours of {n} points"):
                indices, distances = exact_neighbors(Xs, k, self.metric)
            indices = indices.astype(_index_dtype(n))
        else:
            with _progress.stage("kNN", f"annoy, {k} neighbours of {n} points"):
                indices, sq_dist = self._annoy_graph(k)
            if self._search_units() != e:  # in units of 2**e, exactly
                np.ldexp(sq_dist, 2 * (self._search_units() - e), out=sq_dist)
            # in place: the core distances are not needed any more
            distances = monotone_finish(sq_dist, self.metric, self.X.shape[1], out=sq_dist)
        if self.metric == "euclidean":  # the one metric whose distances are squared
            metrics.check_resolved(self._points(), indices, np.square(distances), e)
        if e:
            np.ldexp(distances, e, out=distances)
        return indices, distances

    def _data_exponent(self):
        """``e`` with ``max|X| = m 2**e``, ``0.5 <= m < 1``: the fit's unit.

        0 for the metrics measured on unit rows or by counting
        (:data:`smallvis.inputs.distances.SCALED_METRICS`).
        """
        if self._exponent is None:
            self._exponent = metrics.data_exponent(self._points(), self.metric)
        return self._exponent

    def _scaled_data(self):
        """``X / 2**u``: the dense data the fit searches (``u`` :meth:`_search_units`).

        A copy (unless ``u`` is 0), made for each search and not kept.
        """
        return np.ascontiguousarray(in_units(self._points(), self._search_units()),
                                    dtype=np.float64)

    def _search_units(self):
        """The power of two the fit's search divides the data by: ``e``, or 0.

        ``e`` (:meth:`_data_exponent`) so that no square over- or
        underflows.  The projected search (:meth:`_projected`) of data
        whose largest entry lies within ``2**±SAFE_EXPONENT`` of 1 works on
        the data as they are (no square can leave float64's range there,
        and dividing by a power of two is exact): no copy of ``X``.
        """
        e = self._data_exponent()
        return 0 if self._projected() and abs(e) <= _new_points.SAFE_EXPONENT else e

    def _search_k(self, k):
        trees = self.n_trees
        if self._projected():  # the queries' cost as the default forest's (projected_search)
            trees = min(trees, projected_search.DEFAULT_TREES)
        search_k = self.search_k or default_search_k(trees, k)
        return min(search_k, self.n_trees * self.X.shape[0])

    def _n_explore(self, k):
        return self.n_explore or default_n_explore(k)

    def _projected(self):
        """Whether the Annoy search runs in a projection (:mod:`smallvis.inputs.projected_search`)."""
        return (self.method == "annoy" and not sp.issparse(self.X)
                and projected_search.uses_projection(self.X.shape[1], self.metric))

    def _float32_rows(self, Xs):
        """The float32 copy of ``Xs`` the Euclidean projected search reads, or None.

        :func:`smallvis.inputs.projected_search.float32_rows`, for the
        metric whose distances are squared Euclidean distances of the rows
        as they are (the others measure prepared rows).
        """
        if metrics.KERNEL_CODES[self.metric] != 0:
            return None
        return projected_search.float32_rows(Xs, self.n_threads)

    def _search_scores(self, Xs, rows32=None):
        """The scores of ``Xs`` on the search's projection (fitted on first use, then kept).

        ``rows32``: the float32 copy of ``Xs`` (:meth:`_float32_rows`),
        whose products are taken in float32 when
        :func:`smallvis.inputs.projected_search.projection_rows` allows.
        """
        rows = projected_search.projection_rows(Xs, rows32)
        if self._search_projection is None:
            t = time.perf_counter()
            self._search_projection = projected_search.fit_search_projection(
                rows, self.seed, self.n_threads)
            _progress.step("kNN", f"projection on {len(self._search_projection.components)} "
                           "principal axes", t)
        return projected_search.scores(self._search_projection, rows, self.n_threads)

    def _forest_order(self, A):
        """The leaf order of the rows the forest is built from, computed from ``A`` on first use.

        :func:`smallvis.inputs.projected_search.leaf_order` of ``A`` (the
        scores of a projected search, else the scaled rows
        :meth:`_scaled_data`), kept as :attr:`_leaf_order`: item ``p`` of
        the forest, and position ``p`` of the search's working rows, is
        training row ``_leaf_order[p]``.  Near points get neighbouring
        numbers, so the search reads their rows from the cache.
        """
        if self._leaf_order is None:
            t = time.perf_counter()
            self._leaf_order = projected_search.leaf_order(A, select_kernels(self.fast),
                                                           n_threads=self.n_threads)
            _progress.step("kNN", "leaf order", t)
        return self._leaf_order

    def _ordered_scores(self, Xs, rows32=None):
        """The scores of ``Xs`` (:meth:`_search_scores`), rows in leaf order (:meth:`_forest_order`)."""
        scores = self._search_scores(Xs, rows32)
        return scores[self._forest_order(scores)]

    def _annoy_forest(self, Xs=None, ordered=None):
        """The forest, built on first use from ``Xs`` (:meth:`_scaled_data`).

        Its items are in leaf order (:meth:`_forest_order`): the scores of
        ``Xs`` for the projected search (:meth:`_projected`), else the rows
        of ``Xs``; ``ordered``, when given, holds those rows already in
        leaf order.  The Hamming codes keep the training order.
        """
        if self._forest is None:
            if Xs is None and ordered is None:
                Xs = self._scaled_data()
            if self._projected():
                if ordered is None:  # the fit's scores again (a reloaded index)
                    ordered = self._ordered_scores(Xs, self._float32_rows(Xs))
                self._score_frame = centre_and_extent(ordered)
                rows = centred_unit(ordered)
            elif self.metric == "hamming":  # items in the training order (see _annoy_graph)
                rows, self._categories = metrics.hamming_codes(Xs)
            else:
                ordered = Xs[self._forest_order(Xs)] if ordered is None else ordered
                rows = centred_unit(ordered)
            del ordered
            self._forest = build_forest(rows, self.n_trees, self.seed,
                                        metrics.annoy_space(self.metric))
        return self._forest

    def _training_rows(self, items):
        """The training rows of forest items / working positions ``items`` (-1 stays -1)."""
        return np.append(self._leaf_order, -1).astype(items.dtype)[items]

    def _lists_by_row(self, lists):
        """Lists found at working positions, renumbered and moved to their rows.

        Row ``order[p]`` gets position ``p``'s list, each entry renumbered
        to its training row (:meth:`_training_rows`).
        """
        out = np.empty_like(lists)
        out[self._leaf_order] = self._training_rows(lists)
        return out

    def _in_package_order(self, indices, sq_dist):
        """Neighbour lists found in leaf order (:meth:`_forest_order`), renumbered and re-sorted.

        Row ``order[p]`` gets position ``p``'s list, each neighbour
        renumbered to its training row.  Within a row, neighbours at equal
        (snapped) distance are put back in the package's order, by index
        (:func:`smallvis._numeric.tie_key`); the lists have no empty slots.
        """
        order = self._leaf_order
        out_indices = self._lists_by_row(indices)
        out_sq_dist = np.empty_like(sq_dist)
        out_sq_dist[order] = sq_dist
        for start in range(0, len(order), _TIE_CHUNK):  # chunks bound the keys' memory
            block = slice(start, start + _TIE_CHUNK)
            keys = _tie_key(out_sq_dist[block])
            tied = np.flatnonzero(np.any(keys[:, 1:] == keys[:, :-1], axis=1))
            if len(tied):
                rows = tied + start
                by = np.lexsort((out_indices[rows], keys[tied]), axis=-1)
                out_indices[rows] = np.take_along_axis(out_indices[rows], by, axis=1)
                out_sq_dist[rows] = np.take_along_axis(out_sq_dist[rows], by, axis=1)
        return out_indices, out_sq_dist

    def _release_forest(self):
        if self._forest is not None:
            self._forest.unload()
            self._forest = None

    def _annoy_graph(self, k):
        """Annoy's candidates, their distances, the refinement: squared distances.

        The scaled rows (:meth:`_scaled_data`) are made here and dropped
        once the forest is built: from then on only their copy in leaf
        order is read (at a million points of 50 features each copy is
        0.4 GB, held through the queries and the refinement otherwise).
        """
        Xs = self._scaled_data()
        if self._projected():
            return self._projected_graph(Xs, k)
        kernels = select_kernels(self.fast)
        n = Xs.shape[0]
        search_k = self._search_k(k)
        # position p: training row order[p].  Hamming distances are counts,
        # tied by the dozen at the k-th place, and the rounds break ties by
        # the working number: Hamming keeps the training numbers, so its ties
        # go to the smaller index as on the exact path.
        renumbered = self.metric != "hamming"
        rows = Xs[self._forest_order(Xs)] if renumbered else Xs
        built_here = self._forest is None
        forest = self._annoy_forest(Xs, rows if renumbered else None)
        del Xs  # rows (or, for Hamming, the same array) is what the rest reads
        t = time.perf_counter()
        # k + 1: the point itself is found too
        cand = annoy_candidates(forest, n, k + 1, search_k, self.n_threads)
        del forest
        if built_here:
            self._release_forest()
        _progress.step("kNN", f"{n} queries", t)
        code = metrics.KERNEL_CODES[self.metric]
        indices, sq_dist = candidate_sq_distances(rows, cand, k, self.n_threads, kernels, code)
        del cand
        indices, sq_dist = refine(rows, indices, sq_dist, self.n_refine, self._n_explore(k),
                                  self.n_threads, kernels, code)
        fill_short_rows(rows, indices, sq_dist, self.metric)
        del rows
        return self._in_package_order(indices, sq_dist) if renumbered else (indices, sq_dist)

    def _projected_graph(self, Xs, k):
        """The search in a projection (:mod:`smallvis.inputs.projected_search`): squared distances.

        Annoy's ``q = n_proposals(m)`` candidates of the scores, grown by
        the refinement there to ``m = n_candidates(k)`` neighbours; then
        the best ``k`` of those by exact distances of ``Xs``, rows visited
        in leaf order.
        """
        kernels = select_kernels(self.fast)
        n = Xs.shape[0]
        m = projected_search.n_candidates(k, n)
        q = projected_search.n_proposals(m)
        # float32 values (8-bit or float32 images): the same exact distances
        # from half the memory, and the projection's products in float32
        rows32 = self._float32_rows(Xs)
        scores = self._ordered_scores(Xs, rows32)  # position p: row order[p]
        order = self._leaf_order
        forest = search_forest.build(scores, self.n_trees, self.seed, projected_search.LEAF_SIZE,
                                     self.n_threads, kernels)
        t = time.perf_counter()
        # q + 1 columns (the row itself is found too); the lists below are m
        # wide, their empty slots filled by the rounds
        cand = search_forest.candidates(forest, scores, q + 1, self._search_k(q),
                                        self.n_threads, kernels)
        del forest
        _progress.step("kNN", f"{n} queries", t)
        indices, sq_dist = candidate_sq_distances(scores, cand, m, self.n_threads, kernels,
                                                  label="candidate distances (projected)")
        del cand
        # the window of k's search or of m's, the smaller (whole short lists
        # cost m**2 distances a row; 10 of m already find most)
        n_explore = self.n_explore or min(default_n_explore(k), default_n_explore(m))
        indices, sq_dist = refine(scores, indices, sq_dist, self.n_refine, n_explore,
                                  self.n_threads, kernels)
        del scores, sq_dist
        candidates = self._lists_by_row(indices)  # back to the package's numbering
        del indices
        code = metrics.KERNEL_CODES[self.metric]
        indices, sq_dist = candidate_sq_distances(Xs if rows32 is None else rows32, candidates,
                                                  k, self.n_threads, kernels, code, order,
                                                  label="exact distances")
        del candidates, rows32
        checked = projected_search.check_rows(n)
        # the search's k-th distances bound the exact ones (its neighbours are rows of Xs)
        exact = projected_search.exact_neighbours(Xs, checked, k, sq_dist[checked].max(axis=1),
                                                  self.n_threads)
        recall = projected_search.sample_recall(exact, indices, checked)
        if recall < projected_search.RECALL_FLOOR:
            _progress.say(f"kNN: the projection kept {recall:.2f} of the checked neighbours: "
                          "refining in the original space")
            indices, sq_dist = refine(Xs, indices, sq_dist, self.n_refine, self._n_explore(k),
                                      self.n_threads, kernels, code)
        fill_short_rows(Xs, indices, sq_dist, self.metric)
        return indices, sq_dist

    def _graph(self, width):
        """The training points' own ``width`` nearest neighbours (int64), computed once."""
        if width not in self._graphs:
            self._graphs[width] = self.neighbors(width)[0].astype(np.int64)
        return self._graphs[width]

    # ---- new points (transform) -----------------------------------------

    def query(self, X_new, n_neighbors):
        """Indices and distances (of :attr:`metric`) of the ``k`` nearest training points of new points.

        Parameters
        ----------
        X_new : array-like of shape (n_new, n_features)
            Finite; the training data's number of features.
        n_neighbors : int
            ``k``, ``1 <= k <= n_samples``.  A new point that coincides with
            a training point has it as a neighbour at distance 0.

        Returns
        -------
        indices : ndarray of shape (n_new, k), int64
            Nearest first; equal distances ordered by index, as in the fit.
        distances : ndarray of shape (n_new, k)
            Distances of :attr:`metric` (inf where one exceeds float64).

        Notes
        -----
        Exact search: brute force.  Annoy: the forest's candidates for each
        point, then up to ``n_refine`` rounds of the fit's refinement: a
        point's list becomes the best ``k`` among its neighbours and the
        ``n_explore`` nearest neighbours of each of them in the training
        set (:meth:`neighbors`, computed once per index), exact distances,
        until a round changes nothing.  Every step is per point: a point's
        answer does not depend on the rest of the batch.
        """
        found = self.query_scaled(X_new, n_neighbors)
        with np.errstate(over="ignore", under="ignore"):
            return found.indices, np.ldexp(found.distances, found.units[:, None])

    def query_scaled(self, X_new, n_neighbors):
        """:meth:`query` with each row's distances in units of ``2**units[row]``.

        Returns a :class:`NewNeighbours`, which also holds the units and, for
        far points (:func:`smallvis.inputs._new_points.far_points`), the differences of their squared
        distances from the projection form (:func:`smallvis.inputs._new_points.far_keys`), which do not
        tie where the float64 distances do.
        """
        X_new = check_points(X_new, "X_new", min_rows=1)
        if X_new.shape[1] != self.X.shape[1]:
            raise ValueError(f"X_new has {X_new.shape[1]} features; the index was built "
                             f"on {self.X.shape[1]}")
        k = check_integer(n_neighbors, "n_neighbors", 1, self.X.shape[0])
        return self._query_checked(X_new, k)

    def _query_checked(self, X_new, k):
        """Internal: :meth:`query_scaled` of checked new points, ``1 <= k <= n_samples``.

        ``X_new`` is C-contiguous float64, finite, with the training data's
        number of features (as :func:`smallvis.transform.check_new_points`
        returns it); it is not scanned again.  Progress lines in the stage
        "kNN".
        """
        sparse = " (sparse)" if sp.issparse(self.X) else ""
        with _progress.stage("kNN", f"{self.method}{sparse}, {k} neighbours of "
                                    f"{X_new.shape[0]} new points among {self.X.shape[0]}"):
            return self._query_of(X_new, k)

    def _query_of(self, X_new, k):
        """:meth:`_query_checked` without its stage lines."""
        if sp.issparse(self.X):
            return self._sparse_query(X_new, k)
        if sp.issparse(X_new):
            raise TypeError("X_new is sparse but the index was built on dense data; pass "
                            "X_new.toarray()")
        units = self.distance_units(X_new)
        X_new = metrics.prepare(X_new, self.metric, "X_new", new_points=True)
        if self.method == "exact":
            indices, distances = self._exact_query(X_new, k, units)
        else:
            indices, distances = self._annoy_query(X_new, k, units)
        return self._with_far_points(X_new, k, NewNeighbours(indices, distances, units, None))

    def _with_far_points(self, X_new, k, found):
        """``found`` with its far points ranked by :func:`far_keys` (dense and sparse data alike).

        ``found.far_sq`` becomes the far points' key differences (NaN for
        the other points); their distances are recomputed, in their units,
        for the neighbours the keys choose.
        """
        indices, distances, units, _ = found
        far_sq = np.full(indices.shape, np.nan)
        if self.metric != "euclidean":
            # unit rows and counts have no far points; Manhattan distances
            # are not squared, so they neither overflow nor tie earlier
            return NewNeighbours(indices, distances, units, far_sq)
        pool = np.arange(self.X.shape[0])
        sparse = sp.issparse(self.X)
        if sparse:  # memory as the stored entries, not as the features
            X_ref, X_new = _new_points.shared_columns(self._points(), X_new)
            frame = centre_and_extent(X_ref)
        else:
            X_ref, frame = self.X, self._centre_and_extent()
        for s in np.flatnonzero(far_points(X_new, *frame)):
            x = X_new[s].toarray().ravel() if sparse else X_new[s]
            keys = far_keys(X_ref, *frame, x)
            order = np.lexsort((pool, _tie_key(keys)))[:k]
            indices[s] = order
            far_sq[s] = keys[order] - keys[order[0]]
            new, training = in_units(x[None, :], units[s]), in_units(X_ref[order], units[s])
            d2 = sq_distances(new, training.toarray() if sparse else training)
            distances[s] = np.sqrt(np.maximum.accumulate(d2[0]))  # equal to rounding
        return NewNeighbours(indices, distances, units, far_sq)

    def _sparse_query(self, X_new, k):
        """:meth:`_query_checked` of a sparse training set (new points dense or sparse).

        Each new point is measured in its units (:meth:`distance_units`),
        the training rows with it, as on the dense path.
        """
        X_new = sparse_search.prepare_sparse(sp.csr_matrix(X_new, dtype=np.float64),
                                             self.metric, "X_new")
        width = min(self._n_explore(k), k, self.X.shape[0] - 1)
        units = self.distance_units(X_new)
        indices = np.empty((X_new.shape[0], k), dtype=np.int64)
        distances = np.empty((X_new.shape[0], k))
        for unit in np.unique(units):
            rows = np.flatnonzero(units == unit)
            found, sq_dist = self._sparse_index().query(X_new[rows], k,
                                                        lambda: self._graph(width), int(unit))
            indices[rows] = found
            distances[rows] = monotone_finish(sq_dist, self.metric, self.X.shape[1],
                                              out=sq_dist)
        return self._with_far_points(X_new, k, NewNeighbours(indices, distances, units, None))

    def distance_units(self, X_new):
        """Per new point, the power of two its distances are measured in (0: the data's units).

        See :func:`smallvis.inputs._new_points.distance_units`; 0 for the
        metrics measured on unit rows or by counting.
        """
        if not self._scaled_metric():
            return np.zeros(X_new.shape[0], dtype=np.int64)
        return distance_units(self._data_exponent(), X_new)

    def _exact_query(self, X_new, k, units):
        """Brute force, in blocks of new points, each unit apart."""
        indices = np.empty((X_new.shape[0], k), dtype=np.int64)
        distances = np.empty((X_new.shape[0], k))
        block = max(1, BLOCK_ELEMENTS // self.X.shape[0])
        progress = _progress.counter("kNN", "exact rows of new points", X_new.shape[0])
        for unit in np.unique(units):
            rows = np.flatnonzero(units == unit)
            X_ref = in_units(self._points(), unit)
            for start in range(0, len(rows), block):
                part = rows[start:start + block]
                D2 = metrics.core_distances(in_units(X_new[part], unit), X_ref, self.metric)
                indices[part], d2 = k_smallest(D2, k)
                distances[part] = metrics.finish(d2, self.metric, X_ref.shape[1])
                progress.advance(len(part))
        return indices, distances

    def _annoy_query(self, X_new, k, units):
        """The forest's candidates, refined as the fit's graph (see :meth:`query`)."""
        m, n = X_new.shape[0], self.X.shape[0]
        search_k = self._search_k(k)
        forest = self._annoy_forest()
        if self._projected():
            queries = forest_queries(self._new_scores(X_new), *self._score_frame)
            width = projected_search.n_candidates(k, n + 1)
            search_k = self._search_k(width)
        elif self.metric == "hamming":
            queries, width = metrics.hamming_codes(X_new, self._categories)[0], k
        else:
            queries, width = forest_queries(X_new, *self._centre_and_extent()), k
        cand = annoy_vector_candidates(forest, queries, width, search_k, self.n_threads)
        if self._leaf_order is not None:  # item p of the forest: training row _leaf_order[p]
            cand = self._training_rows(cand)
        indices = np.empty((m, k), dtype=np.int64)
        sq_dist = np.empty((m, k))
        t = time.perf_counter()
        progress = _progress.counter("kNN", "candidate distances of new points", m)
        for start, stop in progress.spans():  # one span when not reporting
            for s in range(start, stop):
                indices[s], sq_dist[s] = self._best_candidates(X_new[s], units[s], cand[s], k)
        _progress.step("kNN", "candidate distances of new points", t)
        width = min(self._n_explore(k), k, n - 1)
        rows = np.arange(m)
        for round_number in range(1, self.n_refine + 1):
            rows = self._refine_queries(X_new, units, indices, sq_dist, rows, width,
                                        round_number)
            if not len(rows):
                break
        distances = metrics.finish(sq_dist, self.metric, X_new.shape[1])
        short = np.flatnonzero(indices[:, -1] < 0)  # fewer than k candidates: brute force
        if len(short):
            indices[short], distances[short] = self._exact_query(X_new[short], k, units[short])
        return indices, distances

    def _new_scores(self, X_new):
        """New points (prepared rows) on the search's projection, in the fit's units.

        Each row is first divided by a power of two that brings its largest
        entry below 1 (exact), so nothing overflows; rows up to
        ``2**MAX_QUERY_EXPONENT`` beyond the training data's range get
        their exact scores back, rows farther are moved nearer along their
        direction (as :func:`forest_queries` does; only their direction
        matters there).
        """
        projection = self._search_projection
        e = self._search_units()
        shift = np.maximum(row_exponents(X_new, e) - e, 0)
        centred = np.ldexp(X_new, -(e + shift)[:, None]) - np.ldexp(projection.mean[None, :],
                                                                     -shift[:, None])
        scores = _row_products(centred, projection.components.T, self.n_threads)
        return np.ldexp(scores, np.minimum(shift, _new_points.MAX_QUERY_EXPONENT)[:, None])

    def _refine_queries(self, X_new, units, indices, sq_dist, rows, width, round_number=1):
        """One round of the fit's refinement for new points ``rows``, in place.

        Each row's list becomes the best ``k`` among its neighbours and the
        ``width`` nearest training neighbours of each of them.  Returns the
        rows whose list changed (only they can change in the next round).
        ``round_number`` names the round in the progress lines.
        """
        graph = self._graph(width)
        t = time.perf_counter()
        changed = []
        label = f"new points' refinement round {round_number}"
        progress = _progress.counter("kNN", f"{label}, rows", len(rows))
        for start, stop in progress.spans():  # one span when not reporting
            for s in rows[start:stop]:
                found = indices[s][indices[s] >= 0]
                cand = np.concatenate([found, graph[found].ravel()])
                best, d2 = self._best_candidates(X_new[s], units[s], cand, indices.shape[1])
                if not np.array_equal(best, indices[s]):
                    indices[s], sq_dist[s] = best, d2
                    changed.append(s)
        _progress.step("kNN", f"{label} ({len(changed)} rows changed)", t)
        return np.array(changed, dtype=np.int64)

    def _best_candidates(self, x, unit, cand, k):
        """The best ``k`` distinct candidates of one new point ``x`` (-1 and inf pad)."""
        cand = np.unique(cand[cand >= 0])
        d2 = metrics.core_distances(in_units(x[None, :], unit),
                                    in_units(self._points()[cand], unit), self.metric)[0]
        best, d2 = select_nearest(d2, cand, k)
        pad = k - len(best)
        return (np.concatenate([best, np.full(pad, -1, dtype=np.int64)]),
                np.concatenate([d2, np.full(pad, np.inf)]))

    def _centre_and_extent(self):
        """Dense training data's column means and the exponent of their largest centred entry.

        (Sparse training data get theirs per query, on the columns stored
        (:func:`smallvis.inputs._new_points.shared_columns`).)
        """
        if self._centre is None:
            self._centre = centre_and_extent(self._points())
        return self._centre
