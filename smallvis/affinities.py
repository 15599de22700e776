"""Input affinities: perplexity-calibrated Gaussian P (guide §3).

The per-row bandwidth search is a twin kernel (``perplexity_rows``); the rest
(distances, symmetrisation, normalisation) is plain NumPy/SciPy and shared by
both paths.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import pdist, squareform

PERPLEXITY_TOL = 1e-5
PERPLEXITY_MAX_TRIES = 50


def squared_distances(X):
    """Dense matrix of squared Euclidean distances between the rows of ``X``."""
    return squareform(pdist(X, "sqeuclidean"))


def _off_diagonal(D):
    """(n, n) -> (n, n - 1): drop the diagonal of each row."""
    n = D.shape[0]
    return D[~np.eye(n, dtype=bool)].reshape(n, n - 1)


def _with_zero_diagonal(R):
    """(n, n - 1) -> (n, n): put a zero on the diagonal of each row."""
    n = R.shape[0]
    out = np.zeros((n, n))
    out[~np.eye(n, dtype=bool)] = R.ravel()
    return out


def conditional_perplexity(X, perplexity, kernels, *, tol=PERPLEXITY_TOL,
                           max_tries=PERPLEXITY_MAX_TRIES):
    r"""Row-stochastic Gaussian affinities :math:`p_{j|i}` of a given perplexity.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated input data.
    perplexity : float
        Target perplexity, ``1 <= perplexity <= n_samples - 1``.
    kernels : module
        The kernel module (:mod:`smallvis.reference` or ``smallvis._kernels``).
    tol : float, default=1e-5
        Tolerance on the entropy (nats).
    max_tries : int, default=50
        Maximum bisection steps per row.

    Returns
    -------
    P : ndarray of shape (n_samples, n_samples)
        Conditional probabilities, rows summing to 1, zero diagonal.
    beta : ndarray of shape (n_samples,)
        Gaussian precisions :math:`\beta_i = 1 / (2\sigma_i^2)`.
    """
    D2 = np.ascontiguousarray(_off_diagonal(squared_distances(X)))
    n = D2.shape[0]
    rows = np.zeros_like(D2)
    beta = np.zeros(n)
    n_failed = kernels.perplexity_rows(D2, float(perplexity), float(tol),
                                       int(max_tries), rows, beta)
    if n_failed:
        warnings.warn(
            f"perplexity calibration did not converge for {n_failed} of {n} rows; "
            f"those rows put 1/{max(int(perplexity), 1)} on their "
            f"{max(int(perplexity), 1)} nearest neighbours",
            RuntimeWarning,
            stacklevel=3,
        )
    return _with_zero_diagonal(rows), beta


def symmetrize(P):
    """Return ``(P + P.T) / 2`` (dense or sparse)."""
    return 0.5 * (P + P.T)


def normalize(P):
    """Return ``P`` divided by its grand sum."""
    return P / P.sum()


def joint_perplexity(X, perplexity, kernels):
    """Symmetric, matrix-normalised perplexity affinities (ssne, tsne)."""
    P, _ = conditional_perplexity(X, perplexity, kernels)
    return normalize(symmetrize(P))


def kernel_triplet(P):
    """CSR triplet ``(indptr, indices, data)`` in the layout kernels expect.

    ``P`` is a validated dense array or canonical CSR matrix (see
    :func:`smallvis._validation.check_affinities`).  A dense array, or a
    sparse matrix with at least half of its entries stored, is passed in the
    full layout: every row stores all ``n`` columns (zeros included), so
    ``data`` is the row-major dense matrix and kernels can read rows directly.
    """
    n = P.shape[0]
    if sp.issparse(P) and P.nnz < 0.5 * n * n:
        return (np.ascontiguousarray(P.indptr, dtype=np.int64),
                np.ascontiguousarray(P.indices, dtype=np.int64),
                np.ascontiguousarray(P.data, dtype=np.float64))
    dense = P.toarray() if sp.issparse(P) else P
    data = np.ascontiguousarray(dense, dtype=np.float64).reshape(-1)
    indptr = np.arange(0, n * n + 1, n, dtype=np.int64)
    indices = np.tile(np.arange(n, dtype=np.int64), n)
    return indptr, indices, data


def as_dense_or_sparse(P):
    """Return ``P`` unchanged if sparse, else as a float64 ndarray."""
    return P if sp.issparse(P) else np.asarray(P, dtype=np.float64)
