"""Input affinities: perplexity-calibrated Gaussian P, UMAP and NCVis graphs (docs/theory.md §2).

The per-row bandwidth search is a twin kernel (``perplexity_rows``); the rest
(distances, symmetrisation, normalisation) is plain NumPy/SciPy and shared by
both paths.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import pdist, squareform

from .. import _progress
from . import distances as metrics
from ..backends._backend import is_fast
from ..backends.reference import CALIBRATION_BLOCK
from .._memory import release_free_heap, release_pages
from .._numeric import SAFE_EXPONENT, in_units, power_of_two_exponent
from .._validation import (ParameterError, _as_array, check_integer, check_knn_pair, check_number,
                           check_threads, warn_from_caller)

PERPLEXITY_TOL = 1e-5
PERPLEXITY_MAX_TRIES = 50

#: Dense calibration holds about six N x N float64 arrays at once; above this
#: many bytes it is refused (use a kNN-calibrated method instead).
MAX_DENSE_AFFINITY_BYTES = 8 * 1024**3
DENSE_AFFINITY_ARRAYS = 6


def check_dense_affinity_size(n_samples):
    """Refuse a dense (all pairs) calibration that would exhaust memory."""
    need = DENSE_AFFINITY_ARRAYS * 8 * n_samples ** 2
    if need > MAX_DENSE_AFFINITY_BYTES:
        n_max = int((MAX_DENSE_AFFINITY_BYTES / (8 * DENSE_AFFINITY_ARRAYS)) ** 0.5)
        raise ValueError(
            f"n_samples = {n_samples} is too large for a dense perplexity calibration: "
            f"it needs O(N^2) memory, about {need / 1024**3:.1f} GiB (limit "
            f"{MAX_DENSE_AFFINITY_BYTES / 1024**3:.0f} GiB, n_samples <= {n_max}); use tsne or "
            "largevis, which calibrate over nearest neighbours at this size"
        )


def squared_distances(X, exponent=0):
    """Dense matrix of squared Euclidean distances between the rows of ``X / 2**exponent``.

    Each unordered pair is computed once (``pdist``), so the matrix is exactly
    symmetric and costs half of ``cdist(X, X)``.

    Integer-valued data (pixels, counts) whose squared norms stay far below
    ``2**53`` take a faster road with the same result: ``|x_i|^2 + |x_j|^2 -
    2 x_i . x_j`` from one matrix product.  Every product and partial sum is
    then an integer (times ``2**(-2 exponent)``) that float64 holds exactly,
    so each distance is exact, in any order of summation: bit for bit what
    ``pdist`` gives, duplicates at exactly 0.  The division by
    ``2**exponent`` (see :func:`conditional_perplexity`) is exact on both
    roads.
    """
    Xs = in_units(X, exponent)
    if _exact_gram(X):
        sq = np.einsum("ij,ij->i", Xs, Xs)
        D = Xs @ Xs.T
        np.multiply(D, -2.0, out=D)
        D += sq[:, None]
        D += sq[None, :]
        return D
    return squareform(pdist(Xs, "sqeuclidean"), checks=False)


def _exact_gram(X):
    """True when ``X`` is integer-valued with ``4 d max|X|^2 <= 2**53``.

    Then every quantity of :func:`squared_distances`' matrix-product road is
    an integer of at most ``2**53`` in magnitude, times a power of two:
    exact in float64 (while it stays a normal number, which holds for the
    exponents of integer data).
    """
    if X.size == 0:
        return False
    top = float(np.max(np.abs(X)))
    if not 4.0 * X.shape[1] * top * top <= 2.0 ** 53:
        return False
    return bool(np.all(np.floor(X) == X))


def _off_diagonal(D):
    """(n, n) -> (n, n - 1): drop the diagonal of each row (one copy).

    Read row-major, the entries after ``D[0, 0]`` fall into ``n - 1`` runs
    of ``n + 1`` whose last entry is the next diagonal element.
    """
    n = D.shape[0]
    return D.reshape(-1)[1:].reshape(n - 1, n + 1)[:, :-1].reshape(n, n - 1)


def _with_zero_diagonal(R):
    """(n, n - 1) -> (n, n): put a zero on the diagonal of each row."""
    n = R.shape[0]
    out = np.zeros((n, n))
    out.reshape(-1)[1:].reshape(n - 1, n + 1)[:, :-1] = R.reshape(n - 1, n)
    return out


def _warn_failed_rows(n_failed, n, perplexity, stacklevel=4):
    """Say how many rows used the nearest-neighbour fallback, if any."""
    if n_failed:
        k = max(int(perplexity), 1)
        warnings.warn(
            f"perplexity calibration did not converge for {n_failed} of {n} rows; "
            f"those rows put 1/{k} on their {k} nearest neighbours",
            RuntimeWarning,
            stacklevel=stacklevel,
        )


def conditional_perplexity(X, perplexity, kernels, *, tol=PERPLEXITY_TOL,
                           max_tries=PERPLEXITY_MAX_TRIES, metric="euclidean"):
    r"""Row-stochastic Gaussian affinities :math:`p_{j|i}` of a given perplexity.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated input data.
    perplexity : float
        Target perplexity, ``1 <= perplexity <= n_samples - 1``.
    kernels : module
        The kernel module (:mod:`smallvis.backends.reference` or ``smallvis.backends._kernels``).
    tol : float, default=1e-5
        Tolerance on the entropy (nats).
    max_tries : int, default=50
        Maximum bisection steps per row.
    metric : str, default="euclidean"
        The input distance :math:`d_{ij}` (:mod:`smallvis.inputs.distances`);
        the Gaussian is calibrated on its square, :math:`\exp(-\beta_i
        d_{ij}^2)`, whatever the metric (docs/theory.md §2.1).

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
    rows, beta = _dense_rows(X, perplexity, kernels, tol, max_tries, stacklevel=5,
                             metric=metric)
    return _with_zero_diagonal(rows), beta


def _perplexity_rows(kernels, D2, perplexity, tol, max_tries, P, beta, n_threads):
    """The twin kernel ``perplexity_rows``, in chunks of rows when reporting progress.

    The chunks are whole blocks of ``CALIBRATION_BLOCK`` rows, which the
    kernel calibrates independently of each other, so P and beta are the
    same bits as from one call (which is what runs when not reporting).
    Returns the number of failed rows.
    """
    own = _own_row_units(D2)
    progress = _progress.counter("calibration", "rows", D2.shape[0])
    n_failed = 0
    for start, stop in progress.spans(first=CALIBRATION_BLOCK, multiple=CALIBRATION_BLOCK):
        n_failed += kernels.perplexity_rows(D2[start:stop], float(perplexity), float(tol),
                                            int(max_tries), P[start:stop], beta[start:stop],
                                            n_threads)
    if own is not None:
        rows, units = own
        # beta d^2 is what P depends on: beta in the data's unit
        with np.errstate(over="ignore", under="ignore"):
            beta[rows] = np.ldexp(beta[rows], -units)
    return n_failed


#: A row of squared distances whose median lies below ``2**-ROW_UNIT_EXPONENT``
#: in the data's unit is calibrated in a unit of its own (:func:`_own_row_units`).
ROW_UNIT_EXPONENT = 2 * SAFE_EXPONENT


