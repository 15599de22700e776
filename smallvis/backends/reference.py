"""Readable, exact NumPy reference kernels.

Every public function here has a Cython twin of the same name and the same
``inspect.signature`` in :mod:`smallvis.backends._kernels`.  The twins are
interchangeable: :func:`smallvis.backends._backend.kernels` picks one module from the
``fast`` flag, and nothing else in the package branches on it.

Conventions shared by both modules
----------------------------------
* The input affinities ``P`` arrive as a CSR triplet ``(indptr, indices,
  data)`` of an ``N x N`` matrix with ``int64`` index arrays and ``float64``
  data.  Here the triplet is turned back into a dense matrix so that every
  formula reads like its derivation in ``docs/theory.md``.
* ``Y`` is a C-contiguous ``float64`` array of shape ``(N, n_components)``.
* Sums run over ordered pairs ``i != j``; costs keep their constant terms.
* ``*_gradient`` functions write into the caller's ``grad`` array and return
  ``None``; ``*_cost`` functions return a float.
* ``n_threads`` is accepted for signature parity and ignored here.

Each method's maths is written once, in its unit (``smallvis/methods/<name>.py``:
its parameters, weight, pair coefficient, cost terms and SGD coefficients,
with the formulas).  The methods whose cost is a sum of pair terms
(largevis, umap, tumap, ncvis, negtsne) share one engine:
:func:`_pair_cost` and :func:`_pair_gradient` over all pairs,
:func:`_transform_pair_cost` and :func:`_transform_pair_gradient` for new
points against fixed rows, reached through the public :func:`pair_cost`,
:func:`pair_gradient`, :func:`pair_transform_cost` and
:func:`pair_transform_gradient`, which take the unit.  The methods whose
weights are normalised to ``q`` (asne, ssne, tsne) share another:
:func:`normalised_cost`, :func:`normalised_gradient`,
:func:`normalised_transform_cost` and :func:`normalised_transform_gradient`,
fed by the unit's hooks (``cost``, ``offset``, ``force``, ...).  The named
kernels of these seven methods (``umap_cost``, ``tsne_gradient``, ...) are
thin wrappers that build the unit from their arguments; negtsne, like any
method added since, has none.

The pair entry points check their arrays (:func:`_check_pair_arrays`, which
the compiled twin calls too); for the other kernels the callers
(:mod:`smallvis.api`, :mod:`smallvis.plans`) validate shapes, dtypes and
index ranges first.
"""

import numpy as np
from scipy.sparse import csr_matrix
from scipy.spatial.distance import cdist
from scipy import special

from .._numeric import tie_key as _tie_key
from ..methods._common import LOG_FLOOR  # noqa: F401  (importable here, beside the kernels)
from ..methods._common import unit_field_values
from ..methods.asne.unit import ASNE
from ..methods.infonce.unit import InfoNCE
from ..methods.largevis.unit import LargeVis, LargeVisExp
from ..methods.ncvis.unit import NCVis
from ..methods.ssne.unit import SSNE
from ..methods.tsne.unit import TSNE
from ..methods.tumap.unit import TUMAP
from ..methods.umap.unit import UMAP

#: Largest memory (bytes) the NumPy path may plan for: 2 GiB.  The reference
#: kernels build dense N x N matrices, so the wrappers in :mod:`smallvis.api`
#: refuse sizes whose estimate ``DENSE_ARRAYS * N**2 * 8`` exceeds this
#: (N above 4096) before allocating anything.  Raise it deliberately
#: (``smallvis.backends.reference.MAX_DENSE_BYTES = ...``) on a machine with more memory.
MAX_DENSE_BYTES = 2 * 1024**3

#: Dense N x N float64 arrays alive at the peak of an ``embed`` call on this
#: path (measured with tracemalloc: the dense P, its CSR copy and kernel
#: triplet, the exaggerated copy and up to 8 temporaries inside a kernel).
DENSE_ARRAYS = 16

#: Rows per independent block of :func:`perplexity_rows`: the warm start
#: restarts at every block, so blocks can be calibrated in parallel with a
#: result that does not depend on the thread count.  Up to this many rows
#: (the dense t-SNE P, N <= 4096) the chain is the R smallvis one.
CALIBRATION_BLOCK = 4096

__all__ = [
    "perplexity_rows",
    "largevis_cost",
    "largevis_gradient",
    "largevis_exp_cost",
    "largevis_exp_gradient",
    "umap_cost",
    "umap_gradient",
    "tumap_cost",
    "tumap_gradient",
    "ncvis_cost",
    "ncvis_gradient",
    "pair_cost",
    "pair_gradient",
    "normalised_cost",
    "normalised_gradient",
    "smooth_knn_rows",
    "asne_cost",
    "asne_gradient",
    "ssne_cost",
    "ssne_gradient",
    "tsne_cost",
    "tsne_gradient",
    "tsne_dof_cost",
    "tsne_dof_gradient",
    "infonce_cost",
    "infonce_gradient",
    "alias_table",
    "counter_random",
    "counter_randint",
    "counter_uniform",
    "sgd_coefficients",
    "sgd_group_coefficients",
    "sgd_epochs",
    "knn_refine",
    "knn_candidates",
    "knn_union_count",
    "knn_union_fill",
    "sparse_pair_sq_distances",
    "sparse_row_dots",
    "sparse_row_nearest",
]


# ---------------------------------------------------------------------------
# helpers (private: not part of the twin contract)
# ---------------------------------------------------------------------------


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


def _check_pair_arrays(indptr, indices, data, Y, grad=None, Y_ref=None, *,
                       in_range=_indices_in_range):
    """The arrays of a pair unit's entry point, as the compiled twin reads them unchecked.

    Both twins call it, so they refuse the same input with the same
    ``ValueError``.  ``P`` (the CSR triplet) has a row per row of ``Y`` and a
    column per row of ``Y`` (a fit) or of ``Y_ref`` (new points against a
    reference); ``grad``, when given, is written and has ``Y``'s shape.  In
    the full layout of a fit (``data`` is the dense ``N x N`` matrix) the
    kernels read no column index, so none is checked.

    Parameters
    ----------
    indptr, indices : ndarray of int64
    data : ndarray of float64
    Y : ndarray of float64, shape (n_rows, n_components)
    grad : ndarray of float64 or None
    Y_ref : ndarray of float64, shape (n_columns, n_components), or None
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
    if Y_ref is None:
        if n_rows < 1:
            raise ValueError("Y must have at least one row")
        n_columns = n_rows
    else:
        _check_kernel_array(Y_ref, "Y_ref", np.float64, 2)
        if Y_ref.shape[0] < 1 or Y_ref.shape[1] != dim:
            raise ValueError(f"Y_ref must have at least one row and Y's {dim} columns; "
                             f"got shape {Y_ref.shape}")
        n_columns = Y_ref.shape[0]
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
    full_layout = Y_ref is None and data.shape[0] == n_rows * n_columns
    if in_range is not None and not full_layout and not in_range(indices, n_columns):
        raise ValueError(f"indices must lie in [0, {n_columns - 1}] (a column per row of "
                         f"{'Y' if Y_ref is None else 'Y_ref'})")


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



# ---------------------------------------------------------------------------
# approximate nearest neighbours: refinement
# ---------------------------------------------------------------------------


def _core_distances_to(X, cand, i, metric_code):
    r"""The kNN kernels' distance from row ``i`` of ``X`` to rows ``cand``, by metric code.

    .. math::

        0:\ \sum_f (x_{cf} - x_{if})^2, \qquad
        1:\ \sum_f |x_{cf} - x_{if}|, \qquad
        2:\ \#\{f : x_{cf} 
