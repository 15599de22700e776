"""Each row's strongest entries: the graph of the ``"name:K"`` graph inits.

The spectral and Laplacian starts of a dense-rowed ``P`` (largevis's 60 or
150 neighbours) lay out the graph of each point's ``K`` strongest entries
(:func:`smallvis.engines.init.strongest_entries`).  Which entries those
are is decided by one strict order (the larger value, then the smaller
column), so that the twins keep the same ones on any number of threads.
"""

import numpy as np


def row_strongest(indptr, indices, data, k, keep, n_threads):
    r"""Mark each row's ``k`` strongest stored entries of the CSR matrix ``(indptr, indices, data)``.

    Entry :math:`(i, j)` of value :math:`p_{ij}` is stronger than
    :math:`(i, l)` when

    .. math::

        p_{ij} > p_{il} \quad \text{or} \quad (p_{ij} = p_{il} \text{ and } j < l),

    a strict order within a row of distinct columns, so the ``k`` strongest
    are one set (a row of at most ``k`` entries keeps them all).

    Parameters
    ----------
    indptr : ndarray of int64, shape (n + 1,)
    indices : ndarray of int32 or int64, shape (nnz,)
        Column of each stored entry; distinct within a row.
    data : ndarray of float64, shape (nnz,)
        Finite values.
    k : int
        Entries kept per row, at least 1.
    keep : ndarray of uint8, shape (nnz,)
        Overwritten: 1 for a kept entry, else 0.
    n_threads : int
        Accepted for signature parity and ignored here.
    """
    n = len(indptr) - 1
    if k < 1 or len(indices) != len(data) or len(keep) != len(data) or \
            (n >= 0 and indptr[-1] > len(data)):
        raise ValueError("row_strongest: k must be at least 1, and indices, data and keep "
                         "must have one entry per stored entry")
    rows = np.repeat(np.arange(n), np.diff(indptr))
    nnz = len(rows)
    # by row, then the larger value, then the smaller column
    order = np.lexsort((indices[:nnz], -data[:nnz], rows))
    rank = np.empty(nnz, dtype=np.int64)
    rank[order] = np.arange(nnz) - indptr[rows[order]]
    keep[:] = 0
    keep[:nnz] = rank < k
