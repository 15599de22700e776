r"""InfoNCE, "InfoNC-t-SNE" (Damrich et al. 2023), the NumPy unit (the C side: ``unit.h``).

A positive pair :math:`(i, j)` is drawn with probability :math:`p_{ij}` and
:math:`m` negatives :math:`k_1, \dots, k_m` uniformly (with replacement)
from the points other than :math:`i`; the sample's loss is the
cross-entropy of picking :math:`j` among the :math:`m + 1` candidates,

.. math::

    \ell = -\log \phi_{ij} + \log\Bigl(\phi_{ij} + \sum_{l=1}^m \phi_{i k_l}\Bigr),
    \qquad \phi_{ij} = \frac{1}{1 + d_{ij}^2},

and the expected objective (docs/theory.md §3.11) is

.. math::

    C = \sum_{i \ne j} p_{ij} \bigl[-\log \phi_{ij} + \mathrm{E} \log(\phi_{ij} + S_i)\bigr],

:math:`S_i` the sum of :math:`m` draws from :math:`\{\phi_{ik}: k \ne i\}`.
Frullani's integral :math:`\log a = \int_0^\infty (e^{-t} - e^{-a t})\,dt/t`
turns the expectation into one integral per pair, because the draws are
independent:

.. math::

    \mathrm{E} \log(\phi_{ij} + S_i) = \int_0^\infty
    \bigl(e^{-t} - e^{-\phi_{ij} t} M_i(t)^m\bigr) \frac{dt}{t},
    \qquad M_i(t) = \frac{1}{n_o} \sum_{k \ne i} e^{-t \phi_{ik}},

evaluated by the trapezoid rule in :math:`u = \log t` on a fixed lattice
(:func:`quadrature_nodes`).  Each row is first divided by its largest
weight :math:`s_i = \max_k \phi_{ik}` (``log a = log s + log(a / s)`` and
the expectation is linear), so that the argument lies in
:math:`(0, m + 1]` and the lattice only needs to reach as far right as the
row's smallest argument.
"""

from typing import NamedTuple

import numpy as np

#: Step of the trapezoid rule in u = log t.  Its relative error on
#: log a and 1/a is below 1e-15 for every a in [1e-10, 1e3] (0.3 gives
#: 1e-13, 0.35 gives 1e-11): docs/theory.md §3.11, tests/test_infonce.py.
QUADRATURE_STEP = 0.25
#: The lattice starts at u = -QUADRATURE_LEFT - log(m + 1): there the
#: integrands are below (m + 1) t = e^-37, about 1e-16.
QUADRATURE_LEFT = 37.0
#: and ends QUADRATURE_RIGHT past max(0, log(1 / a_min)): there e^{-a t}
#: is below exp(-e^4) = 2e-24.
QUADRATURE_RIGHT = 4.0


def quadrature_nodes(m, a_min):
    r"""The lattice :math:`u_k = k h` that covers every argument :math:`a \ge a_{min}`.

    Parameters
    ----------
    m : float
        Negatives per positive sample.
    a_min : float
        A lower bound of the (row-scaled) argument :math:`a = \phi_{ij} + S_i`, > 0.

    Returns
    -------
    t : ndarray
        :math:`t_k = e^{u_k}`, from :math:`u = -37 - \log(m + 1)` to
        :math:`\max(0, -\log a_{min}) + 4`; the trapezoid weight of every
        node is :data:`QUADRATURE_STEP` (the integrands vanish at both ends).
    """
    h = QUADRATURE_STEP
    lo = np.floor((-QUADRATURE_LEFT - np.log1p(m)) / h)
    hi = np.ceil((max(0.0, -np.log(a_min)) + QUADRATURE_RIGHT) / h)
    return np.exp(h * np.arange(lo, hi + 1.0))


