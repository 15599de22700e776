r"""Pseudo-separable t-SNE, the NumPy unit (the C side: ``unit.h``).

The generalised Kullback-Leibler divergence of ``P`` and the Cauchy weights
scaled by the held normaliser, :math:`q = e^{-Q} w`, summed over pairs:

.. math::

    f(p, d^2) = p \log \frac{p}{q} - p + q
              = p \log p + p \bigl(Q + \log(1 + d^2)\bigr) - p + e^{-Q} w.

Its pair coefficient :math:`c = \partial f / \partial d^2 = (p - q)\, w`
and derivative :math:`\partial f / \partial Q = p - q`.
"""

from typing import NamedTuple

import numpy as np
from scipy import special


class PSTSNEUnit(NamedTuple):
    r"""pstsne's held normaliser :math:`Z = e^{Q}` and generalised KL divergence.

    Parameters
    ----------
    Q : float
        :math:`\log Z`, set by the method's rule during a fit
        (``method.py``), fixed in the kernels.
    """

    Q: float

    #: Its kernels' prefix and its C unit (``methods/pstsne/unit.h``).
    kernel = "pstsne"
    #: Whether a pair's cost depends on its row beyond ``p`` and ``d2``.
    row_noise = False
    #: The learned scalar: the gradient engines return the derivative in it.
    learned = ("Q",)

    def weight(self, d2):
        r"""The Cauchy weight :math:`w = 1 / (1 + d^2)` (before :math:`e^{-Q}`)."""
        return 1.0 / (1.0 + d2)

    def coefficient(self, p, d2, noise=None):
        r"""The pair coefficient and the derivative in :math:`Q`.

        .. math::

            c = \frac{\partial f}{\partial d^2} = (p - q)\, w,
            \qquad
            \frac{\partial f}{\partial Q} = p - q,
            \qquad q = e^{-Q} w.

        Returns
        -------
        c, dq : ndarray
        """
        w = self.weight(d2)
        diff = p - np.exp(-self.Q) * w
        return diff * w, diff

    def cost_term(self, p, d2, noise=None):
        r""":math:`f(p, d^2) = p \log p + p (Q + \log(1 + d^2)) - p + e^{-Q} w`."""
        return self.edge_term(p, d2) + self.pair_term(d2)

    def pair_term(self, d2, noise=None):
        r"""The term of a pair without affinity, :math:`f(0, d^2) = q = e^{-Q} w`."""
        return np.exp(-self.Q) * self.weight(d2)

    def edge_term(self, p, d2, noise=None):
        r"""What a stored ``p`` adds: :math:`p \log p + p (Q + \log(1 + d^2)) - p`."""
        return special.xlogy(p, p) + p * (self.Q + np.log1p(d2)) - p
