r"""u-SNE, the NumPy unit (the C side: ``unit.h``): t-SNE with UMAP's output curve.

The weight of UMAP's curve family, normalised over all pairs, and the KL
divergence (the SNE family's hooks, :func:`smallvis.methods._common.kl_cost`):

.. math::

    w = \frac{1}{1 + t}, \quad t = a\, d^{2b},
    \qquad
    s = -\frac{\partial \log w}{\partial d^2} = \frac{b\, t\, w}{d^2}
      = \frac{b\, (1 - w)}{d^2}.

The gradient kernel uses :math:`s = b / ((1 + 1/t)(d^2 + \epsilon))`, R
smallvis's :math:`b (1 - w) / (d^2 + \epsilon)` written without the
cancellation of :math:`1 - w`, which is the slope above for
:math:`\epsilon = 0`; it is 0 at :math:`d^2 = \infty` (the diagonal) and
at :math:`d^2 = 0`, where a pair has no direction (for :math:`b > 1/2`
the pair's force vector, :math:`s\, (y_i - y_j)`, tends to 0 there).
"""

from typing import NamedTuple

import numpy as np

from .._common import kl_cost, kl_force, kl_offset


class USNEUnit(NamedTuple):
    r"""usne: the weight :math:`1 / (1 + a d^{2b})` normalised over all pairs, KL(P || Q).

    Parameters
    ----------
    a, b : float
        The curve's parameters, positive (fitted to ``spread`` and
        ``min_dist`` by the method when not given).
    eps : float
        :math:`\epsilon \ge 0` in the slope's denominator (0: the exact
        gradient of the cost).
    """

    a: float
    b: float
    eps: float

    #: The C unit of the normalised engine (``methods/usne/unit.h``).
    c_unit = "usne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the weight falls as a power of d2: no underflow).
    log_domain = False
    #: The cost and its derivative: the KL divergence.
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def weight(self, d2, out=None):
        r"""The output weight :math:`w = 1 / (1 + a d^{2b})` (0 where :math:`d^2 = \infty`).

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
        w = np.power(d2, self.b, out=out)
        w *= self.a
        w += 1.0
        return np.reciprocal(w, out=w)

    def log_weight(self, d2):
        r"""The log of the output weight, :math:`\log w = -\mathrm{log1p}(a d^{2b})`."""
        return -np.log1p(self.a * np.power(d2, self.b))

    def slope_at(self, d2):
        r"""The slope :math:`s = b / ((1 + 1/t)(d^2 + \epsilon))`, :math:`t = a d^{2b}`.

        .. math::

            s = \frac{b\, (1 - w)}{d^2 + \epsilon}
              = \frac{a\, b\, d^{2b}\, w}{d^2 + \epsilon},

        :math:`-\partial \log w / \partial d^2` when :math:`\epsilon = 0`;
        0 at :math:`d^2 = 0` and :math:`d^2 = \infty`.
        """
        d2 = np.asarray(d2, dtype=np.float64)
        t = self.a * np.power(d2, self.b)
        with np.errstate(divide="ignore", invalid="ignore"):
            s = self.b / ((1.0 + 1.0 / t) * (d2 + self.eps))
        return np.where(d2 > 0.0, s, 0.0)
