r"""Global t-SNE (R smallvis's ``gsne``), the NumPy units (the C side: ``unit.h``).

t-SNE's KL divergence plus :math:`\lambda` times a second one, between a
global affinity :math:`\hat{P}` of the input distances of all pairs (the
second per-pair input) and its output twin :math:`\hat{Q}`, each
normalised over all pairs:

.. math::

    C = \mathrm{KL}(P \| Q) + \lambda\, \mathrm{KL}(\hat{P} \| \hat{Q}),
    \qquad
    \hat{q}_{ij} = \frac{\hat{w}_{ij}}{\sum_{k \ne l} \hat{w}_{kl}},
    \qquad
    \hat{w}_{ij} = 1 + d_{ij}^2 = \frac{1}{w_{ij}}.

:class:`GSNEUnit` is the method's unit, with :math:`\hat{P}` as its field
``global_affinities``; its parts are t-SNE's unit on ``P``
(:class:`smallvis.methods.tsne.unit.TSNEUnit`) and :class:`GSNEGlobalUnit`
on :math:`\hat{P}`, which the normalised engine runs with the weight
:math:`\hat{w}`.
"""

from typing import NamedTuple

import numpy as np

from .._common import kl_cost, kl_force, kl_offset
from ..tsne.unit import TSNEUnit


class GSNEGlobalUnit(NamedTuple):
    r"""The global KL divergence :math:`\mathrm{KL}(\hat{P} \| \hat{Q})`, :math:`\hat{w} = 1 + d^2`.

    The weight grows with the distance (the inverse of t-SNE's): far pairs
    get the larger :math:`\hat{q}`.  Its slope :math:`-\partial \log \hat{w}
    / \partial d^2 = -1 / (1 + d^2)` is negative, so that the KL force
    :math:`(\hat{p} - \hat{q})\, s` pulls a pair together where
    :math:`\hat{q} > \hat{p}`: the pair is farther apart in the map than
    the global affinities ask.
    """

    #: The C unit of the normalised engine (``methods/gsne/unit.h``).
    c_unit = "gsne_global"
    #: The normalisation of :math:`\hat{q}`: over all pairs.
    normalisation = "total"
    #: The engine normalises :math:`\hat{w}` itself (it cannot underflow).
    log_domain = False
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def weight(self, d2, out=None):
        r"""The output weight :math:`\hat{w} = 1 + d^2` (0 where :math:`d^2 = \infty`: the diagonal).

        Parameters
        ----------
        d2 : ndarray
            Squared distances.
        out : ndarray, optional
            Where to write the weights (may be ``d2`` itself).

        Returns
        -------
        ndarray
        """
        far = np.isinf(d2)
        w = np.add(d2, 1.0, out=out)
        w[far] = 0.0
        return w

    def slope_at(self, d2):
        r""":math:`-\partial \log \hat{w} / \partial d^2 = -1 / (1 + d^2)`."""
        return -1.0 / (1.0 + d2)


class GSNEUnit(NamedTuple):
    r"""Global t-SNE: t-SNE's KL on ``P`` plus :math:`\lambda` times the global KL on :math:`\hat{P}`.

    Parameters
    ----------
    lam : float
        :math:`\lambda \ge 0`, the weight of the global KL (R smallvis's ``lambda``).
    global_affinities : float or ndarray
        :math:`\hat{P}`, the second per-pair input: in a fit the ``N x N``
        matrix :math:`1 + r_{ij}^2` of the input distances, or a number for
        every pair; the engine divides it by its sum (a number is then the
        uniform distribution).  A transform's ``M x N`` rows keep their scale.
    """

    lam: float
    global_affinities: object

    #: The field that holds the second per-pair input (read by the engines,
    #: :func:`smallvis.methods._common.second_input_triplet`).
    second_input = "global_affinities"
    #: A fit's :math:`\hat{P}` is a distribution: the engine reads it over its sum.
    second_input_normalised = True

    def parts(self):
        r"""``(t-SNE on P, the global KL on P-hat, lambda)``."""
        return TSNEUnit(), GSNEGlobalUnit(), float(self.lam)
