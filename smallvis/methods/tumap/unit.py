r"""t-UMAP, the NumPy unit (the C side: ``unit.h``): UMAP with ``a = b = 1``.

The fuzzy-set cross-entropy (docs/theory.md §3.7) with the Cauchy weight,

.. math::

    C = \sum_{i \ne j} \left[ v_{ij} \log \frac{v_{ij}}{w_{ij}}
        + (1 - v_{ij}) \log \frac{1 - v_{ij}}{1 - w_{ij}} \right],
    \qquad w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

Its stochastic loop is UMAP's with ``a = b = 1``, written as the Cauchy
coefficient of :class:`smallvis.methods.largevis.unit.LargeVisUnit` (the same numbers
without the exp and log of :math:`d^{2b}`).
"""

from typing import NamedTuple

from .._common import fuzzy_cost_term, fuzzy_edge_term, fuzzy_pair_term


class TUMAPUnit(NamedTuple):
    r"""t-UMAP's weight :math:`w = 1 / (1 + d^2)` and fuzzy cross-entropy.

    Parameters
    ----------
    eps : float
        Softening of :math:`1 - w` in the exact gradient (0: exact).
    """

    eps: float

    #: Its kernels' prefix and its C unit (``methods/tumap/unit.h``).
    kernel = "tumap"
    #: Whether a pair's cost depends on its row beyond ``p`` and ``d2``.
    row_noise = False

    def weight(self, d2):
        r"""The output weight :math:`w = 1 / (1 + d^2)`."""
        return 1.0 / (1.0 + d2)

    def coefficient(self, v, d2, noise=None):
        r"""The exact optimizer's pair coefficient (R smallvis's form).

        .. math::

            c_{ij} = (v_{ij} - w_{ij}) \frac{w_{ij}}{1 - w_{ij} + \epsilon},

        with :math:`1 - w = d^2 w` computed without cancellation.  Exact when
        ``eps = 0`` (then :math:`w / (1 - w) = 1 / d^2`, UMAP's form with
        ``a = b = 1``).

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        w = self.weight(d2)
        return (v - w) * w / (d2 * w + self.eps), None

    def cost_term(self, v, d2, noise=None):
        r"""The pair's fuzzy cross-entropy, :math:`u = d^2`.

        .. math::

            f(v, d^2) = v \log v + (1 - v) \log(1 - v) + v \log(1 + d^2)
                - (1 - v) \log(1 - w).
        """
        return fuzzy_cost_term(v, d2)

    def pair_term(self, d2, noise=None):
        r""":math:`f(0, d^2) = -\log(1 - w) = \log(1 + d^2) - \log d^2`."""
        return fuzzy_pair_term(d2)

    def edge_term(self, v, d2, noise=None):
        r""":math:`f(v, d^2) - f(0, d^2) = v \log v + (1 - v) \log(1 - v) + v \log d^2`."""
        return fuzzy_edge_term(v, d2)
