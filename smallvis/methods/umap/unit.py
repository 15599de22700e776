r"""UMAP (McInnes, Healy & Melville 2018), the NumPy unit (the C side: ``unit.h``).

The fuzzy-set cross-entropy (docs/theory.md §3.6), over ordered pairs
:math:`i \ne j`,

.. math::

    C = \sum_{i \ne j} \left[ v_{ij} \log \frac{v_{ij}}{w_{ij}}
        + (1 - v_{ij}) \log \frac{1 - v_{ij}}{1 - w_{ij}} \right],
    \qquad w_{ij} = \frac{1}{1 + a \|y_i - y_j\|^{2b}},

constant terms (in ``v`` only) kept, :math:`0 \log 0 = 0`.  The exact
optimizer uses the compact gradient :math:`b (v - w) / (d^2 + \epsilon)`
(docs/theory.md §3.6), which combines the paper's attraction and repulsion
into one term, with :math:`\epsilon` in the shared denominator as R smallvis
computes it; the stochastic loop uses umap-learn's explicit split, with
:math:`\epsilon` in the repulsion only.

References
----------
L. McInnes, J. Healy and J. Melville (2018), "UMAP: Uniform Manifold
Approximation and Projection for Dimension Reduction", arXiv:1802.03426.

J. Melville, smallvis (R package), https://github.com/jlmelville/smallvis;
umap-learn, https://umap-learn.readthedocs.io.
"""

from typing import NamedTuple

from .._common import (fuzzy_cost_term, fuzzy_edge_term, fuzzy_pair_term, pow_pos)


class UMAPUnit(NamedTuple):
    r"""UMAP's weight :math:`w = 1 / (1 + a d^{2b})` and fuzzy cross-entropy.

    Parameters
    ----------
    a, b : float
        The weight's shape (fitted to ``spread`` and ``min_dist``).
    eps : float
        Softening of the gradient's :math:`1 / d^2` (0: exact).  The
        stochastic loop reads it as umap-learn's repulsive :math:`\epsilon`.
    gamma : float, default=1.0
        Repulsion strength of the stochastic loop (umap-learn's
        ``repulsion_strength``); the exact cost has none.
    """

    a: float
    b: float
    eps: float
    gamma: float = 1.0

    #: The stochastic loop's coefficient (``SgdProblem.coefficient``).
    sgd_coefficient = "umap"
    #: Its kernels' prefix and its C unit (``methods/umap/unit.h``).
    kernel = "umap"
    #: Whether a pair's cost depends on its row beyond ``p`` and ``d2``.
    row_noise = False

    def weight(self, d2):
        r"""The output weight :math:`w = 1 / (1 + a d^{2b})`."""
        return 1.0 / (1.0 + self.a * d2 ** self.b)

    def coefficient(self, v, d2, noise=None):
        r"""The exact optimizer's pair coefficient (compact form).

        .. math::

            c_{ij} = \frac{b\,(v_{ij} - w_{ij})}{d_{ij}^2 + \epsilon},

        so that :math:`\partial C / \partial y_i = 4 \sum_j c_{ij} (y_i -
        y_j)`.  Exact when ``eps = 0``, where it equals the explicit form
        :math:`a b d^{2(b-1)} w v - b (1 - v) w / d^2`.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        return self.b * (v - self.weight(d2)) / (d2 + self.eps), None

    def cost_term(self, v, d2, noise=None):
        r"""The pair's fuzzy cross-entropy, :math:`u = a d^{2b}`.

        .. math::

            f(v, d^2) = v \log v + (1 - v) \log(1 - v) + v \log(1 + u)
                - (1 - v) \log(1 - w).
        """
        return fuzzy_cost_term(v, self.a * d2 ** self.b)

    def pair_term(self, d2, noise=None):
        r""":math:`f(0, d^2) = -\log(1 - w)`."""
        return fuzzy_pair_term(self.a * d2 ** self.b)

    def edge_term(self, v, d2, noise=None):
        r""":math:`f(v, d^2) - f(0, d^2) = v \log v + (1 - v) \log(1 - v) + v \log(a d^{2b})`."""
        return fuzzy_edge_term(v, self.a * d2 ** self.b)

    def sgd_unit(self, n_others, nu):
        """What the stochastic loop calls: the unit itself (``n_others``, ``nu`` unused)."""
        return self

    def sgd_attract(self, d2, q):
        r"""umap-learn's attraction: :math:`c_a = -2ab\,d^{2(b-1)} / (1 + a d^{2b})`.

        0 for coincident points.  The sample moves the head by
        :math:`\rho_e c_a (y_i - y_j)`, with :math:`\rho_e` the learning
        rate of epoch :math:`e`.

        Returns
        -------
        c : float
        dq : float
            0: no learned scalar.
        """
        if d2 <= 0.0:
            return 0.0, 0.0
        d2b = pow_pos(d2, self.b)
        return -2.0 * self.a * self.b * (d2b / d2) / (1.0 + self.a * d2b), 0.0

    def sgd_repel(self, d2, q):
        r"""umap-learn's repulsion: :math:`c_r = 2 \gamma b / ((\epsilon + d^2)(1 + a d^{2b}))`.

        Returns
        -------
        c : float
        dq : float
            0: no learned scalar.
        """
        return (2.0 * self.gamma * self.b
                / ((self.eps + d2) * (1.0 + self.a * pow_pos(d2, self.b)))), 0.0
