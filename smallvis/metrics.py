"""Quality measures for embeddings.

All neighbours are exact and Euclidean.  Low-dimensional data use a
:class:`scipy.spatial.cKDTree`; higher-dimensional data use blocks of the
distance matrix computed with :func:`scipy.spatial.distance.cdist`, so memory
stays at a few tens of megabytes and datasets of tens of thousands of points
are fine.  Only NumPy and SciPy are used.
"""

import math

import numpy as np
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from ._validation import check_integer

__all__ = ["trustworthiness", "knn_preservation", "knn_accuracy"]

# Above this many dimensions a KD-tree is no faster than brute force.
_KDTREE_MAX_DIM = 8
# Number of float64 entries in one block of the distance matrix (~32 MB).
_BLOCK_ENTRIES = 4_000_000


def _check_data(A, name):
    """Return `A` as a finite 2-D float64 array, or raise."""
    try:
        arr = np.asarray(A, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array: {exc}") from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features), "
            f"got an array with {arr.ndim} dimension(s)"
        )
    if arr.shape[0] < 2 or arr.shape[1] < 1:
        raise ValueError(
            f"{name} must have at least 2 rows and 1 column, got shape "
            f"{arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _check_same_rows(A, B, name_a, name_b):
    if A.shape[0] != B.shape[0]:
        raise ValueError(
            f"{name_a} and {name_b} must have the same number of rows, got "
            f"{A.shape[0]} and {B.shape[0]}"
        )


def _check_n_neighbors(n_neighbors, n_samples, upper=None, upper_text=None):
    """Check 1 <= n_neighbors < upper (default n_samples)."""
    if upper is None:
        upper, upper_text = n_samples, f"below the number of samples, {n_samples}"
    return check_integer(n_neighbors, "n_neighbors", 1, math.ceil(upper) - 1,
                         why=upper_text)


def _row_blocks(n_rows, n_cols):
    """Yield slices over `n_rows` so each block has <= _BLOCK_ENTRIES."""
    step = max(1, _BLOCK_ENTRIES // max(n_cols, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


def _knn(A, k):
    """Indices of the `k` nearest other points of every row of `A`.

    Returns an int array of shape (n, k), nearest first.  Ties are broken
    arbitrarily but deterministically.
    """
    n = A.shape[0]
    if A.shape[1] <= _KDTREE_MAX_DIM:
        _, idx = cKDTree(A).query(A, k=k + 1)
        idx = np.asarray(idx).reshape(n, k + 1)
        # Normally column 0 is the point itself; with duplicate points it
        # may appear later (or, with many duplicates, not at all).
        is_self = idx == np.arange(n)[:, None]
        no_self = ~is_self.any(axis=1)
        is_self[no_self, k] = True
        return idx[~is_self].reshape(n, k)
    out = np.empty((n, k), dtype=np.intp)
    for rows in _row_blocks(n, n):
        D = cdist(A[rows], A, "sqeuclidean")
        local = np.arange(rows.stop - rows.start)
        D[local, local + rows.start] = np.inf
        part = np.argpartition(D, k - 1, axis=1)[:, :k]
        order = np.argsort(np.take_along_axis(D, part, axis=1), axis=1,
                           kind="stable")
        out[rows] = np.take_along_axis(part, order, axis=1)
    return out


def trustworthiness(X, Y, n_neighbors=15):
    """Trustworthiness of an embedding (Venna & Kaski, 2001).

    Measures how far the `n_neighbors` nearest neighbours of each point in the
    embedding are from being its neighbours in the input space:

    .. math::

        T(k) = 1 - \\frac{2}{n k (2n - 3k - 1)} \\sum_{i=1}^{n}
               \\sum_{j \\in U_k(i)} (r(i, j) - k)

    where :math:`U_k(i)` are the points among the `k` nearest neighbours of
    `i` in `Y` but not in `X`, and :math:`r(i, j)` is the rank of `j` among
    the neighbours of `i` in `X` (1 for the nearest, the point itself
    excluded).  1 is perfect; values near 0.5 or below are poor.  The
    definition (Euclidean distances in both spaces) is that of
    ``sklearn.manifold.trustworthiness``.  If some distances in `X` are tied,
    `r(i, j)` counts only strictly closer points, i.e. the smallest rank
    consistent with the tie.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Input data.
    Y : array-like of shape (n_samples, n_components)
        Embedding of `X`, one row per row of `X`.
    n_neighbors : int, default=15
        Neighbourhood size `k`; must satisfy ``1 <= k < n_samples / 2`` so
        that the normalisation is defined.

    Returns
    -------
    float
        Trustworthiness in [0, 1].

    Raises
    ------
    ValueError
        If `X` or `Y` is not 2-D, not finite, they differ in number of rows,
        or `n_neighbors` is out of range.
    TypeError
        If `n_neighbors` is not an integer or the data are not numeric.

    References
    ----------
    J. Venna and S. Kaski (2001), "Neighborhood preservation in nonlinear
    projection methods: an experimental study", ICANN 2001, 485-491.
    """
    X = _check_data(X, "X")
    Y = _check_data(Y, "Y")
    _check_same_rows(X, Y, "X", "Y")
    n = X.shape[0]
    k = _check_n_neighbors(n_neighbors, n, upper=n / 2.0,
                           upper_text=f"below n_samples / 2 = {n / 2.0:g}")
    nn_y = _knn(Y, k)
    penalty = 0
    # A block holds rows x n distances plus a rows x k x n comparison.
    for rows in _row_blocks(n, n * (k + 1)):
        D = cdist(X[rows], X, "sqeuclidean")
        local = np.arange(rows.stop - rows.start)
        D[local, local + rows.start] = np.inf  # the point is not its own NN
        target = np.take_along_axis(D, nn_y[rows], axis=1)
        # rank = 1 + number of other points strictly closer in X
        ranks = 1 + np.count_nonzero(D[:, None, :] < target[:, :, None],
                                     axis=2)
        excess = ranks - k
        penalty += int(excess[excess > 0].sum())
    return float(1.0 - penalty * 2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0)))


