r"""Neg-t-SNE (Damrich et al. 2023), the NumPy unit (the C side: ``unit.h``).

Negative sampling with a fixed normalisation :math:`\bar Z` (docs/theory.md
§3.10).  The model of a pair is the Cauchy weight over :math:`\bar Z`,

.. math::

    q_{ij} = \frac{\phi_{ij}}{\bar Z}, \qquad \phi_{ij} = \frac{1}{1 + d_{ij}^2}.

With :math:`m` negatives per positive sample drawn uniformly over the
:math:`N (N - 1)` ordered pairs (:math:`\xi = 1 / (N (N - 1))`) and ``P``
summing to 1, the expected negative-sampling loss is

.. math::

    C = \sum_{i \ne j} \left[ p_{ij} \log\left(1 + c (1 + d_{ij}^2)\right)
        + m \xi \log\left(1 + \frac{1}{c (1 + d_{ij}^2)}\right) \right],
    \qquad c = \bar Z m \xi.

:math:`\bar Z = N (N - 1) / m` (:math:`c = 1`) is UMAP-like, smaller
:math:`\bar Z` adds repulsion (t-SNE-like near t-SNE's partition function
:math:`\sum_{k \ne l} \phi_{kl}`).  :math:`\xi` depends on the number of
points, so the engines pass :math:`\gamma = m \xi` as the pairs' ``noise``
(:meth:`NegTSNEUnit.noise`), as they pass NCVis's noise.
"""

from typing import NamedTuple

import numpy as np


class NegTSNEUnit(NamedTuple):
    r"""Neg-t-SNE's model and expected negative-sampling loss.

    Parameters
    ----------
    z_bar : float
        The fixed normalisation :math:`\bar Z > 0` (the paper's).
    m : float
        Negatives per positive sample (``negative_sample_rate``).
    """

    z_bar: float
    m: float

    #: The stochastic loop's coefficient (``SgdProblem.coefficient``).
    sgd_coefficient = "negtsne"
    #: Its kernels' prefix and its C unit (``methods/negtsne/unit.h``).
    kernel = "negtsne"
    #: The cost of a pair depends on N (through ``noise``) beyond ``p`` and ``d2``.
    row_noise = True

    def weight(self, d2):
        r"""The model :math:`q = 1 / (\bar Z (1 + d^2))`."""
        return 1.0 / (self.z_bar * (1.0 + d2))

    def noise(self, row_sums, n_others):
        r"""The repulsion weight of every pair, :math:`\gamma = m \xi = m / (n_o (n_o + 1))`.

        :math:`n_o` is ``n_others`` below and :math:`m` the negatives per
        positive (``negative_sample_rate``).

        Parameters
        ----------
        row_sums : ndarray
            :math:`\sum_k p_{ik}` of each row (only its shape is used).
        n_others : int
            The points a point is compared with: ``N - 1`` in a fit, so that
            :math:`\xi = 1 / (N (N - 1))`; the ``N`` training points for a
            new point (which joins ``N + 1`` points).

        Returns
        -------
        ndarray
            :math:`\gamma`, shaped as ``row_sums``.
        """
        return np.full(np.shape(row_sums), self.m / (n_others * (n_others + 1.0)))

    def coefficient(self, p, d2, noise):
        r"""The pair coefficient :math:`k_{ij} = \partial f / \partial d^2`.

        With the per-pair constant :math:`c = \bar Z \gamma` of the module
        docstring (the other units call their pair coefficient :math:`c_{ij}`;
        here :math:`c` is taken),

        .. math::

            k_{ij} = \frac{\phi_{ij} (c\, p_{ij} - \gamma \phi_{ij})}{\phi_{ij} + c},
            \qquad \phi = \frac{1}{1 + d^2},

        so that :math:`\partial C / \partial y_i = 4 \sum_j k_{ij} (y_i - y_j)`.

        Returns
        -------
        k : ndarray
        dq : None
            No learned scalar.
        """
        phi = 1.0 / (1.0 + d2)
        c = self.z_bar * noise
        return phi * (c * p - noise * phi) / (phi + c), None

    def cost_term(self, p, d2, noise):
        r"""The pair's term.

        .. math::

            f(p, d^2) = p \log(1 + c (1 + d^2)) + \gamma \log\left(1 + \frac{1}{c (1 + d^2)}\right).
        """
        return self.edge_term(p, d2, noise) + self.pair_term(d2, noise)

    def pair_term(self, d2, noise):
        r"""The term of a pair without affinity, :math:`\gamma \log(1 + 1 / (c (1 + d^2)))`."""
        return noise * np.log1p(1.0 / (self.z_bar * noise * (1.0 + d2)))

    def edge_term(self, p, d2, noise):
        r"""What a stored ``p`` adds: :math:`p \log(1 + c (1 + d^2))`."""
        return p * np.log1p(self.z_bar * noise * (1.0 + d2))

    def sgd_unit(self, n_others, nu):
        r"""What the stochastic loop calls: the per-pair constant :math:`c = \bar Z m / (n_o (n_o + 1))`.

        ``n_others`` is ``N - 1`` in a fit (the map's points but one) and
        ``N`` for new points against ``N`` training points, as in
        :meth:`noise`; ``m`` is the unit's, the whole number of negatives
        drawn per positive sample (``nu``, the same number, is not read).
        """
        return NegTSNESample(self.z_bar * (self.m / (n_others * (n_others + 1.0))))


class NegTSNESample(NamedTuple):
    r"""Neg-t-SNE's stochastic coefficients at the per-pair constant :math:`c = \bar Z m \xi`.

    Parameters
    ----------
    c : float
    """

    c: float

    def weight(self, d2):
        r"""The Cauchy weight :math:`\phi = 1 / (1 + d^2)` (the model up to :math:`\bar Z`)."""
        return 1.0 / (1.0 + d2)

    def sgd_attract(self, d2, q):
        r"""Attraction of a positive sample, descent on :math:`\log(1 + c (1 + d^2))`.

        .. math::

            c_a = -\frac{2 c}{1 + c (1 + d^2)}.

        Returns
        -------
        c : float
        dq : float
            0: no learned scalar.
        """
        return -2.0 * self.c / (1.0 + self.c * (1.0 + d2)), 0.0

    def sgd_repel(self, d2, q):
        r"""Repulsion of a negative sample, descent on :math:`\log(1 + 1 / (c (1 + d^2)))`.

        .. math::

            c_r = \frac{2}{(1 + d^2)(1 + c (1 + d^2))}.

        Returns
        -------
        c : float
        dq : float
            0: no learned scalar.
        """
        return 2.0 / ((1.0 + d2) * (1.0 + self.c * (1.0 + d2))), 0.0
