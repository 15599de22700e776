r"""Maths pieces that several method units share (the C side: ``common.h``).

Pure maths on NumPy arrays or floats: nothing here imports the package, so
the units (and the engines below the registry) may use it.

The heavy-tailed weights of LargeVis, UMAP and t-UMAP are written as
:math:`w = 1 / (1 + u)`, so that

.. math::

    \log w = -\log(1 + u), \qquad \log(1 - w) = \log u - \log(1 + u),

which avoids the cancellation of computing :math:`1 - w` directly.
:math:`\log u` is floored at :math:`\log` :data:`LOG_FLOOR` where two
output points coincide (:math:`u = 0`).
"""

import math

import numpy as np
from scipy import special

#: Smallest positive normal double: floors the argument of log(1 - w) when
#: two output points coincide (w = 1), so costs stay finite (about 708 per
#: coincident pair instead of +inf).  Not a parameter.
LOG_FLOOR = np.finfo(np.float64).tiny


def unit_field_values(unit):
    """The fields of a method unit as floats, each checked to be a real number.

    A field may be infinite (a limit some units define) but not NaN, a
    boolean, a string, None or any other object: the compiled units read
    their fields as doubles, and would turn None into NaN and ``"300"`` into
    300.0, so both twins check here before any arithmetic.

    Parameters
    ----------
    unit : NamedTuple
        A unit of ``smallvis/methods/`` with its parameters.

    Returns
    -------
    tuple of float
        The scalar fields, in order; the per-point fields a unit names in
        ``point_fields`` are left out (:func:`row_bandwidths` and
        :func:`pair_importances` read them).

    Raises
    ------
    TypeError
        A field that is not a real number.
    ValueError
        A NaN field.
    """
    fields = getattr(type(unit), "_fields", None)
    if not isinstance(unit, tuple) or fields is None:
        raise TypeError(f"unit must be a method unit (a NamedTuple of smallvis.methods); "
                        f"got {unit!r}")
    values = []
    per_point = getattr(type(unit), "point_fields", ())
    for name, value in zip(fields, unit):
        if name in per_point:  # read by the engines (row_bandwidths, ...), not by the loaders
            continue
        where = f"{type(unit).__name__}.{name}"
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{where} must be a real number; got {value!r}")
        value = float(value)
        if math.isnan(value):
            raise ValueError(f"{where} must be a number, not NaN")
        values.append(value)
    return tuple(values)


#: The per-point field the normalised engines know: each row's precision
#: of the output kernel (docs: the bandwidth variants of R smallvis).
BANDWIDTH_FIELD = "bandwidth"


def positive_per_point(value, where, n, accepted, each, every):
    """``value`` as ``n`` finite positive floats, one per point: a number stands for all.

    The check of a unit's per-point field (:func:`row_bandwidths`,
    :func:`pair_importances`); ``where`` names the field in messages,
    ``accepted`` what it may be besides an array, ``each`` and ``every``
    what one value belongs to.

    Raises
    ------
    TypeError
        A value that is not a real number or an array of them.
    ValueError
        A value that is not finite and positive, or an array whose length is
        not ``n``.
    """
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise TypeError(f"{where} must be {accepted} or an array of them, one per {each}; "
                        f"got {value!r}")
    try:
        values = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{where} must be {accepted} or an array of them, one per {each}; "
                        f"got {value!r}") from None
    if values.ndim == 0:
        values = np.full(n, float(values))
    elif values.ndim != 1 or values.shape[0] != n:
        raise ValueError(f"{where} must hold one value per {each} ({n}); got shape "
                         f"{values.shape}")
    if not np.all(np.isfinite(values) & (values > 0.0)):
        raise ValueError(f"{where} must be finite and positive on every {every}")
    return np.ascontiguousarray(values)


