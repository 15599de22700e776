r"""t-SNE (van der Maaten & Hinton 2008), the NumPy unit (the C side: ``tsne.h``).

The output weight is the Cauchy (Student-t, one degree of freedom)
:math:`w = 1 / (1 + d^2)`, normalised over all pairs (docs/theory.md §3.4):

.. math::

    C = \mathrm{KL}(P \| Q) = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
    \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

Since :math:`-\partial \log w / \partial d^2 = w`, the gradient for a
symmetric ``P`` is

.. math::

    \frac{\partial C}{\partial y_i} =
    4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}\, (y_i - y_j).

A new point ``s`` placed against fixed rows uses its own row's
normalisation, :math:`q_{j|s} = w_{sj} / \sum_k w_{sk}` (as openTSNE), with
the gradient :math:`2 \sum_j (p_{j|s} - \pi_s q_{j|s})\, w_{sj}\, (y_s -
y_j)`, :math:`\pi_s = \sum_k p_{k|s}`.  The FFT-accelerated gradient
(FIt-SNE) interpolates the all-pairs sums of :math:`w` and :math:`w^2`.
"""

from typing import NamedTuple

import numpy as np


class TSNE(NamedTuple):
    """t-SNE: the Cauchy weight, normalised over all pairs (no parameters)."""

    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"

    def weight(self, d2, out=None):
        r"""The output weight :math:`w = 1 / (1 + d^2)` (0 where :math:`d^2 = \infty`).

        Parameters
        ----------
        d2 : ndarray
            Squared distances.
        out : ndarray, optional
            Where to write the weights; may be ``d2`` itself (the NumPy
            reference's N x N distances, which it no longer needs), so that
            no other N x N array is allocated.

        Returns
        -------
        ndarray
        """
        w = np.add(d2, 1.0, out=out)
        return np.reciprocal(w, out=w if out is not None else None)

    def slope(self, w):
        r""":math:`-\partial \log w / \partial d^2 = w`: the factor of a pair's KL force."""
        return w
