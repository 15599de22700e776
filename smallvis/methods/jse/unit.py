r"""Jensen-Shannon embedding (Lee et al. 2013), the NumPy unit (the C side: ``unit.h``).

The Gaussian weight :math:`w = \exp(-d^2)`, normalised over each row, and
the elementwise cost of the normalised engine

.. math::

    f(p, q) = \frac{p}{1 - \kappa} \log \frac{p}{z} + \frac{q}{\kappa} \log \frac{q}{z},
    \qquad z = \kappa p + (1 - \kappa) q,

whose derivative is :math:`\partial f / \partial q = \log(q / z) / \kappa`.
The engine's hooks (:func:`smallvis.backends.reference.normalised_cost`
and its kin): the offset :math:`S = \sum q\, \partial f / \partial q =
\sum q \log(q / z) / \kappa` over each row, and the pair coefficient
:math:`c = q\, (S - \log(q / z) / \kappa)\, s` with the Gaussian's slope
:math:`s = 1`.  A term with :math:`q = 0` (the diagonal, an underflowed
weight) is 0, its limit.
"""

from typing import NamedTuple

import numpy as np


def _mixture(unit, P, Q):
    r""":math:`z = \kappa p + (1 - \kappa) q`."""
    return unit.kappa * P + (1.0 - unit.kappa) * Q


def _log_ratio(Q, Z):
    r""":math:`\log(q / z)` where :math:`q > 0`, 0 elsewhere (where :math:`q \log(q/z) = 0`).

    The offset and the force take it from this one expression, as the C
    unit does, so that a pair whose terms cancel (a row with one ``q`` of 1)
    has a force of exactly 0 in both twins.
    """
    out = np.zeros(np.shape(Q))
    positive = Q > 0
    out[positive] = np.log(Q[positive] / Z[positive])
    return out


def jse_cost(unit, P, Q, log_Q):
    r"""The sum of :math:`f(p, q)` over every entry (the ``cost`` hook of ``jse`` and ``sjse``).

    .. math::

        C = \frac{1}{1 - \kappa} \sum_{p > 0} p \log \frac{p}{z}
            + \frac{1}{\kappa} \sum_{q > 0} q \log \frac{q}{z},

    with ``log_Q`` for :math:`\log q` (full precision where :math:`q` is tiny).
    """
    Z = _mixture(unit, P, Q)
    p_pos, q_pos = P > 0, Q > 0
    p_part = np.sum(P[p_pos] * (np.log(P[p_pos]) - np.log(Z[p_pos])))
    q_part = np.sum(Q[q_pos] * (log_Q[q_pos] - np.log(Z[q_pos])))
    return float(p_part / (1.0 - unit.kappa) + q_part / unit.kappa)


def jse_offset(unit, P, Q, mass, axis):
    r"""The offset :math:`S = \sum q\, \partial f / \partial q = \frac{1}{\kappa} \sum q \log(q / z)`.

    Over each row (``axis=1``) or all pairs (``axis=None``); ``mass`` is
    not needed (the KL divergence's offset is the mass of ``P``; this one
    depends on ``q`` too).
    """
    T = Q * _log_ratio(Q, _mixture(unit, P, Q))
    return T.sum(axis=axis, keepdims=axis is not None) / unit.kappa


def jse_force(unit, P, W, Z, slope, S):
    r"""The pair coefficient :math:`c = \partial C / \partial d^2 = q\, (S - \log(q / z) / \kappa)\, s`.

    :math:`q = W / Z` (``Z`` the engine's normaliser, not the mixture) and
    ``slope`` :math:`s = -\partial \log w / \partial d^2`.
    """
    Q = W / Z
    K = Q * (S - _log_ratio(Q, _mixture(unit, P, Q)) / unit.kappa)
    K *= slope
    return K


class JSEUnit(NamedTuple):
    r"""JSE: the Gaussian weight normalised over each row, the mixture weight :math:`\kappa`.

    Parameters
    ----------
    kappa : float, default=0.5
        :math:`\kappa`, strictly between 0 and 1: the weight of ``P`` in the
        mixture :math:`z = \kappa p + (1 - \kappa) q`.
    """

    kappa: float = 0.5

    #: The C unit of the normalised engine (``methods/jse/unit.h``).
    c_unit = "jse"
    #: The normalisation of ``q``: over each row.
    normalisation = "rows"
    #: The engine normalises ``log w`` (the Gaussian underflows far from a point).
    log_domain = True

    def log_weight(self, d2):
        r"""The log of the output weight, :math:`\log w = -d^2`."""
        return -d2

    def slope_at(self, d2):
        r"""The slope :math:`-\partial \log w / \partial d^2 = 1`."""
        return 1.0

    cost = jse_cost
    offset = jse_offset
    force = jse_force
