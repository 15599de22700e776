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


def power_of_two_exponent(X):
    """Exponent ``e`` with ``max|X| = m 2**e``, ``0.5 <= m < 1`` (0 for X = 0).

    Dividing by ``2**e`` (``np.ldexp(X, -e)``) is exact for every entry that
    stays a normal number, so it changes no digit of the data.
    """
    top = float(np.max(np.abs(X))) if X.size else 0.0
    if top == 0.0 or not np.isfinite(top):
        return 0
    return int(np.frexp(top)[1])


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
        Gaussian precisions :math:`\beta_i = 1 / (2\sigma_i^2)`, in units
        of ``X`` to the power -2 (they may overflow to inf or underflow to 0
        for data near the ends of the float64 range; ``P`` does not).

    Notes
    -----
    Scale invariance: ``X`` is first divided by the power of two nearest
    above ``max|X|``, so squared distances neither overflow (data of size
    1e300) nor underflow (1e-300).  The calibrated ``P`` depends on ``X``
    only through ``beta * d^2``, so scaling ``X`` by ``c`` leaves ``P``
    unchanged in exact arithmetic with ``beta`` divided by ``c**2``.  With
    this rescaling that holds in floating point too: ``P`` is bit-for-bit
    identical for ``X`` and ``2**k * X``, and equal to rounding (about 1e-12
    relative, the bisection tolerance permitting) for ``X``, ``1e150 * X`` and
    ``1e-150 * X``.
    """
    e = power_of_two_exponent(X)
    Xs = np.ldexp(X, -e) if e else X
    D2 = np.ascontiguousarray(_off_diagonal(squared_distances(Xs)))
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
    with np.errstate(over="ignore", under="ignore"):
        beta = np.ldexp(beta, -2 * e) if e else beta
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


def kernel_triplet(C):
    """CSR triplet ``(indptr, indices, data)`` in the layout kernels expect.

    ``C`` must be canonical (see :func:`smallvis._validation.check_affinities`).
    A matrix with at least half of its entries non-zero is passed in the full
    layout: every row stores all ``n`` columns (zeros included), so ``data``
    is the row-major dense matrix and kernels can read rows directly.
    """
    n = C.shape[0]
    _check_structure(C)
    if C.nnz >= 0.5 * n * n:
        data = np.ascontiguousarray(C.toarray().ravel())
        indptr = np.arange(0, n * n + 1, n, dtype=np.int64)
        indices = np.tile(np.arange(n, dtype=np.int64), n)
        return indptr, indices, data
    return (np.ascontiguousarray(C.indptr, dtype=np.int64),
            np.ascontiguousarray(C.indices, dtype=np.int64),
            np.ascontiguousarray(C.data, dtype=np.float64))


def _check_structure(C):
    """Last guard before the unchecked kernels: every index in range.

    :func:`smallvis._validation.check_affinities` already guarantees this;
    the O(nnz) re-check costs far less than any kernel call and keeps an
    inconsistent matrix from reading or writing outside the kernels' buffers.
    """
    n_rows, n_cols = C.shape
    indptr, indices = np.asarray(C.indptr), np.asarray(C.indices)
    ok = (
        C.format == "csr" and n_rows == n_cols
        and indptr.shape == (n_rows + 1,) and indptr[0] == 0
        and indptr[-1] == len(indices) == len(C.data)
        and bool(np.all(np.diff(indptr) >= 0))
        and (len(indices) == 0 or (indices.min() >= 0 and indices.max() < n_cols))
    )
    if not ok:
        raise ValueError(
            "P has an inconsistent sparse structure (index out of [0, n_samples - 1] "
            "or indptr not monotone); pass it through check_affinities"
        )


def as_dense_or_sparse(P):
    """Return ``P`` unchanged if sparse, else as a float64 ndarray."""
    return P if sp.issparse(P) else np.asarray(P, dtype=np.float64)
