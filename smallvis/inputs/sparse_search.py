r"""Nearest neighbours of sparse data (``scipy.sparse`` X), without a dense copy.

:class:`smallvis.inputs.neighbors.KNNIndex` hands a sparse ``X`` here.  The
distances are exact in the original space: the twin kernel
``sparse_pair_sq_distances`` merges two rows' stored columns and sums the
squared differences (equal rows at exactly 0), for ``"euclidean"`` and
for ``"cosine"`` on rows scaled to unit length (half the squared distance,
:mod:`smallvis.inputs.distances`).  No ``N x D`` dense array is made.

Exact search (up to :data:`SPARSE_EXACT_MAX_N` points, above while
:func:`exact_search_cost` is at most :data:`SPARSE_EXACT_MAX_COST`, or
``method="exact"``)
    Each row's dot products with every row are scattered into one row
    buffer from the columns' lists of rows (twin kernels
    ``sparse_row_dots`` and ``sparse_row_nearest``, rows over threads,
    the same bits on any number), and while the buffer is in cache the
    ``k + 8`` rows of smallest :math:`\tfrac12 |y|^2 - x \cdot y` are kept;
    their exact distances choose the ``k``.  The cost is
    :math:`\sum_f \mathrm{df}_f^2` multiply-adds (``df_f``: the rows that
    store column ``f``) plus ``n`` keys per row, and no ``n x n`` block.
Approximate search (above)
    Annoy cannot hold the rows (it stores ``D`` floats per point), so the
    search runs in a truncated SVD of the rows (:data:`SEARCH_RANK`
    components, not centred: :mod:`smallvis.inputs.projection`), where the
    dense index (Annoy and its refinement) finds candidates; their
    exact distances choose the ``k``, and rounds of neighbour-of-neighbour
    refinement with exact distances (as :func:`smallvis.backends.reference.knn_refine`,
    vectorised over rows) recover what the projection ranked wrongly.
    New points are projected the same way and refined against the
    training points' own graph.

Why exact up to 262,144 points: the projected search's
neighbour-of-neighbour rounds stall on noisy text (the nearest rows are
barely nearer than the rest), so on short texts up to that size the exact
search is at least as fast, and exact (synthetic TF-IDF sets of
benchmarks/make_text_data.py; docs/experiments.md, 2026-11-24).  The exact
cost grows as ``n**2`` and the projected one about as ``n log n``, so above
that the projected search stays; on data with structure it does reach 0.98
(tests/test_sparse_inputs.py).
"""

import time

import numpy as np
import scipy.sparse as sp

from .. import _progress
from .._numeric import in_units, tie_key
from ._new_points import MAX_QUERY_EXPONENT
from .distances import data_exponent, unit_length_rows
from .projection import fit_projection

#: Metrics of sparse X.
SPARSE_METRICS = ("euclidean", "cosine")

#: ``method="auto"`` searches sparse X exactly up to this many points.  The
#: kernel's products cost about :math:`\sum_f \mathrm{df}_f^2` multiply-adds
#: (``df_f``: rows storing column ``f``) plus a scan of ``n`` keys per row:
#: up to this size of short texts it takes no longer than the projected
#: search, which finds only a fraction of the neighbours there (the module
#: docstring).
SPARSE_EXACT_MAX_N = 262144

#: Above :data:`SPARSE_EXACT_MAX_N` points ``method="auto"`` still searches
#: exactly while the search's cost :func:`exact_search_cost`,
#: :math:`\sum_f \mathrm{df}_f^2 + n^2`, is at most this: the cost of
#: :data:`SPARSE_EXACT_MAX_N` synthetic rows of short text.  Real short texts
#: store fewer common terms per row, so their exact search is far cheaper,
#: and the projected search's exact refinement rounds cannot reach
#: neighbours that share only a rare term (docs/experiments.md,
#: 2026-11-25).  So such text is searched exactly up to some 430,000 rows
#: (the cost grows as n^2).
SPARSE_EXACT_MAX_COST = 4.0e11

#: Components of the truncated SVD the approximate search runs in.
SEARCH_RANK = 64

#: Candidates per neighbour that the projected search proposes, and the
#: most extra candidates (k = 15: 120 candidates; t-SNE's k = 90: 210).
CANDIDATES = 8
MAX_EXTRA_CANDIDATES = 120

#: Rows per chunk of the exact refinement (bounds its (rows, k + k w) arrays).
_REFINE_CHUNK = 2048


def n_candidates(k, n):
    """How many candidates the projected search proposes for ``k`` neighbours."""
    return min(n, CANDIDATES * k, k + MAX_EXTRA_CANDIDATES)

