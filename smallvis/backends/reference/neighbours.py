"""Nearest neighbours: candidate distances, refinement, the union of two graphs.

The kNN search's dense kernels (:func:`knn_candidates`, :func:`knn_refine`
and the union of a graph with its transpose, :func:`knn_union_count` and
:func:`knn_union_fill`) and the distance kernels of sparse input
(:func:`sparse_pair_sq_distances`, :func:`sparse_row_dots`,
:func:`sparse_row_nearest`).
"""

import numpy as np
from scipy.sparse import csr_matrix

from ..._numeric import tie_key as _tie_key


def _core_distances_to(X, cand, i, metric_code):
    r"""The kNN kernels' distance from row ``i`` of ``X`` to rows ``cand``, by metric code.

    .. math::

        0:\ \sum_f (x_{cf} - x_{if})^2, \qquad
        1:\ \sum_f |x_{cf} - x_{if}|, \qquad
        2:\ \#\{f : x_{cf} 
e x_{if}\},

    summed feature by feature in order (the squared Euclidean distance, the
    Manhattan distance, the Hamming count; see
    :mod:`smallvis.inputs.distances` for what each metric searches with).
    """
    d = np.zeros(len(cand))
    for f in range(X.shape[1]):
        diff = X[cand, f] - X[i, f]
        if metric_code == 0:
            d += diff * diff
        elif metric_code == 1:
            d += np.abs(diff)
        else:
            d += diff != 0
    return d


def knn_candidates(X, candidates, indices, sq_dist, n_threads, metric_code=0, start=0,
                   stop=None, order=None):
    r"""The ``k`` nearest of each row's candidates, with float64 distances.

    Row ``i`` of ``candidates`` lists points (e.g. an Annoy query's answer)
    in any order, possibly with ``i`` itself, repeats, or ``-1`` for "none";
    those are dropped.  Of the rest, the ``k = indices.shape[1]`` with the
    smallest squared distance

    .. math::

        d^2_{ic} = \sum_f (x_{if} - x_{cf})^2

    (summed feature by feature in order, the order of the exact search, so
    a neighbour found here has exactly the distance the exact search
    reports) are written in the package order: by
    (:func:`smallvis._numeric.tie_key` of :math:`d^2`, index).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        C-contiguous float64 or float32 data; float32 entries are widened
        to float64 (exactly) before any operation, so float32 data give
        the bits of their float64 copy.
    candidates : ndarray of shape (n_samples, m), int32
        Candidate indices, ``-1`` for none.
    indices : ndarray of shape (n_samples, k), int32
        Output: the best ``k`` valid candidates; ``-1`` where a row has fewer.
    sq_dist : ndarray of shape (n_samples, k)
        Output: their squared distances; ``inf`` where the index is ``-1``.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    metric_code : int, default=0
        The distance summed (:func:`_core_distances_to`): 0 squared
        Euclidean, 1 Manhattan, 2 Hamming count; ``sq_dist`` holds it.
    start, stop : int, default=0 and None (``n_samples``)
        Only rows ``start`` to ``stop - 1`` are computed and written (a
        caller reporting progress goes through the rows in chunks; each row
        depends only on its own candidates).
    order : ndarray of shape (n_samples,), int64, optional
        A permutation of the rows: positions ``start`` to ``stop - 1`` of
        ``order`` are the rows computed, in that order.  The result of a
        row does not depend on it; an order that visits near rows one after
        another keeps their shared candidates in the cache (the Cython
        twin's speed on data of hundreds of dimensions).  None: the rows in
        their own order.

    Returns
    -------
    n_short : int
        Rows (of those computed) with fewer than ``k`` valid candidates.
    """
    n, k = indices.shape
    n_short = 0
    X = np.asarray(X, dtype=np.float64)
    rows = range(n) if order is None else order
    for i in rows[start:n if stop is None else stop]:
        cand = np.unique(candidates[i])
        cand = cand[(cand >= 0) & (cand != i)]
        d2 = _core_distances_to(X, cand, i, metric_code)
        order = np.lexsort((cand, _tie_key(d2)))[:k]
        v = len(order)
        indices[i, :v], sq_dist[i, :v] = cand[order], d2[order]
        indices[i, v:], sq_dist[i, v:] = -1, np.inf
        n_short += v < k
    return n_short


