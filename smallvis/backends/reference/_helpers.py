"""Private helpers of the NumPy reference kernels (not part of the twin contract).

The array checks of the pair entry points (:func:`_check_pair_arrays`, which
the compiled twin calls too), the dense ``P`` of a CSR triplet, the squared
distances of a layout, and the gradient of a matrix of pair coefficients.
"""

import numpy as np
from scipy.sparse import csr_matrix
from scipy.spatial.distance import cdist


def _indices_in_range(indices, n_columns):
    """Whether every stored column index lies in ``[0, n_columns)``."""
    return indices.size == 0 or (indices.min() >= 0 and indices.max() < n_columns)


def _check_kernel_array(arr, name, dtype, ndim, writeable=False):
    """Raise ValueError unless ``arr`` is a C-contiguous ``ndim``-D ``dtype`` ndarray."""
    if (isinstance(arr, np.ndarray) and arr.dtype == dtype and arr.ndim == ndim
            and arr.flags.c_contiguous and (arr.flags.writeable or not writeable)):
        return
    got = (f"{arr.ndim}-D {arr.dtype} array (C-contiguous: {arr.flags.c_contiguous}, "
           f"writeable: {arr.flags.writeable})" if isinstance(arr, np.ndarray)
           else type(arr).__name__)
    raise ValueError(f"{name} must be a {'writeable ' * writeable}C-contiguous {ndim}-D "
                     f"{np.dtype(dtype).name} array; got a {got}")


def _check_pair_arrays(indptr, indices, data, Y, grad=None, Y_train=None, *,
                       in_range=_indices_in_range):
    """The arrays of a pair unit's entry point, as the compiled twin reads them unchecked.

    Both twins call it, so they refuse the same input with the same
    ``ValueError``.  ``P`` (the CSR triplet) has a row per row of ``Y`` and a
    column per row of ``Y`` (a fit) or of ``Y_train`` (new points against a
    reference); ``grad``, when given, is written and has ``Y``'s shape.  In
    the full layout of a fit (``data`` is the dense ``N x N`` matrix) the
    kernels read no column index, so none is checked.

    Parameters
    ----------
    indptr, indices : ndarray of int64
    data : ndarray of float64
    Y : ndarray of float64, shape (n_rows, n_components)
    grad : ndarray of float64 or None
    Y_train : ndarray of float64, shape (n_columns, n_components), or None
    in_range : callable or None
        ``in_range(indices, n_columns)``: whether every index lies in
        ``[0, n_columns)`` (the compiled twin passes a one-pass loop).  None
        skips this O(nnz) pass: the named fit kernels (``umap_gradient``, ...)
        do, since the exact optimizer calls them every iteration on the
        ``P`` that :func:`smallvis._validation.check_affinities` and
        ``kernel_triplet`` checked once, and the pass costs about a tenth
        of a LargeVis gradient.  The generic entry points always check.
    """
    _check_kernel_array(Y, "Y", np.float64, 2)
    n_rows, dim = Y.shape
    if dim < 1:
        raise ValueError(f"Y must have at least one column; got shape {Y.shape}")
    if Y_train is None:
        if n_rows < 1:
            raise ValueError("Y must have at least one row")
        n_columns = n_rows
    else:
        _check_kernel_array(Y_train, "Y_train", np.float64, 2)
        if Y_train.shape[0] < 1 or Y_train.shape[1] != dim:
            raise ValueError(f"Y_train must have at least one row and Y's {dim} columns; "
                             f"got shape {Y_train.shape}")
        n_columns = Y_train.shape[0]
    if grad is not None:
        _check_kernel_array(grad, "grad", np.float64, 2, writeable=True)
        if grad.shape != Y.shape:
            raise ValueError(f"grad must have Y's shape {Y.shape}; got {grad.shape}")
    _check_kernel_array(indptr, "indptr", np.int64, 1)
    _check_kernel_array(indices, "indices", np.int64, 1)
    _check_kernel_array(data, "data", np.float64, 1)
    if indptr.shape[0] != n_rows + 1:
        raise ValueError(f"indptr must have n_rows + 1 = {n_rows + 1} entries (a row per "
                         f"row of Y); got {indptr.shape[0]}")
    if indptr[0] != 0 or np.any(indptr[1:] < indptr[:-1]):
        raise ValueError("indptr must start at 0 and be non-decreasing")
    if not indptr[-1] == indices.shape[0] == data.shape[0]:
        raise ValueError(f"indptr[-1] ({indptr[-1]}), len(indices) ({indices.shape[0]}) "
                         f"and len(data) ({data.shape[0]}) must be equal")
    full_layout = Y_train is None and data.shape[0] == n_rows * n_columns
    if in_range is not None and not full_layout and not in_range(indices, n_columns):
        raise ValueError(f"indices must lie in [0, {n_columns - 1}] (a column per row of "
                         f"{'Y' if Y_train is None else 'Y_train'})")


def _dense(indptr, indices, data, n):
    """Return the dense ``n x n`` matrix of a CSR triplet."""
    if len(data) == n * n:  # full layout: data is the row-major dense matrix
        return data.reshape(n, n)
    return csr_matrix((data, indices, indptr), shape=(n, n)).toarray()


def _squared_distances(Y):
    """Return the ``N x N`` matrix of squared Euclidean distances of ``Y``.

    SciPy sums the squared coordinate differences directly (no ``|y|^2 - 2
    y.y' + |y'|^2`` shortcut), so coincident points are at exactly 0.
    """
    return cdist(Y, Y, "sqeuclidean")


def _gradient_from_coefficients(K, Y):
    r"""Return :math:`\sum_j K_{ij} (y_i - y_j)` for every ``i``.

    The sum is unchanged by a translation of ``Y``, so it is evaluated on
    ``Yc = Y - y_0`` as ``K.sum(1) * Yc - K @ Yc``: one matrix-vector
    product per dimension, and no catastrophic cancellation when the
    embedding sits far from the origin relative to its spread (the
    subtraction of a point of the layout is exact for nearby points, and
    gives exactly zero for coincident ones).
    """
    Yc = Y - Y[0]
    return K.sum(axis=1)[:, None] * Yc - K @ Yc