class InfoNCEUnit(NamedTuple):
    r"""InfoNCE's expected loss over a row, and the stochastic step's coefficients.

    Parameters
    ----------
    m : float
        Negatives per positive sample (``negative_sample_rate``), a whole
        number >= 1.
    """

    m: float

    #: The stochastic loop's grouped step (``SgdProblem.coefficient``): the
    #: m negatives of a sample share the softmax denominator.
    sgd_grouped = "infonce"

    def weight(self, d2):
        r"""The Cauchy weight :math:`\phi = 1 / (1 + d^2)`."""
        return 1.0 / (1.0 + d2)

    def row_cost_and_slopes(self, phi, pos, p):
        r"""A row's expected loss and its derivatives in the row's weights.

        .. math::

            C_i = \sum_j p_{ij} \Bigl[-\log \tilde\phi_{ij} + h \sum_u
                  \bigl(\mathrm{expm1}(-t) - \mathrm{expm1}(-\tilde\phi_{ij} t + m \lambda(t))\bigr)\Bigr],

            \lambda(t) = \log M(t) = \mathrm{log1p}\Bigl(\frac{1}{n_o}\sum_k
                  \mathrm{expm1}(-\tilde\phi_k t)\Bigr),

        with :math:`\tilde\phi = \phi / s`, :math:`s = \max_k \phi_k`, and

        .. math::

            \frac{\partial C_i}{\partial \phi_k} &= \frac{1}{s}\Bigl[
              [k \in \mathrm{pos}]\, p_{ik}\Bigl(-\frac{1}{\tilde\phi_k}
                + h \sum_u t\, e^{-\tilde\phi_k t} M^m\Bigr) \\
              &\qquad + \frac{m}{n_o} h \sum_u t \sum_j p_{ij} e^{-\tilde\phi_{ij} t} M^{m-1}
                e^{-\tilde\phi_k t}\Bigr].

        Parameters
        ----------
        phi : ndarray, shape (n_o,)
            The weights of the row's candidates (every point but ``i``, or
            the training points of a new point), > 0.
        pos : ndarray of int
            Indices into ``phi`` of the positives.
        p : ndarray
            Their probabilities (> 0).

        Returns
        -------
        cost : float
        slopes : ndarray, shape (n_o,)
            :math:`\partial C_i / \partial \phi_k`.
        """
        m, n_o = self.m, len(phi)
        slopes = np.zeros(n_o)
        if len(pos) == 0:
            return 0.0, slopes
        if n_o == 1:  # the only candidate is the positive: every sample costs log(1 + m)
            return float(np.sum(p) * np.log1p(m)), slopes
        s = phi.max()
        ph = phi / s
        t = quadrature_nodes(m, ph[pos].min() + m * ph.min())
        h = QUADRATURE_STEP
        E = np.expm1(-np.outer(t, ph))                  # e^{-t phi_k} - 1, (T, n_o)
        with np.errstate(divide="ignore"):  # M(t) = 0 far right: log M = -inf, e^{..} = 0
            lam = np.log1p(np.maximum(E.mean(axis=1), -1.0))  # log M(t)
        X = -np.outer(t, ph[pos]) + m * lam[:, None]     # log(e^{-t phi_j} M^m)
        integral = h * np.sum(np.expm1(-t)[:, None] - np.expm1(X), axis=0)
        cost = float(np.sum(p * (-np.log(ph[pos]) + integral)))
        direct = p * (-1.0 / ph[pos] + h * (t @ np.exp(X)))
        lam_m1 = (m - 1.0) * lam if m > 1.0 else np.zeros_like(lam)
        G = t * (np.exp(-np.outer(t, ph[pos]) + lam_m1[:, None]) @ p)  # t F(t) M^{m-1}
        slopes[:] = (m / n_o) * h * (G @ (1.0 + E))
        np.add.at(slopes, pos, direct)
        return cost, slopes / s

    def sgd_unit(self, n_others, nu):
        """What the stochastic loop calls: the unit itself (the step needs only the distances)."""
        return self

    def sgd_group(self, d2_pos, d2_neg):
        r"""The grouped step of one sample: descent on its loss :math:`\ell`.

        With :math:`D = \phi_{ij} + \sum_l \phi_{ik_l}` (all at the current
        ``Y``), the head moves by :math:`\rho c (y_i - y_{other})` (:math:`\rho` the step size):

        .. math::

            c_a = -2 \phi_{ij} \Bigl(1 - \frac{\phi_{ij}}{D}\Bigr), \qquad
            c_{r,l} = \frac{2 \phi_{ik_l}^2}{D}.

        Parameters
        ----------
        d2_pos : float
        d2_neg : ndarray, shape (m,)

        Returns
        -------
        c_a : float
        c_r : ndarray, shape (m,)
        """
        phi_pos = 1.0 / (1.0 + d2_pos)
        phi_neg = 1.0 / (1.0 + np.asarray(d2_neg, dtype=np.float64))
        total = phi_pos
        for value in phi_neg:  # in draw order, as the loop sums
            total += value
        return -2.0 * phi_pos * (1.0 - phi_pos / total), 2.0 * phi_neg * phi_neg / total
