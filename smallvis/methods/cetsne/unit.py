r"""Cross-entropy t-SNE, the NumPy unit (the C side: ``unit.h``).

The Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over all pairs,
and the elementwise cost of the normalised engine, the fuzzy-set
cross-entropy of two normalised probabilities (a Bernoulli KL divergence),

.. math::

    f(p, q) = p \log \frac{p}{q} + (1 - p) \log \frac{1 - p}{1 - q},

    q\, \frac{\partial f}{\partial q} = \frac{q - p}{1 - q}.

The engine's hooks (:func:`smallvis.backends.reference.normalised_cost`
and its kin): the offset :math:`S = \sum (q - p) / (1 - q)` over the set
(from ``P`` as given, so that an exaggerated ``P`` enters it as it enters
the cost) and the pair coefficient :math:`c = q\, (S - \partial f /
\partial q)\, s = ((p - q) / (1 - q) + S q)\, s`, with the Cauchy slope
:math:`s = -\partial \log w / \partial d^2 = w`.  Every term is finite
for :math:`q < 1`, which holds off the diagonal of three or more points.
"""

from typing import NamedTuple

import numpy as np
from scipy import special

from .._common import cauchy_log_weight, cauchy_slope_at, cauchy_weight, set_sum


def cross_entropy_cost(unit, P, Q, log_Q):
    r"""The sum of :math:`f(p, q) = p \log(p / q) + (1 - p) \log((1 - p) / (1 - q))`.

    Over every entry, :math:`0 \log 0 = 0`: an entry with :math:`p = 0`
    adds :math:`-\log(1 - q)`, the diagonal (:math:`p = q = 0`) nothing.
    ``log_Q`` gives :math:`\log q` where :math:`p > 0`.
    """
    mask = P > 0
    attract = np.sum(P[mask] * (np.log(P[mask]) - log_Q[mask]))
    return float(attract + np.sum(special.xlogy(1.0 - P, 1.0 - P) - (1.0 - P) * np.log1p(-Q)))


def cross_entropy_offset_terms(P, Q):
    r""":math:`q\, \partial f / \partial q = (q - p) / (1 - q)`, elementwise."""
    return (Q - P) / (1.0 - Q)


def cross_entropy_offset(unit, P, Q, mass, axis):
    r"""The offset :math:`S = \sum (q - p) / (1 - q)` over each set.

    Over each row (``axis=1``) or all pairs (``axis=None``); ``mass`` is
    not needed (the KL divergence's offset is minus the mass of ``P``;
    this one depends on ``q`` too).
    """
    return set_sum(cross_entropy_offset_terms(P, Q), axis)


def cross_entropy_force(unit, P, W, Z, slope, S):
    r"""The pair coefficient :math:`c = \partial C / \partial d^2 = ((p - q) / (1 - q) + S q)\, s`.

    :math:`q = W / Z` and ``slope`` :math:`s = -\partial \log w / \partial d^2`.
    """
    Q = W / Z
    K = (P - Q) / (1.0 - Q) + S * Q
    K *= slope
    return K


class CETSNEUnit(NamedTuple):
    r"""cetsne: the Cauchy weight normalised over all pairs, the fuzzy-set cross-entropy (no parameters)."""

    #: The C unit of the normalised engine (``methods/cetsne/unit.h``).
    c_unit = "cetsne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False

    # the Cauchy weight's hooks: w = 1 / (1 + d^2), log w, and the slope w
    weight = cauchy_weight
    log_weight = cauchy_log_weight
    slope_at = cauchy_slope_at

    cost = cross_entropy_cost
    offset = cross_entropy_offset
    force = cross_entropy_force
