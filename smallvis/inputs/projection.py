r"""Linear projections of the input: PCA of dense X, truncated SVD of sparse X.

:func:`fit_projection` finds the top ``r`` right singular vectors of ``X``
(by default centred on the column means for dense ``X``: its principal
axes; not centred for sparse ``X``, which centring would fill in) by
randomised subspace iteration (Halko, Martinsson and Tropp 2011, §4.5)
with a Rayleigh-Ritz step at the end, through NumPy and SciPy only:

.. math::

    V_0 = \Omega,\quad
    V_t = \operatorname{orth}\big(X^\top X\, V_{t-1}\big)\ (t = 1, \dots, q + 1),\quad
    (X V_{q+1})^\top (X V_{q+1}) = W \Lambda W^\top,\quad
    \text{components} = (V_{q+1} W)_{:, :r}^\top,

with :math:`\Omega` a Gaussian ``(d, r + p)`` matrix drawn from the seed,
``p = 10`` extra columns, ``q = 4`` iterations and the eigenvalues
:math:`\Lambda` in decreasing order.  The subspace is that of Halko et
al.'s range finder with ``q`` power iterations; every orthonormalisation
is of a ``(d, r + p)`` matrix, so none costs a pass over the ``n`` rows,
and among the directions of :math:`V_{q+1}` the Rayleigh-Ritz step picks
those that keep the most variance.  The signs are fixed (the largest
loading of each component is positive), so a seed gives the same
projection in every process.
:class:`Projection` applies it to new points: ``transform`` projects them
as the training data were projected.

A column of sparse ``X`` without a stored entry adds nothing to any
product with ``X``, and its loading in every component is zero.  The range
finder of sparse ``X`` therefore works on the columns that hold entries
only (:func:`occurring_columns`), and :math:`\Omega` has a row for each of
those alone: its memory follows the stored entries and the rows, not the
number of columns (a hashing vectoriser's ``2**24``), and empty columns,
however many, do not change the result.  :func:`fitted_scores` gives the
scores of the training rows without ever forming the ``(r, d)`` components.
"""

from typing import NamedTuple, Optional

import numpy as np
import scipy.sparse as sp

from .. import _progress, _threads
from .._numeric import SAFE_EXPONENT, in_units, power_of_two_exponent

#: Extra random directions and power iterations of the subspace iteration.
OVERSAMPLES = 10
POWER_ITERATIONS = 4


class Projection(NamedTuple):
    """A fitted projection: ``(X - mean) @ components.T`` (``mean`` None: not centred).

    A projection of dense data that is not centred has a zero ``mean``
    (the rows are projected as they are); ``mean`` None marks one fitted
    on sparse data, which new points may then be too.
    """

    #: (r, d) orthonormal rows.
    components: np.ndarray
    #: (d,) column means of the training data (zeros: dense, not centred),
    #: or None (sparse: not centred).
    mean: Optional[np.ndarray]

    def apply(self, X, n_threads=1):
        """The ``(n, r)`` scores of the rows of ``X`` (dense or sparse), float64, C order.

        Dense rows are centred and projected a block at a time on up to
        ``n_threads`` threads (:func:`row_products`): the same bits on any
        number.
        """
        if not sp.issparse(X):
            return row_products(X, self.components.T, n_threads, centre=self.mean)
        scores = X @ self.components.T
        if self.mean is not None:
            scores -= self.mean @ self.components.T
        return np.ascontiguousarray(scores, dtype=np.float64)


def occurring_columns(X, at_least=0):
    """Sparse ``X`` on the columns that hold a stored entry: ``(X_kept, columns)``.

    Found from the stored entries alone (no array of ``n_features``).

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n_samples, n_features)
    at_least : int, default=0
        Fewest columns kept: if fewer hold entries, the first empty columns
        are added (``r`` orthonormal directions need ``r`` columns to lie
        in).

    Returns
    -------
    X_kept : scipy.sparse.csr_array of shape (n_samples, len(columns))
        The same rows with the other columns left out (the stored entries
        in the same order).
    columns : ndarray of int64, sorted, or None
        The columns kept; None when they are all the columns of ``X``
        (``X_kept`` is then ``X`` as CSR).
    """
    X = sp.csr_array(X)
    n_features = X.shape[1]
    columns = np.unique(X.indices).astype(np.int64)
    missing = min(int(at_least), n_features) - len(columns)
    if missing > 0:
        candidates = np.arange(min(n_features, len(columns) + int(at_least)), dtype=np.int64)
        columns = np.union1d(columns, np.setdiff1d(candidates, columns)[:missing])
    if len(columns) == n_features:
        return X, None
    kept = sp.csr_array((X.data, np.searchsorted(columns, X.indices), X.indptr),
                        shape=(X.shape[0], len(columns)))
    return kept, columns


