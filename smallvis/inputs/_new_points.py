r"""Where new points sit relative to a training set: units, far points, keys.

The geometry :class:`smallvis.inputs.neighbors.KNNIndex` needs to search the
nearest training points of points it was not built on, however large,
small or distant they are.  Pure NumPy on powers of two; no search here.

New points are measured in the fit's units (:func:`distance_units`), so a
point far outside the training range neither overflows nor underflows; a
point farther than ``2**FAR_EXPONENT`` times the training data's extent
from their centre, whose float64 distances would tie, is ranked by the
projection form of the distance (:func:`far_keys`): its neighbours are the
training points extreme in its direction, as in exact arithmetic.
"""

import numpy as np
import scipy.sparse as sp

# new points' distances are measured in the data's own units within
# SAFE_EXPONENT, otherwise in units of a power of two (distance_units)
from .._numeric import SAFE_EXPONENT, in_units, power_of_two_exponent, row_exponents


#: An Annoy query lies at most ``2**MAX_QUERY_EXPONENT`` times the extent of
#: the training data from their centre (see :func:`forest_queries`).
MAX_QUERY_EXPONENT = 20

#: A new point farther than ``2**FAR_EXPONENT`` times the extent of the
#: training data from their centre is "far": float64 distances would tie
#: there, so its neighbours are ranked by the projection form of the
#: distance instead (see :func:`far_keys`).
FAR_EXPONENT = 26

# Entries of training data per block of far_keys.
_BLOCK_ELEMENTS = 4_000_000