def row_bandwidths(unit, n_rows):
    r"""Each row's precision :math:`\beta_i` of a normalised unit's output kernel, or None.

    A unit that lists ``"bandwidth"`` in its ``point_fields`` carries a
    value per row of ``P`` (the fit's points, or the new points of a
    transform): its weight of the pair ``(i, j)`` is :math:`w(\beta_i
    d_{ij}^2)`.  The engines of both backends scale row ``i``'s squared
    distances by :math:`\beta_i` before the unit's hooks see them, and
    its pair coefficients :math:`\partial C / \partial d_{ij}^2` by
    :math:`\beta_i` after (the chain rule), so that the hooks are those
    of the plain kernel.  A real number stands for the same value on
    every row.

    Parameters
    ----------
    unit : NamedTuple
        A normalised method unit.
    n_rows : int
        Rows of ``P``.

    Returns
    -------
    ndarray of shape (n_rows,) or None
        None for a unit without a bandwidth field.

    Raises
    ------
    TypeError
        A bandwidth that is not a real number or an array of them.
    ValueError
        A bandwidth that is not finite and positive, or an array whose
        length is not ``n_rows``.
    """
    if BANDWIDTH_FIELD not in getattr(type(unit), "point_fields", ()):
        return None
    value = getattr(unit, BANDWIDTH_FIELD)
    return positive_per_point(getattr(unit, BANDWIDTH_FIELD),
                              f"{type(unit).__name__}.{BANDWIDTH_FIELD}", n_rows,
                              "a positive number", "row of P", "row")


def symmetric_p(unit):
    """Whether a normalised unit's ``P`` over all pairs is symmetric (the engines' shortcut).

    Over all pairs the engines of both backends sum the coefficient of an
    unordered pair once and apply it at both ends (``4 c_ij``), which holds
    when ``c`` is symmetric: a symmetric ``P`` and the same weight for
    ``(i, j)`` and ``(j, i)``.  A unit whose ``P`` is not symmetric (a
    conditional ``P`` divided by its grand sum) says so with the class
    attribute ``symmetric_p = False``; the engines then sum every ordered
    pair, :math:`2 (c_{ij} + c_{ji})`, as for a bandwidth per row.
    """
    return bool(getattr(type(unit), "symmetric_p", True))


#: The per-point field of a normalised unit that weighs each pair by the
#: product of its two points' importances (docs: the weighted SNE of R
#: smallvis, whose importance is each point's degree in P).
IMPORTANCE_FIELD = "importance"

#: The value of :data:`IMPORTANCE_FIELD` that stands for each point's degree
#: in the ``P`` the engine is given (:func:`degrees_of`), the input
#: affinities' own; the same word as a method's default "from the input".
DEGREES_OF_P = "input"


def degrees_of(indptr, indices, data, n):
    r"""Each point's degree in ``P``, scaled to mean 1: :math:`m_j = N \sum_i p_{ij} / \sum_{kl} p_{kl}`.

    The column sums of ``P`` (its row sums when ``P`` is symmetric), as R
    smallvis's ``pdeg``, over their mean: the weights :math:`m_i m_j w_{ij}`
    are normalised, so the scale of ``m`` cancels, and an exaggerated ``P``
    has the same degrees.  A ``P`` of no mass has degree 1 everywhere.

    Parameters
    ----------
    indptr, indices, data : ndarray
        ``P`` as a CSR triplet with ``n`` columns (or ``data`` the dense
        ``n x n`` matrix, row-major).
    n : int
        Columns of ``P``.

    Returns
    -------
    ndarray of shape (n,)
    """
    data = np.asarray(data, dtype=np.float64)
    if data.size == n * n and n > 0:  # the full layout: data is the dense matrix
        sums = data.reshape(n, n).sum(axis=0)
    else:
        sums = np.bincount(np.asarray(indices, dtype=np.int64), weights=data, minlength=n)
    total = sums.sum()
    return sums * (n / total) if total > 0.0 else np.ones(n)