e x_{if}\},

    summed feature by feature in order (the squared Euclidean distance, the
    Manhattan distance, the Hamming count; see
    :mod:`smallvis.inputs.distances` for what each metric searches with).
    """
    d = np.zeros(len(cand))
    for f in range(X.shape[1]):
        diff = X[cand, f] - X[i, f]
        if metric_code == 0:
            d += diff * diff
        elif metric_code == 1:
            d += np.abs(diff)
        else:
            d += diff != 0
    return d


def knn_candidates(X, candidates, indices, sq_dist, n_threads, metric_code=0, start=0,
                   stop=None, order=None):
    r"""The ``k`` nearest of each row's candidates, with float64 distances.

    Row ``i`` of ``candidates`` lists points (e.g. an Annoy query's answer)
    in any order, possibly with ``i`` itself, repeats, or ``-1`` for "none";
    those are dropped.  Of the rest, the ``k = indices.shape[1]`` with the
    smallest squared distance

    .. math::

        d^2_{ic} = \sum_f (x_{if} - x_{cf})^2

    (summed feature by feature in order, the order of the exact search, so
    a neighbour found here has exactly the distance the exact search
    reports) are written in the package order: by
    (:func:`smallvis._numeric.tie_key` of :math:`d^2`, index).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        C-contiguous float64 data.
    candidates : ndarray of shape (n_samples, m), int32
        Candidate indices, ``-1`` for none.
    indices : ndarray of shape (n_samples, k), int32
        Output: the best ``k`` valid candidates; ``-1`` where a row has fewer.
    sq_dist : ndarray of shape (n_samples, k)
        Output: their squared distances; ``inf`` where the index is ``-1``.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    metric_code : int, default=0
        The distance summed (:func:`_core_distances_to`): 0 squared
        Euclidean, 1 Manhattan, 2 Hamming count; ``sq_dist`` holds it.
    start, stop : int, default=0 and None (``n_samples``)
        Only rows ``start`` to ``stop - 1`` are computed and written (a
        caller reporting progress goes through the rows in chunks; each row
        depends only on its own candidates).
    order : ndarray of shape (n_samples,), int64, optional
        A permutation of the rows: positions ``start`` to ``stop - 1`` of
        ``order`` are the rows computed, in that order.  The result of a
        row does not depend on it; an order that visits near rows one after
        another keeps their shared candidates in the cache (the Cython
        twin's speed on data of hundreds of dimensions).  None: the rows in
        their own order.

    Returns
    -------
    n_short : int
        Rows (of those computed) with fewer than ``k`` valid candidates.
    """
    n, k = indices.shape
    n_short = 0
    rows = range(n) if order is None else order
    for i in rows[start:n if stop is None else stop]:
        cand = np.unique(candidates[i])
        cand = cand[(cand >= 0) & (cand != i)]
        d2 = _core_distances_to(X, cand, i, metric_code)
        order = np.lexsort((cand, _tie_key(d2)))[:k]
        v = len(order)
        indices[i, :v], sq_dist[i, :v] = cand[order], d2[order]
        indices[i, v:], sq_dist[i, v:] = -1, np.inf
        n_short += v < k
    return n_short


def sparse_pair_sq_distances(indptr, indices, data, rows, cols, out, n_threads):
    r"""Squared Euclidean distances between pairs of rows of a CSR matrix.

    .. math::

        \texttt{out}_t = \sum_f (x_{a_t f} - x_{b_t f})^2,
        \qquad a_t = \texttt{rows}_t,\ b_t = \texttt{cols}_t,

    summed over the union of the two rows' stored columns in column order,
    from differences (equal rows are at exactly 0), left to right.

    Parameters
    ----------
    indptr, indices, data : ndarray
        The CSR matrix: int64 row pointers, int64 column indices sorted
        within each row (no duplicates), float64 values.
    rows, cols : ndarray of shape (m,), int64
        The pairs.
    out : ndarray of shape (m,)
        Output.
    n_threads : int
        Threads over pairs (Cython twin; ignored here).
    """
    for t in range(len(rows)):
        a, b = int(rows[t]), int(cols[t])
        ia, va = indices[indptr[a]:indptr[a + 1]], data[indptr[a]:indptr[a + 1]]
        ib, vb = indices[indptr[b]:indptr[b + 1]], data[indptr[b]:indptr[b + 1]]
        union = np.union1d(ia, ib)
        xa, xb = np.zeros(len(union)), np.zeros(len(union))
        xa[np.searchsorted(union, ia)] = va
        xb[np.searchsorted(union, ib)] = vb
        diff = xa - xb
        out[t] = np.cumsum(diff * diff)[-1] if len(union) else 0.0


def sparse_row_dots(indptr, indices, data, col_indptr, col_rows, col_data, rows, out,
                    n_threads):
    r"""Dot products of some rows of a CSR matrix with every row of it.

    .. math::

        \texttt{out}_{t c} = \sum_f x_{a_t f}\, x_{c f},
        \qquad a_t = \texttt{rows}_t,\ c = 0, \dots, n - 1,

    scattered column by column: for each stored column ``f`` of row
    ``a_t`` in column order, ``x_{a_t f} x_{c f}`` is added to
    ``out[t, c]`` for every row ``c`` storing ``f`` (in row order), so
    every entry sums its terms in column order.

    Parameters
    ----------
    indptr, indices, data : ndarray
        The CSR matrix (``n`` rows): int64 row pointers, int64 column
        indices sorted within each row, float64 values.
    col_indptr, col_rows, col_data : ndarray
        The same matrix as CSC (one entry of ``col_indptr`` per column plus
        one): int64 column pointers, int64 row indices sorted within each
        column, float64 values.
    rows : ndarray of shape (m,), int64
        The rows ``a_t``.
    out : ndarray of shape (m, n)
        Output, C order.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    for t in range(len(rows)):
        a = int(rows[t])
        out[t] = 0.0
        for p in range(indptr[a], indptr[a + 1]):
            f = indices[p]
            lo, hi = col_indptr[f], col_indptr[f + 1]
            out[t, col_rows[lo:hi]] += data[p] * col_data[lo:hi]


def sparse_row_nearest(indptr, indices, data, col_indptr, col_rows, col_data, half_sq, rows,
                       skip, slack, out_idx, out_count, n_threads):
    r"""Per row, the ``width`` other rows of smallest key, from the rows' dot products.

    .. math::

        \kappa_{t c} = \tfrac12 |x_c|^2 - x_{a_t} \cdot x_c
        = \tfrac12 \left(|x_{a_t} - x_c|^2 - |x_{a_t}|^2\right),

    so a row's keys order the rows by distance from ``x_{a_t}``.  The dot
    products are those of :func:`sparse_row_dots` (the same bits).

    Parameters
    ----------
    indptr, indices, data, col_indptr, col_rows, col_data : ndarray
        The CSR rows and the CSC columns, as :func:`sparse_row_dots`.
    half_sq : ndarray of shape (n,)
        :math:`\tfrac12 |x_c|^2` of the ``n`` column-held rows.
    rows : ndarray of shape (m,), int64
        The rows ``a_t``.
    skip : ndarray of shape (m,), int64
        A column-held row that is never chosen for row ``t`` (itself), or -1.
    slack : ndarray of shape (m,)
        Rounding allowance of row ``t``'s keys, >= 0.
    out_idx : ndarray of shape (m, width), int64
        Output: the ``width`` rows of smallest key (``width <= n - 1`` with a
        ``skip``), by increasing key, ties by increasing index.
    out_count : ndarray of shape (m,), int64
        Output: how many rows (``skip`` aside) have a key within
        ``slack[t]`` of the last chosen one's: ``width`` unless rows tie
        with it up to rounding.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    n, width = half_sq.shape[0], out_idx.shape[1]
    dots = np.empty((1, n))
    for t in range(len(rows)):
        sparse_row_dots(indptr, indices, data, col_indptr, col_rows, col_data, rows[t:t + 1],
                        dots, 1)
        keys = half_sq - dots[0]
        if skip[t] >= 0:
            keys[skip[t]] = np.inf
        # the smallest (key, index) pairs: lexsort among the keys up to the width-th
        near = np.flatnonzero(keys <= np.partition(keys, width - 1)[width - 1])
        order = near[np.lexsort((near, keys[near]))[:width]]
        out_idx[t] = order
        within = keys <= keys[order[-1]] + slack[t]
        if skip[t] >= 0:
            within[skip[t]] = False
        out_count[t] = np.count_nonzero(within)


def knn_refine(X, indices, sq_dist, flags, n_explore, out_indices, out_sq_dist,
               out_flags, n_threads, metric_code=0, start=0, stop=None):
    r"""One round of local join over a k-nearest-neighbour graph.

    Each point's new list is the best ``k`` among its current neighbours and
    the first ``w = n_explore`` neighbours of each of them (the local join of
    NN-descent, forward lists only; LargeVis's "neighbour exploring"):

    .. math::

        N'(i) = \operatorname*{k\text{-}argmin}_{c \,\in\, N(i) \,\cup\,
                \bigcup_{j \in N(i)} N_w(j) \setminus \{i\}} \;
                \lVert x_i - x_c \rVert^2 ,

    where :math:`N_w(j)` is the first ``w`` entries of :math:`N(j)`.  All
    rows are computed from the input graph (a Jacobi round), so the result
    depends neither on the order of the rows nor on the number of threads.
    A point's neighbour is usually its neighbours' neighbour, so a round or
    two recover most of what an approximate search missed.

    ``flags`` says, per entry, what is new since the previous round (bit 1:
    the entry was not in the row's list; bit 2: it was not among the row's
    first ``w``; a first round passes all 3).  The Cython twin uses them to
    skip exactly the candidates the previous round already examined: a
    candidate ``c`` reached through an old neighbour ``j`` of ``i`` and an
    old window entry of ``j`` was compared with row ``i`` last round, and
    either is in the list or is still beaten (the k-th distance only
    shrinks).  This reference examines every candidate, so the tests check
    that the skipping is exact.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        C-contiguous float64 data.
    indices : ndarray of shape (n_samples, k), int32
        Current neighbours of each row, never the row itself, distinct,
        sorted by (snapped squared distance, index).
    sq_dist : ndarray of shape (n_samples, k)
        Their squared distances.
    flags : ndarray of shape (n_samples, k), uint8
        What is new in each entry (see above).
    n_explore : int
        ``w``, ``1 <= w``; values above ``k`` mean ``k``.
    out_indices : ndarray of shape (n_samples, k), int32
        Output: the new neighbours, in the same order.
    out_sq_dist : ndarray of shape (n_samples, k)
        Output: their squared distances.
    out_flags : ndarray of shape (n_samples, k), uint8
        Output: 3 for an entry that was not in the input row, 2 for one that
        entered the first ``w`` from further down, else 0.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    metric_code : int, default=0
        The distance summed (:func:`_core_distances_to`): 0 squared
        Euclidean, 1 Manhattan, 2 Hamming count; ``sq_dist`` holds it.
    start, stop : int, default=0 and None (``n_samples``)
        Only output rows ``start`` to ``stop - 1`` are computed and written;
        rows are independent (see above), so a round done in chunks of rows
        gives the same result.

    Returns
    -------
    n_changed : int
        Rows (of those computed) whose list changed.

    Notes
    -----
    Squared distances of new candidates are summed feature by feature in
    order, as :func:`knn_candidates`.  Candidates are ordered by
    (:func:`smallvis._numeric.tie_key` of the squared distance, index), the
    order used for every neighbour list of the package.
    """
    n, k = indices.shape
    w = min(int(n_explore), k)
    n_changed = 0
    for i in range(start, n if stop is None else stop):
        own = indices[i]
        cand = np.unique(indices[own[own >= 0], :w].ravel())
        cand = cand[(cand >= 0) & (cand != i) & ~np.isin(cand, own)]
        d2 = _core_distances_to(X, cand, i, metric_code)
        idx = np.concatenate([own, cand])
        all_d2 = np.concatenate([sq_dist[i], d2])
        order = np.lexsort((idx, _tie_key(all_d2)))[:k]
        out_indices[i] = idx[order]
        out_sq_dist[i] = all_d2[order]
        came_from = np.where(order < k, order, -1)  # input position, -1: candidate
        pos = np.arange(k)
        out_flags[i] = np.where(came_from < 0, 3,
                                np.where((pos < w) & (came_from >= w), 2, 0))
        n_changed += bool(np.any(came_from < 0))
    return n_changed


def _union(indices, values):
    """CSR matrix ``(A + A^T) / 2`` of the rows ``A[i, indices[i]] = values[i]``."""
    n, k = indices.shape
    # copies: eliminate_zeros works in place on the matrix's arrays
    A = csr_matrix((values.astype(np.float64).ravel(), indices.ravel().astype(np.int64),
                    np.arange(0, n * k + 1, k, dtype=np.int64)), shape=(n, n))
    A.eliminate_zeros()
    S = (0.5 * (A + A.T)).tocsr()
    S.sort_indices()
    return S


def knn_union_count(indices, values, counts, n_threads):
    r"""Stored entries per row of the symmetric union of a weighted kNN graph.

    With :math:`A_{ij} = v_{ir}` for :math:`j = \mathrm{indices}_{ir}`
    (distinct per row, never ``i``), the union is

    .. math::

        S = \tfrac12 (A + A^\top),

    stored where :math:`A_{ij} > 0` or :math:`A_{ji} > 0` (edges of weight
    0 are dropped, as :meth:`scipy.sparse.csr_matrix.eliminate_zeros`
    does).  This counts the entries of each row of ``S``; see
    :func:`knn_union_fill`.

    Parameters
    ----------
    indices : ndarray of shape (n_samples, k), int32
        Neighbours of each row, distinct, never the row itself.
    values : ndarray of shape (n_samples, k)
        Non-negative edge weights.
    counts : ndarray of shape (n_samples,), int64
        Output: entries of each row of ``S``.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    counts[:] = np.diff(_union(indices, values).indptr)


def knn_union_fill(indices, values, indptr, out_indices, out_data, n_threads):
    r"""The rows of :math:`S = \tfrac12 (A + A^\top)`, sorted by column.

    ``S`` as in :func:`knn_union_count`; each entry is computed as
    ``0.5 * (A_ij + A_ji)`` (``0.5 * A_ij`` where only one is stored), the
    arithmetic of ``0.5 * (A + A.T)`` in SciPy, so both give identical
    values.

    Parameters
    ----------
    indices, values
        As :func:`knn_union_count`.
    indptr : ndarray of shape (n_samples + 1,), int64
        Row pointers: ``0`` then the cumulative sum of the counts.
    out_indices : ndarray of shape (indptr[-1],), int32
        Output: column indices, increasing within each row.
    out_data : ndarray of shape (indptr[-1],)
        Output: the entries of ``S``.
    n_threads : int
        Threads over rows (Cython twin; ignored here).
    """
    S = _union(indices, values)
    out_indices[:] = S.indices
    out_data[:] = S.data


# ---------------------------------------------------------------------------
# normalised Q (docs/theory.md §3.2-3.4): one engine for every unit whose
# output weights are normalised to q, over each row or over all pairs; the
# SNE family (asne, ssne, tsne) runs on it, the hooks in their units
# ---------------------------------------------------------------------------


def _off_diagonal_distances(Y):
    """Squared distances with ``inf`` on the diagonal: a pair (i, i) has weight 0."""
    D2 = _squared_distances(Y)
    np.fill_diagonal(D2, np.inf)
    return D2


def _normalised_log_q(unit, D2, axis):
    """``log q`` of a unit with a log weight (the Gaussian), normalised in the log domain.

    Over each row (``axis=1``) or all pairs (``axis=None``).  The log
    weights are shifted by their largest value first: ``q`` is unchanged
    and ``log q`` keeps full precision when the distances are large.
    """
    L = unit.log_weight(D2)
    L -= L.max(axis=axis, keepdims=True)
    return L - special.logsumexp(L, axis=axis, keepdims=True)


def _normalised_weights(unit, D2, axis):
    r"""Weights ``W`` and normaliser ``Z`` of a normalised unit, with :math:`q = W / Z`.

    .. math::

        q_{ij} = \frac{w_{ij}}{\sum_{(k, l)} w_{kl}},

    the sum over row ``i`` (``axis=1``) or over all pairs (``axis=None``).
    A unit with ``log_domain`` normalises ``log w`` (:func:`_normalised_log_q`)
    and returns ``W = q``, ``Z = 1``; the others ``W = unit.weight(D2)`` and
    its sum.
    """
    if unit.log_domain:
        return np.exp(_normalised_log_q(unit, D2, axis)), 1.0
    W = unit.weight(D2)
    return W, W.sum(axis=axis, keepdims=axis is not None)


def _normalised_q(unit, D2, axis):
    """``q`` and ``log q`` of a normalised unit (as :func:`_normalised_weights`)."""
    if unit.log_domain:
        log_Q = _normalised_log_q(unit, D2, axis)
        return np.exp(log_Q), log_Q
    W, Z = _normalised_weights(unit, D2, axis)
    with np.errstate(divide="ignore"):
        log_Q = np.log(W) - np.log(Z)
    return W / Z, log_Q


def _normalised_coefficients(unit, P, D2, axis, mass):
    r"""The pair coefficients :math:`c = \partial C / \partial d^2` of a normalised unit.

    With :math:`C = \sum f(p, q)` over the normalisation set and
    :math:`q = w / Z`, the chain rule through :math:`Z` gives

    .. math::

        \frac{\partial C}{\partial w_{kl}} = \frac{1}{Z}
            \Bigl(\frac{\partial f}{\partial q}(p_{kl}, q_{kl}) - S\Bigr),
        \qquad S = \sum q \frac{\partial f}{\partial q},

    and with the slope :math:`s = -\partial \log w / \partial d^2`,
    :math:`c = q\, (S - \partial f / \partial q)\, s`.  The unit's hooks
    compute ``S`` (``offset(P, Q, mass, axis)``) and ``c`` (``force(P, W,
    Z, slope, S)``, :math:`q = W / Z`) in whatever form keeps its
    arithmetic exact (the KL divergence: :math:`S = -\text{mass}`,
    :math:`c = (p + S W / Z)\, s`).
    """
    W, Z = _normalised_weights(unit, D2, axis)
    Q = W / Z
    S = unit.offset(P, Q, mass, axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        K = unit.force(P, W, Z, unit.slope_at(D2), S)
    # a pair with w = 0 and p = 0 (the diagonal, or an underflowed weight)
    # has no force, whatever the unit's df/dq at q = 0
    K[(W == 0.0) & (P == 0.0)] = 0.0
    return K


def _normalised_axis(unit):
    """The axis of a unit's normalisation: 1 (each row) or None (all pairs)."""
    if unit.normalisation not in ("rows", "total"):
        raise ValueError(f"{type(unit).__name__}.normalisation must be 'rows' or 'total'; "
                         f"got {unit.normalisation!r}")
    return 1 if unit.normalisation == "rows" else None


def normalised_cost(unit, indptr, indices, data, Y, n_threads):
    r"""The exact cost of a unit with normalised ``q``: :math:`C = \sum f(p_{ij}, q_{ij})`.

    .. math::

        q_{ij} = \frac{w(d_{ij}^2)}{\sum_{(k, l)} w(d_{kl}^2)},

    the normaliser over row ``i`` (``unit.normalisation == "rows"``) or over
    all pairs (``"total"``), :math:`i \ne j`.  The entry point of every
    method whose ``q`` is normalised; the SNE family's named kernels
    (``tsne_cost``, ...) call it with their unit.

    Parameters
    ----------
    unit : NamedTuple
        A normalised method unit with its parameters (hooks ``normalisation``,
        ``log_domain``, ``log_weight`` or ``weight``, ``slope_at``, ``cost``,
        ``offset``, ``force``; see ``smallvis/methods/asne/unit.py``).
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet (symmetric for ``"total"``).
    Y : ndarray of shape (n_samples, n_components)
    n_threads : int
        Ignored here.

    Returns
    -------
    float
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y)
    return _normalised_cost(unit, indptr, indices, data, Y)


def _normalised_cost(unit, indptr, indices, data, Y):
    """:func:`normalised_cost` on arrays the caller has checked."""
    axis = _normalised_axis(unit)
    P = _dense(indptr, indices, data, Y.shape[0])
    Q, log_Q = _normalised_q(unit, _off_diagonal_distances(Y), axis)
    return unit.cost(P, Q, log_Q)


def normalised_gradient(unit, indptr, indices, data, Y, grad, n_threads):
    r"""The exact gradient of :func:`normalised_cost` (into ``grad``).

    .. math::

        \frac{\partial C}{\partial y_i} = 2 \sum_{j \ne i} (c_{ij} + c_{ji})(y_i - y_j)
        = 4 \sum_{j \ne i} c_{ij} (y_i - y_j) \quad (c \text{ symmetric}),

    with :math:`c` of :func:`_normalised_coefficients`; ``"total"`` takes
    ``P`` symmetric (so is ``c``).  The fit's ``P`` counts as normalised
    (``mass`` 1): an exaggerated ``P`` scales the attraction only.
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad)
    _normalised_gradient(unit, indptr, indices, data, Y, grad)


def _normalised_gradient(unit, indptr, indices, data, Y, grad):
    """:func:`normalised_gradient` on arrays the caller has checked."""
    axis = _normalised_axis(unit)
    P = _dense(indptr, indices, data, Y.shape[0])
    K = _normalised_coefficients(unit, P, _off_diagonal_distances(Y), axis, 1.0)
    if axis is None:
        grad[...] = 4.0 * _gradient_from_coefficients(K, Y)
    else:
        grad[...] = 2.0 * _gradient_from_coefficients(K + K.T, Y)


def asne_cost(indptr, indices, data, Y, n_threads):
    """Cost of asymmetric SNE (:mod:`smallvis.methods.asne`): row ``i`` of ``P`` holds p_{j|i}."""
    return _normalised_cost(ASNE(), indptr, indices, data, Y)


def asne_gradient(indptr, indices, data, Y, grad, n_threads):
    r"""Gradient of asymmetric SNE (docs/theory.md §3.2).

    .. math::

        \frac{\partial C}{\partial y_i} =
        2 \sum_{j \ne i} \left(p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}\right)(y_i - y_j).
    """
    _normalised_gradient(ASNE(), indptr, indices, data, Y, grad)


def ssne_cost(indptr, indices, data, Y, n_threads):
    """Cost of symmetric SNE, KL(P || Q) (:mod:`smallvis.methods.ssne`)."""
    return _normalised_cost(SSNE(), indptr, indices, data, Y)


def ssne_gradient(indptr, indices, data, Y, grad, n_threads):
    r"""Gradient of symmetric SNE, ``P`` symmetric (:mod:`smallvis.methods.ssne`).

    .. math::

        \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} (p_{ij} - q_{ij})(y_i - y_j).
    """
    _normalised_gradient(SSNE(), indptr, indices, data, Y, grad)


def tsne_cost(indptr, indices, data, Y, n_threads):
    """Cost of t-SNE, KL(P || Q) with the Cauchy weight (:mod:`smallvis.methods.tsne`)."""
    return _normalised_cost(TSNE(), indptr, indices, data, Y)


def tsne_gradient(indptr, indices, data, Y, grad, n_threads):
    r"""Gradient of t-SNE, ``P`` symmetric (:mod:`smallvis.methods.tsne`).

    .. math::

        \frac{\partial C}{\partial y_i} =
        4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}\, (y_i - y_j).
    """
    _normalised_gradient(TSNE(), indptr, indices, data, Y, grad)


def tsne_dof_cost(indptr, indices, data, Y, dof, n_threads):
    r"""Cost of t-SNE with the heavy-tailed weight of ``dof`` = :math:`\alpha` (:mod:`smallvis.methods.tsne`).

    .. math::

        C = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}}, \qquad
        q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}}, \qquad
        w_{ij} = \Bigl(1 + \frac{d_{ij}^2}{\alpha}\Bigr)^{-\alpha},

    with ``log q`` normalised in the log domain (no underflow of ``w`` for
    large :math:`\alpha` or far points).  :func:`tsne_cost` is the case
    :math:`\alpha = 1`.
    """
    return _normalised_cost(TSNE(dof), indptr, indices, data, Y)


def tsne_dof_gradient(indptr, indices, data, Y, dof, grad, n_threads):
    r"""Gradient of :func:`tsne_dof_cost`, ``P`` symmetric (:mod:`smallvis.methods.tsne`).

    .. math::

        \frac{\partial C}{\partial y_i} =
        4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}^{1/\alpha}\, (y_i - y_j),
        \qquad w_{ij}^{1/\alpha} = \frac{1}{1 + d_{ij}^2/\alpha}.
    """
    _normalised_gradient(TSNE(dof), indptr, indices, data, Y, grad)


# ---------------------------------------------------------------------------
# infonce (docs/theory.md §3.11): the expected InfoNCE loss, one Frullani
# integral per pair, row by row (the maths in its unit)
# ---------------------------------------------------------------------------


def _infonce_rows(unit, P, D2, skip_self):
    """Each row's cost and the matrix of ``dC_i/d(d2_ik)`` (rows of ``P`` over the columns of ``D2``)."""
    n_rows, n_cols = D2.shape
    costs, K = np.zeros(n_rows), np.zeros((n_rows, n_cols))
    for i in range(n_rows):
        others = np.arange(n_cols) != i if skip_self else np.ones(n_cols, dtype=bool)
        phi = unit.weight(D2[i, others])
        pos = np.flatnonzero(P[i, others])
        costs[i], slopes = unit.row_cost_and_slopes(phi, pos, P[i, others][pos])
        K[i, others] = -slopes * phi * phi  # d phi / d(d2) = -phi^2
    return costs, K


def infonce_cost(indptr, indices, data, Y, m, n_threads):
    r"""The expected InfoNCE loss of a map (:mod:`smallvis.methods.infonce`).

    .. math::

        C = \sum_{i \ne j} p_{ij} \Bigl[-\log \phi_{ij} + \int_0^\infty
            \bigl(e^{-t} - e^{-\phi_{ij} t} M_i(t)^m\bigr) \frac{dt}{t}\Bigr],
        \qquad M_i(t) = \frac{1}{N - 1} \sum_{k \ne i} e^{-t \phi_{ik}},

    the integral by the trapezoid rule in :math:`\log t`
    (:meth:`~smallvis.methods.infonce.InfoNCE.row_cost_and_slopes`).
    """
    n = Y.shape[0]
    costs, _ = _infonce_rows(InfoNCE(m), _dense(indptr, indices, data, n),
                             _squared_distances(Y), True)
    return float(costs.sum())


def infonce_gradient(indptr, indices, data, Y, m, grad, n_threads):
    r"""Gradient of :func:`infonce_cost`: the analytic derivative of the same quadrature.

    .. math::

        \frac{\partial C}{\partial y_i} = 2 \sum_{k \ne i} (K_{ik} + K_{ki})(y_i - y_k),
        \qquad K_{ik} = \frac{\partial C_i}{\partial d_{ik}^2}
        = -\phi_{ik}^2 \frac{\partial C_i}{\partial \phi_{ik}},

    :math:`C_i` row ``i``'s terms, which depend on every :math:`\phi_{ik}`
    through :math:`M_i`.
    """
    n = Y.shape[0]
    _, K = _infonce_rows(InfoNCE(m), _dense(indptr, indices, data, n),
                         _squared_distances(Y), True)
    grad[...] = 2.0 * _gradient_from_coefficients(K + K.T, Y)


# ---------------------------------------------------------------------------
# largevis, umap, tumap, ncvis, negtsne (docs/theory.md §3.5-3.8, §3.10):
# un-normalised output weights, one generic engine fed by the method's unit
# ---------------------------------------------------------------------------
#
# The cost of these methods is a sum of pair terms f_i(p_ij, d_ij^2) over the
# ordered pairs i != j, and each unit (smallvis/methods/<name>.py) defines its
# term (``cost_term``) and the pair coefficient c = df/d(d^2) (``coefficient``)
# once.  Coincident points (d_ij = 0) exert no force: their direction is
# undefined.


def _off_diagonal_sum(M):
    """Sum of the entries of M off its diagonal."""
    return float(M.sum() - np.trace(M))


def _row_noise(unit, P, n_others):
    """``unit.noise`` of each row when the unit's cost depends on the row, else None."""
    return unit.noise(P.sum(axis=1, keepdims=True), n_others) if unit.row_noise else None


def _pair_cost(unit, indptr, indices, data, Y, in_range=_indices_in_range):
    r"""The exact cost :math:`C = \sum_{i \ne j} f_i(p_{ij}, d_{ij}^2)` of a unit.

    Parameters
    ----------
    unit : NamedTuple
        A method unit with its parameters (e.g.
        :class:`smallvis.methods.largevis.LargeVis`).
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet.
    Y : ndarray of shape (n_samples, n_components)

    Returns
    -------
    float
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, in_range=in_range)
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    noise = _row_noise(unit, P, n - 1)
    return _off_diagonal_sum(unit.cost_term(P, _squared_distances(Y), noise))


def _pair_gradient(unit, indptr, indices, data, Y, grad, in_range=_indices_in_range):
    r"""The exact gradient of :func:`_pair_cost`, from the unit's pair coefficient.

    With :math:`c_{ij} = \partial f_i / \partial d_{ij}^2` (the unit's
    ``coefficient``, smoothed by its ``eps``),

    .. math::

        \frac{\partial C}{\partial y_i} = 2 \sum_j (c_{ij} + c_{ji})(y_i - y_j),

    which is :math:`4 \sum_j c_{ij} (y_i - y_j)` when the term does not
    depend on the row (``P`` symmetric).  Writes ``grad``.

    Returns
    -------
    float or None
        The derivative in the unit's learned scalar (NCVis's ``Q``),
        :math:`\sum_{i \ne j} \partial f_i / \partial Q`; None without one.
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad, in_range=in_range)
    n = Y.shape[0]
    P = _dense(indptr, indices, data, n)
    D2 = _squared_distances(Y)
    noise = _row_noise(unit, P, n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        C, dq = unit.coefficient(P, D2, noise)
    C = np.where(D2 > 0, C, 0.0)  # coincident points, and i = j
    if noise is None:
        grad[...] = 4.0 * _gradient_from_coefficients(C, Y)
    else:
        grad[...] = _gradient_from_coefficients(2.0 * (C + C.T), Y)
    if dq is None:
        return None
    return float(np.sum(np.where(~np.eye(n, dtype=bool), dq, 0.0)))


def pair_cost(unit, indptr, indices, data, Y, n_threads):
    r"""The exact cost of a pair unit: :math:`C = \sum_{i \ne j} f_i(p_{ij}, d_{ij}^2)`.

    The entry point of every method whose cost is a sum of pair terms: the
    registry's kernel rule calls it (through :meth:`smallvis.method_spec.Method.kernels`)
    for a method without named kernels.

    Parameters
    ----------
    unit : NamedTuple
        A method unit with its parameters (``smallvis/methods/<name>.py``).
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet.
    Y : ndarray of shape (n_samples, n_components)
    n_threads : int
        Ignored here.

    Returns
    -------
    float
    """
    return _pair_cost(unit, indptr, indices, data, Y)


def pair_gradient(unit, indptr, indices, data, Y, grad, n_threads):
    r"""The exact gradient of :func:`pair_cost` (into ``grad``).

    .. math::

        \frac{\partial C}{\partial y_i} = 2 \sum_j (c_{ij} + c_{ji})(y_i - y_j),

    with :math:`c` the unit's pair coefficient.

    Returns
    -------
    float or None
        The derivative in the unit's learned scalar; None without one.
    """
    return _pair_gradient(unit, indptr, indices, data, Y, grad)


def largevis_cost(indptr, indices, data, Y, gamma, eps, alpha, n_threads):
    """LargeVis cost, the form R smallvis minimises (:class:`~smallvis.methods.largevis.LargeVis`).

    ``alpha = 1`` is the Cauchy kernel of t-SNE.  ``eps`` regularises only
    the gradient and is ignored here.
    """
    return _pair_cost(LargeVis(gamma, eps, alpha), indptr, indices, data, Y,
                      in_range=None)


def largevis_gradient(indptr, indices, data, Y, gamma, eps, alpha, grad, n_threads):
    """LargeVis gradient, ``P`` symmetric (:meth:`.LargeVis.coefficient`).

    Exact when ``eps = 0``; LargeVis uses ``eps = 0.1``.
    """
    _pair_gradient(LargeVis(gamma, eps, alpha), indptr, indices, data, Y, grad,
                   in_range=None)


def largevis_exp_cost(indptr, indices, data, Y, gamma, n_threads):
    """LargeVis cost with the exponential weight (:class:`.LargeVisExp`)."""
    return _pair_cost(LargeVisExp(gamma), indptr, indices, data, Y, in_range=None)


def largevis_exp_gradient(indptr, indices, data, Y, gamma, grad, n_threads):
    """LargeVis gradient with the exponential weight (``P`` symmetric)."""
    _pair_gradient(LargeVisExp(gamma), indptr, indices, data, Y, grad, in_range=None)


def umap_cost(indptr, indices, data, Y, a, b, eps, n_threads):
    """UMAP cost: the fuzzy-set cross-entropy (:class:`~smallvis.methods.umap.UMAP`).

    The constant terms (in ``v`` only) are kept; ``0 log 0 = 0``.  ``eps``
    regularises only the gradient and is ignored here.
    """
    return _pair_cost(UMAP(a, b, eps), indptr, indices, data, Y, in_range=None)


def umap_gradient(indptr, indices, data, Y, a, b, eps, grad, n_threads):
    """UMAP gradient for the exact optimizer (compact form; exact when ``eps = 0``)."""
    _pair_gradient(UMAP(a, b, eps), indptr, indices, data, Y, grad, in_range=None)


def tumap_cost(indptr, indices, data, Y, eps, n_threads):
    """t-UMAP cost: UMAP's with ``a = b = 1`` (:class:`~smallvis.methods.tumap.TUMAP`)."""
    return _pair_cost(TUMAP(eps), indptr, indices, data, Y, in_range=None)


def tumap_gradient(indptr, indices, data, Y, eps, grad, n_threads):
    """t-UMAP gradient for the exact optimizer (R smallvis's form; exact when ``eps = 0``)."""
    _pair_gradient(TUMAP(eps), indptr, indices, data, Y, grad, in_range=None)


def ncvis_cost(indptr, indices, data, Y, Q, nu, a, b, n_threads):
    r"""NCVis cost :math:`-J(Y, Q)`, the negated NCE objective (:class:`.NCVis`).

    The noise distribution is :math:`p_n(i) = \sum_k p_{ik} / (N - 1)`.
    """
    return _pair_cost(NCVis(Q, nu, a, b), indptr, indices, data, Y, in_range=None)


def ncvis_gradient(indptr, indices, data, Y, Q, nu, a, b, grad, n_threads):
    """Gradient of the NCVis cost in ``Y`` (written to ``grad``) and in ``Q``.

    Returns
    -------
    float
        The derivative in ``Q``.
    """
    return _pair_gradient(NCVis(Q, nu, a, b), indptr, indices, data, Y, grad,
                          in_range=None)


# ---------------------------------------------------------------------------
# stochastic optimizer: counter-based random numbers, coefficients, the epoch
# loop (in their own module; they are part of this module's interface)
# ---------------------------------------------------------------------------

from smallvis.backends._sgd_reference import (SGD_COEFFICIENTS, SGD_GROUPS, SGD_NOISES,  # noqa: E402, F401  (re-exported)
                                             SGD_SCHEMES, alias_table, counter_randint,
                                             counter_random, counter_uniform, sgd_coefficients,
                                             sgd_epochs, sgd_group_coefficients)

for _twin in (alias_table, counter_randint, counter_random, counter_uniform,
              sgd_coefficients, sgd_epochs, sgd_group_coefficients):
    _twin.__module__ = __name__
del _twin


# ---------------------------------------------------------------------------
# tsne with FFT-accelerated interpolation (docs/theory.md §3.9): an
# approximate repulsion, O(N) per evaluation, for large data in 1-D and 2-D
# ---------------------------------------------------------------------------

#: Fewest intervals (boxes) per output dimension of the interpolation grid,
#: and their preferred width in output units (Linderman et al. 2019 and
#: openTSNE use 50 and 1).
FFT_MIN_INTERVALS = 50
FFT_INTERVAL_WIDTH = 1.0

#: Widest box for a heavy-tailed kernel (t-SNE's ``dof`` below 1), in units
#: of the kernel's length scale ``sqrt(dof)``: the weight (1 + d^2/dof)^-dof
#: and its repulsion kernel bend over distances of about ``sqrt(dof)``, so
#: boxes of width 1 interpolate them coarsely when ``dof`` is small.  With
#: boxes of ``FFT_WIDTH_PER_SCALE * sqrt(dof)`` (never wider than
#: ``FFT_INTERVAL_WIDTH``) the error stays at or below that of ``dof = 1`` on
#: boxes of width 1 (docs/reliability.md, "The FFT gradient's accuracy");
#: ``dof >= 1 / FFT_WIDTH_PER_SCALE**2`` keeps boxes of width
#: ``FFT_INTERVAL_WIDTH``.
FFT_WIDTH_PER_SCALE = 2.0

#: Most interpolation nodes in the whole grid, ``(n_boxes * n_interpolation)
#: ** dim``.  It bounds the memory of one evaluation (2-D: about 10 arrays of
#: ``(2 sqrt(FFT_MAX_NODES))**2`` complex numbers, ~350 MB; 1-D: ~50 MB)
#: whatever the spread of ``Y``.  The kernels give a layout too wide for
#: boxes of width :func:`_fft_box_width` within this bound wider boxes (a
#: coarser, less accurate grid) instead of more memory; the registered
#: ``gradient="fft"`` then evaluates such a layout with the exact kernels
#: instead, up to :data:`FFT_WIDE_EXACT_MAX_N` points
#: (:func:`_fft_exact_instead`).  Both twins read it at each call: raising
#: it buys accuracy on wide layouts with memory.
FFT_MAX_NODES = 2 ** 20

#: Most points for which ``gradient="fft"`` evaluates a layout too wide for
#: its grid with the exact gradient.  The exact gradient costs O(N^2), the
#: capped grid a fixed amount whatever N: at this N the two cost about the
#: same (docs/reliability.md, "The FFT gradient's accuracy").  Above it the
#: coarse grid is kept and a warning estimates its error.
FFT_WIDE_EXACT_MAX_N = 50_000

#: Output dimensions the FFT interpolation supports.
FFT_DIMENSIONS = (1, 2)

__all__ += ["tsne_fft_cost", "tsne_fft_gradient"]


def _fft_box_width(dof=1.0):
    """Widest box the grid may use for the kernel of ``dof``: the one accuracy rule.

    ``FFT_INTERVAL_WIDTH`` for ``dof >= 1 / FFT_WIDTH_PER_SCALE**2``, and
    ``FFT_WIDTH_PER_SCALE * sqrt(dof)`` (the kernel's length scale times a
    fixed number) below.
    """
    return FFT_INTERVAL_WIDTH * min(1.0, FFT_WIDTH_PER_SCALE * float(np.sqrt(dof)))


def _fft_grid(Y, n_interpolation, dof=1.0):
    """Geometry of the interpolation grid of ``Y`` for the kernel of ``dof``.

    Returns ``(lo, n_boxes, h)``: the lower corner (per dimension), the
    number of boxes per dimension and their width.  The grid is the square
    (cube) ``[lo, lo + n_boxes h]`` of equal boxes covering ``Y``; boxes are
    at most :func:`_fft_box_width` wide unless that needs more than
    :data:`FFT_MAX_NODES` nodes.
    """
    dim = Y.shape[1]
    width = _fft_box_width(dof)
    lo = Y.min(axis=0)
    span = float((Y.max(axis=0) - lo).max())
    if not span > 0.0:  # every point at one place: any box holds them
        span = width
    n_boxes = max(FFT_MIN_INTERVALS, int(np.ceil(span / width)))
    cap = max(1, int(round(FFT_MAX_NODES ** (1.0 / dim))) // n_interpolation)
    n_boxes = min(n_boxes, cap)
    return lo, n_boxes, span / n_boxes


class FFTAccuracyWarning(UserWarning):
    """``gradient="fft"`` met a layout too wide for its grid's boxes (:func:`_fft_box_width`)."""


def _fft_exact_instead(Y, n_interpolation, dof=1.0):
    """Whether ``gradient="fft"`` evaluates ``Y`` with the exact kernels, and why.

    The one rule both backends follow (the kernels themselves always
    interpolate).  The interpolation error grows about as the box width to
    the power ``n_interpolation``, relative to the kernel's length scale, so
    the grid keeps boxes at most :func:`_fft_box_width` wide (1 for ``dof >=
    1 / FFT_WIDTH_PER_SCALE**2``, narrower for heavier tails); a layout that
    would need more than :data:`FFT_MAX_NODES` nodes for that is evaluated
    with the exact gradient when ``N`` is at most
    :data:`FFT_WIDE_EXACT_MAX_N`, where that costs no more than the capped
    grid, and on the capped grid otherwise.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, 1 or 2)
    n_interpolation : int
    dof : float, default=1.0
        t-SNE's heavy-tail parameter: the kernel's length scale is about
        ``sqrt(dof)``.

    Returns
    -------
    exact : bool
        Evaluate ``Y`` with the exact kernels.
    warning : FFTAccuracyWarning or None
        What to tell the user (once per run): ``None`` when the grid's boxes
        are at most :func:`_fft_box_width` wide.
    """
    n, dim = Y.shape
    p = n_interpolation
    width = _fft_box_width(dof)
    _, n_boxes, h = _fft_grid(Y, p, dof)
    if not h > width:
        return False, None
    span = h * n_boxes
    why = ("" if width == FFT_INTERVAL_WIDTH else
           f", the widest that keeps the promised accuracy for dof={dof:g} (its kernel "
           f"bends over about sqrt(dof) = {np.sqrt(dof):.3g} units)")
    head = (f"gradient='fft': the layout spans {span:.4g} units, wider than the "
            f"interpolation grid covers with boxes of width {width:.3g}{why} "
            f"({n_boxes} boxes of {p} nodes per dimension, "
            f"smallvis.backends.reference.FFT_MAX_NODES = {FFT_MAX_NODES})")
    if n <= FFT_WIDE_EXACT_MAX_N:
        return True, FFTAccuracyWarning(
            f"{head}; with {n} points (at most FFT_WIDE_EXACT_MAX_N = "
            f"{FFT_WIDE_EXACT_MAX_N}) the exact gradient is used while the layout is that wide")
    needed = (int(np.ceil(span / width)) * p) ** dim
    ratio = h / width
    # measured with the default 3 nodes; other counts scale the same way
    scale = (" (median per-point error about 2e-2 at ratio 1, 0.2 at 2, 1 at 4 on "
             "clustered layouts)" if p == 3 else "")
    return False, FFTAccuracyWarning(
        f"{head}; its boxes are {h:.3g} wide, {ratio:.3g} times that width, and with "
        f"n_interpolation = {p} nodes per box the interpolated gradient's error grows about "
        f"as that ratio to the power {p}{scale}, here about {ratio ** p:.3g} times the error "
        f"of the promised grid.  Pass gradient='exact', or raise FFT_MAX_NODES to about "
        f"{needed} if memory allows (2-D: about 300 MB per 2**20 nodes)")


def _check_fft_dim(dim):
    if dim not in FFT_DIMENSIONS:
        raise ValueError(f"FFT interpolation supports 1-D and 2-D output; got {dim}-D")


def _lagrange_weights(t, n_interpolation):
    r"""Lagrange weights :math:`L_k(t)` of the nodes ``(k + 1/2) / p`` of a box.

    ``t`` holds positions within their box, scaled to [0, 1].  Returns an
    array of shape ``(len(t), p)``.
    """
    p = n_interpolation
    s = (np.arange(p) + 0.5) / p
    W = np.ones((t.shape[0], p))
    for k in range(p):
        for m in range(p):
            if m != k:
                W[:, k] *= (t - s[m]) / (s[k] - s[m])
    return W


def _fft_potentials(Y, n_interpolation, kernels, charges, n_threads, dof=1.0):
    r"""Interpolated potentials :math:`\phi_c(y_i) \approx \sum_j K_c(y_i, y_j)\, q_{cj}`.

    ``kernels`` is a list of functions of the squared distance, ``charges``
    a list (one per kernel) of arrays of shape ``(N, n_charges)``.  Returns
    one array of shape ``(N, n_charges)`` per kernel.  The sums include
    ``j = i``.  ``dof`` sets the grid's box width (:func:`_fft_grid`).
    """
    from scipy import fft

    n, dim = Y.shape
    p = n_interpolation
    lo, n_boxes, h = _fft_grid(Y, p, dof)
    m = n_boxes * p                       # nodes per dimension
    size = 2 * fft.next_fast_len(m)       # circulant embedding length (even, >= 2m)
    # box of each point and its position in it, then the weights of the p
    # nodes of that box, per dimension
    node = []
    weights = []
    for d in range(dim):
        u = (Y[:, d] - lo[d]) / h
        box = np.minimum(u.astype(np.int64), n_boxes - 1)
        node.append(box * p)
        weights.append(_lagrange_weights(u - box, p))
    # kernel on node offsets, embedded in a circulant of length ``size``
    offset = np.zeros(size)
    near = np.arange(m)
    offset[near] = near
    offset[size - near[1:]] = near[1:]
    valid = np.zeros(size, dtype=bool)
    valid[near] = True
    valid[size - near[1:]] = True
    step2 = (h / p) ** 2
    if dim == 1:
        d2 = offset ** 2 * step2
        mask = valid
    else:
        d2 = (offset[:, None] ** 2 + offset[None, :] ** 2) * step2
        mask = valid[:, None] & valid[None, :]
    shape = (size,) * dim
    out = []
    for kernel, q in zip(kernels, charges):
        kernel_hat = fft.rfftn(np.where(mask, kernel(d2), 0.0), workers=n_threads)
        phi = np.zeros((n, q.shape[1]))
        for c in range(q.shape[1]):
            # spread the charges onto the nodes
            grid = np.zeros(shape)
            for k in np.ndindex(*(p,) * dim):
                w = q[:, c].copy()
                for d in range(dim):
                    w *= weights[d][:, k[d]]
                index = tuple(node[d] + k[d] for d in range(dim))
                np.add.at(grid, index, w)
            # node potentials: the circulant convolution with the kernel
            pot = fft.irfftn(fft.rfftn(grid, workers=n_threads) * kernel_hat, s=shape,
                             workers=n_threads)
            # interpolate back to the points
            for k in np.ndindex(*(p,) * dim):
                w = np.ones(n)
                for d in range(dim):
                    w *= weights[d][:, k[d]]
                index = tuple(node[d] + k[d] for d in range(dim))
                phi[:, c] += w * pot[index]
        out.append(phi)
    return out


def _cauchy(d2):
    return TSNE().weight(d2)


def _cauchy_squared(d2):
    return 1.0 / (1.0 + d2) ** 2


def _fft_z(Y, n_interpolation, n_threads):
    """Interpolated Z = sum_{i != j} w_ij (the exact self terms w_ii = 1 removed)."""
    (phi,) = _fft_potentials(Y, n_interpolation, [_cauchy], [np.ones((Y.shape[0], 1))],
                             n_threads)
    return float(np.sum(phi[:, 0] - 1.0))


def _csr_rows(indptr, n):
    """Row index of every stored entry of a CSR matrix."""
    return np.repeat(np.arange(n), np.diff(indptr))


def tsne_fft_cost(indptr, indices, data, Y, n_interpolation, n_threads):
    r"""t-SNE cost with Z from FFT-accelerated interpolation.

    The cost of :func:`tsne_cost`, written with the un-normalised weights,

    .. math::

        C = \sum_{i \ne j} p_{ij} \log\bigl(p_{ij} (1 + d_{ij}^2)\bigr)
            + \Bigl(\sum_{i \ne j} p_{ij}\Bigr) \log Z,
        \qquad Z = \sum_{k \ne l} \frac{1}{1 + d_{kl}^2},

    is exact in its first term (a sum over the stored entries of ``P``,
    O(nnz)) and approximates ``Z`` by the interpolation of
    :func:`tsne_fft_gradient` (O(N)).  It is the cost that an optimizer
    using the approximate gradient monitors.

    Parameters
    ----------
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet (symmetric, zero diagonal).
    Y : ndarray of shape (n_samples, 1 or 2)
    n_interpolation : int
        Interpolation nodes per box and dimension (>= 1).
    n_threads : int
        Workers of the FFTs.

    Returns
    -------
    float
    """
    n = Y.shape[0]
    _check_fft_dim(Y.shape[1])
    rows = _csr_rows(indptr, n)
    diff = Y[rows] - Y[indices]
    d2 = np.sum(diff * diff, axis=1)
    keep = (data > 0) & (rows != indices)
    attraction = float(np.sum(data[keep] * np.log(data[keep] * (1.0 + d2[keep]))))
    p_sum = float(np.sum(data[rows != indices]))
    return attraction + p_sum * np.log(_fft_z(Y, n_interpolation, n_threads))


def tsne_fft_gradient(indptr, indices, data, Y, n_interpolation, grad, n_threads):
    r"""t-SNE gradient with the repulsion from FFT-accelerated interpolation.

    Linderman et al. (2019, "Fast interpolation-based t-SNE for improved
    visualization of single-cell RNA-seq data", Nature Methods 16, 243),
    FIt-SNE.  The gradient of :func:`tsne_gradient` splits into an
    attraction over the stored entries of ``P`` (computed exactly, O(nnz))
    and a repulsion over all pairs:

    .. math::

        \frac{\partial C}{\partial y_i}
        = 4 \sum_{j} p_{ij} w_{ij} (y_i - y_j)
          - \frac{4}{Z} \sum_{j} w_{ij}^2 (y_i - y_j),
        \qquad w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

    With the kernels :math:`K_1(y, z) = 1/(1 + \|y - z\|^2)` and
    :math:`K_2 = K_1^2` the all-pairs sums are potentials of "charges" at
    the points,

    .. math::

        \phi_1(y_i) = \sum_j K_1(y_i, y_j), \quad
        \phi_2(y_i) = \sum_j K_2(y_i, y_j), \quad
        \phi_3(y_i) = \sum_j K_2(y_i, y_j)\, (y_j - c),

    (sums including ``j = i``; ``c`` the grid's lower corner), so that

    .. math::

        Z = \sum_i \bigl(\phi_1(y_i) - 1\bigr), \qquad
        \sum_j w_{ij}^2 (y_i - y_j) = (y_i - c)\, \phi_2(y_i) - \phi_3(y_i).

    The potentials are interpolated:

    1. **Grid.**  A square of ``B`` boxes per dimension covers ``Y``; each
       box is ``h`` wide (``h = 1`` with at least 50 boxes, wider when the
       node count would pass :data:`FFT_MAX_NODES`; the registered
       ``gradient="fft"`` then uses the exact kernels or warns, as
       :func:`_fft_exact_instead` decides).  Each box holds ``p =
       n_interpolation`` equispaced nodes per dimension at ``(k + 1/2) h /
       p``, so the nodes form one regular lattice of spacing ``h / p``.
    2. **Spread the charges.**  A point in a box is given the Lagrange
       weights of that box's nodes, :math:`L_k(t) = \prod_{m \ne k}
       (t - s_m)/(s_k - s_m)` (a tensor product in 2-D), and node ``a``
       receives :math:`\tilde q_a = \sum_i L_a(y_i) q_i`.
    3. **Convolve.**  On a regular lattice :math:`K(x_a, x_b)` depends only
       on ``a - b``: the node potentials :math:`\tilde\phi_a = \sum_b
       K(x_a, x_b) \tilde q_b` are a Toeplitz product, evaluated by
       embedding it in a circulant of twice the size and multiplying in
       Fourier space (``scipy.fft``), in O(M log M) for M nodes.
    4. **Interpolate back**: :math:`\phi(y_i) \approx \sum_a L_a(y_i)
       \tilde\phi_a`.

    The error comes from the interpolation only and falls quickly as
    ``n_interpolation`` grows (the kernels are smooth on the scale of a
    box); the cost of one evaluation is O(N p^dim + M log M).

    Parameters
    ----------
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet (symmetric, zero diagonal).
    Y : ndarray of shape (n_samples, 1 or 2)
    n_interpolation : int
        Interpolation nodes per box and dimension (>= 1).
    grad : ndarray of shape (n_samples, n_components)
        Output.
    n_threads : int
        Workers of the FFTs.
    """
    n, dim = Y.shape
    _check_fft_dim(dim)
    lo, _, _ = _fft_grid(Y, n_interpolation)
    Yc = Y - lo
    # exact attraction over the stored entries
    rows = _csr_rows(indptr, n)
    diff = Y[rows] - Y[indices]
    coef = data / (1.0 + np.sum(diff * diff, axis=1))
    attraction = np.zeros((n, dim))
    for d in range(dim):
        attraction[:, d] = np.bincount(rows, weights=coef * diff[:, d], minlength=n)
    # interpolated repulsion and Z
    phi1, phi2 = _fft_potentials(
        Y, n_interpolation, [_cauchy, _cauchy_squared],
        [np.ones((n, 1)), np.column_stack([np.ones(n), Yc])], n_threads)
    Z = float(np.sum(phi1[:, 0] - 1.0))
    repulsion = Yc * phi2[:, :1] - phi2[:, 1:]
    grad[...] = 4.0 * (attraction - repulsion / Z)


__all__ += ["tsne_dof_fft_cost", "tsne_dof_fft_gradient"]


def tsne_dof_fft_cost(indptr, indices, data, Y, n_interpolation, dof, n_threads):
    r"""Cost of :func:`tsne_dof_cost` with Z from FFT-accelerated interpolation.

    .. math::

        C = \sum_{i \ne j} p_{ij} \Bigl(\log p_{ij}
            + \alpha \log\bigl(1 + d_{ij}^2/\alpha\bigr)\Bigr)
            + \Bigl(\sum_{i \ne j} p_{ij}\Bigr) \log Z,
        \qquad Z = \sum_{k \ne l} \bigl(1 + d_{kl}^2/\alpha\bigr)^{-\alpha},

    exact over the stored entries of ``P``, ``Z`` interpolated as in
    :func:`tsne_fft_gradient` with the kernel :math:`w` of ``dof`` =
    :math:`\alpha` (:func:`tsne_fft_cost` is the case :math:`\alpha = 1`).
    """
    n = Y.shape[0]
    _check_fft_dim(Y.shape[1])
    unit = TSNE(dof)
    rows = _csr_rows(indptr, n)
    diff = Y[rows] - Y[indices]
    d2 = np.sum(diff * diff, axis=1)
    keep = (data > 0) & (rows != indices)
    attraction = float(np.sum(data[keep] * (np.log(data[keep]) - unit.log_weight(d2[keep]))))
    p_sum = float(np.sum(data[rows != indices]))
    (phi,) = _fft_potentials(Y, n_interpolation, [unit.weight], [np.ones((n, 1))], n_threads,
                             dof)
    return attraction + p_sum * np.log(float(np.sum(phi[:, 0] - 1.0)))


def tsne_dof_fft_gradient(indptr, indices, data, Y, n_interpolation, dof, grad, n_threads):
    r"""Gradient of :func:`tsne_dof_cost` with the repulsion from FFT-accelerated interpolation.

    The algorithm of :func:`tsne_fft_gradient` with the kernels of ``dof``
    = :math:`\alpha`:

    .. math::

        \frac{\partial C}{\partial y_i}
        = 4 \sum_{j} p_{ij} w_{ij}^{1/\alpha} (y_i - y_j)
          - \frac{4}{Z} \sum_{j} w_{ij}^{1 + 1/\alpha} (y_i - y_j),

    :math:`K_1 = w = (1 + d^2/\alpha)^{-\alpha}` interpolated for ``Z`` and
    :math:`K_2 = w^{1 + 1/\alpha} = (1 + d^2/\alpha)^{-(\alpha + 1)}` for
    the repulsion; the attraction is exact over the stored entries of ``P``.
    The grid's boxes are at most :func:`_fft_box_width` ``(dof)`` wide:
    narrower than 1 for a heavy tail, whose kernels bend over distances of
    about :math:`\sqrt{\alpha}`.
    """
    n, dim = Y.shape
    _check_fft_dim(dim)
    unit = TSNE(dof)
    lo, _, _ = _fft_grid(Y, n_interpolation, dof)
    Yc = Y - lo
    rows = _csr_rows(indptr, n)
    diff = Y[rows] - Y[indices]
    coef = data * unit.slope_at(np.sum(diff * diff, axis=1))
    attraction = np.zeros((n, dim))
    for d in range(dim):
        attraction[:, d] = np.bincount(rows, weights=coef * diff[:, d], minlength=n)
    phi1, phi2 = _fft_potentials(
        Y, n_interpolation, [unit.weight, unit.repulsion_kernel],
        [np.ones((n, 1)), np.column_stack([np.ones(n), Yc])], n_threads, dof)
    Z = float(np.sum(phi1[:, 0] - 1.0))
    repulsion = Yc * phi2[:, :1] - phi2[:, 1:]
    grad[...] = 4.0 * (attraction - repulsion / Z)

# transform: new points against a fixed reference embedding (docs/theory.md §6)
# ---------------------------------------------------------------------------
#
# ``P`` is an M x N CSR triplet: row s holds the affinities of new point s to
# the N reference (training) points; ``Y`` (M x dim) holds the moving new
# points and ``Y_ref`` (N x dim) the fixed reference.  The cost is the sum
# over the new points of the terms of *their own row* of the method's cost,
# taken over every reference point (no pair of two new points: a new point is
# placed as if it were the only one added, so the result for a point does not
# depend on the batch it came in).  The gradients are exact for their costs
# (``eps = 0``); for a symmetric method they are half of the method's exact
# gradient row, whose cost counts the pair (s, j) twice.


def _transform_dense(indptr, indices, data, Y, Y_ref):
    """Dense M x N P and squared distances between the new and reference points."""
    m, n = Y.shape[0], Y_ref.shape[0]
    P = csr_matrix((data, indices, indptr), shape=(m, n)).toarray()
    return P, cdist(Y, Y_ref, "sqeuclidean")


def _transform_force(K, D2, Y, Y_ref):
    r""":math:`2 \sum_j K_{sj} (y_s - y_j)`, coincident pairs removed.

    Evaluated relative to the reference's first point (exact differences for
    nearby points, as :func:`_gradient_from_coefficients`).
    """
    K = np.where(D2 > 0, K, 0.0)
    origin = Y_ref[0] if Y_ref.shape[0] else 0.0
    return 2.0 * (K.sum(axis=1)[:, None] * (Y - origin) - K @ (Y_ref - origin))


def normalised_transform_cost(unit, indptr, indices, data, Y, Y_ref, n_threads):
    r"""Cost of new points placed by a normalised unit against a fixed reference.

    .. math::

        C = \sum_s \sum_j f(p_{j|s}, q_{j|s}),
        \qquad
        q_{j|s} = \frac{w(\|y_s - y_j\|^2)}{\sum_k w(\|y_s - y_k\|^2)},

    ``j, k`` over the reference points: each new point is normalised over
    its own row, whatever the unit's normalisation in a fit (as openTSNE
    does for t-SNE), so the result for a point does not depend on its batch.
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, Y_ref=Y_ref)
    return _normalised_transform_cost(unit, indptr, indices, data, Y, Y_ref)


def _normalised_transform_cost(unit, indptr, indices, data, Y, Y_ref):
    """:func:`normalised_transform_cost` on arrays the caller has checked."""
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_ref)
    Q, log_Q = _normalised_q(unit, D2, 1)
    return unit.cost(P, Q, log_Q)


def normalised_transform_gradient(unit, indptr, indices, data, Y, Y_ref, grad, n_threads):
    r"""Gradient of :func:`normalised_transform_cost` in the new points (writes ``grad``).

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j c_{sj} (y_s - y_j),

    with :math:`c` of :func:`_normalised_coefficients` over each row, whose
    ``mass`` is the row's :math:`\pi_s = \sum_k p_{k|s}` (1 for a
    calibrated row; the KL divergence's coefficient is then
    :math:`(p_{j|s} - \pi_s q_{j|s})\, s_{sj}`).
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad, Y_ref)
    _normalised_transform_gradient(unit, indptr, indices, data, Y, Y_ref, grad)


