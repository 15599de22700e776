r"""Linear projections of the input: PCA of dense X, truncated SVD of sparse X.

:func:`fit_projection` finds the top ``r`` right singular vectors of ``X``
(centred on the column means for dense ``X``: its principal axes; not
centred for sparse ``X``, which centring would fill in) by a randomised
range finder with power iterations (Halko, Martinsson and Tropp 2011),
through NumPy and SciPy only:

.. math::

    Q = \operatorname{orth}\big((X X^\top)^q X \Omega\big),\quad
    B = Q^\top X = \hat U \Sigma V^\top,\quad
    \text{components} = V_{:, :r}^\top,

with :math:`\Omega` a Gaussian ``(d, r + p)`` matrix drawn from the seed,
``p = 10`` extra columns and ``q = 4`` iterations (re-orthonormalised at
each step).  The signs are fixed (the largest loading of each component is
positive), so a seed gives the same projection in every process.
:class:`Projection` applies it to new points: ``transform`` projects them
as the training data were projected.
"""

from typing import NamedTuple, Optional

import numpy as np
import scipy.sparse as sp

from .. import _progress

#: Extra random directions and power iterations of the range finder.
OVERSAMPLES = 10
POWER_ITERATIONS = 4


class Projection(NamedTuple):
    """A fitted projection: ``(X - mean) @ components.T`` (``mean`` None: not centred)."""

    #: (r, d) orthonormal rows.
    components: np.ndarray
    #: (d,) column means of the training data, or None (sparse: not centred).
    mean: Optional[np.ndarray]

    def apply(self, X):
        """The ``(n, r)`` scores of the rows of ``X`` (dense or sparse), float64, C order."""
        if sp.issparse(X):
            scores = X @ self.components.T
            if self.mean is not None:
                scores -= self.mean @ self.components.T
        else:
            scores = (X - self.mean) @ self.components.T if self.mean is not None \
                else X @ self.components.T
        return np.ascontiguousarray(scores, dtype=np.float64)


def fit_projection(X, n_components, seed, centre=None, power_iterations=POWER_ITERATIONS,
                   stage="projection"):
    """The top ``n_components`` right singular vectors of ``X`` (centred if dense).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
        Checked data.
    n_components : int
        ``r``, at most ``min(n_samples, n_features)``.
    seed : int
        Seeds the random directions.
    centre : bool, optional
        Subtract the column means first; default: for dense ``X`` only.
    power_iterations : int, default=POWER_ITERATIONS
        ``q``: more make the axes more precise, each costs two products
        with ``X``.
    stage : str, default="projection"
        The stage its progress lines name (with reporting on, a line when
        one is due after each of the ``2 q + 2`` products with ``X``).

    Returns
    -------
    Projection
    """
    centre = not sp.issparse(X) if centre is None else centre
    mean = np.asarray(X.mean(axis=0)).ravel() if centre else None
    n, d = X.shape
    r = int(n_components)
    width = min(r + OVERSAMPLES, n, d)
    rng = np.random.default_rng(seed)
    omega = rng.standard_normal((d, width))

    def times(M):  # (X - mean) @ M
        out = np.asarray(X @ M)
        return out - mean @ M if mean is not None else out

    def times_t(M):  # (X - mean).T @ M
        out = np.asarray(X.T @ M)
        return out - np.outer(mean, M.sum(axis=0)) if mean is not None else out

    progress = _progress.counter(stage, "range finder products", 2 * power_iterations + 2)
    Q, _ = np.linalg.qr(times(omega))
    progress.advance(1)
    for _ in range(power_iterations):
        Q, _ = np.linalg.qr(times_t(Q))
        Q, _ = np.linalg.qr(times(Q))
        progress.advance(2)
    B = times_t(Q).T  # (width, d) = Q^T (X - mean)
    progress.advance(1)
    _, _, Vt = np.linalg.svd(B, full_matrices=False)
    components = Vt[:r]
    flip = np.sign(components[np.arange(len(components)),
                              np.argmax(np.abs(components), axis=1)])
    components = np.ascontiguousarray(components * flip[:, None])
    return Projection(components, mean)
