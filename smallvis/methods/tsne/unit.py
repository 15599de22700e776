r"""t-SNE (van der Maaten & Hinton 2008), the NumPy unit (the C side: ``unit.h``).

The output weight is the heavy-tailed kernel of Kobak et al. (2019,
"Heavy-tailed kernels reveal a finer cluster structure in t-SNE
visualisations"), with :math:`\alpha` = ``dof`` > 0, normalised over all
pairs (docs/theory.md §3.4):

.. math::

    C = \mathrm{KL}(P \| Q) = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
    \qquad
    q_{ij} = \frac{w_{ij}}{\sum_{k \ne l} w_{kl}},
    \qquad
    w_{ij} = \Bigl(1 + \frac{\|y_i - y_j\|^2}{\alpha}\Bigr)^{-\alpha}.

:math:`\alpha = 1` (the default) is t-SNE's Cauchy (Student-t, one degree
of freedom) weight :math:`1 / (1 + d^2)`; :math:`\alpha < 1` has heavier
tails; :math:`\alpha \to \infty` tends to the Gaussian :math:`e^{-d^2}` of
symmetric SNE.  Since :math:`-\partial \log w / \partial d^2 = 1 / (1 +
d^2/\alpha) = w^{1/\alpha}`, the gradient for a symmetric ``P`` is

.. math::

    \frac{\partial C}{\partial y_i} =
    4 \sum_{j \ne i} (p_{ij} - q_{ij})\, w_{ij}^{1/\alpha}\, (y_i - y_j).

A new point ``s`` placed against fixed rows uses its own row's
normalisation, :math:`q_{j|s} = w_{sj} / \sum_k w_{sk}` (as openTSNE), with
the gradient :math:`2 \sum_j (p_{j|s} - \pi_s q_{j|s})\, w_{sj}^{1/\alpha}\,
(y_s - y_j)`, :math:`\pi_s = \sum_k p_{k|s}`.  The FFT-accelerated gradient
(FIt-SNE) interpolates the all-pairs sums of :math:`w` and
:math:`w^{1 + 1/\alpha}` (:meth:`TSNE.repulsion_kernel`).  Its hooks of
the normalised engine are asne's pattern (:mod:`smallvis.methods.asne`),
with :math:`\alpha = 1` normalising ``w`` itself and any other
:math:`\alpha` its log.
"""

from typing import NamedTuple

import numpy as np

from .._common import kl_cost, kl_force, kl_offset


class TSNEUnit(NamedTuple):
    r"""t-SNE with the heavy-tailed weight :math:`(1 + d^2/\alpha)^{-\alpha}`, normalised over all pairs.

    Parameters
    ----------
    dof : float, default=1.0
        :math:`\alpha` > 0, the kernel's degree-of-freedom parameter as in
        openTSNE: 1 is t-SNE's Cauchy weight.  The method accepts
        :math:`10^{-8} \le \alpha < \infty`
        (``smallvis.methods.tsne.method.DOF_MIN``): below the floor
        :math:`d^2/\alpha` overflows on ordinary layouts, and the limit
        :math:`\alpha \to \infty` is method ``ssne``.
    """

    dof: float = 1.0

    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    @property
    def c_unit(self):
        """The C unit of the normalised engine (``methods/tsne/unit.h``): the Cauchy ``tsne`` or ``tsne_dof``."""
        return "tsne" if self.dof == 1.0 else "tsne_dof"

    @property
    def log_domain(self):
        """Whether the engine normalises ``log w``: for ``dof != 1`` (large ``dof`` underflows)."""
        return self.dof != 1.0

    def weight(self, d2, out=None):
        r"""The output weight :math:`w = (1 + d^2/\alpha)^{-\alpha}` (0 where :math:`d^2 = \infty`).

        With :math:`\alpha = 1` it is computed as :math:`1 / (1 + d^2)`.

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
        if self.dof == 1.0:
            w = np.add(d2, 1.0, out=out)
            return np.reciprocal(w, out=w if out is not None else None)
        return np.exp(self.log_weight(d2), out=out)

    def log_weight(self, d2):
        r""":math:`\log w = -\alpha \log(1 + d^2/\alpha)` (:math:`-\infty` where :math:`d^2 = \infty`).

        .. math::

            \log w = -\alpha\, \mathrm{log1p}(d^2 / \alpha).
        """
        return -self.dof * np.log1p(np.divide(d2, self.dof))

    def slope(self, w):
        r""":math:`-\partial \log w / \partial d^2 = w^{1/\alpha}`: the factor of a pair's KL force.

        With :math:`\alpha = 1` it is ``w`` itself.  Where ``w`` may
        underflow (large :math:`\alpha`, far pairs) use :meth:`slope_at`.
        """
        return w if self.dof == 1.0 else np.power(w, 1.0 / self.dof)

    def slope_at(self, d2):
        r"""The slope of :meth:`slope` from the squared distances, without underflow.

        .. math::

            -\frac{\partial \log w}{\partial d^2} = \frac{1}{1 + d^2/\alpha}
            = w^{1/\alpha}.
        """
        return 1.0 / (1.0 + np.divide(d2, self.dof))

    def repulsion_kernel(self, d2):
        r"""The repulsion's kernel :math:`w\, w^{1/\alpha} = (1 + d^2/\alpha)^{-(\alpha + 1)}`.

        .. math::

            w^{1 + 1/\alpha} = \exp\bigl(-(\alpha + 1)\, \mathrm{log1p}(d^2/\alpha)\bigr).

        The FFT-accelerated gradient interpolates its all-pairs sums.
        """
        return np.exp(-(self.dof + 1.0) * np.log1p(np.divide(d2, self.dof)))