def _normalised_transform_gradient(unit, indptr, indices, data, Y, Y_ref, grad):
    """:func:`normalised_transform_gradient` on arrays the caller has checked."""
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_ref)
    K = _normalised_coefficients(unit, P, D2, 1, P.sum(axis=1, keepdims=True))
    grad[...] = _transform_force(K, np.ones_like(D2), Y, Y_ref)


def asne_transform_cost(indptr, indices, data, Y, Y_ref, n_threads):
    r"""Cost of new points placed by asymmetric SNE against a fixed reference.

    .. math::

        C = \sum_s \sum_j p_{j|s} \log \frac{p_{j|s}}{q_{j|s}},
        \qquad
        q_{j|s} = \frac{\exp(-\|y_s - y_j\|^2)}{\sum_k \exp(-\|y_s - y_k\|^2)},

    ``j, k`` over the reference points: row ``s`` of the asne cost.
    """
    return _normalised_transform_cost(ASNE(), indptr, indices, data, Y, Y_ref)


def asne_transform_gradient(indptr, indices, data, Y, Y_ref, grad, n_threads):
    r"""Gradient of :func:`asne_transform_cost` in the new points.

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j (p_{j|s} - \pi_s q_{j|s})(y_s - y_j),
        \qquad \pi_s = \sum_k p_{k|s}

    (:math:`\pi_s = 1` for a calibrated row).
    """
    _normalised_transform_gradient(ASNE(), indptr, indices, data, Y, Y_ref, grad)