def knn_preservation(X, Y, n_neighbors=15):
    """Fraction of input-space nearest neighbours kept in the embedding.

    For each point, the size of the intersection of its `n_neighbors` nearest
    neighbours in `X` with its `n_neighbors` nearest neighbours in `Y`,
    divided by `n_neighbors`, averaged over all points.  Neighbours exclude
    the point itself; distances are Euclidean.  If distances are tied at the
    k-th neighbour, which of the tied points counts is arbitrary.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Input data.
    Y : array-like of shape (n_samples, n_components)
        Embedding of `X`.
    n_neighbors : int, default=15
        Neighbourhood size `k`, ``1 <= k < n_samples``.

    Returns
    -------
    float
        Mean preserved fraction, in [0, 1].

    Raises
    ------
    ValueError
        If `X` or `Y` is not 2-D, not finite, they differ in number of rows,
        or `n_neighbors` is out of range.
    TypeError
        If `n_neighbors` is not an integer or the data are not numeric.
    """
    X = _check_data(X, "X")
    Y = _check_data(Y, "Y")
    _check_same_rows(X, Y, "X", "Y")
    n = X.shape[0]
    k = _check_n_neighbors(n_neighbors, n)
    nn_x = np.sort(_knn(X, k), axis=1)
    nn_y = np.sort(_knn(Y, k), axis=1)
    # Count common entries of each pair of sorted rows: encode (row, index)
    # pairs as single integers and intersect them all at once.
    offsets = np.arange(n, dtype=np.int64)[:, None] * n
    common = np.intersect1d(nn_x + offsets, nn_y + offsets,
                            assume_unique=True)
    return float(common.size / (n * k))


def knn_accuracy(Y, labels, n_neighbors=10):
    """Leave-one-out k-nearest-neighbour classification accuracy.

    Each point is classified by a majority vote of the labels of its
    `n_neighbors` nearest *other* points in `Y` (Euclidean distance); the
    result is the fraction of points whose vote matches their own label.  A
    tied vote goes to the smallest of the tied labels (in the sort order of
    :func:`numpy.unique`), so results are deterministic.

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_components)
        Embedding coordinates.
    labels : array-like of shape (n_samples,)
        Class labels: integers, or any values :func:`numpy.unique` can sort
        (e.g. strings).
    n_neighbors : int, default=10
        Number of neighbours voting, ``1 <= k < n_samples``.

    Returns
    -------
    float
        Accuracy in [0, 1].

    Raises
    ------
    ValueError
        If `Y` is not 2-D or not finite, `labels` is not 1-D, has a
        different length or holds NaN, or `n_neighbors` is out of range.
    TypeError
        If `n_neighbors` is not an integer or `Y` is not numeric.
    """
    Y = _check_data(Y, "Y")
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(
            f"labels must be a 1-D array, got an array with {labels.ndim} "
            f"dimension(s)"
        )
    _check_same_rows(Y, labels, "Y", "labels")
    if labels.dtype.kind in "fc" and np.isnan(labels).any():
        # np.unique puts every NaN in one class, which would score the
        # unlabelled points as agreeing with one another
        raise ValueError(
            f"labels hold {int(np.isnan(labels).sum())} NaN value(s): a missing label "
            "is not a class; score the labelled rows only (Y[mask], labels[mask])"
        )
    n = Y.shape[0]
    k = _check_n_neighbors(n_neighbors, n)
    _, codes = np.unique(labels, return_inverse=True)
    codes = codes.reshape(-1)
    n_classes = int(codes.max()) + 1
    votes_for = codes[_knn(Y, k)]  # (n, k) class codes of the neighbours
    predicted = np.empty(n, dtype=np.intp)
    for rows in _row_blocks(n, n_classes):
        block = votes_for[rows]
        m = block.shape[0]
        flat = block + (np.arange(m) * n_classes)[:, None]
        counts = np.bincount(flat.ravel(), minlength=m * n_classes)
        # argmax returns the first maximum, i.e. the smallest tied label
        predicted[rows] = counts.reshape(m, n_classes).argmax(axis=1)
    return float(np.mean(predicted == codes))
