r"""t-ASNE with per-row output bandwidths, the NumPy unit (the C side: ``unit.h``).

The weight of the pair ``(i, j)`` is the Cauchy :math:`w_{ij} = 1 / (1 +
\beta_i d_{ij}^2)`, normalised over row ``i``, with the KL divergence of
each row.  The per-row precisions :math:`\beta_i` are the per-point field
``bandwidth``: the engines scale row ``i``'s squared distances by
:math:`\beta_i` before they call the hooks below and the pair
coefficients by :math:`\beta_i` after
(:func:`smallvis.methods._common.row_bandwidths`), so the hooks see
:math:`u = \beta_i d_{ij}^2`:

.. math::

    w = \frac{1}{1 + u}, \qquad -\frac{\partial \log w}{\partial u} = w,
    \qquad
    c_{ij} = \frac{\partial C}{\partial d_{ij}^2} = \beta_i\, w_{ij} (p_{j|i} - q_{j|i}).
"""

from typing import NamedTuple

import numpy as np

from .._common import kl_cost, kl_force, kl_offset


class BTASNEUnit(NamedTuple):
    """t-ASNE with each row's Cauchy precision :math:`\\beta_i` (``bandwidth``)."""

    #: :math:`\beta_i`: a positive number (every row) or an array, one per row of ``P``.
    bandwidth: object = 1.0

    #: The C unit of the normalised engine (``methods/btasne/unit.h``).
    c_unit = "btasne"
    #: The per-point fields, which the engines read (the C unit's loader does not).
    point_fields = ("bandwidth",)
    #: The normalisation of ``q``: over each row.
    normalisation = "rows"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def weight(self, u, out=None):
        r"""The output weight :math:`w = 1 / (1 + u)` at :math:`u = \beta_i d^2` (0 at ``inf``).

        Parameters
        ----------
        u : ndarray
            Squared distances times each row's bandwidth.
        out : ndarray, optional
            Where to write the weights (may be ``u`` itself).

        Returns
        -------
        ndarray
        """
        w = np.add(u, 1.0, out=out)
        return np.reciprocal(w, out=w if out is not None else None)

    def log_weight(self, u):
        r"""The log of the output weight, :math:`\log w = -\mathrm{log1p}(u)`."""
        return -np.log1p(u)

    def slope_at(self, u):
        r"""The slope :math:`-\partial \log w / \partial u = 1 / (1 + u) = w`."""
        return 1.0 / (1.0 + u)
