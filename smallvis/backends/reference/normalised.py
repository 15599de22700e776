"""Normalised Q (docs/theory.md §3.2-3.4): the engine of the SNE family.

One engine for every unit whose output weights are normalised to ``q``, over
each row or over all pairs: :func:`normalised_cost` and
:func:`normalised_gradient`, fed by the unit's hooks (``cost``, ``offset``,
``force``, ...).  The SNE family (asne, ssne, tsne) runs on it; their named
kernels (``tsne_cost``, ``asne_gradient``, ...) are thin wrappers that build
the unit from their arguments.
"""

import numpy as np
from scipy import special

from ...methods._common import pair_importances, row_bandwidths, symmetric_p, unit_field_values
from ...methods.asne.unit import ASNEUnit
from ...methods.ssne.unit import SSNEUnit
from ...methods.tsne.unit import TSNEUnit
from ._helpers import _check_pair_arrays, _dense, _gradient_from_coefficients, _squared_distances


def _off_diagonal_distances(Y):
    """Squared distances with ``inf`` on the diagonal: a pair (i, i) has weight 0."""
    D2 = _squared_distances(Y)
    np.fill_diagonal(D2, np.inf)
    return D2


def _normalised_log_q(unit, D2, axis, A=None):
    """``log q`` of a unit with a log weight (the Gaussian), normalised in the log domain.

    Over each row (``axis=1``) or all pairs (``axis=None``).  The log
    weights are shifted by their largest value first: ``q`` is unchanged
    and ``log q`` keeps full precision when the distances are large.
    ``A``: each pair's importance :math:`m_i m_j` (:func:`_pair_products`),
    which multiplies its weight, or None.
    """
    L = unit.log_weight(D2)
    if A is not None:
        L = L + np.log(A)
    L -= L.max(axis=axis, keepdims=True)
    return L - special.logsumexp(L, axis=axis, keepdims=True)


def _normalised_weights(unit, D2, axis, A=None):
    r"""Weights ``W`` and normaliser ``Z`` of a normalised unit, with :math:`q = W / Z`.

    .. math::

        q_{ij} = \frac{a_{ij} w_{ij}}{\sum_{(k, l)} a_{kl} w_{kl}},

    the sum over row ``i`` (``axis=1``) or over all pairs (``axis=None``),
    :math:`a_{ij} = m_i m_j` the pair's importance (``A``; 1 without).
    A unit with ``log_domain`` normalises ``log w`` (:func:`_normalised_log_q`)
    and returns ``W = q``, ``Z = 1``; the others ``W = a * unit.weight(D2)``
    and its sum.
    """
    if unit.log_domain:
        return np.exp(_normalised_log_q(unit, D2, axis, A)), 1.0
    W = unit.weight(D2)
    if A is not None:
        W = W * A
    return W, W.sum(axis=axis, keepdims=axis is not None)


def _normalised_q(unit, D2, axis, A=None):
    """``q`` and ``log q`` of a normalised unit (as :func:`_normalised_weights`)."""
    if unit.log_domain:
        log_Q = _normalised_log_q(unit, D2, axis, A)
        return np.exp(log_Q), log_Q
    W, Z = _normalised_weights(unit, D2, axis, A)
    with np.errstate(divide="ignore"):
        log_Q = np.log(W) - np.log(Z)
    return W / Z, log_Q