def ssne_transform_cost(indptr, indices, data, Y, Y_ref, n_threads):
    r"""Cost of new points placed by symmetric SNE: the Gaussian row KL.

    .. math::

        C = \sum_s \sum_j p_{j|s} \log \frac{p_{j|s}}{q_{j|s}},
        \qquad
        q_{j|s} = \frac{\exp(-\|y_s - y_j\|^2)}{\sum_k \exp(-\|y_s - y_k\|^2)}.

    The joint normalisation of ssne's ``q`` is replaced by the new point's
    own row (as openTSNE does for t-SNE), so the cost is that of asne.
    """
    return _normalised_transform_cost(SSNE(), indptr, indices, data, Y, Y_ref)


def ssne_transform_gradient(indptr, indices, data, Y, Y_ref, grad, n_threads):
    r"""Gradient of :func:`ssne_transform_cost`.

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j (p_{j|s} - \pi_s q_{j|s})(y_s - y_j),
        \qquad \pi_s = \sum_k p_{k|s}.
    """
    _normalised_transform_gradient(SSNE(), indptr, indices, data, Y, Y_ref, grad)


def tsne_transform_cost(indptr, indices, data, Y, Y_ref, n_threads):
    r"""Cost of new points placed by t-SNE: the Cauchy row KL.

    .. math::

        C = \sum_s \sum_j p_{j|s} \log \frac{p_{j|s}}{q_{j|s}},
        \qquad
        q_{j|s} = \frac{w_{sj}}{\sum_k w_{sk}},
        \qquad
        w_{sj} = \frac{1}{1 + \|y_s - y_j\|^2},

    the joint normalisation replaced by the new point's row, as openTSNE.
    """
    return _normalised_transform_cost(TSNE(), indptr, indices, data, Y, Y_ref)


