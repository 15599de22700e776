"""Readable, exact NumPy reference kernels.

Every public function here has a Cython twin of the same name and the same
``inspect.signature`` in :mod:`smallvis._kernels`.  The twins are
interchangeable: :func:`smallvis._backend.kernels` picks one module from the
``fast`` flag, and nothing else in the package branches on it.

Conventions shared by both modules
----------------------------------
* The input affinities ``P`` arrive as a CSR triplet ``(indptr, indices,
  data)`` of an ``N x N`` matrix with ``int64`` index arrays and ``float64``
  data.  Here the triplet is turned back into a dense matrix so that every
  formula reads like the seed documents.
* ``Y`` is a C-contiguous ``float64`` array of shape ``(N, n_components)``.
* Sums run over ordered pairs ``i != j``; costs keep their constant terms.
* ``*_gradient`` functions write into the caller's ``grad`` array and return
  ``None``; ``*_cost`` functions return a float.
* ``n_threads`` is accepted for signature parity and ignored here.

The Python wrappers in :mod:`smallvis.api` validate shapes, dtypes and index
ranges before calling any kernel.
"""

import numpy as np
from scipy.sparse import csr_matrix
from scipy.special import logsumexp

#: Largest memory (bytes) the NumPy path may plan for: 2 GiB.  The reference
#: kernels build dense N x N matrices, so the wrappers in :mod:`smallvis.api`
#: refuse sizes whose estimate ``DENSE_ARRAYS * N**2 * 8`` exceeds this
#: (N above 4096) before allocating anything.  Raise it deliberately
#: (``smallvis.reference.MAX_DENSE_BYTES = ...``) on a machine with more memory.
MAX_DENSE_BYTES = 2 * 1024**3

#: Dense N x N float64 arrays alive at the peak of an ``embed`` call on this
#: path (measured with tracemalloc: the dense P, its CSR copy and kernel
#: triplet, the exaggerated copy and up to 8 temporaries inside a kernel).
DENSE_ARRAYS = 16

__all__ = [
    "perplexity_rows",
    "asne_cost",
    "asne_gradient",
    "ssne_cost",
    "ssne_gradient",
    "tsne_cost",
    "tsne_gradient",
]


# ---------------------------------------------------------------------------
# helpers (private: not part of the twin contract)
# ---------------------------------------------------------------------------


def _dense(indptr, indices, data, n):
    """Return the dense ``n x n`` matrix of a CSR triplet."""
    if len(data) == n * n:  # full layout: data is the row-major dense matrix
        return data.reshape(n, n)
    return csr_matrix((data, indices, indptr), shape=(n, n)).toarray()


def _squared_distances(Y):
    """Return the ``N x N`` matrix of squared Euclidean distances of ``Y``."""
    D2 = np.zeros((Y.shape[0], Y.shape[0]))
    for column in Y.T:
        D2 += (column[:, None] - column[None, :]) ** 2
    return D2


def _gradient_from_coefficients(K, Y):
    r"""Return :math:`\sum_j K_{ij} (y_i - y_j)` for every ``i``.

    The differences are formed first, as in the formula: the shortcut
    ``K.sum(1) * Y - K @ Y`` cancels catastrophically when the embedding sits
    far from the origin relative to its spread.
    """
    grad = np.empty_like(Y)
    for d, column in enumerate(Y.T):
        grad[:, d] = np.sum(K * (column[:, None] - column[None, :]), axis=1)
    return grad


def _xlogy_sum(P, log_Q):
    """Sum of ``P * (log P - log_Q)`` over the entries where ``P > 0``."""
    mask = P > 0
    return float(np.sum(P[mask] * (np.log(P[mask]) - log_Q[mask])))


# ---------------------------------------------------------------------------
# input affinities
# ---------------------------------------------------------------------------


def _row_entropy(d2, beta):
    """Entropy (nats) and probabilities of ``p_j ∝ exp(-beta d2_j)``.

    Distances are shifted by their minimum before exponentiating; this leaves
    the normalised probabilities and the entropy unchanged and prevents
    underflow of every weight when the distances are large.
    """
    shifted = d2 - d2.min()
    w = np.exp(-beta * shifted)
    z = w.sum()
    H = np.log(z) + beta * np.dot(shifted, w) / z
    return H, w / z