def sparse_pair_sq_distances(indptr, indices, data, rows, cols, out, n_threads):
    r"""Squared Euclidean distances between pairs of rows of a CSR matrix.

    .. math::

        \texttt{out}_t = \sum_f (x_{a_t f} - x_{b_t f})^2,
        \qquad a_t = \texttt{rows}_t,\ b_t = \texttt{cols}_t,

    summed over the union of the two rows' stored columns in column order,
    from differences (equal rows are at exactly 0), left to right.

    Parameters
    ----------
    indptr, indices, data : ndarray
        The CSR matrix: int64 row pointers, int64 column indices sorted
        within each row (no duplicates), float64 values.
    rows, cols : ndarray of shape (m,), int64
        The pairs.
    out : ndarray of shape (m,)
        Output.
    n_threads : int
        Threads over pairs (Cython twin; ignored here).
    """
    for t in range(len(rows)):
        a, b = int(rows[t]), int(cols[t])
        ia, va = indices[indptr[a]:indptr[a + 1]], data[indptr[a]:indptr[a + 1]]
        ib, vb = indices[indptr[b]:indptr[b + 1]], data[indptr[b]:indptr[b + 1]]
        union = np.union1d(ia, ib)
        xa, xb = np.zeros(len(union)), np.zeros(len(union))
        xa[np.searchsorted(union, ia)] = va
        xb[np.searchsorted(union, ib)] = vb
        diff = xa - xb
        out[t] = np.cumsum(diff * diff)[-1] if len(union) else 0.0


def sparse_row_dots(indptr, indices, data, col_indptr, col_rows, col_data, rows, out,
                    n_threads):
    r"""Dot products of some rows of a CSR matrix with every row of it.

    .. math::

        \texttt{out}_{t c} = \sum_f x_{a_t f}\, x_{c f},
        \qquad a_t = \texttt{rows}_t,\ c = 0, \dots, n - 1,

    scattered column by column: for each stored column ``f`` of row
    ``a_t`` in column order, ``x_{a_t f} x_{c f}`` is added to
    ``out[t, c]`` for every row ``c`` storing ``f`` (in row order), so
    every entry sums its terms in column order.

    Parameters
    ----------
    indptr, indices, data : ndarray
        The CSR matrix (``n`` rows): int64 row pointers, int64 column
        indices sorted within each row, float64 values.
    col_indptr, col_rows, col_data : ndarray
        The same matrix as CSC (one entry of ``col_indptr`` per column plus
        one): int64 column pointers, int64 row indices sorted within each
        column, float64 values.
    rows : ndarray of shape (m,), int64
        The rows ``a_t``.
    out : ndarray of shape (m, n)
        Output, C order.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    for t in range(len(rows)):
        a = int(rows[t])
        out[t] = 0.0
        for p in range(indptr[a], indptr[a + 1]):
            f = indices[p]
            lo, hi = col_indptr[f], col_indptr[f + 1]
            out[t, col_rows[lo:hi]] += data[p] * col_data[lo:hi]


def sparse_row_nearest(indptr, indices, data, col_indptr, col_rows, col_data, half_sq, rows,
                       skip, slack, out_idx, out_count, n_threads):
    r"""Per row, the ``width`` other rows of smallest key, from the rows' dot products.

    .. math::

        \kappa_{t c} = \tfrac12 |x_c|^2 - x_{a_t} \cdot x_c
        = \tfrac12 \left(|x_{a_t} - x_c|^2 - |x_{a_t}|^2\right),

    so a row's keys order the rows by distance from ``x_{a_t}``.  The dot
    products are those of :func:`sparse_row_dots` (the same bits).

    Parameters
    ----------
    indptr, indices, data, col_indptr, col_rows, col_data : ndarray
        The CSR rows and the CSC columns, as :func:`sparse_row_dots`.
    half_sq : ndarray of shape (n,)
        :math:`\tfrac12 |x_c|^2` of the ``n`` column-held rows.
    rows : ndarray of shape (m,), int64
        The rows ``a_t``.
    skip : ndarray of shape (m,), int64
        A column-held row that is never chosen for row ``t`` (itself), or -1.
    slack : ndarray of shape (m,)
        Rounding allowance of row ``t``'s keys, >= 0.
    out_idx : ndarray of shape (m, width), int64
        Output: the ``width`` rows of smallest key (``width <= n - 1`` with a
        ``skip``), by increasing key, ties by increasing index.
    out_count : ndarray of shape (m,), int64
        Output: how many rows (``skip`` aside) have a key within
        ``slack[t]`` of the last chosen one's: ``width`` unless rows tie
        with it up to rounding.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    n, width = half_sq.shape[0], out_idx.shape[1]
    dots = np.empty((1, n))
    for t in range(len(rows)):
        sparse_row_dots(indptr, indices, data, col_indptr, col_rows, col_data, rows[t:t + 1],
                        dots, 1)
        keys = half_sq - dots[0]
        if skip[t] >= 0:
            keys[skip[t]] = np.inf
        # the smallest (key, index) pairs: lexsort among the keys up to the width-th
        near = np.flatnonzero(keys <= np.partition(keys, width - 1)[width - 1])
        order = near[np.lexsort((near, keys[near]))[:width]]
        out_idx[t] = order
        within = keys <= keys[order[-1]] + slack[t]
        if skip[t] >= 0:
            within[skip[t]] = False
        out_count[t] = np.count_nonzero(within)


