r"""NCVis (Artemenkov & Panov 2020), the NumPy unit (the C side: ``unit.h``).

Noise-contrastive estimation with a learned normalisation :math:`Q`
(docs/theory.md §3.8).  The model weight of a pair is

.. math::

    q_{ij} = e^{-Q} \hat q_{ij}, \qquad \hat q_{ij} = \frac{1}{1 + a d_{ij}^{2b}},

the noise of row :math:`i` is :math:`\nu p_n(i)` with
:math:`p_n(i) = \sum_k p_{ik} / (N - 1)`, and the objective, maximised
jointly in ``Y`` and :math:`Q` (the reported cost is :math:`-J`), is

.. math::

    J = \sum_{i \ne j} p_{ij} \log \frac{q_{ij}}{q_{ij} + \nu p_n(i)}
      + \nu \sum_{i \ne j} p_n(i) \log \frac{\nu p_n(i)}{q_{ij} + \nu p_n(i)}.

A pair's cost depends on its row through the noise, so the engines pass
``noise`` (:math:`\nu p_n(i)` of each pair's row, broadcastable against
``d2``) to every cost function.
"""

import math
from typing import NamedTuple

import numpy as np
from scipy import special

from .._common import pow_pos


class NCVisUnit(NamedTuple):
    r"""NCVis's model weight, noise and NCE objective.

    Parameters
    ----------
    Q : float
        The learned normalisation (the exact optimizer learns it with ``Y``;
        the stochastic loop passes its own value to each coefficient).
    nu : float
        Noise samples per positive sample.
    a, b : float
        The weight's shape (fitted to ``spread`` and ``min_dist``).
    """

    Q: float
    nu: float
    a: float
    b: float

    #: The stochastic loop's coefficient (``SgdProblem.coefficient``).
    sgd_coefficient = "ncvis"
    #: Its kernels' prefix and its C unit (``methods/ncvis/unit.h``).
    kernel = "ncvis"
    #: Whether a pair's cost depends on its row beyond ``p`` and ``d2``.
    row_noise = True
    #: The learned scalar: the gradient engines return the derivative in it.
    learned = ("Q",)

    def weight(self, d2):
        r"""The output weight :math:`\hat q = 1 / (1 + a d^{2b})` (before :math:`e^{-Q}`)."""
        return 1.0 / (1.0 + self.a * d2 ** self.b)

    def noise(self, row_sums, n_others):
        r"""The noise of each row, :math:`\nu p_n(i) = \nu \sum_k p_{ik} / n_{\text{others}}`.

        Parameters
        ----------
        row_sums : ndarray
            :math:`\sum_k p_{ik}` of each row.
        n_others : int
            The points a row's noise is spread over (``N - 1`` in a fit,
            the ``N`` training points for a new point).

        Returns
        -------
        ndarray
        """
        return self.nu * row_sums / n_others

    def coefficient(self, p, d2, noise):
        r"""The pair coefficient :math:`G = \partial f / \partial d^2`, and the derivative in Q.

        With :math:`s_{ij} = q_{ij} + \nu p_n(i)`:

        .. math::

            G_{ij} = \frac{\nu p_n(i)}{s_{ij}} (p_{ij} - q_{ij})\,
                a b\, d_{ij}^{2(b-1)} \hat q_{ij},
            \qquad
            \frac{\partial f_{ij}}{\partial Q} = \frac{\nu p_n(i)}{s_{ij}} (p_{ij} - q_{ij}),

        so that :math:`\partial (-J) / \partial y_i = 2 \sum_j (G_{ij} +
        G_{ji})(y_i - y_j)` (the pair's cost depends on its row).

        Returns
        -------
        c : ndarray
            :math:`G`.
        dq : ndarray
            :math:`\partial f / \partial Q` per pair.
        """
        q_hat = self.weight(d2)
        q = np.exp(-self.Q) * q_hat
        dq = noise / (q + noise) * (p - q)
        return dq * self.a * self.b * d2 ** (self.b - 1.0) * q_hat, dq

    def cost_term(self, p, d2, noise):
        r"""The pair's term of :math:`-J`.

        .. math::

            f(p, d^2) = -p \log \frac{q}{q + \nu p_n} - \nu p_n \log \frac{\nu p_n}{q + \nu p_n}.
        """
        q = np.exp(-self.Q) * self.weight(d2)
        return -(special.xlogy(p, q / (q + noise)) + special.xlogy(noise, noise / (q + noise)))

    def _log_q(self, d2):
        return -self.Q - np.log1p(self.a * d2 ** self.b)

    def pair_term(self, d2, noise):
        r"""The term of a pair without affinity, in the log domain.

        .. math::

            f(0, d^2) = \nu p_n \log \frac{q + \nu p_n}{\nu p_n},

        0 where :math:`\nu p_n = 0` (a point without edges).
        """
        with np.errstate(divide="ignore"):
            log_r = np.log(noise)
        return np.where(noise > 0, noise * (np.logaddexp(self._log_q(d2), log_r) - log_r), 0.0)

    def edge_term(self, p, d2, noise):
        r"""What a stored ``p`` adds: :math:`f(p, d^2) - f(0, d^2) = p \log((q + \nu p_n) / q)`."""
        log_q = self._log_q(d2)
        return p * (np.logaddexp(log_q, np.log(noise)) - log_q)

    def sgd_unit(self, n_others, nu):
        r"""What the stochastic loop calls in an epoch: ``nu`` is the epoch's noise count.

        ``Q`` is not read there: each coefficient receives the :math:`Q'`
        seen by the head (:math:`Q`, plus :math:`\log p_n(i)` with
        ``correct_q=True``); ``n_others`` is unused.
        """
        return self._replace(nu=nu)

    def _sgd_sample(self, d2, q):
        """NCVis's ``w' = e^{-Q'} q_hat / nu`` and the slope ``2 a b d^{2(b-1)} q_hat``.

        ``q`` is ``Q'``, the normalisation seen by the head; ``nu`` is the
        noise ratio of the running epoch, the number of negatives drawn per
        positive sample (the NCVis reference code divides by its current
        noise count).  The slope is 0 for coincident points (no force).
        """
        if d2 <= 0.0:
            return math.exp(-q) / self.nu, 0.0
        d2b = pow_pos(d2, self.b)
        q_hat = 1.0 / (1.0 + self.a * d2b)
        return math.exp(-q) * q_hat / self.nu, 2.0 * self.a * self.b * (d2b / d2) * q_hat

    def sgd_attract(self, d2, q):
        r"""Attraction of a positive sample: :math:`w^+ = 1 / (1 + w')`.

        .. math::

            c_a = -\frac{2ab\,d^{2(b-1)} \hat q}{1 + w'}, \qquad
            \frac{\partial J}{\partial Q'} = -w^+,

        with :math:`w' = e^{-Q'} \hat q / \nu`.

        Returns
        -------
        c, dq : float
        """
        w, slope = self._sgd_sample(d2, q)
        w_plus = 1.0 / (1.0 + w)
        return -w_plus * slope, -w_plus

    def sgd_repel(self, d2, q):
        r"""Repulsion of a noise sample: :math:`w^- = w' / (1 + w')` (written without overflow).

        .. math::

            c_r = \frac{w'}{1 + w'}\, 2ab\,d^{2(b-1)} \hat q, \qquad
            \frac{\partial J}{\partial Q'} = w^-.

        Returns
        -------
        c, dq : float
        """
        w, slope = self._sgd_sample(d2, q)
        w_minus = w / (1.0 + w) if w < 1.0 else 1.0 / (1.0 + 1.0 / w)
        return w_minus * slope, w_minus
