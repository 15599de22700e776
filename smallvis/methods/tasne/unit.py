r"""t-distributed asymmetric SNE, the NumPy unit (the C side: ``unit.h``).

asne's conditional KL divergence with t-SNE's Cauchy weight in place of the
Gaussian, normalised over each row:

.. math::

    C = \sum_i \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}},
    \qquad
    q_{j|i} = \frac{w_{ij}}{\sum_{k \ne i} w_{ik}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

Its hooks of the normalised engine are asne's pattern
(:mod:`smallvis.methods.asne.unit`) with the Cauchy weight, whose slope
:math:`-\partial \log w / \partial d^2 = w` turns the KL pair coefficient
into :math:`c = (p_{j|i} - q_{j|i})\, w_{ij}`; the Cauchy weight does not
underflow, so the engine normalises ``w`` itself (``log_domain`` False).
"""

from typing import NamedTuple

import numpy as np

from .._common import kl_cost, kl_force, kl_offset


class TASNEUnit(NamedTuple):
    """t-ASNE: the Cauchy weight, normalised over each row, the KL divergence (no parameters)."""

    #: The C unit of the normalised engine (``methods/tasne/unit.h``).
    c_unit = "tasne"
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
