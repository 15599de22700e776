r"""t-ASNE on row-normalised symmetrised affinities, the NumPy unit (the C side: ``unit.h``).

The Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over each row,
and the KL divergence :math:`f(p, q) = p \log(p / q)` with its hooks
(:func:`~smallvis.methods._common.kl_cost` and kin): the offset :math:`S =
-\text{mass}` (-1 over each row of ``P`` in a fit) and the pair
coefficient :math:`c = (p + S q)\, s` with the Cauchy slope :math:`s = w`.
"""

from typing import NamedTuple

import numpy as np

from .._common import kl_cost, kl_force, kl_offset


class TRSRSNEUnit(NamedTuple):
    """trsrsne: the Cauchy weight normalised over each row, the KL divergence (no parameters)."""

    #: The C unit of the normalised engine (``methods/trsrsne/unit.h``).
    c_unit = "trsrsne"
    #: The normalisation of ``q``: over each row.
    normalisation = "rows"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def weight(self, d2, out=None):
        r"""The output weight :math:`w = 1 / (1 + d^2)` (0 where :math:`d^2 = \infty`).

        Parameters
        ----------
        d2 : ndarray
            Squared distances.
        out : ndarray, optional
            Where to write the weights (may be ``d2`` itself).

        Returns
        -------
        ndarray
        """
        w = np.add(d2, 1.0, out=out)
        return np.reciprocal(w, out=w if out is not None else None)

    def log_weight(self, d2):
        r"""The log of the output weight, :math:`\log w = -\mathrm{log1p}(d^2)`."""
        return -np.log1p(d2)

    def slope_at(self, d2):
        r"""The slope :math:`-\partial \log w / \partial d^2 = 1 / (1 + d^2) = w`."""
        return 1.0 / (1.0 + d2)