def knn_refine(X, indices, sq_dist, flags, n_explore, out_indices, out_sq_dist,
               out_flags, n_threads, metric_code=0, start=0, stop=None):
    r"""One round of local join over a k-nearest-neighbour graph.

    Each point's new list is the best ``k`` among its current neighbours and
    the first ``w = n_explore`` neighbours of each of them (the local join of
    NN-descent, forward lists only; LargeVis's "neighbour exploring"):

    .. math::

        N'(i) = \operatorname*{k\text{-}argmin}_{c \,\in\, N(i) \,\cup\,
                \bigcup_{j \in N(i)} N_w(j) \setminus \{i\}} \;
                \lVert x_i - x_c \rVert^2 ,

    where :math:`N_w(j)` is the first ``w`` entries of :math:`N(j)`.  All
    rows are computed from the input graph (a Jacobi round), so the result
    depends neither on the order of the rows nor on the number of threads.
    A point's neighbour is usually its neighbours' neighbour, so a round or
    two recover most of what an approximate search missed.

    ``flags`` says, per entry, what is new since the previous round (bit 1:
    the entry was not in the row's list; bit 2: it was not among the row's
    first ``w``; a first round passes all 3).  The Cython twin uses them to
    skip exactly the candidates the previous round already examined: a
    candidate ``c`` reached through an old neighbour ``j`` of ``i`` and an
    old window entry of ``j`` was compared with row ``i`` last round, and
    either is in the list or is still beaten (the k-th distance only
    shrinks).  This reference examines every candidate, so the tests check
    that the skipping is exact.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        C-contiguous float64 data.
    indices : ndarray of shape (n_samples, k), int32
        Current neighbours of each row, never the row itself, distinct,
        sorted by (snapped squared distance, index).
    sq_dist : ndarray of shape (n_samples, k)
        Their squared distances.
    flags : ndarray of shape (n_samples, k), uint8
        What is new in each entry (see above).
    n_explore : int
        ``w``, ``1 <= w``; values above ``k`` mean ``k``.
    out_indices : ndarray of shape (n_samples, k), int32
        Output: the new neighbours, in the same order.
    out_sq_dist : ndarray of shape (n_samples, k)
        Output: their squared distances.  It may be ``sq_dist`` itself
        (updated in place): a row reads no other row's distances.
    out_flags : ndarray of shape (n_samples, k), uint8
        Output: 3 for an entry that was not in the input row, 2 for one that
        entered the first ``w`` from further down, else 0.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    metric_code : int, default=0
        The distance summed (:func:`_core_distances_to`): 0 squared
        Euclidean, 1 Manhattan, 2 Hamming count; ``sq_dist`` holds it.
    start, stop : int, default=0 and None (``n_samples``)
        Only output rows ``start`` to ``stop - 1`` are computed and written;
        rows are independent (see above), so a round done in chunks of rows
        gives the same result.

    Returns
    -------
    n_changed : int
        Rows (of those computed) whose list changed.

    Notes
    -----
    Squared distances of new candidates are summed feature by feature in
    order, as :func:`knn_candidates`.  Candidates are ordered by
    (:func:`smallvis._numeric.tie_key` of the squared distance, index), the
    order used for every neighbour list of the package.
    """
    n, k = indices.shape
    w = min(int(n_explore), k)
    n_changed = 0
    for i in range(start, n if stop is None else stop):
        own = indices[i]
        cand = np.unique(indices[own[own >= 0], :w].ravel())
        cand = cand[(cand >= 0) & (cand != i) & ~np.isin(cand, own)]
        d2 = _core_distances_to(X, cand, i, metric_code)
        idx = np.concatenate([own, cand])
        all_d2 = np.concatenate([sq_dist[i], d2])
        order = np.lexsort((idx, _tie_key(all_d2)))[:k]
        out_indices[i] = idx[order]
        out_sq_dist[i] = all_d2[order]
        came_from = np.where(order < k, order, -1)  # input position, -1: candidate
        pos = np.arange(k)
        out_flags[i] = np.where(came_from < 0, 3,
                                np.where((pos < w) & (came_from >= w), 2, 0))
        n_changed += bool(np.any(came_from < 0))
    return n_changed


