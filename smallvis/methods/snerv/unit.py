r"""Symmetric NeRV, the NumPy unit (the C side: ``unit.h``).

nerv's elementwise cost (:mod:`smallvis.methods.nerv.unit`)

.. math::

    f(p, q) = \lambda\, p \log \frac{p}{q}
        + (1 - \lambda)\, q \log \frac{q}{\max(p, p_\text{floor})},

with the Gaussian weight :math:`w = \exp(-d^2)` normalised over all pairs:
the offset :math:`S = -\lambda \pi + (1 - \lambda) \sum q (\ell + 1)` is
taken over all pairs (:math:`\pi = \sum p = 1`) and the pair coefficient
is nerv's, :math:`c = (\lambda p + q S - (1 - \lambda) q (\ell + 1))\, s`,
slope :math:`s = 1`.
"""

from typing import NamedTuple

from ..nerv.unit import DEFAULT_LAM, nerv_cost, nerv_force, nerv_offset
from ..rklsne.unit import R_P_FLOOR


class SNERVUnit(NamedTuple):
    r"""snerv: the Gaussian over all pairs, NeRV's mixture of KL divergences.

    Parameters
    ----------
    lam : float, default=0.9
        :math:`\lambda` in [0, 1]: the forward divergence's weight (1 is ssne).
    p_floor : float, default=2.220446049250313e-16
        :math:`p_\text{floor}`, positive: the floor of ``P`` inside the
        reverse divergence's log (machine epsilon, R smallvis's ``eps``).
    """

    lam: float = DEFAULT_LAM
    p_floor: float = R_P_FLOOR

    #: The C unit of the normalised engine (``methods/snerv/unit.h``).
    c_unit = "snerv"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
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