def pair_importances(unit, n_columns, P=None):
    r"""Each column point's importance :math:`m_j` of a weighted normalised unit, or None.

    A unit that lists ``"importance"`` in its ``point_fields`` weighs the
    pair ``(i, j)`` by :math:`m_i m_j`: its weight is :math:`m_i m_j
    w(d_{ij}^2)` before the normalisation.  The engines of both backends
    multiply the unit's weights by these products, so that its hooks are
    those of the plain kernel; the slope :math:`-\partial \log w /
    \partial d^2` does not change.  A real number stands for the same
    value on every point (the plain method: it cancels from ``q``);
    :data:`DEGREES_OF_P` for each point's degree in the ``P`` of a fit
    (:func:`degrees_of`, ``P`` the CSR triplet), and, for new points,
    whose rows of ``P`` hold no training point's degree, for 1.

    Parameters
    ----------
    unit : NamedTuple
        A normalised method unit.
    n_columns : int
        Columns of ``P``: the fit's points, or the training points of a
        transform (a new point's own importance cancels from its row's
        normalisation, so it is never needed).
    P : tuple of ndarray or None
        ``(indptr, indices, data)`` of a fit's ``P``; None for new points.

    Returns
    -------
    ndarray of shape (n_columns,) or None
        None for a unit without an importance field.

    Raises
    ------
    TypeError
        An importance that is not a real number or an array of them.
    ValueError
        An importance that is not finite and positive, or an array whose
        length is not ``n_columns``.
    """
    if IMPORTANCE_FIELD not in getattr(type(unit), "point_fields", ()):
        return None
    value = getattr(unit, IMPORTANCE_FIELD)
    where = f"{type(unit).__name__}.{IMPORTANCE_FIELD}"
    if isinstance(value, str) and value == DEGREES_OF_P:
        return np.ones(n_columns) if P is None else degrees_of(*P, n_columns)
    return positive_per_point(value, where, n_columns,
                              f"{DEGREES_OF_P!r}, a positive number", "point", "point")


def log_importances(m):
    r"""The logs of the importances :func:`pair_importances` gave (None for None).

    The compiled engine passes them to a unit's cost beside the importances,
    :math:`\log q = \log m_i + \log m_j + \log w - \log Z`.
    """
    return None if m is None else np.log(m)


def log_one_minus_w(U):
    r""":math:`\log(1 - w)` for :math:`w = 1 / (1 + u)`, floored where :math:`u = 0`.

    .. math::

        \log(1 - w) = \log \max(u, \text{LOG\_FLOOR}) - \log(1 + u).

    Parameters
    ----------
    U : ndarray
        Non-negative :math:`u`.

    Returns
    -------
    ndarray
    """
    return np.log(np.maximum(U, LOG_FLOOR)) - np.log1p(U)


def pow_pos(x, y):
    """``x ** y`` for ``x > 0``, computed as ``2 ** (y log2 x)`` (as the Cython twin).

    ``math.exp2`` and ``math.log2`` call the C library's ``exp2`` and
    ``log2``, the functions the Cython twin calls, so both give the same bits.

    Parameters
    ----------
    x, y : float

    Returns
    -------
    float
    """
    return math.exp2(y * math.log2(x))


def fuzzy_cost_term(V, U):
    r"""The fuzzy cross-entropy of a pair, membership ``v`` against :math:`w = 1/(1 + u)`.

    .. math::

        v \log \frac{v}{w} + (1 - v) \log \frac{1 - v}{1 - w}
        = v \log v + (1 - v) \log(1 - v) + v \log(1 + u) - (1 - v) \log(1 - w),

    with :math:`0 \log 0 = 0`.  It is :func:`fuzzy_edge_term` plus
    :func:`fuzzy_pair_term`.

    Parameters
    ----------
    V : ndarray
        Memberships in [0, 1].
    U : ndarray
        Non-negative :math:`u`, broadcastable against ``V``.

    Returns
    -------
    ndarray
    """
    return (special.xlogy(V, V) + special.xlogy(1.0 - V, 1.0 - V)
            + V * np.log1p(U) - (1.0 - V) * log_one_minus_w(U))