#: Rows per call of the exact search's kernel (bounds its (rows, k) arrays).
_EXACT_CHUNK = 1024

#: Extra candidates per row that the exact search's products shortlist.
_SHORTLIST = 8

#: Relative rounding of the products' squared distances (|x|^2 + |y|^2 - 2 x.y).
_PRODUCT_ROUNDING = 1e-9


def exact_search_cost(X):
    r"""The exact search's cost on sparse ``X`` in multiply-adds and keys: :math:`\sum_f \mathrm{df}_f^2 + n^2`.

    ``df_f`` is the number of rows storing column ``f`` (each row's
    products visit every row sharing one of its columns); ``n^2`` the keys
    scanned.  Read from the stored structure in one pass.
    """
    df = np.bincount(sp.csr_matrix(X).indices, minlength=X.shape[1]).astype(np.float64)
    return float(df @ df) + float(X.shape[0]) ** 2


def searched_exactly(X):
    """Whether ``method="auto"`` searches sparse ``X`` exactly (fit and ``transform`` alike).

    Up to :data:`SPARSE_EXACT_MAX_N` rows always; above, while
    :func:`exact_search_cost` is at most :data:`SPARSE_EXACT_MAX_COST`.
    """
    return X.shape[0] <= SPARSE_EXACT_MAX_N or exact_search_cost(X) <= SPARSE_EXACT_MAX_COST


