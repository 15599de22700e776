r"""Symmetric Jensen-Shannon embedding, the NumPy unit (the C side: ``unit.h``).

jse's elementwise cost and hooks (:mod:`smallvis.methods.jse.unit`) with
the Gaussian weight normalised over all pairs: the offset :math:`S =
\sum q \log(q / z) / \kappa` runs over every pair.
"""

from typing import NamedTuple

from ..jse.unit import jse_cost, jse_force, jse_offset


class SJSEUnit(NamedTuple):
    r"""sjse: the Gaussian weight normalised over all pairs, the mixture weight :math:`\kappa`.

    Parameters
    ----------
    kappa : float, default=0.5
        :math:`\kappa`, strictly between 0 and 1: the weight of ``P`` in the
        mixture :math:`z = \kappa p + (1 - \kappa) q`.
    """

    kappa: float = 0.5

    #: The C unit of the normalised engine (``methods/sjse/unit.h``).
    c_unit = "sjse"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
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