def _centred_blocks(X, centre):
    """``(start, X[start:stop] - centre)`` in blocks of rows, dense (``X`` may be sparse).

    A sparse ``X`` minus its centre is dense: made a block at a time, so
    that no ``N x D`` array is held.
    """
    block = max(1, _BLOCK_ELEMENTS // (8 * max(X.shape[1], 1)))
    for start in range(0, X.shape[0], block):
        part = X[start:start + block]
        yield start, (part.toarray() if sp.issparse(part) else part) - centre


def distance_units(fit_exponent, X_new):
    """Per new point, the power of two its distances are measured in (0: the data's units).

    The fit searched ``X / 2**e`` (``e = fit_exponent``, of the training
    data) so that no squared distance overflows or underflows; a new point
    is measured in units of ``2**max(e, e_s)`` (``e_s`` of the point
    itself), so a point far outside the training range does not overflow
    either.  Dividing by a power of two is exact, so it is skipped (0) when
    every square stays far inside float64's range (``|exponent| <=
    SAFE_EXPONENT``): either way the distances are the same up to that
    power of two, bit for bit.  Each point's unit depends on the point and
    the training data only, never on the rest of the batch.
    """
    units = np.maximum(fit_exponent, row_exponents(X_new, fit_exponent))
    return np.where(np.abs(units) <= SAFE_EXPONENT, 0, units).astype(np.int64)


def shared_columns(X, X_new):
    """Sparse ``X`` and ``X_new`` on the columns either of them stores, numbered in order.

    The same rows and stored entries, without the columns that both leave
    empty: a column neither stores adds nothing to a centre, a distance or a
    product, and leaving it out makes the dense vectors of new points'
    placement (the centre, a far point's row) as long as the columns stored,
    not as the features (a hashing vectoriser's 2**24 or more).
    """
    X, X_new = sp.csr_matrix(X), sp.csr_matrix(X_new)
    columns = np.union1d(X.indices, X_new.indices)
    if not len(columns):
        columns = np.zeros(1, dtype=np.int64)  # all zeros: one empty column stands for all

    def on_shared(M):
        return sp.csr_matrix((M.data, np.searchsorted(columns, M.indices), M.indptr),
                             shape=(M.shape[0], len(columns)))

    return on_shared(X), on_shared(X_new)


def centre_and_extent(X):
    """The column means of ``X`` and the exponent of its largest centred entry.

    ``X`` may be sparse: its largest centred entry is read from the columns'
    largest and smallest entries (implicit zeros included), no dense copy.
    """
    if sp.issparse(X):
        centre = np.asarray(X.mean(axis=0), dtype=np.float64).ravel()
        high = X.max(axis=0).toarray().ravel() - centre
        low = centre - X.min(axis=0).toarray().ravel()
        return centre, power_of_two_exponent(np.maximum(high, low))
    centre = X.mean(axis=0)
    return centre, power_of_two_exponent(X - centre)


def forest_queries(X_new, centre, extent):
    """The new points in the units of an Annoy forest built on centred data, float32.

    The forest holds the training data minus ``centre``, divided by
    ``2**extent``.  A point farther from the training data than
    ``2**MAX_QUERY_EXPONENT`` times their extent is moved towards them
    along the same direction (a power-of-two scaling): its nearest
    neighbours are those extreme in its direction either way, and its
    float32 copy stays finite.
    """
    centred = X_new - centre
    size = row_exponents(centred, extent) - extent
    shift = extent + np.maximum(size - MAX_QUERY_EXPONENT, 0)
    return np.ldexp(centred, -shift[:, None]).astype(np.float32)


def far_points(X_new, centre, extent):
    """Which new points lie farther than ``2**FAR_EXPONENT`` times the training extent.

    Measured from the training data's centre, in powers of two.  Their
    float64 distances to the training points tie (at 1e160 against data
    near 1, exactly), so they are ranked by :func:`far_keys`.  ``X_new``
    may be sparse.
    """
    far = np.zeros(X_new.shape[0], dtype=bool)
    for start, centred in _centred_blocks(X_new, centre):
        far[start:start + centred.shape[0]] = row_exponents(centred, extent) - extent > FAR_EXPONENT
    return far


def far_keys(X, centre, extent, x):
    r"""Keys that order the training points ``X`` by their distance to a far point ``x``.

    With ``m`` the training data's centre, :math:`w = x - m` and
    :math:`v_j = x_j - m` (both divided by a power of two),

    .. math::

        \frac{|w - v_j|^2 - |w|^2}{2 |w|} = \frac{|v_j|^2}{2 |w|} - \hat w \cdot v_j,

    (:math:`|w - v_j|` is the distance in the units of ``v``), a positive
    multiple of the squared distance minus a constant: the same order and
    the same differences up to that multiple, computed from the projection
    on the direction :math:`\hat w` without forming the huge squares that
    tie.  Every training point is ranked (O(N d), as one exact query; far
    points are rare), in blocks of rows, so that the Annoy path ranks far
    points exactly too.  For a sparse ``X`` (and ``x`` a dense row)
    :math:`|v_j|^2` and :math:`\hat w \cdot v_j` are expanded about the
    centre, as products with the stored entries (O(nnz), no dense copy).
    """
    w = x - centre
    e_w = int(row_exponents(w[None, :], extent)[0])
    w_unit = np.ldexp(w, -e_w)
    norm = float(np.sqrt(w_unit @ w_unit))
    direction = w_unit / norm
    half_inverse = np.ldexp(0.5 / norm, extent - e_w)  # 1 / (2 |w|) in the units of v
    if sp.issparse(X):
        Xu, mu = in_units(X, extent), np.ldexp(centre, -extent)
        sq = np.asarray(Xu.multiply(Xu).sum(axis=1), dtype=np.float64).ravel()
        vv = sq - 2.0 * (Xu @ mu) + mu @ mu
        return half_inverse * vv - (Xu @ direction - mu @ direction)
    keys = np.empty(X.shape[0])
    block = max(1, _BLOCK_ELEMENTS // (8 * X.shape[1]))
    for start in range(0, X.shape[0], block):
        v = np.ldexp(X[start:start + block] - centre, -extent)
        keys[start:start + block] = half_inverse * np.einsum("ij,ij->i", v, v) - v @ direction
    return keys
