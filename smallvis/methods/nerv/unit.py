r"""NeRV, the NumPy unit (the C side: ``unit.h``).

The Gaussian weight :math:`w = \exp(-d^2)` normalised over each row, and
the elementwise cost of the normalised engine

.. math::

    f(p, q) = \lambda\, p \log \frac{p}{q}
        + (1 - \lambda)\, q \log \frac{q}{\max(p, p_\text{floor})},

whose derivative is :math:`\partial f / \partial q = -\lambda p / q +
(1 - \lambda)(\ell + 1)`, :math:`\ell = \log q - \log \max(p,
p_\text{floor})`.  The offset over a row of mass :math:`\pi` is :math:`S =
-\lambda \pi + (1 - \lambda) \sum q (\ell + 1)` and the pair coefficient
:math:`c = q (S - \partial f / \partial q)\, s = (\lambda p + q S - (1 -
\lambda) q (\ell + 1))\, s` with the slope :math:`s = 1`.  The constant
:math:`1 - \lambda` cancels from the fit's force (a row of :math:`q` sums
to 1), but not from a new point's column, whose terms in a fixed row
:math:`j` are :math:`f(p_{s|j}, q_{s|j}) - S_j q_{s|j}` with
:math:`q_{s|j}` outside the row's sum: it is kept.  The reverse divergence's pieces are rklsne's.
"""

from typing import NamedTuple

import numpy as np

from .._common import kl_cost
from ..rklsne.unit import R_P_FLOOR, floored_log_ratio, reverse_kl_cost

#: Yang, Peltonen and Kaski's (2015) and R smallvis's weight of the forward divergence.
DEFAULT_LAM = 0.9


def nerv_cost(unit, P, Q, log_Q):
    r"""The sum of :math:`f`: :math:`\lambda\, \mathrm{KL}(P \| Q) + (1 - \lambda)\, \mathrm{KL}(Q \| P)`."""
    return (unit.lam * kl_cost(P, Q, log_Q)
            + (1.0 - unit.lam) * reverse_kl_cost(P, Q, log_Q, unit.p_floor))


def nerv_offset(unit, P, Q, mass, axis):
    r"""The offset :math:`S = -\lambda \pi + (1 - \lambda) \sum q (\ell + 1)`, ``mass`` :math:`\pi`."""
    T = Q * (floored_log_ratio(P, Q, unit.p_floor) + 1.0)
    return -unit.lam * mass + (1.0 - unit.lam) * T.sum(axis=axis, keepdims=axis is not None)


def nerv_force(unit, P, W, Z, slope, S):
    r"""The pair coefficient :math:`c = (\lambda p + q S - (1 - \lambda) q (\ell + 1))\, s`, :math:`q = W / Z`."""
    Q = W / Z
    K = unit.lam * P + Q * (S - (1.0 - unit.lam)
                            * (floored_log_ratio(P, Q, unit.p_floor) + 1.0))
    K *= slope
    return K


class NERVUnit(NamedTuple):
    r"""nerv: the Gaussian weight over each row, NeRV's mixture of KL divergences.

    Parameters
    ----------
    lam : float, default=0.9
        :math:`\lambda` in [0, 1]: the forward divergence's weight (1 is asne).
    p_floor : float, default=2.220446049250313e-16
        :math:`p_\text{floor}`, positive: the floor of ``P`` inside the
        reverse divergence's log (machine epsilon, R smallvis's ``eps``).
    """

    lam: float = DEFAULT_LAM
    p_floor: float = R_P_FLOOR

    #: The C unit of the normalised engine (``methods/nerv/unit.h``).
    c_unit = "nerv"
    #: The normalisation of ``q``: over each row.
    normalisation = "rows"
    #: The engine normalises ``log w`` (the Gaussian underflows far from a point).
    log_domain = True

    cost = nerv_cost
    offset = nerv_offset
    force = nerv_force

    def log_weight(self, d2):
        r"""The log of the output weight, :math:`\log w = -d^2`."""
        return -d2

    def slope_at(self, d2):
        r"""The slope :math:`-\partial \log w / \partial d^2 = 1`."""
        return 1.0