def perplexity_rows(D2, perplexity, tol, max_tries, P, beta):
    r"""Calibrate Gaussian bandwidths so each row has the given perplexity.

    For every row ``i`` of ``D2`` (the squared distances from point ``i`` to
    its candidate neighbours, the point itself excluded) find the precision
    :math:`\beta_i` such that

    .. math::

        p_{j|i} = \frac{\exp(-\beta_i d_{ij}^2)}{\sum_{k} \exp(-\beta_i d_{ik}^2)},
        \qquad
        H_i = -\sum_j p_{j|i} \log p_{j|i} = \log(\mathrm{perplexity}).

    The search follows the R package smallvis: the first row starts from
    :math:`\beta = \tfrac12 \mathrm{perplexity} / \overline{d^2_{1\cdot}}`,
    each later row starts from the previous row's converged value (or 1 if
    the previous row failed).  While :math:`|H_i - \log u| > \mathrm{tol}`
    and fewer than ``max_tries`` steps were taken, :math:`\beta` is doubled
    (entropy too high) or halved (too low) until the target is bracketed,
    then bisected.  A row that does not converge puts
    :math:`1/\lfloor u \rfloor` on its :math:`\lfloor u \rfloor` nearest
    candidates.

    Parameters
    ----------
    D2 : ndarray of shape (n_samples, n_candidates)
        Squared distances to the candidate neighbours of each point, sorted or
        not; the point itself must not be among them.
    perplexity : float
        Target perplexity ``u``, ``1 <= u <= n_candidates``.
    tol : float
        Tolerance on the entropy in nats.
    max_tries : int
        Maximum number of bisection steps per row.
    P : ndarray of shape (n_samples, n_candidates)
        Output: the conditional probabilities :math:`p_{j|i}`; rows sum to 1.
    beta : ndarray of shape (n_samples,)
        Output: the precisions :math:`\beta_i`.

    Returns
    -------
    n_failed : int
        Number of rows that used the fallback.
    """
    n, m = D2.shape
    log_u = np.log(perplexity)
    n_nearest = max(int(np.floor(perplexity)), 1)
    n_failed = 0
    guess = 0.5 * perplexity / np.mean(D2[0]) if np.mean(D2[0]) > 0 else 1.0
    for i in range(n):
        d2 = D2[i]
        b = guess
        lo, hi = -np.inf, np.inf
        H, p = _row_entropy(d2, b)
        tries = 0
        while abs(H - log_u) > tol and tries < max_tries:
            if H > log_u:  # too flat: increase the precision
                lo = b
                b = b * 2.0 if hi == np.inf else 0.5 * (b + hi)
            else:
                hi = b
                b = b * 0.5 if lo == -np.inf else 0.5 * (b + lo)
            H, p = _row_entropy(d2, b)
            tries += 1
        if abs(H - log_u) > tol:
            n_failed += 1
            p = np.zeros(m)
            p[np.argsort(d2, kind="stable")[:n_nearest]] = 1.0 / n_nearest
            guess = 1.0
        else:
            guess = b
        P[i] = p
        beta[i] = b
    return n_failed


# ---------------------------------------------------------------------------
# asne: asymmetric SNE (seed 004)
# ---------------------------------------------------------------------------


def _asne_log_q(Y):
    """Row-wise log q_{j|i} with a Gaussian kernel; the diagonal is -inf.

    Each row's distances are shifted by their minimum first; q is unchanged
    and log q keeps full precision when the distances are large.
    """
    D2 = _squared_distances(Y)
    np.fill_diagonal(D2, np.inf)
    D2 -= D2.min(axis=1, keepdims=True)
    return -D2 - logsumexp(-D2, axis=1, keepdims=True)


def asne_cost(indptr, indices, data, Y, n_threads):
    r"""Cost of asymmetric SNE.

    .. math::

        C = \sum_i \mathrm{KL}(P_i \| Q_i)
          = \sum_i \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}},
        \qquad
        q_{j|i} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne i} \exp(-\|y_i - y_k\|^2)}.

    Row ``i`` of ``P`` holds :math:`p_{j|i}`.
    """
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    return _xlogy_sum(P, _asne_log_q(Y))


def asne_gradient(indptr, indices, data, Y, grad, n_threads):
    r"""Gradient of asymmetric SNE (seed 004, final form).

    .. math::

        \frac{\partial C}{\partial y_i} =
        2 \sum_{j \ne i} \left(p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}\right)(y_i - y_j).
    """
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    Q = np.exp(_asne_log_q(Y))
    K = 2.0 * (P - Q + P.T - Q.T)
    grad[...] = _gradient_from_coefficients(K, Y)


# ---------------------------------------------------------------------------
# ssne: symmetric SNE
# ---------------------------------------------------------------------------


def _ssne_log_q(Y):
    """Joint log q_ij with a Gaussian kernel; the diagonal is -inf.

    Distances are shifted by their minimum first (q unchanged, log q exact).
    """
    D2 = _squared_distances(Y)
    np.fill_diagonal(D2, np.inf)
    D2 -= D2.min()
    return -D2 - logsumexp(-D2)


def ssne_cost(indptr, indices, data, Y, n_threads):
    r"""Cost of symmetric SNE.

    .. math::

        C = \mathrm{KL}(P \| Q) = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
        \qquad
        q_{ij} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne l} \exp(-\|y_k - y_l\|^2)}.
    """
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    return _xlogy_sum(P, _ssne_log_q(Y))


def ssne_gradient(indptr, indices, data, Y, grad, n_threads):
    r"""Gradient of symmetric SNE (``P`` symmetric).

    .. math::

        \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} (p_{ij} - q_{ij})(y_i - y_j).
    """
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    Q = np.exp(_ssne_log_q(Y))
    grad[...] = _gradient_from_coefficients(4.0 * (P - Q), Y)


# ---------------------------------------------------------------------------
# tsne: t-distributed SNE (seeds 003 and 001)
# ---------------------------------------------------------------------------


def _cauchy_weights(Y):
    """Cauchy output weights w_ij = 1 / (1 + d_ij^2), zero on the diagonal."""
    W = 1.0 / (1.0 + _squared_distances(Y))
    np.fill_diagonal(W, 0.0)
    return W


def tsne_cost(indptr, indices, data, Y, n_threads):
    r"""Cost of t-SNE.

    .. math::

        C = \mathrm{KL}(P \| Q) = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
        \qquad
        q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
        \qquad
        w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.
    """
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    W = _cauchy_weights(Y)
    with np.errstate(divide="ignore"):
        log_Q = np.log(W) - np.log(W.sum())
    return _xlogy_sum(P, log_Q)


def tsne_gradient(indptr, indices, data, Y, grad, n_threads):
    r"""Gradient of t-SNE (``P`` symmetric).

    .. math::

        \frac{\partial C}{\partial y_i} =
        4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}\, (y_i - y_j).
    """
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    W = _cauchy_weights(Y)
    Q = W / W.sum()
    grad[...] = _gradient_from_coefficients(4.0 * (P - Q) * W, Y)
