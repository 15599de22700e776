"""Initial output coordinates."""

import warnings

import numpy as np

from ._validation import check_coordinate_span, check_embedding
from .affinities import power_of_two_exponent

#: Standard deviation of the "random" and "spca" initialisations.
SMALL_SD = 1e-4

INIT_NAMES = ("random", "pca", "spca")


def pca_scores(X, n_components):
    """Principal-component scores of ``X`` with a deterministic sign.

    Each component is flipped so that its largest-magnitude score is positive.
    Columns beyond the rank of ``X`` are zero.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_components : int

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    Xc = X - X.mean(axis=0)
    U, s, _ = np.linalg.svd(Xc, full_matrices=False)
    k = min(n_components, len(s))
    scores = np.zeros((X.shape[0], n_components))
    scores[:, :k] = U[:, :k] * s[:k]
    for c in range(k):
        col = scores[:, c]
        if col[np.argmax(np.abs(col))] < 0:
            scores[:, c] = -col
    return scores


def initialize(init, X, n_components, rng):
    """Return the initial embedding.

    Parameters
    ----------
    init : {"random", "pca", "spca"} or ndarray of shape (n_samples, n_components)
        ``"random"``: Gaussian with standard deviation 1e-4.
        ``"pca"``: the first principal-component scores, unscaled.
        ``"spca"``: the PCA scores scaled so the first column has standard
        deviation 1e-4 (the t-SNE recommendation of Kobak and Berens).
        An array is used as given (copied, not centred).
    X : ndarray of shape (n_samples, n_features)
    n_components : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_samples, n_components)
    """
    n = X.shape[0]
    if init is None:
        raise TypeError(f"init must be one of {', '.join(INIT_NAMES)} or an array; got None")
    if not isinstance(init, str):
        return check_embedding(init, n, n_components)
    if init not in INIT_NAMES:
        raise ValueError(f"init must be one of {', '.join(INIT_NAMES)} or an array; got {init!r}")
    if init == "random":
        return rng.normal(0.0, SMALL_SD, size=(n, n_components))
    # PCA of X / 2**e with max|X / 2**e| in [0.5, 1): exact for normal numbers
    # and safe from overflow (data near 1e300) and underflow (near 1e-300) in
    # the SVD and the standard deviation below; "pca" scales back to X's units.
    e = power_of_two_exponent(X)
    scores = pca_scores(np.ldexp(X, -e), n_components)
    if init == "pca":
        scores = np.ldexp(scores, e)
        if not np.any(scores):
            warnings.warn("X has no variance: PCA initialisation replaced by random",
                          RuntimeWarning, stacklevel=3)
            return rng.normal(0.0, SMALL_SD, size=(n, n_components))
        return check_coordinate_span(scores, "init='pca'")
    sd = scores[:, 0].std()
    if sd == 0:
        warnings.warn("X has no variance: scaled PCA initialisation replaced by random",
                      RuntimeWarning, stacklevel=3)
        return rng.normal(0.0, SMALL_SD, size=(n, n_components))
    return scores * (SMALL_SD / sd)
