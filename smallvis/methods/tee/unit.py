r"""t-distributed elastic embedding (R smallvis's ``tee``), the NumPy unit (the C side: ``unit.h``).

Elastic embedding's attraction and repulsion with the Cauchy weight
:math:`w = 1 / (1 + d^2)`, written as a generalised (I-) divergence
between :math:`V = N P` and :math:`\lambda`-weighted weights, scaled by
:math:`1 / N`.  With ``P`` summing to 1 (so :math:`V` sums to :math:`N`),

.. math::

    C &= \frac{1}{N} \sum_{i \ne j} \Bigl(v_{ij} \log \frac{v_{ij}}{w_{ij}}
        - \lambda v_{ij} + \lambda w_{ij}\Bigr) \\
      &= \sum_{i \ne j} \Bigl(p_{ij} \log(N p_{ij}) - \lambda p_{ij}
        + p_{ij} \log(1 + d_{ij}^2) + \frac{\lambda}{N} w_{ij}\Bigr).

The repulsion weight :math:`\lambda / N` depends on the number of points,
so the engines pass :math:`1 / N` as the pairs' ``noise`` (:meth:`TEEUnit.noise`),
as they pass Neg-t-SNE's.
"""

from typing import NamedTuple

import numpy as np


class TEEUnit(NamedTuple):
    r"""t-EE's Cauchy weight, attraction :math:`-p \log w` and repulsion :math:`\lambda w / N`.

    Parameters
    ----------
    lam : float
        :math:`\lambda \ge 0`, the weight of the repulsion (R smallvis's ``lambda``).
    """

    lam: float

    #: Its kernels' prefix and its C unit (``methods/tee/unit.h``).
    kernel = "tee"
    #: The cost of a pair depends on N (through ``noise``) beyond ``p`` and ``d2``.
    row_noise = True

    def weight(self, d2):
        r"""The output weight :math:`w = 1 / (1 + d^2)`."""
        return 1.0 / (1.0 + d2)

    def noise(self, row_sums, n_others):
        r""":math:`1 / N`, the scale of :math:`V = N P`, for every pair.

        Parameters
        ----------
        row_sums : ndarray
            :math:`\sum_k p_{ik}` of each row (only its shape is used).
        n_others : int
            The points a point is compared with: ``N - 1`` in a fit; the
            ``N`` training points for a new point (which joins ``N + 1``).

        Returns
        -------
        ndarray
            :math:`1 / (n_o + 1)`, shaped as ``row_sums``.
        """
        return np.full(np.shape(row_sums), 1.0 / (n_others + 1.0))

    def coefficient(self, p, d2, noise):
        r"""The pair coefficient :math:`\partial f / \partial d^2`.

        .. math::

            c_{ij} = w_{ij} \Bigl(p_{ij} - \frac{\lambda}{N} w_{ij}\Bigr),

        so that :math:`\partial C / \partial y_i = 4 \sum_j c_{ij} (y_i - y_j)`
        for a symmetric ``P`` (R smallvis's :math:`\frac{4}{N} W (V - \lambda W)`).

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        w = 1.0 / (1.0 + d2)
        return w * (p - self.lam * noise * w), None

    def cost_term(self, p, d2, noise):
        r"""The pair's term, :math:`f(p, d^2) = p \log(N p) - \lambda p + p \log(1 + d^2) + \lambda w / N`."""
        return self.edge_term(p, d2, noise) + self.pair_term(d2, noise)

    def pair_term(self, d2, noise):
        r"""The term of a pair without affinity, :math:`f(0, d^2) = \lambda w / N`."""
        return self.lam * noise / (1.0 + d2)

    def edge_term(self, p, d2, noise):
        r"""What a stored ``p`` adds: :math:`p \log(N p) - \lambda p + p \log(1 + d^2)` (0 at :math:`p = 0`)."""
        positive = p > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            term = p * (np.log(p) - np.log(noise)) - self.lam * p + p * np.log1p(d2)
        return np.where(positive, term, 0.0)
