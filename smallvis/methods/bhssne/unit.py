r"""Heavy-tailed SSNE with per-row output bandwidths, the NumPy unit (the C side: ``unit.h``).

The weight of the pair ``(i, j)`` is Yang et al.'s heavy-tailed
:math:`w = (1 + \alpha u)^{-1/\alpha}` in :math:`u = \beta_i d_{ij}^2`,
normalised over all pairs, with the KL divergence.  The per-row
precisions :math:`\beta_i` are the per-point field ``bandwidth``: the
engines scale row ``i``'s squared distances by :math:`\beta_i` before
they call the hooks below and the pair coefficients by :math:`\beta_i`
after (:func:`smallvis.methods._common.row_bandwidths`), so the hooks see
:math:`u`:

.. math::

    \log w = -\frac{1}{\alpha} \log(1 + \alpha u),

    -\frac{\partial \log w}{\partial u} = \frac{1}{1 + \alpha u} = w^{\alpha},

    c_{ij} = \frac{\partial C}{\partial d_{ij}^2}
           = \beta_i\, w_{ij}^{\alpha} (p_{ij} - q_{ij}).

The engine normalises :math:`\log w` (small :math:`\alpha` tends to the
Gaussian :math:`e^{-u}`, which underflows far from a point).
"""

from typing import NamedTuple

import numpy as np

from .._common import kl_cost, kl_force, kl_offset


class BHSSNEUnit(NamedTuple):
    r"""Heavy-tailed SSNE with tail :math:`\alpha` and each row's precision :math:`\beta_i`.

    Parameters
    ----------
    alpha : float, default=0.5
        The heavy-tail exponent :math:`\alpha > 0`: 1 is the Cauchy weight,
        :math:`\alpha \to 0` the Gaussian.
    bandwidth : float or ndarray, default=1.0
        :math:`\beta_i`: a positive number (every row) or an array, one per row of ``P``.
    """

    alpha: float = 0.5
    bandwidth: object = 1.0

    #: The C unit of the normalised engine (``methods/bhssne/unit.h``).
    c_unit = "bhssne"
    #: The per-point fields, which the engines read (the C unit's loader does not).
    point_fields = ("bandwidth",)
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``log w`` (small ``alpha`` underflows like the Gaussian).
    log_domain = True
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def log_weight(self, u):
        r""":math:`\log w = -\mathrm{log1p}(\alpha u) / \alpha` at :math:`u = \beta_i d^2`."""
        return -np.log1p(np.multiply(self.alpha, u)) / self.alpha

    def slope_at(self, u):
        r"""The slope :math:`-\partial \log w / \partial u = 1 / (1 + \alpha u) = w^{\alpha}`."""
        return 1.0 / (1.0 + np.multiply(self.alpha, u))