#: Rows of ``X`` in a block of :func:`row_products`.
PRODUCT_ROWS = 2048

#: Fewest columns of ``X`` in a block of :func:`column_products`, and most
#: blocks: every block reads the whole of ``M``, so more blocks read more.
PRODUCT_COLUMNS = 128
COLUMN_BLOCKS = 4


def row_products(X, M, n_threads=1, centre=None, offset=None):
    r"""``(X - centre) @ M - offset`` of dense ``X``, float64, a block of rows at a time.

    .. math::

        S_{i:} = (x_i - c)\, M - o

    (``centre`` :math:`c` and ``offset`` :math:`o` are rows; None: none).
    The product is taken in NumPy's type of the (centred) rows and ``M``
    (float32 rows and a float32 ``M``: float32) and each entry is widened
    to float64 before ``offset`` is subtracted.  Each block of
    :data:`PRODUCT_ROWS` rows is one BLAS call with the BLAS held to one
    thread, and the blocks share up to ``n_threads`` threads, each writing
    its own rows of one new array.  A row's result depends on that row
    alone, so the product has the same bits on any number of threads and
    whatever the BLAS's own thread count: a product that the BLAS splits
    over its threads may sum in another order (OpenBLAS does), and a
    search in those scores can then find other neighbours.
    """
    n = X.shape[0]
    out = np.empty((n, M.shape[1]), dtype=np.float64)

    def block(start):
        rows = slice(start, start + PRODUCT_ROWS)
        part = X[rows] if centre is None else X[rows] - centre
        product = part @ M
        if offset is None:
            np.copyto(out[rows], product)
        else:
            np.subtract(product, offset, out=out[rows], dtype=np.float64)

    _threads.each_blas_block(block, range(0, n, PRODUCT_ROWS), n_threads)
    return out