def _union(indices, values):
    """CSR matrix ``(A + A^T) / 2`` of the rows ``A[i, indices[i]] = values[i]``."""
    n, k = indices.shape
    # copies: eliminate_zeros works in place on the matrix's arrays
    A = csr_matrix((values.astype(np.float64).ravel(), indices.ravel().astype(np.int64),
                    np.arange(0, n * k + 1, k, dtype=np.int64)), shape=(n, n))
    A.eliminate_zeros()
    S = (0.5 * (A + A.T)).tocsr()
    S.sort_indices()
    return S


def knn_union_count(indices, values, counts, n_threads):
    r"""Stored entries per row of the symmetric union of a weighted kNN graph.

    With :math:`A_{ij} = v_{ir}` for :math:`j = \mathrm{indices}_{ir}`
    (distinct per row, never ``i``), the union is

    .. math::

        S = \tfrac12 (A + A^\top),

    stored where :math:`A_{ij} > 0` or :math:`A_{ji} > 0` (edges of weight
    0 are dropped, as :meth:`scipy.sparse.csr_matrix.eliminate_zeros`
    does).  This counts the entries of each row of ``S``; see
    :func:`knn_union_fill`.

    Parameters
    ----------
    indices : ndarray of shape (n_samples, k), int32
        Neighbours of each row, distinct, never the row itself.
    values : ndarray of shape (n_samples, k)
        Non-negative edge weights.
    counts : ndarray of shape (n_samples,), int64
        Output: entries of each row of ``S``.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    counts[:] = np.diff(_union(indices, values).indptr)


def knn_union_fill(indices, values, indptr, out_indices, out_data, n_threads):
    r"""The rows of :math:`S = \tfrac12 (A + A^\top)`, sorted by column.

    ``S`` as in :func:`knn_union_count`; each entry is computed as
    ``0.5 * (A_ij + A_ji)`` (``0.5 * A_ij`` where only one is stored), the
    arithmetic of ``0.5 * (A + A.T)`` in SciPy, so both give identical
    values.

    Parameters
    ----------
    indices, values
        As :func:`knn_union_count`.
    indptr : ndarray of shape (n_samples + 1,), int64
        Row pointers: ``0`` then the cumulative sum of the counts.
    out_indices : ndarray of shape (indptr[-1],), int32
        Output: column indices, increasing within each row.
    out_data : ndarray of shape (indptr[-1],)
        Output: the entries of ``S``.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    S = _union(indices, values)
    out_indices[:] = S.indices
    out_data[:] = S.data


