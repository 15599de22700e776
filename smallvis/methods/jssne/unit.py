r"""Jensen-Shannon SNE (Im et al. 2018), the NumPy unit (the C side: ``unit.h``).

The Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over all pairs,
and the elementwise cost of the normalised engine

.. math::

    f(p, q) = \frac{1}{2} \Bigl(p \log \frac{p}{z} + q \log \frac{q}{z}\Bigr),
    \qquad z = \frac{p + q}{2},

whose derivative is :math:`\partial f / \partial q = \frac{1}{2}
\log(q / z)`.  The engine's hooks
(:func:`smallvis.backends.reference.normalised_cost` and its kin): the
offset :math:`S = \frac{1}{2} \sum q \log(q / z)` over all pairs, and the
pair coefficient :math:`c = q\, (S - \frac{1}{2} \log(q / z))\, s` with
the Cauchy slope :math:`s = w`.  A term with :math:`q = 0` (the diagonal)
or :math:`p = 0` is 0, its limit.
"""

from typing import NamedTuple

import numpy as np

from .._common import cauchy_log_weight, cauchy_slope_at, cauchy_weight


def _log_ratio(P, Q):
    r""":math:`\log(q / z)`, :math:`z = (p + q) / 2`, where :math:`q > 0`; 0 elsewhere.

    The offset and the force take it from this one expression, as the C
    unit does, so that both twins round it alike.
    """
    out = np.zeros(np.shape(Q))
    positive = Q > 0
    out[positive] = np.log(Q[positive] / (0.5 * (P[positive] + Q[positive])))
    return out


def js_cost(unit, P, Q, log_Q):
    r"""The sum of :math:`f(p, q)` over every entry.

    .. math::

        C = \frac{1}{2} \sum_{p > 0} p \log \frac{p}{z}
            + \frac{1}{2} \sum_{q > 0} q \log \frac{q}{z}.

    ``log_Q`` is :math:`\log q` (the Cauchy weight does not underflow).
    """
    Z = 0.5 * (P + Q)
    p_pos, q_pos = P > 0, Q > 0
    p_part = np.sum(P[p_pos] * (np.log(P[p_pos]) - np.log(Z[p_pos])))
    q_part = np.sum(Q[q_pos] * (log_Q[q_pos] - np.log(Z[q_pos])))
    return float(0.5 * (p_part + q_part))


def js_offset(unit, P, Q, mass, axis):
    r"""The offset :math:`S = \sum q\, \partial f / \partial q = \frac{1}{2} \sum q \log(q / z)`.

    Over all pairs (``axis=None``) or each row (``axis=1``, new points);
    ``mass`` is not needed.
    """
    T = Q * _log_ratio(P, Q)
    return 0.5 * T.sum(axis=axis, keepdims=axis is not None)


def js_force(unit, P, W, Z, slope, S):
    r"""The pair coefficient :math:`c = \partial C / \partial d^2 = q\, (S - \frac{1}{2} \log(q / z))\, s`.

    :math:`q = W / Z` (``Z`` the engine's normaliser, not the mixture) and
    ``slope`` :math:`s = -\partial \log w / \partial d^2`.
    """
    Q = W / Z
    K = Q * (S - 0.5 * _log_ratio(P, Q))
    K *= slope
    return K


class JSSNEUnit(NamedTuple):
    r"""jssne: the Cauchy weight normalised over all pairs, the Jensen-Shannon divergence (no parameters)."""

    #: The C unit of the normalised engine (``methods/jssne/unit.h``).
    c_unit = "jssne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False

    # the Cauchy weight's hooks: w = 1 / (1 + d^2), log w, and the slope w
    weight = cauchy_weight
    log_weight = cauchy_log_weight
    slope_at = cauchy_slope_at

    cost = js_cost
    offset = js_offset
    force = js_force