def tsne_transform_gradient(indptr, indices, data, Y, Y_ref, grad, n_threads):
    r"""Gradient of :func:`tsne_transform_cost`.

    .. math::

        \frac{\partial C}{\partial y_s} =
        2 \sum_j (p_{j|s} - \pi_s q_{j|s})\, w_{sj}\, (y_s - y_j),
        \qquad \pi_s = \sum_k p_{k|s}

    (:math:`\pi_s = 1` for a calibrated row).
    """
    _normalised_transform_gradient(TSNE(), indptr, indices, data, Y, Y_ref, grad)


def tsne_dof_transform_cost(indptr, indices, data, Y, Y_ref, dof, n_threads):
    r"""Cost of new points placed by t-SNE with ``dof`` = :math:`\alpha`: the row KL.

    .. math::

        C = \sum_s \sum_j p_{j|s} \log \frac{p_{j|s}}{q_{j|s}},
        \qquad
        q_{j|s} = \frac{w_{sj}}{\sum_k w_{sk}},
        \qquad
        w_{sj} = \Bigl(1 + \frac{\|y_s - y_j\|^2}{\alpha}\Bigr)^{-\alpha}

    (:func:`tsne_transform_cost` is the case :math:`\alpha = 1`).
    """
    return _normalised_transform_cost(TSNE(dof), indptr, indices, data, Y, Y_ref)


