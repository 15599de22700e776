r"""JSE on the row-normalised symmetrised P, the NumPy unit (the C side: ``unit.h``).

jse's unit (:mod:`smallvis.methods.jse.unit`): the Gaussian weight
normalised over each row and

.. math::

    f(p, q) = \frac{p}{1 - \kappa} \log \frac{p}{z} + \frac{q}{\kappa} \log \frac{q}{z},
    \qquad z = \kappa p + (1 - \kappa) q;

only ``P`` differs (the method's entry).
"""

from typing import NamedTuple

from ..jse.unit import jse_cost, jse_force, jse_offset


class RSRJSEUnit(NamedTuple):
    r"""rsrjse: jse's Gaussian per row and mixture cost.

    Parameters
    ----------
    kappa : float, default=0.5
        :math:`\kappa`, strictly between 0 and 1: the weight of ``P`` in
        the mixture :math:`z = \kappa p + (1 - \kappa) q`.
    """

    kappa: float = 0.5

    #: The C unit of the normalised engine (``methods/rsrjse/unit.h``).
    c_unit = "rsrjse"
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
