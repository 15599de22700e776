r"""NeRV on the row-normalised symmetrised P, the NumPy unit (the C side: ``unit.h``).

nerv's unit (:class:`smallvis.methods.nerv.unit.NERVUnit`): the Gaussian
weight normalised over each row and

.. math::

    f(p, q) = \lambda\, p \log \frac{p}{q}
        + (1 - \lambda)\, q \log \frac{q}{\max(p, p_\text{floor})};

only ``P`` differs (the method's entry).
"""

from typing import NamedTuple

from ..nerv.unit import DEFAULT_LAM, nerv_cost, nerv_force, nerv_offset
from ..rklsne.unit import R_P_FLOOR


class RSRNERVUnit(NamedTuple):
    r"""rsrnerv: nerv's Gaussian per row and mixed divergence.

    Parameters
    ----------
    lam : float, default=0.9
        :math:`\lambda` in [0, 1]: the forward divergence's weight (1 is arsrsne).
    p_floor : float, default=2.220446049250313e-16
        :math:`p_\text{floor}`, positive: the floor of ``P`` inside the
        reverse divergence's log (machine epsilon, R smallvis's ``eps``).
    """

    lam: float = DEFAULT_LAM
    p_floor: float = R_P_FLOOR

    #: The C unit of the normalised engine (``methods/rsrnerv/unit.h``).
    c_unit = "rsrnerv"
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
