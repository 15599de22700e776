r"""SKD t-SNE, the NumPy unit (the C side: ``unit.h``): t-SNE's Cauchy weight and KL divergence.

The Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over all pairs,
and the SNE family's KL hooks (:func:`smallvis.methods._common.kl_cost`),
the numbers of :class:`smallvis.methods.tsne.unit.TSNEUnit` with ``dof = 1``;
the method differs from t-SNE in its ``P`` only.
"""

from typing import NamedTuple

import numpy as np

from .._common import kl_cost, kl_force, kl_offset


class SKDTSNEUnit(NamedTuple):
    r"""skdtsne: the Cauchy weight normalised over all pairs, KL(P || Q) (no parameters)."""

    #: The C unit of the normalised engine (``methods/skdtsne/unit.h``).
    c_unit = "skdtsne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False
    #: The cost and its derivative: the KL divergence.
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
