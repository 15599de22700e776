r"""LargeVis (Tang et al. 2016), the NumPy unit: both output weights.

A unit holds a method's maths once: its parameters (the fields of a
:class:`~typing.NamedTuple`), its output weight, the exact pair coefficient,
the cost terms and the stochastic (SGD) coefficients.  The engines of
:mod:`smallvis.backends` take a unit and never spell out a formula; the C
unit ``unit.h`` beside this file holds the same maths for the compiled
kernels.

The cost (docs/theory.md §3.5), summed over ordered pairs :math:`i \ne j`,

.. math::

    C = -\sum_{i \ne j} p_{ij} \log w_{ij} - \gamma \sum_{i \ne j} \log(1 - w_{ij}),

with the scaled Cauchy weight :math:`w = 1 / (1 + \alpha d^2)`
(:class:`LargeVisUnit`; ``alpha = 1`` is t-SNE's kernel) or the exponential
weight :math:`w = 1 / (1 + e^{d^2})` (:class:`LargeVisExpUnit`).  Every
function takes arrays (or floats) that broadcast together.
"""

import numpy as np
from typing import NamedTuple

from .._common import log_one_minus_w


class LargeVisUnit(NamedTuple):
    r"""LargeVis with the scaled Cauchy weight :math:`w = 1 / (1 + \alpha d^2)`.

    Parameters
    ----------
    gamma : float
        Weight of the repulsion of every pair.
    eps : float
        Softening of the repulsive :math:`1 / d^2` in the gradient (0: exact).
    alpha : float
        Scale of the weight (1: the Cauchy weight).
    """

    gamma: float
    eps: float
    alpha: float

    #: The stochastic loop's coefficient (``SgdProblem.coefficient``): the
    #: Cauchy pair, which t-UMAP's loop uses too.
    sgd_coefficient = "cauchy"
    #: Its kernels' prefix and its C unit (``methods/largevis/unit.h``).
    kernel = "largevis"
    #: Whether a pair's cost depends on its row beyond ``p`` and ``d2``.
    row_noise = False

    def weight(self, d2):
        r"""The output weight :math:`w = 1 / (1 + \alpha d^2)`."""
        return 1.0 / (1.0 + self.alpha * d2)

    def coefficient(self, p, d2, noise=None):
        r"""The exact pair coefficient :math:`c = \partial f / \partial d^2`.

        .. math::

            c_{ij} = \alpha w_{ij} p_{ij} - \frac{\gamma w_{ij}}{d_{ij}^2 + \epsilon},

        so that, for a symmetric ``P``, :math:`\partial C / \partial y_i = 4
        \sum_j c_{ij} (y_i - y_j)`.  Exact when ``eps = 0``; LargeVis uses
        ``eps = 0.1``.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        w = self.weight(d2)
        return self.alpha * w * p - self.gamma * w / (d2 + self.eps), None

    def cost_term(self, p, d2, noise=None):
        r"""The pair's cost :math:`f(p, d^2) = p \log(1 + \alpha d^2) - \gamma \log(1 - w)`."""
        U = self.alpha * d2
        return p * np.log1p(U) - self.gamma * log_one_minus_w(U)

    def pair_term(self, d2, noise=None):
        r"""The cost of a pair without affinity, :math:`f(0, d^2) = -\gamma \log(1 - w)`."""
        return -self.gamma * log_one_minus_w(self.alpha * d2)

    def edge_term(self, p, d2, noise=None):
        r"""What a stored ``p`` adds: :math:`f(p, d^2) - f(0, d^2) = p \log(1 + \alpha d^2)`."""
        return p * np.log1p(self.alpha * d2)

    def sgd_unit(self, n_others, nu):
        """What the stochastic loop calls: the unit itself (it reads ``gamma`` and ``eps``).

        Its coefficients are those of ``alpha = 1`` (the LargeVis
        reference); ``n_others`` and ``nu`` are unused.
        """
        return self

    def sgd_attract(self, d2, q):
        r"""Attraction of a positive sample, :math:`c_a = -2 / (1 + d^2)`.

        The sample moves the head by :math:`\rho_e c_a (y_i - y_j)`, with
        :math:`\rho_e` the learning rate of epoch :math:`e` (not the
        kernel's :math:`\alpha`).

        Returns
        -------
        c : float
        dq : float
            0: no learned scalar.
        """
        return -2.0 / (1.0 + d2), 0.0

    def sgd_repel(self, d2, q):
        r"""Repulsion of a negative sample, :math:`c_r = 2 \gamma / ((\epsilon + d^2)(1 + d^2))`.

        Returns
        -------
        c : float
        dq : float
            0: no learned scalar.
        """
        return 2.0 * self.gamma / ((self.eps + d2) * (1.0 + d2)), 0.0


class LargeVisExpUnit(NamedTuple):
    r"""LargeVis with the exponential weight :math:`w = 1 / (1 + e^{d^2})`.

    Its cost is computed stably as :math:`-\log w = d^2 + \log(1 + e^{-d^2})`
    and :math:`-\log(1 - w) = \log(1 + e^{-d^2})`.

    Parameters
    ----------
    gamma : float
        Weight of the repulsion of every pair.
    """

    gamma: float

    #: Its kernels' prefix and its C unit (``methods/largevis/unit.h``).
    kernel = "largevis_exp"
    #: Whether a pair's cost depends on its row beyond ``p`` and ``d2``.
    row_noise = False

    def weight(self, d2):
        r"""The output weight :math:`w = 1 / (1 + e^{d^2})`."""
        return 1.0 / (1.0 + np.exp(d2))

    def coefficient(self, p, d2, noise=None):
        r"""The exact pair coefficient :math:`c = \partial f / \partial d^2`.

        .. math::

            c_{ij} = (1 - w_{ij}) p_{ij} - \gamma w_{ij}.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        w = self.weight(d2)
        return (1.0 - w) * p - self.gamma * w, None

    def cost_term(self, p, d2, noise=None):
        r"""The pair's cost, computed stably.

        .. math::

            f(p, d^2) = p \left(d^2 + \log(1 + e^{-d^2})\right) + \gamma \log(1 + e^{-d^2}).
        """
        softplus_neg = np.log1p(np.exp(-d2))
        return p * (d2 + softplus_neg) + self.gamma * softplus_neg

    def pair_term(self, d2, noise=None):
        r"""The cost of a pair without affinity, :math:`f(0, d^2) = \gamma \log(1 + e^{-d^2})`."""
        return self.gamma * np.log1p(np.exp(-d2))

    def edge_term(self, p, d2, noise=None):
        r"""What a stored ``p`` adds: :math:`p (d^2 + \log(1 + e^{-d^2}))`."""
        return p * (d2 + np.log1p(np.exp(-d2)))