def _own_row_units(D2):
    """Divide, in place, the rows of ``D2`` far below the data's unit by a power of two of their own.

    The calibration's search for ``beta`` starts from the scale of the rows
    before it (a row's start is the last one's result) and doubles or
    halves it a bounded number of times, so a row whose distances are many
    orders of magnitude smaller than the others' (every row but one when
    one entry of X is 1e140 times the rest) never reaches its ``beta``.
    ``P`` depends on ``beta d^2`` only, and dividing by a power of two is
    exact: such a row (median below ``2**-ROW_UNIT_EXPONENT``) is
    calibrated in the unit of its median, and its ``beta`` scaled back.
    Other rows are left as they are, to the bit.

    Returns ``(rows, units)`` of the rows divided by ``2**units``, or None.
    """
    tiny = 2.0 ** -ROW_UNIT_EXPONENT
    blocks = range(0, D2.shape[0], ROW_UNIT_BLOCK)
    # no positive distance that small, no such row: one pass, no median
    if not any(np.any((B > 0) & (B < tiny)) for B in (D2[s:s + ROW_UNIT_BLOCK] for s in blocks)):
        return None
    medians = np.concatenate([np.median(D2[s:s + ROW_UNIT_BLOCK], axis=1) for s in blocks])
    units = np.frexp(medians)[1].astype(np.int64)
    rows = np.flatnonzero((medians > 0) & (units < -ROW_UNIT_EXPONENT))
    if not len(rows):
        return None
    D2[rows] = np.ldexp(D2[rows], -units[rows, None])
    return rows, units[rows]


#: Rows whose medians are taken at once (bounds the copy ``np.median`` makes).
ROW_UNIT_BLOCK = 256


def _scaled_squared_distances(X, metric, kernels):
    """``(D2, e)``: the squared ``metric`` distances in units of ``2**e``, all pairs.

    The Euclidean matrix is :func:`squared_distances` of ``X / 2**e``, ``e``
    of ``X`` (:func:`smallvis.inputs.distances.data_exponent`, the units of
    the searches; sparse ``X`` alike); another
    metric's distances are divided by the power of two of their largest
    before they are squared, so no square over- or underflows either.
    """
    if sp.issparse(X):
        from .sparse_search import pairwise_sq_distances

        D2, e = pairwise_sq_distances(X, metric, kernels)
        if metric == "euclidean":
            _check_resolved_pairs(X, D2, e)
        return D2, e
    if metric == "euclidean":
        e = metrics.data_exponent(X, metric)
        D2 = squared_distances(X, e)
        _check_resolved_pairs(X, D2, e)
        return D2, e
    D = metrics.pairwise_distances(X, metric)
    e = power_of_two_exponent(D)
    D = in_units(D, e)
    return np.square(D, out=D), e


def all_pair_sq_distances(X, metric, kernels):
    """``(D2, e)``: the squared ``metric`` distances of all pairs in units of ``2**e``.

    The distances the dense ``P`` is calibrated on (the true ones are
    ``D2 * 4**e``), for a cost that reads the input distances themselves;
    the diagonal is 0.
    """
    D2, e = _scaled_squared_distances(X, metric, kernels)
    np.fill_diagonal(D2, 0.0)
    return D2, e


#: Nearest rows checked for distances lost to underflow in the dense P
#: (:func:`smallvis.inputs.distances.check_resolved`): a few, enough to
#: tell a neighbourhood lost to underflow from a point with a near-duplicate.
RESOLVED_CHECK_WIDTH = 3


