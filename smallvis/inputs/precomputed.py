"""Precomputed inputs: a distance matrix, a kNN graph, or the affinities themselves.

Three ways to give what the data would have given, each checked as the
data are (shape, finite, non-negative, zero diagonal, symmetric where the
method needs it), each refused with a message that names what is wrong:

- ``metric="precomputed"`` with a dense square ``X``: the distances between
  the points (:func:`check_distance_matrix`).  Every method takes it; the
  searches select among its rows, and ``transform`` takes the distances
  from the new points to the training points, one row per new point.
- ``metric="precomputed"`` with a sparse ``X``: a kNN graph whose row ``i``
  stores the distances from point ``i`` to its neighbours
  (:func:`knn_from_graph`); it becomes ``knn=``.
- ``knn=(indices, distances)`` without ``X``, or ``affinities=P``: the
  graph, or ``P``, alone (:func:`affinities_of_method` brings a user's
  ``P`` to the method's normalisation).

Without data there is nothing to place new points against, nothing to take
principal components of: such a fit has no ``transform`` and starts from
the spectral layout of ``P`` unless another ``init`` is given.
"""

import numpy as np
import scipy.sparse as sp

#: The ``metric`` of distances given instead of data.
PRECOMPUTED = "precomputed"

#: Relative asymmetry allowed in a precomputed distance matrix (rounding of
#: a matrix computed row by row).
SYMMETRY_TOL = 1e-10


def check_distance_matrix(D, name="X"):
    """A dense precomputed distance matrix, checked: square, non-negative, zero diagonal, symmetric.

    ``D`` is checked data (finite float64, :func:`smallvis._validation.check_data`).
    Symmetric, and zero on the diagonal, to ``1e-10`` of its largest entry
    (the rounding of a matrix computed row by row).  Returns ``D``.
    """
    n, m = D.shape
    if n != m:
        raise ValueError(f"{name} with metric='precomputed' must be a square matrix of "
                         f"distances (n_samples, n_samples); got shape {D.shape}")
    check_distance_rows(D, name)
    largest = float(D.max()) if D.size else 0.0
    # rounding is allowed (SciPy's cosine distance of a row to itself can be
    # 2e-16); the diagonal is never read
    diagonal = np.flatnonzero(np.diagonal(D) > SYMMETRY_TOL * largest)
    if diagonal.size:
        raise ValueError(f"{name} with metric='precomputed' must have a zero diagonal (the "
                         f"distance of a point to itself); row {int(diagonal[0])} has "
                         f"{float(D[diagonal[0], diagonal[0]])!r}")
    # in strips of rows: no N x N temporary
    for start in range(0, n, 256):
        block = D[start:start + 256]
        worst = float(np.max(np.abs(block - D[:, start:start + 256].T)))
        if worst > SYMMETRY_TOL * largest:
            raise ValueError(f"{name} with metric='precomputed' must be symmetric (D[i, j] "
                             f"== D[j, i]); it differs by up to {worst:.3g} from its "
                             "transpose; symmetrise it, e.g. with (D + D.T) / 2")
    return D


def check_distance_rows(D, name="X_new"):
    """Rows of precomputed distances (new points to training points): non-negative."""
    negative = int(np.count_nonzero(D < 0))
    if negative:
        raise ValueError(f"{name} with metric='precomputed' holds distances and must be "
                         f"non-negative; found {negative} negative entries")
    return D


def knn_from_graph(G, name="X"):
    """``(indices, distances)`` of a sparse kNN graph, nearest first.

    Parameters
    ----------
    G : scipy.sparse matrix or array of shape (n_samples, n_samples)
        Row ``i`` stores the distances from point ``i`` to its neighbours
        (an explicitly stored 0 is a neighbour at distance 0, a duplicate).
        The diagonal may be stored, as 0 (it is dropped).  Every row needs
        at least one neighbour; all rows are cut to the fewest any row has.

    Returns
    -------
    indices : ndarray of shape (n_samples, m), int64
    distances : ndarray of shape (n_samples, m)
        Each row sorted by (distance, index); ``m`` the smallest number of
        neighbours of a row.

    Raises
    ------
    ValueError
        A graph that is not square, has a non-finite or negative distance,
        a non-zero diagonal, a pair stored twice, or a row without
        neighbours.
    """
    C = G.tocoo()  # as stored: a pair stored twice is not summed
    n, m = C.shape
    if n != m:
        raise ValueError(f"{name} with metric='precomputed' and sparse must be a square kNN "
                         f"graph (n_samples, n_samples); got shape {C.shape}")
    if C.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real distances; got dtype {C.dtype}")
    data = C.data.astype(np.float64)
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name}: the kNN graph's distances must be finite")
    if np.any(data < 0):
        raise ValueError(f"{name}: the kNN graph's distances must be non-negative")
    rows, cols = C.row.astype(np.int64), C.col.astype(np.int64)
    if np.unique(rows * n + cols).size != rows.size:
        raise ValueError(f"{name}: the kNN graph stores a pair (i, j) twice; store each "
                         "neighbour once")
    self_loop = rows == cols
    if np.any(data[self_loop] != 0):
        first = int(np.flatnonzero(self_loop & (data != 0))[0])
        raise ValueError(f"{name}: the kNN graph's diagonal must be 0 (or not stored); row "
                         f"{int(rows[first])} stores {data[first]!r}")
    rows, cols, data = rows[~self_loop], cols[~self_loop], data[~self_loop]
    counts = np.bincount(rows, minlength=n)
    if counts.min() == 0:
        raise ValueError(f"{name}: row {int(np.argmin(counts))} of the kNN graph has no "
                         "neighbour; every point needs at least one")
    width = int(counts.min())
    order = np.lexsort((cols, data, rows))  # by row, then distance, then index
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    take = (starts[:, None] + np.arange(width)[None, :]).ravel()
    indices = cols[order][take].reshape(n, width)
    distances = data[order][take].reshape(n, width)
    return indices, distances


def affinities_of_method(P, family):
    """A user's checked ``P`` brought to the method's normalisation.

    ``family.normalised``: ``"total"`` divides by the grand sum (ssne, tsne,
    largevis, ncvis normalise their own ``P`` so), ``"rows"`` divides each
    row by its sum (asne's conditional ``P``; a row without a positive
    entry is refused), ``""`` keeps the memberships as they are (umap,
    tumap).
    """
    if family.normalised == "total":
        return P / P.sum() if not sp.issparse(P) else (P / P.sum()).tocsr()
    if family.normalised == "rows":
        sums = np.asarray(P.sum(axis=1)).ravel()
        if np.any(sums <= 0):
            raise ValueError(f"affinities: row {int(np.flatnonzero(sums <= 0)[0])} has no "
                             "positive entry; every row of a conditional P needs one")
        if sp.issparse(P):
            return sp.csr_matrix(sp.diags(1.0 / sums) @ P)
        return P / sums[:, None]
    return P
