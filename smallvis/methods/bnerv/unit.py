r"""NeRV with per-row output bandwidths, the NumPy unit (the C side: ``unit.h``).

nerv's elementwise cost (:mod:`smallvis.methods.nerv.unit`)

.. math::

    f(p, q) = \lambda\, p \log \frac{p}{q}
        + (1 - \lambda)\, q \log \frac{q}{\max(p, p_\text{floor})},

with the weight :math:`w_{ij} = \exp(-\beta_i d_{ij}^2)` normalised over
row ``i``.  The per-row precisions :math:`\beta_i` are the per-point field
``bandwidth`` (``point_fields``), which the normalised engines apply
themselves (:func:`smallvis.methods._common.row_bandwidths`): the hooks see
:math:`u = \beta_i d_{ij}^2`, are nerv's Gaussian in :math:`u`, and the
engine multiplies each pair coefficient by :math:`\beta_i`,

.. math::

    c_{ij} = \frac{\partial C}{\partial d_{ij}^2}
           = \beta_i \bigl(\lambda p + q S_i - (1 - \lambda) q (\ell + 1)\bigr).
"""

from typing import NamedTuple

from ..nerv.unit import DEFAULT_LAM, nerv_cost, nerv_force, nerv_offset
from ..rklsne.unit import R_P_FLOOR


class BNERVUnit(NamedTuple):
    r"""bnerv: nerv's unit with each row's Gaussian precision :math:`\beta_i`.

    Parameters
    ----------
    lam : float, default=0.9
        :math:`\lambda` in [0, 1]: the forward divergence's weight (1 is basne).
    p_floor : float, default=2.220446049250313e-16
        :math:`p_\text{floor}`, positive: the floor of ``P`` inside the
        reverse divergence's log (machine epsilon, R smallvis's ``eps``).
    bandwidth : float or ndarray, default=1.0
        :math:`\beta_i`: a positive number (every row) or an array, one per
        row of ``P``.
    """

    lam: float = DEFAULT_LAM
    p_floor: float = R_P_FLOOR
    bandwidth: object = 1.0

    #: The C unit of the normalised engine (``methods/bnerv/unit.h``).
    c_unit = "bnerv"
    #: The per-point fields, which the engines read (the C unit's loader does not).
    point_fields = ("bandwidth",)
    #: The normalisation of ``q``: over each row.
    normalisation = "rows"
    #: The engine normalises ``log w`` (the Gaussian underflows far from a point).
    log_domain = True

    cost = nerv_cost
    offset = nerv_offset
    force = nerv_force

    def log_weight(self, u):
        r"""The log of the output weight at :math:`u = \beta_i d^2`: :math:`\log w = -u`."""
        return -u

    def slope_at(self, u):
        r"""The slope :math:`-\partial \log w / \partial u = 1`."""
        return 1.0