def fuzzy_pair_term(U):
    r"""The fuzzy cross-entropy of a pair with no membership: :math:`-\log(1 - w)`.

    .. math::

        f(0, u) = -\log(1 - w) = \log(1 + u) - \log u.
    """
    return -log_one_minus_w(U)


def fuzzy_edge_term(V, U):
    r"""What a stored membership ``v`` adds to :func:`fuzzy_pair_term`.

    .. math::

        f(v, u) - f(0, u) = v \log v + (1 - v) \log(1 - v) + v \log u

    (the :math:`\log(1 + u)` terms cancel), :math:`\log u` floored as in
    :func:`log_one_minus_w`.
    """
    U = np.maximum(U, LOG_FLOOR)
    return special.xlogy(V, V) + special.xlogy(1.0 - V, 1.0 - V) + V * np.log(U)


# ---------------------------------------------------------------------------
# The KL divergence of a normalised unit (asne, ssne, tsne): its three hooks
# of the normalised engine (backends/reference/normalised.py)
# ---------------------------------------------------------------------------


def set_sum(X, axis):
    """The sum of ``X`` over each normalisation set: all of it (``axis=None``) or each row (1).

    Over rows it keeps the row axis (a column), so that it broadcasts
    against ``X``: the form of the ``offset`` hook's ``S``.
    """
    return X.sum() if axis is None else X.sum(axis=axis, keepdims=True)


def cauchy_weight(unit, d2, out=None):
    r"""The Cauchy output weight :math:`w = 1 / (1 + d^2)` (0 where :math:`d^2 = \infty`).

    The ``weight`` hook of the normalised units whose ``log_domain`` is
    False (the engine normalises ``w`` itself: it does not underflow).

    Parameters
    ----------
    unit : NamedTuple
        The unit (unused: the Cauchy weight has no parameter).
    d2 : ndarray
        Squared distances.
    out : ndarray, optional
        Where to write the weights (may be ``d2`` itself).

    Returns
    -------
    ndarray
    """
    w = np.add(d2, 1.0, out=out)
    return np.reciprocal(w, out=w if out is not None else None)


def cauchy_log_weight(unit, d2):
    r"""The log of the Cauchy weight, :math:`\log w = -\mathrm{log1p}(d^2)`."""
    return -np.log1p(d2)


def cauchy_slope_at(unit, d2):
    r"""The Cauchy weight's slope :math:`-\partial \log w / \partial d^2 = 1 / (1 + d^2) = w`."""
    return 1.0 / (1.0 + d2)


def kl_cost(P, Q, log_Q):
    r"""The KL divergence :math:`\sum p \log(p / q)` over the entries with :math:`p > 0`.

    The ``cost`` hook of the SNE family (``Q`` is unused: ``log_Q`` keeps
    full precision where ``q`` underflows).
    """
    mask = P > 0
    return float(np.sum(P[mask] * (np.log(P[mask]) - log_Q[mask])))


def kl_offset(P, Q, mass, axis):
    r"""The KL divergence's normaliser sum :math:`S = \sum q\, \partial f / \partial q = -\sum p`.

    With :math:`f = p \log(p/q)`, :math:`q\, \partial f/\partial q = -p`, so
    ``S`` is minus the mass of ``P`` over the normalisation set, which the
    engine passes as ``mass``: 1 in a fit (its ``P`` is normalised; an
    exaggerated ``P`` scales the attraction only, the convention of every
    SNE code), the new row's sum in a transform.
    """
    return -mass


def kl_force(P, W, Z, slope, S):
    r"""The KL divergence's pair coefficient :math:`c = \partial C / \partial d^2 = (p + S q)\, s`.

    :math:`q = W / Z` and ``s`` = ``slope`` is :math:`-\partial \log w /
    \partial d^2`; with :math:`S = -1` this is the SNE family's
    :math:`(p - q)\, s`.
    """
    K = P + S * W / Z
    K *= slope
    return K