def check_sparse_data(X, name="X", min_rows=2):
    """A canonical float64 CSR copy of sparse ``X``, checked as dense data are."""
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got dtype {X.dtype}")
    C = sp.csr_matrix(X, dtype=np.float64, copy=True)
    C.sum_duplicates()
    C.sort_indices()
    if C.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} rows (samples); got "
                         f"{C.shape[0]}")
    if C.shape[1] < 1:
        raise ValueError(f"{name} must have at least 1 column (feature); got 0")
    if not np.all(np.isfinite(C.data)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return C


def check_sparse_metric(metric):
    if metric not in SPARSE_METRICS:
        from .._validation import ParameterError

        raise ParameterError(
            f"sparse X takes metric in {', '.join(map(repr, SPARSE_METRICS))}; got "
            f"{metric!r}: pass one of those, or give X as dense data (an array, or a table "
            f"or .npy file), which takes every metric", ("metric",))


def prepare_sparse(X, metric, name="X"):
    """The rows the metric measures: ``X``, or for "cosine" a copy with unit-length rows.

    The cosine rows are scaled by the rule of every path
    (:func:`smallvis.inputs.distances.unit_length_rows`), so data in any
    units give the same rows.
    """
    check_sparse_metric(metric)
    if metric == "euclidean":
        return X
    R = sp.csr_matrix(X, dtype=np.float64, copy=True)
    R.sort_indices()
    return unit_length_rows(R, metric, name)


class SparseRows:
    """Exact squared distances between rows of one or two CSR matrices (kernel arrays)."""

    def __init__(self, X, kernels, n_threads, X_new=None):
        M = X if X_new is None else sp.vstack([X, X_new], format="csr")
        M.sort_indices()
        self.offset = X.shape[0]  # row of the first new point
        self.indptr = np.ascontiguousarray(M.indptr, dtype=np.int64)
        # the columns that hold an entry, numbered 0, 1, ... in their order:
        # sums over a row's entries see the same sorted, distinct columns, and
        # the copy held by column (training_columns) then needs a pointer per
        # stored column, not per feature (a hashing vectoriser's 2**24)
        stored, compact = np.unique(M.indices, return_inverse=True)
        self.n_columns = stored.shape[0]
        self.indices = np.ascontiguousarray(compact.ravel(), dtype=np.int64)
        self.data = np.ascontiguousarray(M.data, dtype=np.float64)
        self.kernels, self.n_threads = kernels, n_threads

    def training_columns(self):
        """The training rows (those before :attr:`offset`) held by column: a :class:`SparseColumns`."""
        end = self.indptr[self.offset]
        return SparseColumns(sp.csr_matrix(
            (self.data[:end], self.indices[:end], self.indptr[:self.offset + 1]),
            shape=(self.offset, self.n_columns)))

    def pairs(self, rows, cols):
        """Squared distances of the pairs (rows[t], cols[t]), any equal shapes."""
        a = np.ascontiguousarray(rows, dtype=np.int64).ravel()
        b = np.ascontiguousarray(cols, dtype=np.int64).ravel()
        out = np.empty(a.shape[0])
        self.kernels.sparse_pair_sq_distances(self.indptr, self.indices, self.data, a, b, out,
                                              self.n_threads)
        return out.reshape(np.shape(rows))


def _best(cand, d2, k):
    """Per row, the ``k`` distinct candidates (>= 0) with smallest (tie key, index)."""
    d2 = np.where(cand >= 0, d2, np.inf)
    by_index = np.argsort(cand, axis=1, kind="stable")
    c_sorted = np.take_along_axis(cand, by_index, 1)
    repeat = np.zeros(cand.shape, dtype=bool)
    repeat[:, 1:] = c_sorted[:, 1:] == c_sorted[:, :-1]
    np.put_along_axis(d2, by_index, np.where(repeat, np.inf,
                                             np.take_along_axis(d2, by_index, 1)), 1)
    order = np.lexsort((cand, tie_key(d2)), axis=1)[:, :k]
    return np.take_along_axis(cand, order, 1), np.take_along_axis(d2, order, 1)


class SparseColumns:
    """The rows of a CSR matrix held by column (CSC kernel arrays): the products' other side.

    Built by :meth:`SparseRows.training_columns`, in that object's column
    numbering, which the products' kernels share with it.
    """

    def __init__(self, X):
        C = sp.csc_matrix(X)
        C.sort_indices()
        self.n_rows = X.shape[0]
        self.indptr = np.ascontiguousarray(C.indptr, dtype=np.int64)
        self.rows = np.ascontiguousarray(C.indices, dtype=np.int64)
        self.data = np.ascontiguousarray(C.data, dtype=np.float64)


def row_dots(rows_of, columns, rows, out):
    """``out[t] = x_{rows[t]} . X^T``: one row's dot products with every column-held row.

    ``rows`` index the rows of ``rows_of`` (a :class:`SparseRows`), whose
    columns must be those of ``columns`` (a :class:`SparseColumns`); twin
    kernel ``sparse_row_dots``.
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if out.shape != (rows.shape[0], columns.n_rows) or out.dtype != np.float64 \
            or not out.flags.c_contiguous:
        raise ValueError("out must be a C-ordered float64 array of shape (rows, n)")
    rows_of.kernels.sparse_row_dots(rows_of.indptr, rows_of.indices, rows_of.data,
                                    columns.indptr, columns.rows, columns.data, rows, out,
                                    rows_of.n_threads)
    return out


def _all_within(rows_of, columns, row, skip, half_sq, slack, k, width):
    """One row's best ``k`` among every row within ``slack`` of its ``width``-th key."""
    dots = row_dots(rows_of, columns, [row], np.empty((1, columns.n_rows)))[0]
    keys = half_sq - dots
    if skip >= 0:
        keys[skip] = np.inf
    last = np.partition(keys, width - 1)[width - 1]
    short = np.flatnonzero(keys <= last + slack)[None, :]
    best = _best(short, rows_of.pairs(np.full(short.shape, row), short), k)
    return best[0][0], best[1][0]


def exact_rows(X, rows_of, Q, k, exclude_self, pairs_offset=0):
    r"""Exact search of the rows ``Q`` (CSR) among the rows of ``X``: (idx, squared distances).

    ``rows_of`` computes exact squared distances of pairs and holds the
    rows of ``Q`` from ``pairs_offset`` on (a :class:`SparseRows` over ``X``
    and ``Q`` stacked).  Each row's dot products with every row of ``X``
    (:math:`\sum_f \mathrm{df}_f^2 / n` multiply-adds per row on average,
    ``df_f`` the rows storing column ``f``) shortlist, by
    :math:`\tfrac12 |y|^2 - x \cdot y` (twin kernel ``sparse_row_nearest``),
    a few more than ``k``; their exact distances choose the ``k``.  With ``exclude_self`` row ``i`` of ``Q``
    is row ``i`` of ``X`` and never its own neighbour.
    """
    n, m = X.shape[0], Q.shape[0]
    sq_x = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    sq_q = np.asarray(Q.multiply(Q).sum(axis=1)).ravel()
    width = min(n - (1 if exclude_self else 0), k + _SHORTLIST)
    # the products' rounding (in key units, half the squared distances'):
    # every row within it of the shortlist's last is shortlisted too, so
    # that ties resolve by index as in the dense search
    slack = 0.5 * _PRODUCT_ROUNDING * (sq_q + sq_x.max())
    columns = rows_of.training_columns()
    half_sq = 0.5 * sq_x
    idx = np.empty((m, k), dtype=np.int64)
    d2 = np.empty((m, k))
    progress = _progress.counter("kNN", "exact rows", m)
    for start in range(0, m, _EXACT_CHUNK):
        stop = min(m, start + _EXACT_CHUNK)
        rows = np.arange(start, stop)
        short = np.empty((stop - start, width), dtype=np.int64)
        within = np.empty(stop - start, dtype=np.int64)
        rows_of.kernels.sparse_row_nearest(
            rows_of.indptr, rows_of.indices, rows_of.data, columns.indptr, columns.rows,
            columns.data, half_sq, rows + pairs_offset,
            rows if exclude_self else np.full(stop - start, -1, dtype=np.int64),
            slack[start:stop], short, within, rows_of.n_threads)
        exact = rows_of.pairs(np.broadcast_to(rows[:, None] + pairs_offset, short.shape), short)
        idx[start:stop], d2[start:stop] = _best(short, exact, k)
        # rows with more rows within the rounding of the last: all of them
        for r in np.flatnonzero(within > width) + start:
            idx[r], d2[r] = _all_within(rows_of, columns, r + pairs_offset,
                                        r if exclude_self else -1, half_sq, slack[r], k, width)
        progress.advance(stop - start)
    return idx, d2


def best_of_candidates(rows_of, cand, k, pairs_offset=0, label="exact distances"):
    """Per row ``s``, the best ``k`` of its candidates ``cand[s]`` by exact distance.

    Row ``s`` is row ``s + pairs_offset`` of ``rows_of`` (a
    :class:`SparseRows`); ``cand`` holds rows of the training set (>= 0).
    The rows are independent: with progress reporting on they go in
    chunks (a line in the stage "kNN", named ``label``, when one is due),
    with the same result as one pass.  Returns (idx int64, squared
    distances), as :func:`_best`.
    """
    n = cand.shape[0]
    idx, d2 = np.empty((n, k), dtype=np.int64), np.empty((n, k))
    progress = _progress.counter("kNN", label, n)
    for start, stop in progress.spans(first=_REFINE_CHUNK):  # one span when not reporting
        part = cand[start:stop]
        rows = np.arange(start, stop)[:, None] + pairs_offset
        exact = rows_of.pairs(np.broadcast_to(rows, part.shape), part)
        idx[start:stop], d2[start:stop] = _best(part, exact, k)
    return idx, d2


def refine_rows(rows_of, idx, d2, graph, n_rounds, width, pairs_offset=0, self_rows=None,
                label="exact refinement"):
    """Rounds of neighbour-of-neighbour refinement with exact distances, vectorised.

    Row ``s``'s list becomes the best ``k`` among its neighbours and the
    first ``width`` neighbours of each of them in ``graph`` (the training
    points' own lists; None: ``idx`` itself, the fit), as a Jacobi round of
    :func:`smallvis.backends.reference.knn_refine`.  ``self_rows[s]`` (the
    fit) is never a candidate of row ``s``.  Rows in chunks of
    ``_REFINE_CHUNK`` (with progress reporting on, a line in the stage
    "kNN" between chunks when one is due, and one per round, both named
    ``label``); stops when a round changes nothing.
    """
    k = idx.shape[1]
    for round_number in range(1, n_rounds + 1):
        t = time.perf_counter()
        g = (idx if graph is None else graph)[:, :width]
        new_idx, new_d2 = np.empty_like(idx), np.empty_like(d2)
        progress = _progress.counter("kNN", f"{label} round {round_number}, rows", idx.shape[0])
        # one span when not reporting; rows are independent, so chunks of any
        # size give the same bits
        for first, last in progress.spans(first=_REFINE_CHUNK // 4):
            for start in range(first, last, _REFINE_CHUNK):
                part = slice(start, min(last, start + _REFINE_CHUNK))
                own = idx[part]
                cand = np.concatenate([own, g[own].reshape(own.shape[0], -1)], axis=1)
                if self_rows is not None:
                    cand = np.where(cand == self_rows[part, None], -1, cand)
                rows = np.arange(start, start + own.shape[0])[:, None] + pairs_offset
                exact = rows_of.pairs(np.broadcast_to(rows, cand.shape), np.maximum(cand, 0))
                new_idx[part], new_d2[part] = _best(cand, exact, k)
        _progress.step("kNN", f"{label} round {round_number}", t)
        if np.array_equal(new_idx, idx):
            break
        idx, d2 = new_idx, new_d2
    return idx, d2


def pairwise_sq_distances(X, metric, kernels):
    """``(D2, e)``: the squared ``metric`` distances between the rows of sparse ``X``, in units of ``2**e``.

    Exact (the pair kernel), row by row: the dense P of small sparse data.
    The rows are measured in the units of :func:`smallvis.inputs.distances.data_exponent`, as the
    search measures them, so no square over- or underflows.
    """
    from .distances import finish

    Xp = prepare_sparse(X, metric)
    e = data_exponent(Xp, metric)
    rows_of = SparseRows(in_units(Xp, e), kernels, 1)
    n = Xp.shape[0]
    D = np.empty((n, n))
    cols = np.arange(n)
    for i in range(n):
        D[i] = rows_of.pairs(np.full(n, i), cols)
    if metric == "euclidean":  # the core is the squared distance
        return D, e
    D = finish(D, metric, Xp.shape[1], out=D)
    return np.square(D, out=D), e


class SparseIndex:
    """The search structures of a sparse training set (built by ``KNNIndex``).

    ``X`` holds the rows the metric measures, in the data's units;
    ``exponent`` is the power of two the fit searches them in
    (:func:`smallvis.inputs.distances.data_exponent`), so that no square over- or underflows.  The
    squared distances it returns are in the units it was asked for.
    ``dense_index(scores, **settings)`` builds the dense index of the
    projected rows (``KNNIndex._of_checked``, passed in by the caller).
    """

    def __init__(self, X, *, exponent, method, n_trees, seed, n_refine, fast, n_threads,
                 kernels, dense_index, n_explore):
        self.n_explore = n_explore  # k -> the refinement's window
        self.dense_index = dense_index
        self.X, self.exponent = X, exponent
        self.fit_rows = in_units(X, exponent)  # the rows the fit searches
        self.method, self.n_trees, self.seed = method, n_trees, seed
        self.n_refine, self.fast, self.n_threads, self.kernels = (n_refine, fast, n_threads,
                                                                  kernels)
        self._projected = None  # (Projection, dense KNNIndex over the scores)

    def _projection(self):
        if self._projected is None:
            t = time.perf_counter()
            X = self.fit_rows
            rank = max(1, min(SEARCH_RANK, X.shape[1], X.shape[0] - 1))
            projection = fit_projection(X, rank, self.seed, centre=False, stage="kNN")
            _progress.step("kNN", f"truncated SVD on {rank} components", t)
            scores = projection.apply(X)
            index = self.dense_index(scores, method="annoy", n_trees=self.n_trees,
                                     random_state=self.seed, n_threads=self.n_threads,
                                     fast=self.fast)
            self._projected = (projection, index)
        return self._projected

    def neighbors(self, k):
        """(idx int64, squared distances in units of ``2**exponent``) of each row's ``k`` nearest other rows."""
        X = self.fit_rows
        rows_of = SparseRows(X, self.kernels, self.n_threads)
        if self.method == "exact":
            return exact_rows(X, rows_of, X, k, exclude_self=True)
        n = X.shape[0]
        _, index = self._projection()
        cand = index.neighbors(n_candidates(k, n - 1))[0].astype(np.int64)
        idx, d2 = best_of_candidates(rows_of, cand, k)
        del cand
        return refine_rows(rows_of, idx, d2, None, self.n_refine, self.n_explore(k),
                           self_rows=np.arange(n))

    def query(self, X_new, k, graph, unit=None):
        """(idx, squared distances in units of ``2**unit``) of the ``k`` nearest training rows of new rows.

        ``X_new`` (CSR, the rows the metric measures) in the data's units;
        both sides are divided by ``2**unit`` (default: the fit's
        exponent) before they are measured.
        """
        unit = self.exponent if unit is None else unit
        n = self.X.shape[0]
        X = self.fit_rows if unit == self.exponent else in_units(self.X, unit)
        Q = in_units(X_new, unit)
        rows_of = SparseRows(X, self.kernels, self.n_threads, Q)
        if self.method == "exact":
            return exact_rows(X, rows_of, Q, k, exclude_self=False, pairs_offset=n)
        projection, index = self._projection()
        # the scores in the fit's units; a point far outside the training
        # range is moved nearer along its direction (only its direction
        # ranks the candidates there), so its scores stay finite
        scores = np.ldexp(projection.apply(Q), min(unit - self.exponent, MAX_QUERY_EXPONENT))
        cand = index.query(scores, n_candidates(k, n))[0]
        idx, d2 = best_of_candidates(rows_of, cand, k, pairs_offset=n,
                                     label="exact distances of new points")
        training = graph()
        return refine_rows(rows_of, idx, d2, training, self.n_refine, training.shape[1],
                           pairs_offset=n, label="new points' exact refinement")
