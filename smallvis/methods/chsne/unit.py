r"""Chi-squared SNE (Im et al. 2018), the NumPy unit (the C side: ``unit.h``).

The Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over all pairs,
and the elementwise cost of the normalised engine

.. math::

    f(p, q) = \frac{(p - q)^2}{q} = \frac{p^2}{q} - 2 p + q.

Because :math:`q` sums to 1 over each normalisation set, a term linear in
:math:`q` adds the same constant to :math:`\partial f / \partial q` and to
the offset, and cancels in the force; the hooks therefore take the
derivative of :math:`p^2 / q` alone, :math:`\partial f / \partial q \to
-p^2 / q^2`.  The engine's hooks
(:func:`smallvis.backends.reference.normalised_cost` and its kin): the
offset :math:`S = -\sum p^2 / q` and the pair coefficient :math:`c =
q\, (S + p^2 / q^2)\, s = (p^2 / q + S q)\, s`, with the Cauchy slope
:math:`s = w`.  A term with :math:`q = 0` (the diagonal, where
:math:`p = 0` too) is 0.
"""

from typing import NamedTuple

import numpy as np

from .._common import cauchy_log_weight, cauchy_slope_at, cauchy_weight


def _p2_over_q(P, Q):
    r""":math:`p^2 / q` where :math:`q > 0`, 0 elsewhere (the diagonal)."""
    out = np.zeros(np.shape(Q))
    positive = Q > 0
    out[positive] = P[positive] * P[positive] / Q[positive]
    return out


def chi2_cost(unit, P, Q, log_Q):
    r"""The sum of :math:`f(p, q) = (p - q)^2 / q` over the entries with :math:`q > 0`.

    ``log_Q`` is not needed.
    """
    positive = Q > 0
    D = P[positive] - Q[positive]
    return float(np.sum(D * D / Q[positive]))


def chi2_offset(unit, P, Q, mass, axis):
    r"""The offset :math:`S = \sum q\, \partial f / \partial q = -\sum p^2 / q`.

    Over all pairs (``axis=None``) or each row (``axis=1``, new points);
    ``mass`` is not needed.
    """
    return -_p2_over_q(P, Q).sum(axis=axis, keepdims=axis is not None)


def chi2_force(unit, P, W, Z, slope, S):
    r"""The pair coefficient :math:`c = \partial C / \partial d^2 = (p^2 / q + S q)\, s`.

    :math:`q = W / Z` and ``slope`` :math:`s = -\partial \log w / \partial d^2`.
    """
    Q = W / Z
    K = _p2_over_q(P, Q) + S * Q
    K *= slope
    return K


class CHSNEUnit(NamedTuple):
    r"""chsne: the Cauchy weight normalised over all pairs, the chi-squared divergence (no parameters)."""

    #: The C unit of the normalised engine (``methods/chsne/unit.h``).
    c_unit = "chsne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False

    # the Cauchy weight's hooks: w = 1 / (1 + d^2), log w, and the slope w
    weight = cauchy_weight
    log_weight = cauchy_log_weight
    slope_at = cauchy_slope_at

    cost = chi2_cost
    offset = chi2_offset
    force = chi2_force