def _positive_edges(indices, values):
    """Rows, columns and values of the stored edges ``A_ij > 0``, in row-major order."""
    n, k = indices.shape
    pos = values.ravel() > 0.0
    rows = np.repeat(np.arange(n, dtype=np.int64), k)[pos]
    return rows, indices.ravel().astype(np.int64)[pos], values.ravel()[pos]


def _positions(own, keys):
    """Where each of ``keys`` is in ``own`` (distinct int64 keys, any order), else -1."""
    if not len(own):
        return np.full(len(keys), -1, dtype=np.int64)
    order = np.argsort(own)
    found = order[np.minimum(np.searchsorted(own[order], keys), len(own) - 1)]
    return np.where(own[found] == keys, found, -1)


def knn_reverse_lists(indices, values, rptr, rsrc):
    r"""The sources of the stored edges into each point, in order of source.

    For each point ``j``, the flat positions ``i * k + r`` of the slots
    with ``indices[i, r] == j`` and :math:`A_{ij} > 0`, ascending, are
    ``rsrc[rptr[j]:rptr[j + 1]]``: the transpose of the graph as lists,
    read by :func:`knn_union_reverse_count`, :func:`knn_union_reverse_fill`
    and :func:`knn_union_forward`.

    Parameters
    ----------
    indices, values
        As :func:`knn_union_count`.
    rptr : ndarray of shape (n_samples + 1,), int64
        Output: the lists' pointers.
    rsrc : ndarray of shape (n_samples * k,), int32
        Output: the positions; the first ``rptr[-1]`` are written.
    """
    n, k = indices.shape
    pos = np.flatnonzero(values.ravel() > 0.0)
    targets = indices.ravel()[pos]
    rsrc[:len(pos)] = pos[np.argsort(targets, kind="stable")]
    rptr[0] = 0
    rptr[1:] = np.cumsum(np.bincount(targets, minlength=n))


def _reverse_only(indices, values, rptr, rsrc):
    """Every edge into a point, as (point, source, value), and whether the point stores it too.

    In the order of the lists of :func:`knn_reverse_lists`; ``only`` is
    True where the point does not store an edge to the source.
    """
    n, k = indices.shape
    m = int(rptr[-1])
    p = rsrc[:m].astype(np.int64)
    i = np.repeat(np.arange(n, dtype=np.int64), np.diff(rptr))
    j = p // k
    src, dst, _ = _positive_edges(indices, values)
    only = _positions(src * n + dst, i * n + j) < 0
    return i, j, values.ravel()[p], only


def knn_union_reverse_count(indices, values, rptr, rsrc, counts, n_threads):
    r"""Entries per row of :math:`S = \tfrac12 (A + A^\top)` that only the transpose stores.

    Row ``i`` counts each ``j`` with :math:`A_{ji} > 0` and not
    :math:`A_{ij} > 0` (see :func:`knn_union_reverse_fill`).

    Parameters
    ----------
    indices, values
        As :func:`knn_union_count`.
    rptr, rsrc
        The reverse lists of :func:`knn_reverse_lists`.
    counts : ndarray of shape (n_samples,), int64
        Output.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    i, _, _, only = _reverse_only(indices, values, rptr, rsrc)
    counts[:] = np.bincount(i[only], minlength=indices.shape[0])


def knn_union_reverse_fill(indices, values, rptr, rsrc, indptr, out_indices, out_data,
                           n_threads):
    r"""The entries of :math:`S = \tfrac12 (A + A^\top)` that only the transpose stores.

    Row ``i`` gets each ``j`` with :math:`A_{ji} > 0` and not
    :math:`A_{ij} > 0`, ascending, with the value ``0.5 * A_ji``: the
    entries of ``S`` (:func:`knn_union_fill`) whose column is not among the
    row's own stored edges.  With :func:`knn_union_forward` and
    :func:`knn_union_merge` this builds ``S`` in three steps, after the
    first two of which each row of ``S`` needs only its own row's arrays.

    Parameters
    ----------
    indices, values, rptr, rsrc
        As :func:`knn_union_reverse_count`.
    indptr : ndarray of shape (n_samples + 1,), int64
        Row pointers of these entries: ``0`` then the cumulative sum of the
        counts of :func:`knn_union_reverse_count`.
    out_indices : ndarray of shape (indptr[-1],), int32
        Output: the columns ``j``, increasing within each row.
    out_data : ndarray of shape (indptr[-1],)
        Output: ``0.5 * A_ji``.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    _, j, v, only = _reverse_only(indices, values, rptr, rsrc)
    out_indices[:] = j[only]
    out_data[:] = 0.5 * v[only]