def _normalised_coefficients(unit, P, D2, axis, mass, A=None):
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
    :math:`c = (p + S W / Z)\, s`).  A pair's importance :math:`a_{ij}`
    (``A``) is in ``W``; it does not depend on :math:`d^2`, so the slope
    is the plain kernel's.
    """
    W, Z = _normalised_weights(unit, D2, axis, A)
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


def _pair_products(rows, columns):
    r"""The pairs' importances :math:`a_{ij} = m_i m_j`, or None without.

    ``rows`` and ``columns``: the importances of ``P``'s rows and columns
    (:func:`~smallvis.methods._common.pair_importances`; a new point's row
    takes 1, which cancels from its row's normalisation), or None.
    """
    if columns is None:
        return None
    return np.outer(np.ones(1) if rows is None else rows, columns)


def _scaled_rows(D2, bandwidth):
    r"""Row ``i`` of ``D2`` times :math:`\beta_i`: the argument of a bandwidth unit's weight.

    ``D2`` itself without a bandwidth (:func:`~smallvis.methods._common.row_bandwidths`).
    """
    return D2 if bandwidth is None else D2 * bandwidth[:, None]


def _normalised_cost(unit, indptr, indices, data, Y):
    """:func:`normalised_cost` on arrays the caller has checked."""
    axis = _normalised_axis(unit)
    P = _dense(indptr, indices, data, Y.shape[0])
    D2 = _scaled_rows(_off_diagonal_distances(Y), row_bandwidths(unit, Y.shape[0]))
    m = pair_importances(unit, Y.shape[0], (indptr, indices, data))
    Q, log_Q = _normalised_q(unit, D2, axis, _pair_products(m, m))
    return unit.cost(P, Q, log_Q)


def normalised_gradient(unit, indptr, indices, data, Y, grad, n_threads):
    r"""The exact gradient of :func:`normalised_cost` (into ``grad``).

    .. math::

        \frac{\partial C}{\partial y_i} = 2 \sum_{j \ne i} (c_{ij} + c_{ji})(y_i - y_j)
        = 4 \sum_{j \ne i} c_{ij} (y_i - y_j) \quad (c \text{ symmetric}),

    with :math:`c` of :func:`_normalised_coefficients`; ``"total"`` takes
    ``P`` symmetric (so is ``c``) unless the unit says otherwise
    (:func:`~smallvis.methods._common.symmetric_p`): the first form.  A unit
    with a bandwidth per row
    (:func:`~smallvis.methods._common.row_bandwidths`) has :math:`w_{ij} =
    w(\beta_i d_{ij}^2)` and :math:`c_{ij} = \beta_i\, c(\beta_i d_{ij}^2)`,
    not symmetric: the first form.  A unit with an importance per point
    (:func:`~smallvis.methods._common.pair_importances`) has the weights
    :math:`m_i m_j w_{ij}`, still symmetric.  The fit's ``P`` counts as normalised
    (``mass`` 1): an exaggerated ``P`` scales the attraction only.
    """
    unit_field_values(unit)
    _check_pair_arrays(indptr, indices, data, Y, grad)
    _normalised_gradient(unit, indptr, indices, data, Y, grad)


def _normalised_gradient(unit, indptr, indices, data, Y, grad):
    """:func:`normalised_gradient` on arrays the caller has checked."""
    axis = _normalised_axis(unit)
    P = _dense(indptr, indices, data, Y.shape[0])
    bandwidth = row_bandwidths(unit, Y.shape[0])
    D2 = _scaled_rows(_off_diagonal_distances(Y), bandwidth)
    m = pair_importances(unit, Y.shape[0], (indptr, indices, data))
    K = _normalised_coefficients(unit, P, D2, axis, 1.0, _pair_products(m, m))
    if bandwidth is not None:
        # dC/dd2_ij = beta_i dC/d(beta_i d2_ij); row i's weights differ from
        # row j's, so c is not symmetric even over all pairs
        K *= bandwidth[:, None]
        grad[...] = 2.0 * _gradient_from_coefficients(K + K.T, Y)
    elif axis is None and symmetric_p(unit):
        grad[...] = 4.0 * _gradient_from_coefficients(K, Y)
    else:
        grad[...] = 2.0 * _gradient_from_coefficients(K + K.T, Y)


def asne_cost(indptr, indices, data, Y, n_threads):
    """Cost of asymmetric SNE (:mod:`smallvis.methods.asne`): row ``i`` of ``P`` holds p_{j|i}."""
    return _normalised_cost(ASNEUnit(), indptr, indices, data, Y)


def asne_gradient(indptr, indices, data, Y, grad, n_threads):
    r"""Gradient of asymmetric SNE (docs/theory.md §3.2).

    .. math::

        \frac{\partial C}{\partial y_i} =
        2 \sum_{j \ne i} \left(p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}\right)(y_i - y_j).
    """
    _normalised_gradient(ASNEUnit(), indptr, indices, data, Y, grad)


def ssne_cost(indptr, indices, data, Y, n_threads):
    """Cost of symmetric SNE, KL(P || Q) (:mod:`smallvis.methods.ssne`)."""
    return _normalised_cost(SSNEUnit(), indptr, indices, data, Y)


def ssne_gradient(indptr, indices, data, Y, grad, n_threads):
    r"""Gradient of symmetric SNE, ``P`` symmetric (:mod:`smallvis.methods.ssne`).

    .. math::

        \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} (p_{ij} - q_{ij})(y_i - y_j).
    """
    _normalised_gradient(SSNEUnit(), indptr, indices, data, Y, grad)


def tsne_cost(indptr, indices, data, Y, n_threads):
    """Cost of t-SNE, KL(P || Q) with the Cauchy weight (:mod:`smallvis.methods.tsne`)."""
    return _normalised_cost(TSNEUnit(), indptr, indices, data, Y)


def tsne_gradient(indptr, indices, data, Y, grad, n_threads):
    r"""Gradient of t-SNE, ``P`` symmetric (:mod:`smallvis.methods.tsne`).

    .. math::

        \frac{\partial C}{\partial y_i} =
        4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}\, (y_i - y_j).
    """
    _normalised_gradient(TSNEUnit(), indptr, indices, data, Y, grad)


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
    return _normalised_cost(TSNEUnit(dof), indptr, indices, data, Y)


def tsne_dof_gradient(indptr, indices, data, Y, dof, grad, n_threads):
    r"""Gradient of :func:`tsne_dof_cost`, ``P`` symmetric (:mod:`smallvis.methods.tsne`).

    .. math::

        \frac{\partial C}{\partial y_i} =
        4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}^{1/\alpha}\, (y_i - y_j),
        \qquad w_{ij}^{1/\alpha} = \frac{1}{1 + d_{ij}^2/\alpha}.
    """
    _normalised_gradient(TSNEUnit(dof), indptr, indices, data, Y, grad)