def _check_resolved_pairs(X, D2, e):
    """:func:`smallvis.inputs.distances.check_resolved` on each row's nearest few of ``D2``."""
    k = min(RESOLVED_CHECK_WIDTH, X.shape[0] - 1)
    np.fill_diagonal(D2, np.inf)  # in place: the diagonal is no neighbour
    try:
        # only rows with k distances that small can fail: counted in blocks
        # of rows, so that ordinary data make no N x N temporary
        step = max(1, 2**22 // D2.shape[1])
        rows = np.concatenate([
            start + np.flatnonzero(np.count_nonzero(
                D2[start:start + step] < metrics.UNRESOLVED_SQ, axis=1) >= k)
            for start in range(0, D2.shape[0], step)])
        if len(rows):
            nearest = np.argpartition(D2[rows], k - 1, axis=1)[:, :k]
            metrics.check_resolved(X, nearest, np.take_along_axis(D2[rows], nearest, 1), e,
                                   rows=rows)
    finally:
        np.fill_diagonal(D2, 0.0)


def conditional_perplexity_bandwidths(X, perplexity, kernels, *, metric="euclidean"):
    r"""The conditional :math:`p_{j|i}` and each row's relative precision.

    :func:`conditional_perplexity`'s ``P``, and its precisions divided by
    their geometric mean, :math:`\beta_i / (\prod_k \beta_k)^{1/N}`: the
    ratios of the rows' bandwidths, which do not depend on the units of
    ``X``.  They are computed from the precisions in the calibration's own
    units (``X`` divided by a power of two), so they are finite for data of
    any size and the same, bit for bit, for ``X`` and ``2**k * X``.

    Returns
    -------
    P : ndarray of shape (n_samples, n_samples)
    bandwidth : ndarray of shape (n_samples,)
    """
    rows, beta = _dense_rows(X, perplexity, kernels, stacklevel=5, metric=metric,
                             data_units=False)
    return _with_zero_diagonal(rows), _relative(beta)


def gaussian_weights_over_pairs(X, perplexity, kernels, *, metric="euclidean"):
    r"""The calibrated Gaussian weights of each row, unnormalised, over their grand sum.

    R smallvis's affinities with ``row_normalize = FALSE`` and ``normalize
    = TRUE``: :math:`w_{ij} = \exp(-\beta_i d_{ij}^2)`, :math:`\beta_i`
    from :func:`conditional_perplexity`, and :math:`p_{ij} = w_{ij} /
    \sum_{kl} w_{kl}`.  Row ``i`` keeps its mass :math:`Z_i = \sum_j
    w_{ij}`: :math:`p_{ij} = p_{j|i} Z_i / \sum_k Z_k`.  The products
    :math:`\beta_i d_{ij}^2` are those of the calibration's own units, so
    ``P`` is the same for ``X`` and ``c X``; :math:`\log Z_i` is summed in
    the log domain, so a row far from all others (its nearest weight below
    the smallest double) keeps its small share where the others' masses
    allow.  A row whose calibration failed (the fallback of ``1/k`` on its
    ``k`` nearest neighbours, :func:`conditional_perplexity`) has mass 1,
    as R's fallback row has.

    Returns
    -------
    P : ndarray of shape (n_samples, n_samples)
        Summing to 1, zero diagonal, not symmetric.
    """
    rows, beta = _dense_rows(X, perplexity, kernels, stacklevel=5, metric=metric,
                             data_units=False)
    D2, _ = _scaled_squared_distances(X, metric, kernels)
    D2 = _off_diagonal(D2)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        log_w = -beta[:, None] * D2
        top = log_w.max(axis=1)
        log_z = top + np.log(np.exp(log_w - top[:, None]).sum(axis=1))
        # a calibrated row is w / Z at its largest entry; the fallback's is not
        j = np.argmax(rows, axis=1)
        at = np.arange(len(rows))
        calibrated = np.abs(np.log(rows[at, j]) + log_z - log_w[at, j]) <= 1e-6
    log_z = np.where(calibrated & np.isfinite(log_z), log_z, 0.0)
    mass = np.exp(log_z - log_z.max())
    rows *= (mass / mass.sum())[:, None]
    return _with_zero_diagonal(rows)


def _dense_rows(X, perplexity, kernels, tol=PERPLEXITY_TOL,
                max_tries=PERPLEXITY_MAX_TRIES, stacklevel=4, metric="euclidean",
                data_units=True):
    """:func:`conditional_perplexity` with ``P`` as its ``(n, n - 1)`` off-diagonal rows.

    ``data_units`` False: ``beta`` in the calibration's units (``X`` divided
    by a power of two), not in the data's.
    """
    check_dense_affinity_size(X.shape[0])
    with _progress.stage("calibration", f"perplexity {perplexity:g} over all "
                                        f"{X.shape[0]} points"):
        D2, e = _scaled_squared_distances(X, metric, kernels)
        D2 = np.ascontiguousarray(_off_diagonal(D2))
        n = D2.shape[0]
        _warn_hub_rows_of(D2)
        # the rows fill the first n (n - 1) entries of an n x n buffer.  At
        # P's own size, glibc serves it by mmap like P, and freeing it gives
        # the memory back to the system; one row smaller, it stayed in the
        # heap, unused by the N x N arrays made later (the kernels' index
        # array, the exaggerated P), and the peak memory of a run grew by it
        rows = np.zeros(n * n)[:n * (n - 1)].reshape(n, n - 1)
        beta = np.zeros(n)
        n_failed = _perplexity_rows(kernels, D2, perplexity, tol, max_tries, rows, beta, 1)
    _warn_failed_rows(n_failed, n, perplexity, stacklevel=stacklevel)
    if data_units:
        with np.errstate(over="ignore", under="ignore"):  # beta may leave the range
            beta = np.ldexp(beta, -2 * e) if e else beta
    return rows, beta


def symmetrize(P):
    """Return ``(P + P.T) / 2`` (dense or sparse)."""
    return 0.5 * (P + P.T)


def normalize(P):
    """Return ``P`` divided by its grand sum."""
    return P / P.sum()


#: Rows per strip of the dense symmetrisation.
SYMMETRIZE_STRIP = 64


def _symmetrized_rows(R):
    """``(P + P^T) / 2`` of the zero-diagonal ``P`` whose off-diagonal rows are ``R``.

    ``R`` is ``(n, n - 1)``: ``P[i, j] = R[i, j - (j > i)]`` for ``j != i``
    (:func:`_with_zero_diagonal`).  Built strip by strip: rows ``A`` from
    the diagonal on, and their mirror, columns ``A`` below the diagonal, are
    written at once from ``R``.  Each entry is ``(p_ij + p_ji) * 0.5``, the
    bits of ``symmetrize(_with_zero_diagonal(R))``, with no other N x N
    array.
    """
    n, b = R.shape[0], SYMMETRIZE_STRIP
    J = np.empty((n, n))
    for a in range(0, n, b):
        e = min(a + b, n)
        # the diagonal block P[A, A] from R[A, a .. e - 2]
        T = _with_zero_diagonal(np.ascontiguousarray(R[a:e, a:e - 1]))
        S = np.add(T, T.T)
        np.multiply(S, 0.5, out=S)
        J[a:e, a:e] = S
        if e < n:
            # columns j > i of rows A are columns j - 1 of R; rows after A
            # hold columns A unshifted
            S = np.add(R[a:e, e - 1:], R[e:, a:e].T)
            np.multiply(S, 0.5, out=S)
            J[a:e, e:] = S
            J[e:, a:e] = S.T
    return J


def joint_perplexity(X, perplexity, kernels, metric="euclidean"):
    """Symmetric, matrix-normalised perplexity affinities (ssne, tsne).

    ``normalize(symmetrize(P))`` of the conditional ``P`` with no other
    N x N temporary (:func:`_symmetrized_rows`): the same operations on the
    same numbers, so the same bits.  ``metric`` as
    :func:`conditional_perplexity`.
    """
    R, _ = _dense_rows(X, perplexity, kernels, metric=metric)
    J = _symmetrized_rows(R)
    del R
    np.divide(J, J.sum(), out=J)
    return J


def joint_perplexity_bandwidths(X, perplexity, kernels, *, metric="euclidean"):
    """:func:`joint_perplexity`'s ``P`` and each row's relative precision.

    The precisions of the conditional rows before symmetrisation, over
    their geometric mean, as :func:`conditional_perplexity_bandwidths`.
    """
    R, beta = _dense_rows(X, perplexity, kernels, stacklevel=5, metric=metric,
                          data_units=False)
    J = _symmetrized_rows(R)
    del R
    np.divide(J, J.sum(), out=J)
    return J, _relative(beta)


def _relative(beta):
    """Precisions over their geometric mean (non-finite where one is 0 or inf)."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        return beta / np.exp(np.mean(np.log(beta)))


def kernel_triplet(P):
    """CSR triplet ``(indptr, indices, data)`` in the layout kernels expect.

    ``P`` is a validated dense array or canonical CSR matrix (see
    :func:`smallvis._validation.check_affinities`).  A dense array, or a
    sparse matrix with at least half of its entries stored, is passed in the
    full layout: every row stores all ``n`` columns (zeros included), so
    ``data`` is the row-major dense matrix and kernels can read rows directly.
    """
    n = P.shape[0]
    if sp.issparse(P):
        _check_structure(P)
        if P.nnz < 0.5 * n * n:
            return (np.ascontiguousarray(P.indptr, dtype=np.int64),
                    np.ascontiguousarray(P.indices, dtype=np.int64),
                    np.ascontiguousarray(P.data, dtype=np.float64))
    dense = P.toarray() if sp.issparse(P) else P
    data = np.ascontiguousarray(dense, dtype=np.float64).reshape(-1)
    indptr = np.arange(0, n * n + 1, n, dtype=np.int64)
    indices = np.tile(np.arange(n, dtype=np.int64), n)
    return indptr, indices, data


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


# ---------------------------------------------------------------------------
# sparse affinities from a k-nearest-neighbour graph
# ---------------------------------------------------------------------------

#: umap-learn's constants for the smoothed kNN distances.
SMOOTH_K_TOL = 1e-5
SMOOTH_K_N_ITER = 64
MIN_K_DIST_SCALE = 1e-3


def _knn(X, k, knn, knn_method, random_state, n_threads, n_trees=None, kernels=None,
         metric="euclidean"):
    """The ``k`` nearest other points of each row, computed or precomputed.

    ``knn`` is None or an ``(indices, distances)`` pair as returned by
    :func:`smallvis.inputs.neighbors.nearest_neighbors` with at least ``k``
    columns; its first ``k`` columns are used.  ``kernels`` (None: the NumPy
    reference) runs the search's refinement.  The indices are int32
    (:func:`smallvis.inputs.neighbors.knn_graph`) when computed here, int64 when
    precomputed.
    """
    from .neighbors import check_search_params, knn_graph

    n = X.shape[0]
    check_search_params(knn_method, n_trees, name="knn_method")
    if knn is None:
        fast = kernels is not None and is_fast(kernels)
        indices, distances = knn_graph(X, k, method=knn_method, random_state=random_state,
                                       n_threads=n_threads, n_trees=n_trees, fast=fast,
                                       metric=metric)
        release_free_heap()  # the search's copies of X, freed but resident
        if not np.all(np.isfinite(distances)):
            raise ValueError(
                "X spans too wide a range: distances between its rows overflow float64 "
                "(more than about 1.8e308); rescale X"
            )
        _warn_hub_rows(indices, distances)
        return indices, distances
    return check_knn(knn, n, k)


#: :func:`_knn` and the dense calibration warn when one row is among the
#: :data:`HUB_NEAREST` nearest others of at least this share of the rows.
#: The usual such row is an all-zero row of sparse text whose other rows
#: have length 1: at distance 1 from each, it is nearer than their own
#: neighbours, and three such rows among 3,000 documents mixed six clean
#: topics into one.  The hubs of high-dimensional data are far from it:
#: among the 3 nearest of at most 12% of the rows in the ``hubs`` data set
#: and 9% of 2,000 Gaussian points in 1,000 dimensions, against 100% for the
#: empty rows (docs/experiments.md, 2026-12-07).
HUB_ROWS_WARN_FRACTION = 0.5

#: How near a row must be to count toward :data:`HUB_ROWS_WARN_FRACTION`.
HUB_NEAREST = 3

#: Fewer rows than this are not checked for hubs: in a handful of rows, one
#: may rightly be near most of the others.
HUB_MIN_ROWS = 50


def _warn_hub_rows(indices, distances):
    """Warn when one point is among the nearest others of most rows (see the constants).

    ``indices`` and ``distances``: each row's nearest others, nearest first
    (or, in the first :data:`HUB_NEAREST` columns, in any order).  Rows at
    distance 0 from each other there count as one point: the thirty empty
    rows of a text set share its neighbourhoods between them, and each
    alone may be among the nearest of few rows.
    """
    from scipy.sparse.csgraph import connected_components

    n = indices.shape[0]
    if n < HUB_MIN_ROWS or indices.shape[1] < HUB_NEAREST:
        return
    near = np.asarray(indices[:, :HUB_NEAREST], dtype=np.int64)
    copies = np.asarray(distances[:, :HUB_NEAREST]) == 0
    heads = np.repeat(np.arange(n), HUB_NEAREST)[copies.ravel()]
    graph = sp.csr_matrix((np.ones(len(heads)), (heads, near[copies])), shape=(n, n))
    _, point = connected_components(graph, directed=False)
    # each row counts each point among its nearest once, and not its own
    points = np.sort(point[near], axis=1)
    first_of_point = np.ones(points.shape, dtype=bool)
    first_of_point[:, 1:] = points[:, 1:] != points[:, :-1]
    counted = points[first_of_point & (points != point[:, None])]
    counts = np.bincount(counted, minlength=n)
    hubs = np.flatnonzero(counts >= HUB_ROWS_WARN_FRACTION * n)
    if hubs.size:
        top = hubs[np.argmax(counts[hubs])]
        rows = np.flatnonzero(point == top)
        which = (f"row {rows[0]}" if len(rows) == 1 else
                 f"rows {rows[0]} and {len(rows) - 1:,} other(s) with the same values")
        warn_from_caller(RuntimeWarning(
            f"{hubs.size} point(s) are among the {HUB_NEAREST} nearest others of at least "
            f"half of the {n:,} rows ({which}: among those of {int(counts[top]):,} rows): "
            "a point nearer to every row than the rows are to their own neighbours joins "
            "every neighbourhood and draws the groups of the map into one; an all-zero row "
            "of sparse data whose other rows have length 1, at distance 1 from each, is "
            "one; drop such rows (the empty rows of a CSR X are where "
            "np.diff(X.indptr) == 0)"))


#: Rows of the off-diagonal distances whose nearest others are found at once.
HUB_BLOCK = 256


def _warn_hub_rows_of(D2):
    """:func:`_warn_hub_rows` for the off-diagonal rows ``D2`` (``(n, n - 1)``) of all pairs."""
    n = D2.shape[0]
    if n < HUB_MIN_ROWS:
        return
    k = HUB_NEAREST
    indices = np.empty((n, k), dtype=np.int64)
    distances = np.empty((n, k))
    for start in range(0, n, HUB_BLOCK):
        block = D2[start:start + HUB_BLOCK]
        nearest = np.argpartition(block, k - 1, axis=1)[:, :k]
        distances[start:start + len(block)] = np.take_along_axis(block, nearest, axis=1)
        rows = np.arange(start, start + len(block))[:, None]
        indices[start:start + len(block)] = nearest + (nearest >= rows)  # skip the diagonal
    _warn_hub_rows(indices, distances)


def knn_arrays(knn):
    """The arrays of a precomputed ``knn``, checked for their shapes only.

    The one shape rule of ``knn``, asked before anything counts its rows:
    two 2-D arrays of one shape ``(n_samples, n_neighbors)``, distances of
    real numbers.

    Returns
    -------
    indices, distances : ndarray of shape (n_samples, n_neighbors)
        As given (not converted).

    Raises
    ------
    TypeError
        ``knn`` is not a pair, or its distances are not numbers.
    ValueError
        The arrays are not 2-D or differ in shape; the message names knn.
    """
    indices, distances = check_knn_pair(knn)
    indices = _as_array(indices, "knn indices")
    distances = _as_array(distances, "knn distances")
    if distances.dtype.kind not in "biuf":
        raise TypeError(f"knn distances must be real numbers; got dtype {distances.dtype}")
    if indices.ndim != 2 or indices.shape != distances.shape:
        raise ValueError(
            f"knn indices and distances must both be 2-D arrays of shape (n_samples, "
            f"n_neighbors), one row per point; got shapes {indices.shape} and "
            f"{distances.shape}")
    return indices, distances


def too_few_neighbours(knn, width, k):
    """The message for a precomputed ``knn`` of ``width`` columns when ``k`` are needed.

    A kNN graph (``X`` sparse with ``metric="precomputed"``) is cut to the
    fewest neighbours any of its rows has
    (:func:`smallvis.inputs.precomputed.knn_from_graph`), so the width is
    that of its shortest rows: the message names those rows and their
    counts, which is what the user has to change.
    """
    counts = getattr(knn, "row_counts", None)
    if counts is None or counts.min() == counts.max():  # every row alike
        return f"knn has {width} neighbours per point; {k} are needed"
    short = np.flatnonzero(counts < k)
    short = short[np.argsort(counts[short], kind="stable")]  # the shortest rows first
    listed = ", ".join(f"row {i} has {counts[i]}" for i in short[:5])
    if short.size > 5:
        listed += f", and {short.size - 5} more rows"
    return (f"the kNN graph has fewer than {k} neighbours in {short.size} of its "
            f"{counts.size} rows ({listed}); every row needs at least {k}, since all rows are "
            f"cut to the fewest any row has")


def check_knn(knn, n, k):
    """Validate a precomputed ``knn = (indices, distances)``; its first ``k`` columns.

    Refused (``TypeError`` or ``ValueError`` naming ``knn``): anything but a
    pair of 2-D arrays of shape ``(n, m)`` with ``m >= k``; masked arrays
    (their mask would be ignored); non-integer or out-of-range indices;
    distances that are NaN, infinite or negative; a row that contains the
    point itself or the same neighbour twice (its edge would count twice).

    Rows whose distances are not in non-decreasing order are sorted, each
    whole row by (distance, index), before the first ``k`` columns are
    taken: the result is that of the same neighbours passed in order, as
    :func:`smallvis.inputs.neighbors.nearest_neighbors` returns them.  Rows already
    in order are left exactly as they are.

    Returns
    -------
    indices : ndarray of shape (n, k), int64
    distances : ndarray of shape (n, k), float64
    """
    indices, distances = knn_arrays(knn)
    distances = distances.astype(np.float64)
    if indices.shape[0] != n:
        raise ValueError(
            f"knn indices and distances must both have shape (n_samples={n}, n_neighbors); "
            f"got {indices.shape} and {distances.shape}"
        )
    if indices.shape[1] < k:
        raise ValueError(too_few_neighbours(knn, indices.shape[1], k))
    if indices.dtype.kind not in "iu" or indices.min() < 0 or indices.max() >= n:
        raise ValueError(f"knn indices must be integers in [0, {n - 1}]")
    bad = ~np.isfinite(distances)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(
            f"knn distances must be finite; {int(bad.sum())} are NaN or infinite "
            f"(first in row {row})"
        )
    if distances.min() < 0:
        raise ValueError("knn distances must be finite and non-negative")
    indices = indices.astype(np.int64)
    unsorted = np.flatnonzero(np.any(np.diff(distances, axis=1) < 0, axis=1))
    if unsorted.size:  # sort those rows by (distance, index)
        indices, distances = indices.copy(), distances.copy()
        order = np.lexsort((indices[unsorted], distances[unsorted]), axis=-1)
        indices[unsorted] = np.take_along_axis(indices[unsorted], order, 1)
        distances[unsorted] = np.take_along_axis(distances[unsorted], order, 1)
    indices, distances = indices[:, :k], distances[:, :k]
    if np.any(indices == np.arange(n)[:, None]):
        raise ValueError("knn must not contain the point itself (see nearest_neighbors)")
    ordered = np.sort(indices, axis=1)
    repeated = np.any(ordered[:, 1:] == ordered[:, :-1], axis=1)
    if repeated.any():
        row = int(np.flatnonzero(repeated)[0])
        raise ValueError(
            f"knn lists a neighbour twice in {int(repeated.sum())} row(s) (first: row "
            f"{row}); each of the first {k} neighbours of a point must be distinct"
        )
    return np.ascontiguousarray(indices), np.ascontiguousarray(distances)


def _rows_to_csr(indices, values, n):
    """CSR matrix with row ``i`` holding ``values[i]`` at columns ``indices[i]``."""
    k = indices.shape[1]
    C = sp.csr_matrix((values.ravel(), indices.ravel(),
                       np.arange(0, n * k + 1, k, dtype=np.int64)), shape=(n, n))
    C.sum_duplicates()
    C.eliminate_zeros()
    C.sort_indices()
    return C


def conditional_perplexity_knn(X, perplexity, kernels, *, n_neighbors=None, knn=None,
                               knn_method="auto", random_state=None, n_threads=None,
                               n_trees=None, tol=PERPLEXITY_TOL, max_tries=PERPLEXITY_MAX_TRIES,
                               metric="euclidean"):
    r"""Sparse conditional Gaussian affinities calibrated on a kNN graph.

    The bandwidth search of :func:`conditional_perplexity` (the twin kernel
    ``perplexity_rows``) run over each point's ``k`` nearest neighbours
    instead of all other points; every other :math:`p_{j|i}` is 0.  With
    ``k = n_samples - 1`` the result equals the dense one (to rounding).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated input data.
    perplexity : float
        Target perplexity, ``1 <= perplexity <= k``.
    kernels : module
        The kernel module.
    n_neighbors : int, optional
        ``k``.  Default ``min(floor(3 * perplexity), n_samples - 1)``
        (LargeVis: calibrate over 3 x perplexity neighbours; docs/theory.md §2.1).
    knn : (indices, distances), optional
        Precomputed neighbours (point itself excluded), e.g. from
        :func:`smallvis.inputs.neighbors.nearest_neighbors`; rows out of order are
        sorted, then the first ``k`` columns are used (see
        :func:`check_knn` for what is refused).  Default: computed with
        ``knn_method``.
    knn_method : {"auto", "exact", "annoy"}, default="auto"
    n_trees : int, optional
        Annoy trees (default: :data:`smallvis.inputs.neighbors.ANNOY_DEFAULT_TREES`).
    random_state : None, int or Generator
        Seeds Annoy.
    n_threads : int or None, default=None
        Threads for the neighbour search (see
        :func:`smallvis.inputs.neighbors.nearest_neighbors`) and the calibration.
    tol, max_tries, metric
        As :func:`conditional_perplexity`.

    Returns
    -------
    P : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Rows sum to 1; at most ``k`` non-zeros per row.
    beta : ndarray of shape (n_samples,)
    """
    indices, rows, beta = _calibrated_rows(X, perplexity, kernels, n_neighbors, knn,
                                           knn_method, random_state, n_threads, n_trees,
                                           tol, max_tries, metric)
    return _rows_to_csr(indices, rows, X.shape[0]), beta


def check_perplexity_neighbors(perplexity, n_neighbors, n_samples, knn=None):
    """The neighbours of a kNN perplexity calibration: ``n_neighbors`` checked, or its default.

    Default ``min(floor(3 perplexity), n_samples - 1)``; an integer in
    ``[1, n_samples - 1]`` and at least ``perplexity``.  A precomputed
    ``knn`` narrower than that is refused here, where the message can say
    which perplexity asked for how many neighbours and what to change.
    Computes nothing.
    """
    given = n_neighbors is not None
    if n_neighbors is None:
        n_neighbors = min(int(np.floor(3.0 * perplexity)), n_samples - 1)
    n_neighbors = check_integer(n_neighbors, "n_neighbors", 1, n_samples - 1)
    if perplexity > n_neighbors:
        raise ParameterError(
            f"perplexity must be at most n_neighbors = {n_neighbors}; got {perplexity:g} "
            f"(yours, or the method's default): pass perplexity at most {n_neighbors}, "
            f"or n_neighbors at least {int(np.ceil(perplexity))}",
            ("perplexity", "n_neighbors"))
    width = None if knn is None else _knn_width(knn)
    if width is not None and width < n_neighbors:
        needed = too_few_neighbours(knn, width, n_neighbors)
        graph = f"a kNN graph with at least {n_neighbors} neighbours per point"
        if given:
            raise ValueError(f"{needed} (n_neighbors = {n_neighbors}); pass n_neighbors at "
                             f"most {width} (and perplexity at most n_neighbors), or give "
                             f"{graph}")
        raise ValueError(
            f"{needed}: perplexity = {perplexity:g} (yours, or the method's default; a "
            f"default too large for {n_samples} samples is lowered, with a "
            f"SmallDataWarning) is calibrated over min(floor(3 x perplexity), n_samples - 1) = {n_neighbors} "
            f"neighbours; give {graph}, or a lower perplexity (at most {width / 3.0:.4g} = "
            f"{width} / 3), or n_neighbors={width} with perplexity at most {width}")
    return n_neighbors


def _knn_width(knn):
    """The number of columns of a precomputed ``knn``'s indices; None if they are not 2-D."""
    try:
        shape = np.shape(check_knn_pair(knn)[0])
    except ValueError:  # ragged rows: check_knn names them
        return None
    return shape[1] if len(shape) == 2 else None


def _calibrated_rows(X, perplexity, kernels, n_neighbors, knn, knn_method, random_state,
                     n_threads, n_trees, tol=PERPLEXITY_TOL, max_tries=PERPLEXITY_MAX_TRIES,
                     metric="euclidean"):
    """Neighbours (n, k) and their calibrated ``p_{j|i}`` (n, k), and beta.

    Memory: the distances are squared in place and freed once calibrated,
    so at the peak the neighbour indices and two (n, k) float64 arrays exist.
    """
    n = X.shape[0]
    n_neighbors = check_perplexity_neighbors(perplexity, n_neighbors, n, knn)
    n_threads = check_threads(n_threads)
    indices, distances = _knn(X, n_neighbors, knn, knn_method, random_state, n_threads,
                              n_trees, kernels, metric)
    e = power_of_two_exponent(distances)  # P is scale-free; beta is scaled back
    # D2 = (distances / 2**e)**2, in place when the array is ours
    # (a copy of the user's knn=; copy=None, numpy 2's "copy if needed", is
    # asarray, which numpy 1.26 also has)
    D2 = (np.array(distances, dtype=np.float64, order="C") if knn is not None
          else np.asarray(distances, dtype=np.float64, order="C"))
    del distances
    if e:
        np.ldexp(D2, -e, out=D2)
    np.square(D2, out=D2)
    rows = np.zeros_like(D2)
    beta = np.zeros(n)
    with _progress.stage("calibration", f"perplexity {perplexity:g} over "
                                        f"{n_neighbors} neighbours"):
        n_failed = _perplexity_rows(kernels, D2, perplexity, tol, max_tries, rows, beta,
                                    n_threads)
    del D2
    with np.errstate(over="ignore", under="ignore"):  # beta may leave the range
        beta = np.ldexp(beta, -2 * e) if e else beta
    _warn_failed_rows(n_failed, n, perplexity, stacklevel=5)
    return indices, rows, beta


def joint_perplexity_knn(X, perplexity, kernels, **knn_params):
    """Sparse symmetric, matrix-normalised perplexity affinities on a kNN graph.

    ``(P + P^T) / 2`` of :func:`conditional_perplexity_knn`, divided by its
    sum.  Keywords are passed on to :func:`conditional_perplexity_knn`.
    The union is built by the twin kernels ``knn_union_count`` and
    ``knn_union_fill`` straight from the (n, k) neighbour and probability
    arrays, with int32 column indices where the size allows: no
    intermediate sparse matrix, transpose or sum of matrices.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, sums to 1.
    """
    params = {"n_neighbors": None, "knn": None, "knn_method": "auto", "random_state": None,
              "n_threads": None, "n_trees": None, "metric": "euclidean"}
    unknown = set(knn_params) - set(params)
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    params.update(knn_params)
    params["n_threads"] = check_threads(params["n_threads"])  # symmetric_union's too
    indices, rows, _ = _calibrated_rows(X, perplexity, kernels, **params)
    with _progress.stage("calibration", "symmetrising"):
        J = symmetric_union(indices, rows, kernels, params["n_threads"], consume_values=True)
        del indices, rows
        # times the reciprocal, as SciPy divides a sparse matrix by a scalar
        # (normalize): the same bits as the SciPy construction
        np.multiply(J.data, 1.0 / J.sum(), out=J.data)
    return J


#: Rows of the union that :func:`symmetric_union` writes between two
#: releases of the consumed input: the output of one block (about 5 MB
#: at 230 entries per row) is what the peak holds beyond the larger of
#: input and output.
UNION_MERGE_ROWS = 1 << 13


def _row_pointers(counts):
    """CSR row pointers (int64) of rows with ``counts`` entries: 0, then their running sum."""
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr


def symmetric_union(indices, values, kernels, n_threads=None, *, consume_values=False):
    """CSR matrix ``(A + A^T) / 2`` of ``A[i, indices[i, r]] = values[i, r]``.

    Entries of weight 0 are dropped; columns are sorted in each row.  Uses
    the twin kernels ``knn_union_count`` / ``knn_union_fill`` (int32
    indices; graphs with ``n k >= 2**31`` entries fall back to SciPy).

    With ``consume_values`` (``values`` a float64 array the caller gives
    up: it is overwritten), the union is built in three steps whose last
    reads each row's own arrays only (the twin kernels
    ``knn_reverse_lists``, ``knn_union_reverse_count``,
    ``knn_union_reverse_fill``, ``knn_union_forward``, ``knn_union_merge``),
    and the pages of ``values`` already merged are released while the
    output is written: the peak holds about the output and the indices,
    where the one-step build holds the inputs, their reverse lists and the
    output at once.  The result has the same bits.
    """
    n, k = indices.shape
    n_threads = check_threads(n_threads)
    if n * k >= 2**31 or n >= 2**31:
        values = np.ascontiguousarray(values, dtype=np.float64)
        A = sp.csr_matrix((values.ravel(), indices.ravel().astype(np.int64),
                           np.arange(0, n * k + 1, k, dtype=np.int64)), shape=(n, n))
        A.eliminate_zeros()
        S = symmetrize(A).tocsr()
        S.sort_indices()
        return S
    consume_values = (consume_values and isinstance(values, np.ndarray)
                      and values.dtype == np.float64 and values.flags.c_contiguous
                      and values.flags.writeable)
    values = np.ascontiguousarray(values, dtype=np.float64)
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    if not consume_values:
        counts = np.empty(n, dtype=np.int64)
        kernels.knn_union_count(indices, values, counts, n_threads)
        indptr = _row_pointers(counts)
        del counts
        nnz = int(indptr[-1])
        out_indices = np.empty(nnz, dtype=np.int32)
        out_data = np.empty(nnz)
        kernels.knn_union_fill(indices, values, indptr, out_indices, out_data, n_threads)
    else:
        rptr = np.empty(n + 1, dtype=np.int64)
        rsrc = np.empty(max(1, n * k), dtype=np.int32)
        kernels.knn_reverse_lists(indices, values, rptr, rsrc)
        # entries only the transpose stores, then each row's whole count
        counts = np.empty(n, dtype=np.int64)
        kernels.knn_union_reverse_count(indices, values, rptr, rsrc, counts, n_threads)
        rev_indptr = _row_pointers(counts)
        np.add(counts, np.count_nonzero(values > 0.0, axis=1), out=counts)
        indptr = _row_pointers(counts)
        del counts
        nnz = int(indptr[-1])
        rev_indices = np.empty(int(rev_indptr[-1]), dtype=np.int32)
        rev_data = np.empty(int(rev_indptr[-1]))
        kernels.knn_union_reverse_fill(indices, values, rptr, rsrc, rev_indptr, rev_indices,
                                       rev_data, n_threads)
        kernels.knn_union_forward(indices, values, rptr, rsrc, n_threads)
        del rptr, rsrc
        out_indices = np.empty(nnz, dtype=np.int32)
        out_data = np.empty(nnz)
        for start in range(0, n, UNION_MERGE_ROWS):
            stop = min(n, start + UNION_MERGE_ROWS)
            kernels.knn_union_merge(indices, values, rev_indptr, rev_indices, rev_data,
                                    indptr, out_indices, out_data, n_threads, start, stop)
            release_pages(values, stop * k * values.itemsize)
            release_pages(rev_indices, int(rev_indptr[stop]) * rev_indices.itemsize)
            release_pages(rev_data, int(rev_indptr[stop]) * rev_data.itemsize)
        del rev_indices, rev_data
    if nnz < 2**31:
        indptr = indptr.astype(np.int32)
    S = sp.csr_matrix((out_data, out_indices, indptr), shape=(n, n), copy=False)
    S.has_sorted_indices = True
    S.has_canonical_format = True
    return S


def smooth_knn_distances(distances, kernels, *, local_connectivity=1.0, bandwidth=1.0):
    r"""UMAP's :math:`\sigma_i` and :math:`\rho_i` from self-excluded kNN distances.

    ``distances`` has the ``k - 1`` nearest *other* points of each row
    (as :func:`smallvis.inputs.neighbors.nearest_neighbors` returns them); the
    point itself is put back as a zero column 0, so ``k`` counts the point
    as umap-learn's ``n_neighbors`` does, the target is
    :math:`\log_2(k) \cdot \mathrm{bandwidth}`, and the floor
    ``1e-3 * mean`` averages over all ``k`` columns including the zero (see
    the twin kernel ``smooth_knn_rows``).

    Returns
    -------
    sigma, rho : ndarray of shape (n_samples,)
    n_failed : int
        Rows whose sum missed the target by more than 1e-5.
    """
    _, sigma, rho, e, n_failed = _smooth_knn_unit(
        distances, kernels, local_connectivity=local_connectivity, bandwidth=bandwidth)
    if e:
        sigma, rho = np.ldexp(sigma, e), np.ldexp(rho, e)
    return sigma, rho, n_failed


def _smooth_knn_unit(distances, kernels, *, local_connectivity, bandwidth):
    """:func:`smooth_knn_distances` in units of ``2**e``, the ``e`` of ``distances``.

    The search starts at sigma = 1 and doubles at most 64 times, so it is run
    on ``unit = distances / 2**e`` (exact); the memberships
    ``exp(-(d - rho) / sigma)`` are the same in either unit, and computed in
    this one they cannot meet a sigma that underflowed to 0 (data of
    subnormal size).  Returns ``unit, sigma, rho, e, n_failed``.
    """
    n, m = distances.shape
    e = power_of_two_exponent(distances)
    with_self = np.zeros((n, m + 1))
    with_self[:, 1:] = np.ldexp(distances, -e) if e else distances
    sigma = np.zeros(n)
    rho = np.zeros(n)
    target = np.log2(m + 1) * bandwidth
    with _progress.stage("calibration", f"UMAP bandwidths over {m + 1} neighbours"):
        n_failed = _smooth_knn_rows(kernels, with_self, target, local_connectivity, sigma,
                                    rho)
    return with_self[:, 1:], sigma, rho, e, n_failed


def _smooth_knn_rows(kernels, distances, target, local_connectivity, sigma, rho):
    """The twin kernel ``smooth_knn_rows``, in chunks of rows when reporting progress.

    Each row is calibrated on its own (the floor's mean is over the whole
    array in every call), so sigma and rho are the same bits as from one
    call, which is what runs when not reporting.  Returns the number of
    failed rows.
    """
    progress = _progress.counter("calibration", "rows", distances.shape[0])
    n_failed = 0
    for start, stop in progress.spans(first=4096):  # one span when not reporting
        n_failed += kernels.smooth_knn_rows(distances, float(target), float(local_connectivity),
                                            SMOOTH_K_TOL, SMOOTH_K_N_ITER, MIN_K_DIST_SCALE,
                                            sigma, rho, start, stop)
    return n_failed


def check_fuzzy_graph_params(n_samples, n_neighbors, local_connectivity=1.0, bandwidth=1.0,
                            set_op_mix_ratio=1.0):
    """The parameters of :func:`fuzzy_graph` for ``n_samples`` points, checked.

    Returns ``(n_neighbors, local_connectivity, bandwidth, set_op_mix_ratio)``
    or raises naming the parameter; computes nothing.
    """
    return (check_integer(n_neighbors, "n_neighbors", 2, n_samples),
            check_number(local_connectivity, "local_connectivity", low=0),
            check_number(bandwidth, "bandwidth", low=0, low_open=True),
            check_number(set_op_mix_ratio, "set_op_mix_ratio", low=0, high=1))


#: :func:`fuzzy_memberships` warns when at least this share of the rows has
#: a neighbour at distance 0 (a copy, for most metrics): a few copies are
#: harmless, but with every row three times over the copies come loose
#: from their classes (docs/experiments.md, 2026-12-07).
DUPLICATE_ROWS_WARN_FRACTION = 0.1


def _warn_duplicate_rows(distances, n_neighbors):
    """Warn when many rows have a neighbour at distance 0 (see the constant)."""
    n = distances.shape[0]
    n_dup = int(np.count_nonzero(distances[:, 0] == 0.0)) if distances.shape[1] else 0
    if n and n_dup >= DUPLICATE_ROWS_WARN_FRACTION * n:
        warn_from_caller(RuntimeWarning(
            f"{n_dup} of {n} rows have a neighbour at distance 0 among their "
            f"{n_neighbors - 1} nearest others (an identical row, or one the metric does not "
            "tell apart): the fuzzy memberships give such rows weight 1 to each other and "
            "little to their other neighbours, so groups of them come loose and classes can "
            "spread into scattered clumps; map each distinct row once (for dense X, "
            "np.unique(X, axis=0, return_inverse=True)) and give its copies its place"))


def fuzzy_memberships(X, n_neighbors, kernels, *, local_connectivity=1.0, bandwidth=1.0,
                      knn=None, knn_method="auto", random_state=None, n_threads=None,
                      n_trees=None, metric="euclidean"):
    r"""Directed UMAP membership strengths :math:`v_{j|i}` (before the union).

    .. math::

        v_{j|i} = \exp\!\left(-\frac{\max(0, d_{ij} - \rho_i)}{\sigma_i}\right)

    for the ``n_neighbors - 1`` nearest other points ``j`` of ``i`` (UMAP's
    ``n_neighbors`` counts the point itself); 0 elsewhere and on the
    diagonal.  Parameters as :func:`fuzzy_graph`.

    Returns
    -------
    V : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    sigma, rho : ndarray of shape (n_samples,)
    """
    n = X.shape[0]
    n_neighbors, local_connectivity, bandwidth, _ = check_fuzzy_graph_params(
        n, n_neighbors, local_connectivity, bandwidth)
    indices, distances = _knn(X, n_neighbors - 1, knn, knn_method, random_state, n_threads,
                              n_trees, kernels, metric)
    _warn_duplicate_rows(distances, n_neighbors)
    unit, sigma, rho, e, _ = _smooth_knn_unit(distances, kernels,
                                              local_connectivity=local_connectivity,
                                              bandwidth=bandwidth)
    # rows that miss the target (e.g. all neighbours at distance <= rho) are
    # kept as umap-learn keeps them, silently: their sigma is the last
    # bisection value, floored.
    vals = np.exp(-np.maximum(unit - rho[:, None], 0.0) / sigma[:, None])
    with np.errstate(over="ignore", under="ignore"):  # as conditional_perplexity's beta
        sigma, rho = (np.ldexp(sigma, e), np.ldexp(rho, e)) if e else (sigma, rho)
    return _rows_to_csr(indices, vals, n), sigma, rho


def fuzzy_graph(X, n_neighbors, kernels, *, local_connectivity=1.0, bandwidth=1.0,
               set_op_mix_ratio=1.0, knn=None, knn_method="auto", random_state=None,
               n_threads=None, n_trees=None, metric="euclidean"):
    r"""UMAP's fuzzy simplicial set: the symmetric input graph ``V``.

    Following umap-learn (docs/theory.md §2.2): memberships :math:`v_{j|i}` from
    :func:`fuzzy_memberships`, then the fuzzy union mixed with the
    intersection,

    .. math::

        V = \mu \,(A + A^\top - A \circ A^\top) + (1 - \mu)\, A \circ A^\top,
        \qquad A_{ij} = v_{j|i},\ \mu = \texttt{set\_op\_mix\_ratio}.

    ``V`` is **not** normalised; entries lie in (0, 1].

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated input data.
    n_neighbors : int
        UMAP's neighbourhood size, **counting the point itself** (so
        ``n_neighbors - 1`` other points), ``2 <= n_neighbors <= n_samples``.
    kernels : module
        The kernel module (runs ``smooth_knn_rows``).
    local_connectivity : float, default=1.0
        Number of nearest neighbours treated as fully connected (fractional
        values interpolate), ``>= 0``.
    bandwidth : float, default=1.0
        Multiplies the target ``log2(n_neighbors)``; ``> 0``.
    set_op_mix_ratio : float, default=1.0
        1: pure fuzzy union; 0: pure fuzzy intersection.
    knn : (indices, distances), optional
        Precomputed self-excluded neighbours with at least
        ``n_neighbors - 1`` columns (checked and sorted by :func:`check_knn`).
    knn_method, random_state, n_threads, n_trees, metric
        Passed to :func:`smallvis.inputs.neighbors.nearest_neighbors`; the
        memberships use the metric's distances themselves, as umap-learn.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, zero diagonal, sorted indices, no explicit zeros.
    """
    mix = check_fuzzy_graph_params(X.shape[0], n_neighbors, local_connectivity, bandwidth,
                                  set_op_mix_ratio)[3]
    A, _, _ = fuzzy_memberships(X, n_neighbors, kernels, local_connectivity=local_connectivity,
                                bandwidth=bandwidth, knn=knn, knn_method=knn_method,
                                random_state=random_state, n_threads=n_threads,
                                n_trees=n_trees, metric=metric)
    At = A.T.tocsr()
    prod = A.multiply(At)
    V = (mix * (A + At - prod) + (1.0 - mix) * prod).tocsr()
    V.eliminate_zeros()
    V.sort_indices()
    return V


def check_knn_graph_neighbors(n_neighbors, n_samples):
    """:func:`symmetric_knn_graph`'s ``n_neighbors``: an integer in ``[1, n_samples - 1]``."""
    return check_integer(n_neighbors, "n_neighbors", 1, n_samples - 1)


def symmetric_knn_graph(X, n_neighbors=15, *, knn=None, knn_method="auto", random_state=None,
                n_threads=None, n_trees=None, kernels=None, metric="euclidean"):
    r"""NCVis input affinities: the union-symmetrised kNN graph, normalised.

    .. math::

        v_{ij} = a_{ij} \lor a_{ji}, \qquad p_{ij} = v_{ij} / \textstyle\sum_{kl} v_{kl},

    where :math:`a_{ij} = 1` when ``j`` is among the ``n_neighbors`` nearest
    other points of ``i`` (the union of the kNN graphs, sometimes called
    "mutual" although it is defined with OR; docs/theory.md §2.3).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated input data.
    n_neighbors : int, default=15
        Neighbours per point, the point itself not counted,
        ``1 <= n_neighbors < n_samples``.
    knn, knn_method, random_state, n_threads, n_trees, metric
        As :func:`fuzzy_graph`.
    kernels : module, optional
        The kernel module for the neighbour search's refinement (default:
        the NumPy reference).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, sums to 1, every non-zero equal to ``1 / nnz``.
    """
    n = X.shape[0]
    n_neighbors = check_knn_graph_neighbors(n_neighbors, n)
    indices, _ = _knn(X, n_neighbors, knn, knn_method, random_state, n_threads, n_trees,
                      kernels, metric)
    A = _rows_to_csr(indices, np.ones(indices.shape), n)
    V = ((A + A.T) > 0).astype(np.float64).tocsr()
    V.sort_indices()
    return normalize(V).tocsr()


def fit_curve_ab(spread=1.0, min_dist=0.1):
    r"""UMAP's output-kernel parameters ``a`` and ``b`` for ``spread`` and ``min_dist``.

    Least-squares fit (:func:`scipy.optimize.curve_fit`, start ``a = b = 1``)
    of :math:`1 / (1 + a x^{2b})` to the curve that is 1 for
    :math:`x < \texttt{min\_dist}` and
    :math:`\exp(-(x - \texttt{min\_dist}) / \texttt{spread})` beyond, on
    300 evenly spaced points of :math:`[0, 3\,\texttt{spread}]` (docs/theory.md §2.4, as
    umap-learn).  ``(1, 0.1)`` gives about (1.577, 0.895), ``(1, 0.001)``
    (the R smallvis default) about (1.929, 0.7915).

    The fit is run in units of ``spread`` (``t = x / spread``, the same
    least-squares problem), where the start ``a = b = 1`` is always near the
    answer, and ``a`` is converted back as ``a' / spread**(2b)``: fitted in
    ``x`` directly, a spread far from 1 (0.01, 100) gave a negative ``b``.
    ``b`` depends only on ``min_dist / spread`` and lies between about 0.79
    and 1.93.

    Parameters
    ----------
    spread : float, default=1.0
        ``> 0``.
    min_dist : float, default=0.1
        ``0 <= min_dist <= spread``.

    Returns
    -------
    a, b : float
    """
    from scipy.optimize import curve_fit

    spread = check_number(spread, "spread", low=0, low_open=True)
    min_dist = check_number(min_dist, "min_dist", low=0)
    if min_dist > spread:
        raise ValueError(f"min_dist must be at most spread = {spread}; got {min_dist}")

    def curve(t, a, b):
        return 1.0 / (1.0 + a * t ** (2.0 * b))

    m = min_dist / spread
    t = np.linspace(0.0, 3.0, 300)
    y = np.where(t < m, 1.0, np.exp(-(t - m)))
    (a_unit, b), _ = curve_fit(curve, t, y, p0=(1.0, 1.0))
    with np.errstate(over="ignore", under="ignore"):
        a = a_unit / spread ** (2.0 * b)
    if not (np.isfinite(a) and np.isfinite(b) and a > 0 and b > 0):
        raise ValueError(
            f"UMAP's a = {a:g} for spread = {spread:g} is not a positive float64 "
            f"(b = {b:g}); use a spread nearer 1, or pass a and b directly"
        )
    return float(a), float(b)