#: The value :func:`knn_union_forward` leaves in a slot that is not an entry.
UNION_DROPPED = -1.0


def knn_union_forward(indices, values, rptr, rsrc, n_threads):
    r"""``values`` replaced, in place, by the entries of :math:`S` at the same slots.

    A slot ``(i, r)`` with :math:`A_{ij} > 0` (``j = indices[i, r]``) gets
    ``0.5 * (A_ij + A_ji)`` where :math:`A_{ji} > 0` too, else
    ``0.5 * A_ij`` (the arithmetic of :func:`knn_union_fill`); a slot with
    :math:`A_{ij} \le 0` gets :data:`UNION_DROPPED` (``-1``), which no
    entry of ``S`` can equal.  Each entry of ``S`` then sits in one of its
    row's slots or among the row's entries of
    :func:`knn_union_reverse_fill` (taken from ``values`` before this call).

    Parameters
    ----------
    indices : ndarray of shape (n_samples, k), int32
        As :func:`knn_union_count`.
    values : ndarray of shape (n_samples, k)
        ``A``'s values; overwritten.
    rptr, rsrc
        The reverse lists of :func:`knn_reverse_lists` (of ``A`` before
        this call), where the Cython twin finds each pair's other slot;
        this reference finds it by search.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    n = indices.shape[0]
    flat = values.ravel()
    pos = flat > 0.0
    src, dst, v = _positive_edges(indices, values)
    partner = _positions(src * n + dst, dst * n + src)  # the edge j -> i of each i -> j
    union = np.where(partner >= 0, 0.5 * (v + v[partner]), 0.5 * v)
    flat[~pos] = UNION_DROPPED
    flat[pos] = union


def knn_union_merge(indices, values, rev_indptr, rev_indices, rev_data, indptr, out_indices,
                    out_data, n_threads, start=0, stop=None):
    r"""Rows ``start`` to ``stop - 1`` of :math:`S`, sorted by column, from their own arrays.

    Row ``i`` of ``S`` is its slots of ``values`` after
    :func:`knn_union_forward` that hold a value of at least 0 (not
    :data:`UNION_DROPPED`), merged by
    column with its entries of :func:`knn_union_reverse_fill`; it is
    written at ``indptr[i]`` of ``out_indices`` and ``out_data``.  A row
    reads nothing of another row, so a caller may free the arrays of the
    rows written.

    Parameters
    ----------
    indices : ndarray of shape (n_samples, k), int32
    values : ndarray of shape (n_samples, k)
        After :func:`knn_union_forward`.
    rev_indptr, rev_indices, rev_data
        As filled by :func:`knn_union_reverse_fill`.
    indptr : ndarray of shape (n_samples + 1,), int64
        Row pointers of ``S`` (the counts of :func:`knn_union_count`).
    out_indices : ndarray of shape (indptr[-1],), int32
        Output: the columns of ``S``.
    out_data : ndarray of shape (indptr[-1],)
        Output: its entries.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    start, stop : int, default=0 and None (``n_samples``)
        The rows written.
    """
    n, k = indices.shape
    stop = n if stop is None else stop
    keep = values[start:stop] >= 0.0
    rows = np.repeat(np.arange(start, stop), k).reshape(-1, k)[keep]
    rev = slice(rev_indptr[start], rev_indptr[stop])
    rev_rows = np.repeat(np.arange(start, stop), np.diff(rev_indptr[start:stop + 1]))
    all_rows = np.concatenate([rows, rev_rows])
    cols = np.concatenate([indices[start:stop][keep], rev_indices[rev]])
    data = np.concatenate([values[start:stop][keep], rev_data[rev]])
    order = np.lexsort((cols, all_rows))
    span = slice(indptr[start], indptr[stop])
    out_indices[span] = cols[order]
    out_data[span] = data[order]
