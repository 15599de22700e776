r"""asne on the row-normalised symmetrised P, the NumPy unit (the C side: ``unit.h``).

asne's unit (:class:`smallvis.methods.asne.unit.ASNEUnit`): the Gaussian
weight normalised over each row and the KL divergence
:math:`f(p, q) = p \log(p / q)`; only ``P`` differs (the method's entry).
"""

from typing import NamedTuple

from .._common import kl_cost, kl_force, kl_offset


class ARSRSNEUnit(NamedTuple):
    """arsrsne: asne's Gaussian per row and KL divergence (no parameters)."""

    #: The C unit of the normalised engine (``methods/arsrsne/unit.h``).
    c_unit = "arsrsne"
    #: The normalisation of ``q``: over each row.
    normalisation = "rows"
    #: The engine normalises ``log w`` (the Gaussian underflows far from a point).
    log_domain = True
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def log_weight(self, d2):
        r"""The log of the output weight, :math:`\log w = -d^2`."""
        return -d2

    def slope_at(self, d2):
        r"""The slope :math:`-\partial \log w / \partial d^2 = 1`."""
        return 1.0
