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
        from .._validation import ParameterError

        raise ParameterError(
            f"{name} with metric='precomputed' must be a square matrix of distances "
            f"(n_samples, n_samples); got shape {D.shape}: to measure the distances between "
            f"the rows of {name}, drop metric='precomputed' (or choose another metric)",
            ("metric",))
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


def check_graph(G, name="X"):
    """A sparse kNN graph, checked as stored: a canonical float64 CSR copy.

    The one check of a kNN graph given as a sparse ``X`` with
    ``metric="precomputed"``, which every path calls before anything
    converts it: :func:`smallvis.embed` and :func:`smallvis.affinities`
    (through :func:`knn_from_graph`), ``Embedding.fit`` and model files.
    It reads the entries as stored, because SciPy's conversions to CSR sum
    a pair stored twice: a neighbour listed twice at distance ``d`` would
    become one neighbour at ``2 d``.

    Parameters
    ----------
    G : scipy.sparse matrix of shape (n_samples, n_samples)
        Row ``i`` stores the distances from point ``i`` to its neighbours
        (an explicitly stored 0 is a neighbour at distance 0, a duplicate).
        The diagonal may be stored, as 0.  At least 2 points.
    name : str
        The argument's name in messages.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        float64, indices sorted in each row, explicit zeros kept.

    Raises
    ------
    ValueError
        A graph that is not square, has a non-finite or negative distance,
        a non-zero diagonal, a pair stored twice, a row without neighbours,
        or fewer than 2 points.
    TypeError
        A graph whose values are not real numbers.
    """
    C = G.tocoo()  # as stored: a pair stored twice is not summed
    n, m = C.shape
    if n != m:
        raise ValueError(f"{name} with metric='precomputed' and sparse must be a square kNN "
                         f"graph (n_samples, n_samples); got shape {C.shape}")
    if n < 2:
        raise ValueError(f"{name}: a kNN graph needs at least 2 points; got {n}")
    if C.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real distances; got dtype {C.dtype}")
    data = C.data.astype(np.float64)
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name}: the kNN graph's distances must be finite")
    if np.any(data < 0):
        raise ValueError(f"{name}: the kNN graph's distances must be non-negative")
    rows, cols = C.row.astype(np.int64), C.col.astype(np.int64)
    keys = rows * n + cols
    if np.unique(keys).size != keys.size:
        ordered = np.sort(keys)
        twice = int(ordered[1:][ordered[1:] == ordered[:-1]][0])
        raise ValueError(f"{name}: the kNN graph stores the pair ({twice // n}, {twice % n}) "
                         "twice; store each neighbour once (SciPy would add the two "
                         "distances)")
    self_loop = rows == cols
    if np.any(data[self_loop] != 0):
        first = int(np.flatnonzero(self_loop & (data != 0))[0])
        raise ValueError(f"{name}: the kNN graph's diagonal must be 0 (or not stored); row "
                         f"{int(rows[first])} stores {data[first]!r}")
    counts = np.bincount(rows[~self_loop], minlength=n)
    if counts.min() == 0:
        raise ValueError(f"{name}: row {int(np.argmin(counts))} of the kNN graph has no "
                         "neighbour; every point needs at least one")
    # no pair is stored twice: the conversion sums nothing
    G = sp.csr_matrix((data, (rows, cols)), shape=(n, n))
    G.sort_indices()
    return G


def knn_from_graph(G, name="X"):
    """``(indices, distances)`` of a sparse kNN graph, nearest first.

    Parameters
    ----------
    G : scipy.sparse matrix of shape (n_samples, n_samples)
        As :func:`check_graph` takes it (which checks it).  The diagonal is
        dropped.  Every row needs at least one neighbour; all rows are cut
        to the fewest any row has.

    Returns
    -------
    indices : ndarray of shape (n_samples, m), int64
    distances : ndarray of shape (n_samples, m)
        Each row sorted by (distance, index); ``m`` the smallest number of
        neighbours of a row.  The pair is a :class:`GraphNeighbours`, which
        also holds each row's count.

    Raises
    ------
    ValueError, TypeError
        As :func:`check_graph`.
    """
    return graph_neighbours(check_graph(G, name))


def graph_neighbours(G):
    """:func:`knn_from_graph` of a graph that :func:`check_graph` returned (not checked again).

    For a caller that checked the graph already: ``Embedding.fit`` checks
    its input before it hands it to :func:`smallvis.embed`.
    """
    C = G.tocoo()
    n = C.shape[0]
    rows, cols, data = C.row.astype(np.int64), C.col.astype(np.int64), C.data
    off_diagonal = rows != cols
    rows, cols, data = rows[off_diagonal], cols[off_diagonal], data[off_diagonal]
    counts = np.bincount(rows, minlength=n)
    width = int(counts.min())
    order = np.lexsort((cols, data, rows))  # by row, then distance, then index
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    take = (starts[:, None] + np.arange(width)[None, :]).ravel()
    indices = cols[order][take].reshape(n, width)
    distances = data[order][take].reshape(n, width)
    return GraphNeighbours(indices, distances, counts)


class GraphNeighbours(tuple):
    """``(indices, distances)`` cut from a kNN graph, with each row's own count.

    A pair like any ``knn=``; ``row_counts`` (the neighbours each row of the
    graph had before the cut) lets a message name the rows that are too
    short (:func:`smallvis.inputs.affinities.too_few_neighbours`).
    """

    def __new__(cls, indices, distances, row_counts):
        pair = super().__new__(cls, (indices, distances))
        pair.row_counts = row_counts
        return pair


def is_graph(X, metric):
    """Whether training input ``X`` with ``metric`` is a kNN graph (nothing to measure new points against)."""
    return sp.issparse(X) and metric == PRECOMPUTED


#: Why a fit made from a kNN graph (or from affinities) has no ``transform``.
NO_DATA_TO_PLACE = (
    "a fit made from a kNN graph (a sparse X with metric='precomputed') cannot place new "
    "points: it has no data to measure new points "
    "against; to place new points, fit on the data, or on the dense matrix of distances "
    "between the training points (then transform takes each new point's distances to "
    "them)")


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
