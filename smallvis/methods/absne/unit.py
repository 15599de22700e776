r"""The alpha-beta divergence of Cichocki, Cruces & Amari (2011), the NumPy unit of absne.

The C side is ``unit.h``.  absne takes the Cauchy weight :math:`w = 1 / (1
+ d^2)`, normalised over all pairs, and the elementwise cost of the
normalised engine, with :math:`\lambda = \alpha + \beta`,

.. math::

    f(p, q) = \frac{\alpha\, p^\lambda + \beta\, q^\lambda
        - \lambda\, p^\alpha q^\beta}{\alpha \beta \lambda}
    \quad (\beta \ne 0),

    f(p, q) = \frac{1}{\alpha^2}\Bigl(p^\alpha \log \frac{p^\alpha}{q^\alpha}
        - p^\alpha + q^\alpha\Bigr)
    \quad (\beta = 0),

the second the limit of the first.  Both have

.. math::

    q \frac{\partial f}{\partial q} = \frac{q^\lambda - p^\alpha q^\beta}{\alpha},

so the engine's hooks (:func:`smallvis.backends.reference.normalised_cost`
and its kin) are the offset :math:`S = \sum q\, \partial f / \partial q`
and the pair coefficient :math:`c = (q S - q\, \partial f / \partial q)\,
s`, with the slope :math:`s = -\partial \log w / \partial d^2` (:math:`w`
for the Cauchy weight).  The unit needs :math:`\alpha > 0` and
:math:`\lambda > 0`: a pair with :math:`p = 0` (outside a kNN graph, the
diagonal) then costs :math:`q^\lambda / (\alpha \lambda)` and pulls
nothing.  :math:`\alpha = 1, \beta = 0` is the KL divergence (t-SNE's
cost when ``P`` sums to 1).
"""

from typing import NamedTuple

import numpy as np

from .._common import cauchy_log_weight, cauchy_slope_at, cauchy_weight


def _ab_q_dfdq(unit, P, Q):
    r""":math:`q\, \partial f / \partial q = (q^\lambda - p^\alpha q^\beta) / \alpha`.

    The cross term is 0 where :math:`p = 0`, so that the diagonal and a pair
    outside a kNN graph contribute :math:`q^\lambda / \alpha` (0 at
    :math:`q = 0`) whatever the sign of :math:`\beta`.
    """
    lam = unit.alpha + unit.beta
    positive = P > 0
    cross = np.zeros(np.shape(Q))
    with np.errstate(divide="ignore"):
        cross[positive] = np.power(P[positive], unit.alpha) * np.power(Q[positive], unit.beta)
    return (np.power(Q, lam) - cross) / unit.alpha


def ab_cost(unit, P, Q, log_Q):
    r"""The sum of :math:`f(p, q)` over every entry (the ``cost`` hook of absne and abssne).

    Written with :math:`\log p` and ``log_Q`` (:math:`\log q`, full
    precision where :math:`q` is tiny): :math:`p^\alpha q^\beta = \exp(\alpha
    \log p + \beta \log q)`.  An entry with :math:`p = 0` costs
    :math:`q^\lambda / (\alpha \lambda)`.
    """
    alpha, beta = unit.alpha, unit.beta
    lam = alpha + beta
    positive = P > 0
    lp, lq = np.log(P[positive]), log_Q[positive]
    if beta == 0.0:
        pa = np.exp(alpha * lp)
        terms = (alpha * pa * (lp - lq) - pa + np.exp(alpha * lq)) / (alpha * alpha)
    else:
        terms = (alpha * np.exp(lam * lp) + beta * np.exp(lam * lq)
                 - lam * np.exp(alpha * lp + beta * lq)) / (alpha * beta * lam)
    # the entries without p: q^lambda / (alpha lambda), 0 on the diagonal
    rest = np.exp(lam * log_Q[~positive]) / (alpha * lam)
    return float(np.sum(terms) + np.sum(rest))


def ab_offset(unit, P, Q, mass, axis):
    r"""The offset :math:`S = \sum q\, \partial f / \partial q = \sum (q^\lambda - p^\alpha q^\beta) / \alpha`.

    Over each row (``axis=1``) or all pairs (``axis=None``); ``mass`` is
    not needed (the KL divergence's offset is the mass of ``P``; this one
    depends on ``q`` too).
    """
    return _ab_q_dfdq(unit, P, Q).sum(axis=axis, keepdims=axis is not None)


def ab_force(unit, P, W, Z, slope, S):
    r"""The pair coefficient :math:`c = \partial C / \partial d^2 = (q S - q\, \partial f / \partial q)\, s`.

    :math:`q = W / Z` and ``slope`` :math:`s = -\partial \log w / \partial d^2`.
    """
    Q = W / Z
    K = Q * S - _ab_q_dfdq(unit, P, Q)
    K *= slope
    return K


class ABSNEUnit(NamedTuple):
    r"""absne: the Cauchy weight normalised over all pairs, the alpha-beta divergence.

    Parameters
    ----------
    alpha : float, default=1.0
        :math:`\alpha > 0`.
    beta : float, default=0.0
        :math:`\beta > -\alpha` (so that :math:`\lambda = \alpha + \beta > 0`).
    """

    alpha: float = 1.0
    beta: float = 0.0

    #: The C unit of the normalised engine (``methods/absne/unit.h``).
    c_unit = "absne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False

    # the Cauchy weight's hooks: w = 1 / (1 + d^2), log w, and the slope w
    weight = cauchy_weight
    log_weight = cauchy_log_weight
    slope_at = cauchy_slope_at

    cost = ab_cost
    offset = ab_offset
    force = ab_force