def tsne_dof_transform_gradient(indptr, indices, data, Y, Y_ref, dof, grad, n_threads):
    r"""Gradient of :func:`tsne_dof_transform_cost`.

    .. math::

        \frac{\partial C}{\partial y_s} =
        2 \sum_j (p_{j|s} - \pi_s q_{j|s})\, w_{sj}^{1/\alpha}\, (y_s - y_j),
        \qquad \pi_s = \sum_k p_{k|s}.
    """
    _normalised_transform_gradient(TSNE(dof), indptr, indices, data, Y, Y_ref, grad)


def infonce_transform_cost(indptr, indices, data, Y, Y_ref, m, n_threads):
    r"""The expected InfoNCE loss of new points against fixed reference points.

    .. math::

        C = \sum_s \sum_j p_{sj} \Bigl[-\log \phi_{sj} + \int_0^\infty
            \bigl(e^{-t} - e^{-\phi_{sj} t} M_s(t)^m\bigr) \frac{dt}{t}\Bigr],
        \qquad M_s(t) = \frac{1}{N} \sum_{k} e^{-t \phi_{sk}},

    ``j, k`` over the ``N`` reference points: the new point's positives and
    its negatives are reference points.
    """
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_ref)
    costs, _ = _infonce_rows(InfoNCE(m), P, D2, False)
    return float(costs.sum())