def column_products(X, M, n_threads=1):
    r"""``X.T @ M`` of dense ``X``, float64, a block of columns of ``X`` at a time.

    The product is taken in NumPy's type of ``X`` and ``M`` and widened to
    float64.  The columns are cut into at most
    :data:`COLUMN_BLOCKS` blocks of at least :data:`PRODUCT_COLUMNS`,
    fixed by the number of columns alone; each block is one BLAS call with
    the BLAS held to one thread, summing over every row, and the blocks
    share up to ``n_threads`` threads.  So, as for :func:`row_products`,
    the product has the same bits on any number of threads.
    """
    d = X.shape[1]
    width = max(PRODUCT_COLUMNS, -(-d // COLUMN_BLOCKS))
    out = np.empty((d, M.shape[1]), dtype=np.float64)

    def block(start):
        columns = slice(start, start + width)
        np.copyto(out[columns], X[:, columns].T @ M)

    _threads.each_blas_block(block, range(0, d, width), n_threads)
    return out


def _fit(X, n_components, seed, centre, power_iterations, stage, n_threads=1):
    """``(projection, X_kept, columns, e)``: the projection of ``X_kept``, in units of ``2**e``.

    ``X_kept`` is ``X / 2**e`` (sparse ``X`` on ``columns``; for dense
    ``X``, and when ``columns`` is None, it holds every column of ``X``, see
    :func:`occurring_columns`), and the projection's ``mean`` is in its
    units.  Sparse ``X`` is always measured in the units of its largest
    entry (a copy of the stored entries only), so that the same data at
    any power-of-two scale give the same bits and no product over- or
    underflows; dense ``X`` only outside :data:`SAFE_EXPONENT`, to spare a
    copy of ordinary data.
    """
    centre = not sp.issparse(X) if centre is None else bool(centre)
    r = int(n_components)
    columns = None
    e = power_of_two_exponent(X)
    if sp.issparse(X):
        X, columns = occurring_columns(X, r)
        X = in_units(X, e)
    elif abs(e) > SAFE_EXPONENT:
        X = in_units(X, e)
    else:
        e = 0
    mean = np.asarray(X.mean(axis=0, dtype=np.float64)).ravel() if centre else None
    n, d = X.shape
    width = min(r + OVERSAMPLES, n, d)
    rng = np.random.default_rng(seed)
    omega = rng.standard_normal((d, width))
    # the products in X's own type (float32 data: float32 products, see
    # projected_search.projection_rows), everything else in float64
    dtype = X.dtype if X.dtype == np.float32 else np.float64

    def times(M):  # (X - mean) @ M
        offset = mean @ M if mean is not None else None
        if not sp.issparse(X):
            return row_products(X, M.astype(dtype, copy=False), n_threads, offset=offset)
        out = np.asarray(X @ M.astype(dtype, copy=False), dtype=np.float64)
        return out if offset is None else out - offset

    def times_t(M):  # (X - mean).T @ M
        Md = M.astype(dtype, copy=False)
        out = np.asarray(X.T @ Md, dtype=np.float64) if sp.issparse(X) else \
            column_products(X, Md, n_threads)
        return out - np.outer(mean, M.sum(axis=0)) if mean is not None else out

    # 2 (q + 1) products in the iteration, one in the Rayleigh-Ritz step;
    # the large ones on the call's threads in blocks (row_products), the
    # small ones on one BLAS thread, where more threads would only wait and
    # would sum in another order
    progress = _progress.counter(stage, "subspace iteration products", 2 * power_iterations + 3)
    V = omega
    with _threads.blas_threads(1):
        for _ in range(power_iterations + 1):
            XV = times(V)
            progress.advance(1)
            Z = times_t(XV)
            V, _ = np.linalg.qr(Z)
            progress.advance(1)
        XV = times(V)
        progress.advance(1)
        _, W = np.linalg.eigh(XV.T @ XV)  # increasing eigenvalues
        components = (V @ W[:, ::-1][:, :r]).T
    flip = np.sign(components[np.arange(len(components)),
                              np.argmax(np.abs(components), axis=1)])
    components = np.ascontiguousarray(components * flip[:, None])
    if mean is None and not sp.issparse(X):
        mean = np.zeros(d)  # dense, not centred: new points are dense too
    return Projection(components, mean), X, columns, e


def fit_projection(X, n_components, seed, centre=None, power_iterations=POWER_ITERATIONS,
                   stage="projection", n_threads=1):
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
        Without centring, the projection keeps the rows' angles: with
        ``r = n_features`` it is a rotation of the rows, and their cosine
        distances are unchanged, which those of centred rows are not.
    power_iterations : int, default=POWER_ITERATIONS
        ``q``: more make the axes more precise, each costs two products
        with ``X``.
    stage : str, default="projection"
        The stage its progress lines name (with reporting on, a line when
        one is due after each of the ``2 q + 3`` products with ``X``).
    n_threads : int, default=1
        Threads the products with dense ``X`` share (:func:`row_products`,
        :func:`column_products`); the projection has the same bits on any
        number, and whatever the BLAS's own thread count.

    Returns
    -------
    Projection
        Its ``components`` have a column for every feature (zero for those
        sparse ``X`` never stores): ``r x n_features`` numbers, what
        ``transform`` applies to new points.  For the training rows' scores
        alone, :func:`fitted_scores` needs none of them.
    """
    projection, _, columns, e = _fit(X, n_components, seed, centre, power_iterations, stage,
                                     n_threads)
    mean = None if projection.mean is None else np.ldexp(projection.mean, e)
    if columns is None:
        return Projection(projection.components, mean)
    components = np.zeros((projection.components.shape[0], X.shape[1]))
    components[:, columns] = projection.components
    if mean is not None:
        full = np.zeros(X.shape[1])
        full[columns] = mean
        mean = full
    return Projection(components, mean)


def fitted_scores(X, n_components, seed, centre=None, power_iterations=POWER_ITERATIONS,
                  stage="projection"):
    """The scores of the rows of ``X`` on their own :func:`fit_projection`, float64, C order.

    Equal to ``fit_projection(X, ...).apply(X)`` (the same products, in
    the same order), but for sparse ``X`` the components are kept on the
    columns that hold entries only: memory follows the stored entries and
    the rows, never the number of columns.
    """
    projection, X_kept, _, e = _fit(X, n_components, seed, centre, power_iterations, stage)
    return np.ldexp(projection.apply(X_kept), e)
