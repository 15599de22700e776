"""Input affinities, row by row: Gaussian bandwidths by perplexity, UMAP's smoothed kNN.

:func:`perplexity_rows` finds each row's precision ``beta`` by bisection so
that the row's entropy matches a perplexity (SNE, t-SNE, LargeVis);
:func:`smooth_knn_rows` finds each row's ``rho`` and ``sigma`` (UMAP).
"""

import numpy as np

#: Rows per independent block of :func:`perplexity_rows`: the warm start
#: restarts at every block, so blocks can be calibrated in parallel with a
#: result that does not depend on the thread count.  Up to this many rows
#: (the dense t-SNE P, N <= 4096) the chain is the R smallvis one.
CALIBRATION_BLOCK = 4096


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


def perplexity_rows(D2, perplexity, tol, max_tries, P, beta, n_threads):
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
    the previous row failed).  The chain restarts (from the same formula on
    the block's first row) every ``CALIBRATION_BLOCK`` (4096) rows, so that
    the Cython twin can calibrate blocks on several threads with a result
    independent of ``n_threads``.  While :math:`|H_i - \log u| > \mathrm{tol}`
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
    n_threads : int
        Threads over blocks of rows (Cython twin; ignored here).

    Returns
    -------
    n_failed : int
        Number of rows that used the fallback.
    """
    n, m = D2.shape
    log_u = np.log(perplexity)
    n_nearest = max(int(np.floor(perplexity)), 1)
    n_failed = 0
    for i in range(n):
        d2 = D2[i]
        if i % CALIBRATION_BLOCK == 0:
            mean0 = np.mean(d2)
            guess = 0.5 * perplexity / mean0 if mean0 > 0 else 1.0
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


def smooth_knn_rows(distances, target, local_connectivity, tol, n_iter,
                    min_scale, sigma, rho, start=0, stop=None):
    r"""UMAP's smoothed kNN distances: :math:`\rho_i` and :math:`\sigma_i` per row.

    Row ``i`` of ``distances`` holds the Euclidean distances from point ``i``
    to its ``k`` nearest neighbours *counting the point itself*: column 0 is
    the point (distance 0) and columns ``1..k-1`` are its ``k - 1`` nearest
    other points in increasing order (umap-learn's layout).  Find

    .. math::

        \rho_i = \text{the } \ell\text{-th smallest non-zero } d_{ij}
        \quad (\ell = \texttt{local\_connectivity}),
        \qquad
        \sum_{j=1}^{k-1} \exp\!\left(-\frac{\max(0, d_{ij} - \rho_i)}{\sigma_i}\right)
        = \texttt{target}\;(= \log_2(k) \cdot \mathrm{bandwidth}).

    For a fractional :math:`\ell = f + t` (``f`` integer, ``0 < t < 1``),
    :math:`\rho_i = z_f + t (z_{f+1} - z_f)` where :math:`z_1 \le z_2 \le
    \dots` are the non-zero distances (and :math:`z_0 = 0`); ``t`` is ignored
    below 1e-5, as in umap-learn.  A row with fewer than :math:`\ell`
    non-zero distances uses its largest one; a row with none has
    :math:`\rho_i = 0`.

    :math:`\sigma_i` is found by bisection as in umap-learn: start from
    ``lo = 0``, ``hi = inf``, ``sigma = 1``; at each of at most ``n_iter``
    steps evaluate the sum ``s``; stop if ``|s - target| < tol``; otherwise
    ``hi = sigma`` when ``s > target`` (halve towards ``lo``), else
    ``lo = sigma`` (double while ``hi`` is infinite).  Finally

    .. math::

        \sigma_i \leftarrow \max\left(\sigma_i,\;
        \texttt{min\_scale} \cdot
        \begin{cases}
            \overline{d_{i\cdot}} & \rho_i > 0 \\
            \overline{d_{\cdot\cdot}} & \rho_i = 0
        \end{cases}\right)

    where :math:`\overline{d_{i\cdot}}` is the mean of row ``i`` over all
    ``k`` columns (the zero self distance included) and
    :math:`\overline{d_{\cdot\cdot}}` the mean of the whole array.

    Parameters
    ----------
    distances : ndarray of shape (n_samples, k)
        Column 0: the point itself (0); columns 1..k-1 sorted increasing.
    target : float
        Target sum, ``log2(k) * bandwidth``.
    local_connectivity : float
        Number (possibly fractional) of neighbours assumed fully connected.
    tol : float
        Absolute tolerance on the sum (umap-learn: 1e-5).
    n_iter : int
        Maximum bisection steps (umap-learn: 64).
    min_scale : float
        Floor on sigma relative to the mean distance (umap-learn: 1e-3).
    sigma : ndarray of shape (n_samples,)
        Output: the bandwidths :math:`\sigma_i`.
    rho : ndarray of shape (n_samples,)
        Output: the distances :math:`\rho_i`.
    start, stop : int, default=0 and None (``n_samples``)
        Only rows ``start`` to ``stop - 1`` are calibrated and written (a
        caller reporting progress goes through the rows in chunks); the
        mean :math:`\overline{d_{\cdot\cdot}}` is always that of the whole
        array, so the rows are the same as from one call.

    Returns
    -------
    n_failed : int
        Number of rows (of those calibrated) whose sum did not reach
        ``target`` within ``tol``.
    """
    n, k = distances.shape
    global_mean = distances.mean()
    whole = int(np.floor(local_connectivity))
    frac = local_connectivity - whole
    n_failed = 0
    for i in range(start, n if stop is None else stop):
        d = distances[i]
        nonzero = d[d > 0.0]
        r = 0.0
        if len(nonzero) >= local_connectivity:
            if whole > 0:
                r = nonzero[whole - 1]
                if frac > 1e-5 and whole < len(nonzero):
                    r += frac * (nonzero[whole] - nonzero[whole - 1])
            elif len(nonzero) > 0:
                r = frac * nonzero[0]
        elif len(nonzero) > 0:
            r = nonzero.max()
        lo, hi, mid = 0.0, np.inf, 1.0
        converged = False
        for _ in range(n_iter):
            s = np.sum(np.exp(-np.maximum(d[1:] - r, 0.0) / mid))
            if abs(s - target) < tol:
                converged = True
                break
            if s > target:
                hi = mid
                mid = 0.5 * (lo + hi)
            else:
                lo = mid
                mid = mid * 2.0 if hi == np.inf else 0.5 * (lo + hi)
        if not converged:
            n_failed += 1
        floor = min_scale * (d.mean() if r > 0.0 else global_mean)
        sigma[i] = max(mid, floor)
        rho[i] = r
    return n_failed