def infonce_transform_gradient(indptr, indices, data, Y, Y_ref, m, grad, n_threads):
    r"""Gradient of :func:`infonce_transform_cost` in the new points.

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_k K_{sk} (y_s - y_k),
        \qquad K_{sk} = -\phi_{sk}^2 \frac{\partial C_s}{\partial \phi_{sk}}.
    """
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_ref)
    _, K = _infonce_rows(InfoNCE(m), P, D2, False)
    grad[...] = _transform_force(K, D2, Y, Y_ref)


def _transform_pair_cost(unit, indptr, indices, data, Y, Y_ref):
    r"""The row terms of a unit's cost for new points: :math:`\sum_s \sum_j f_s(p_{sj}, d_{sj}^2)`.

    ``j`` over the reference points; a new point's noise (NCVis) is spread
    over the ``N`` reference points.
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, Y_ref=Y_ref)
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_ref)
    noise = _row_noise(unit, P, Y_ref.shape[0])
    return float(np.sum(unit.cost_term(P, D2, noise)))


def _transform_pair_gradient(unit, indptr, indices, data, Y, Y_ref, grad):
    r"""Gradient of :func:`_transform_pair_cost` in the new points (writes ``grad``).

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j c_{sj} (y_s - y_j),

    with :math:`c` the unit's pair coefficient (exact when ``eps = 0``).
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad, Y_ref)
    P, D2 = _transform_dense(indptr, indices, data, Y, Y_ref)
    noise = _row_noise(unit, P, Y_ref.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        C, _ = unit.coefficient(P, D2, noise)
    grad[...] = _transform_force(C, D2, Y, Y_ref)


def pair_transform_cost(unit, indptr, indices, data, Y, Y_ref, n_threads):
    r"""A pair unit's row terms for new points, :math:`\sum_s \sum_j f_s(p_{sj}, d_{sj}^2)`.

    ``j`` runs over the ``N`` reference points (``Y_ref``, fixed).
    """
    return _transform_pair_cost(unit, indptr, indices, data, Y, Y_ref)


def pair_transform_gradient(unit, indptr, indices, data, Y, Y_ref, grad, n_threads):
    r"""Gradient of :func:`pair_transform_cost` in the new points (writes ``grad``).

    .. math::

        \frac{\partial C}{\partial y_s} = 2 \sum_j c_{sj} (y_s - y_j).
    """
    _transform_pair_gradient(unit, indptr, indices, data, Y, Y_ref, grad)


def largevis_transform_cost(indptr, indices, data, Y, Y_ref, gamma, eps, alpha, n_threads):
    """Row terms of the LargeVis cost for new points (``eps`` regularises only the gradient)."""
    return _transform_pair_cost(LargeVis(gamma, eps, alpha), indptr, indices, data, Y, Y_ref)


def largevis_transform_gradient(indptr, indices, data, Y, Y_ref, gamma, eps, alpha, grad,
                                n_threads):
    """Gradient of :func:`largevis_transform_cost` (exact when ``eps = 0``)."""
    _transform_pair_gradient(LargeVis(gamma, eps, alpha), indptr, indices, data, Y, Y_ref, grad)


def largevis_exp_transform_cost(indptr, indices, data, Y, Y_ref, gamma, n_threads):
    """Row terms of the exponential-weight LargeVis cost for new points."""
    return _transform_pair_cost(LargeVisExp(gamma), indptr, indices, data, Y, Y_ref)


def largevis_exp_transform_gradient(indptr, indices, data, Y, Y_ref, gamma, grad, n_threads):
    """Gradient of :func:`largevis_exp_transform_cost`."""
    _transform_pair_gradient(LargeVisExp(gamma), indptr, indices, data, Y, Y_ref, grad)


def umap_transform_cost(indptr, indices, data, Y, Y_ref, a, b, eps, n_threads):
    """Row terms of the UMAP cross-entropy for new points."""
    return _transform_pair_cost(UMAP(a, b, eps), indptr, indices, data, Y, Y_ref)


def umap_transform_gradient(indptr, indices, data, Y, Y_ref, a, b, eps, grad, n_threads):
    """Gradient of :func:`umap_transform_cost` (exact when ``eps = 0``)."""
    _transform_pair_gradient(UMAP(a, b, eps), indptr, indices, data, Y, Y_ref, grad)


def tumap_transform_cost(indptr, indices, data, Y, Y_ref, eps, n_threads):
    """Row terms of the t-UMAP cross-entropy (UMAP's with ``a = b = 1``) for new points."""
    return _transform_pair_cost(TUMAP(eps), indptr, indices, data, Y, Y_ref)


def tumap_transform_gradient(indptr, indices, data, Y, Y_ref, eps, grad, n_threads):
    """Gradient of :func:`tumap_transform_cost` (exact when ``eps = 0``)."""
    _transform_pair_gradient(TUMAP(eps), indptr, indices, data, Y, Y_ref, grad)


def ncvis_transform_cost(indptr, indices, data, Y, Y_ref, Q, nu, a, b, n_threads):
    r"""Row terms of the NCVis cost :math:`-J` for new points, ``Q`` fixed.

    The noise of new point ``s`` is :math:`\nu p_n(s)`, :math:`p_n(s) =
    \sum_k p_{sk} / N` over the ``N`` reference points.
    """
    return _transform_pair_cost(NCVis(Q, nu, a, b), indptr, indices, data, Y, Y_ref)


def ncvis_transform_gradient(indptr, indices, data, Y, Y_ref, Q, nu, a, b, grad, n_threads):
    """Gradient of :func:`ncvis_transform_cost` in the new points."""
    _transform_pair_gradient(NCVis(Q, nu, a, b), indptr, indices, data, Y, Y_ref, grad)


#: The transform twins, in the order they are defined above (no list of
#: methods here: the registry is the only one).
__all__ += [_name for _name, _value in list(globals().items())
            if callable(_value) and not _name.startswith("_")
            and _name.endswith(("_transform_cost", "_transform_gradient"))]
