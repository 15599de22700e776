r"""Hellinger-distance SNE (Im et al. 2018), the NumPy unit (the C side: ``unit.h``).

The Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over all pairs,
and the elementwise cost of the normalised engine

.. math::

    f(p, q) = \bigl(\sqrt{p} - \sqrt{q}\bigr)^2 = p - 2 \sqrt{p q} + q.

Because :math:`q` sums to 1 over each normalisation set, a term linear in
:math:`q` adds the same constant to :math:`\partial f / \partial q` and
to the offset, and cancels in the force; the hooks therefore take the
derivative of the cross term alone, :math:`\partial f / \partial q \to
-\sqrt{p / q}`.  The engine's hooks
(:func:`smallvis.backends.reference.normalised_cost` and its kin): the
offset :math:`S = -\sum \sqrt{p q}` (minus the Bhattacharyya coefficient
of the set) and the pair coefficient :math:`c = q\, (S + \sqrt{p / q})\,
s = (\sqrt{p q} + S q)\, s`, with the Cauchy slope :math:`s = -\partial
\log w / \partial d^2 = w`.  Written with :math:`\sqrt{p q}`, no term
divides by :math:`q`, so the diagonal and any pair with :math:`p = 0` or
:math:`q = 0` need no special case.
"""

from typing import NamedTuple

import numpy as np

from .._common import cauchy_log_weight, cauchy_slope_at, cauchy_weight


def hellinger_cost(unit, P, Q, log_Q):
    r"""The sum of :math:`f(p, q) = (\sqrt{p} - \sqrt{q})^2` over every entry.

    ``log_Q`` is not needed: the Cauchy weight does not underflow, and
    :math:`\sqrt{q}` is taken from ``Q`` itself.
    """
    D = np.sqrt(P) - np.sqrt(Q)
    return float(np.sum(D * D))


def hellinger_offset(unit, P, Q, mass, axis):
    r"""The offset :math:`S = \sum q\, \partial f / \partial q = -\sum \sqrt{p q}`.

    Over each row (``axis=1``) or all pairs (``axis=None``); ``mass`` is
    not needed (the KL divergence's offset is the mass of ``P``; this one
    depends on ``q`` too).
    """
    B = (np.sqrt(P) * np.sqrt(Q)).sum(axis=axis, keepdims=axis is not None)
    return -B


def hellinger_force(unit, P, W, Z, slope, S):
    r"""The pair coefficient :math:`c = \partial C / \partial d^2 = (\sqrt{p q} + S q)\, s`.

    :math:`q = W / Z` and ``slope`` :math:`s = -\partial \log w / \partial d^2`.
    """
    Q = W / Z
    K = np.sqrt(P) * np.sqrt(Q) + S * Q
    K *= slope
    return K


class HLSNEUnit(NamedTuple):
    r"""hlsne: the Cauchy weight normalised over all pairs, the squared Hellinger distance (no parameters)."""

    #: The C unit of the normalised engine (``methods/hlsne/unit.h``).
    c_unit = "hlsne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False

    # the Cauchy weight's hooks: w = 1 / (1 + d^2), log w, and the slope w
    weight = cauchy_weight
    log_weight = cauchy_log_weight
    slope_at = cauchy_slope_at

    cost = hellinger_cost
    offset = hellinger_offset
    force = hellinger_force
