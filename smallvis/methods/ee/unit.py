r"""Elastic embedding (R smallvis's ``ee``), the NumPy units (the C side: ``unit.h``).

The cost reads two per-pair inputs: the attraction the affinities ``P``,
the repulsion the weights :math:`v^-` of the input distances,

.. math::

    C = \sum_{i \ne j} p_{ij} d_{ij}^2
        + \lambda \sum_{i \ne j} v^-_{ij} e^{-d_{ij}^2}
      = -\sum_{i \ne j} p_{ij} \log w_{ij} + \lambda \sum_{i \ne j} v^-_{ij} w_{ij},
    \qquad w_{ij} = e^{-d_{ij}^2}.

:class:`EEUnit` is the method's unit, with the second input as its field
``repulsion_weights``; its two parts are pair units, the attraction
(:class:`EEAttractionUnit`, on ``P``) and the repulsion
(:class:`EERepulsionUnit`, on :math:`v^-`, weighted by :math:`\lambda`).
"""

from typing import NamedTuple

import numpy as np


class EEAttractionUnit(NamedTuple):
    r"""Elastic embedding's attraction :math:`f(p, d^2) = p\, d^2 = -p \log w`, on ``P``."""

    #: Its kernels' prefix and its C unit (``methods/ee/unit.h``).
    kernel = "ee_attraction"
    #: The cost of a pair depends on ``p`` and ``d2`` only.
    row_noise = False

    def weight(self, d2):
        r"""The output weight :math:`w = e^{-d^2}`."""
        return np.exp(-d2)

    def coefficient(self, p, d2, noise):
        r"""The pair coefficient :math:`c = \partial f / \partial d^2 = p`.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        return p + 0.0 * d2, None

    def cost_term(self, p, d2, noise):
        r"""The pair's term :math:`f(p, d^2) = p\, d^2`."""
        return self.edge_term(p, d2, noise) + self.pair_term(d2, noise)

    def pair_term(self, d2, noise):
        """The term of a pair without affinity: 0 (the repulsion is the other part's)."""
        return np.zeros_like(d2)

    def edge_term(self, p, d2, noise):
        r"""What a stored ``p`` adds: :math:`p\, d^2`."""
        return p * d2


class EERepulsionUnit(NamedTuple):
    r"""Elastic embedding's repulsion :math:`f(v, d^2) = v\, e^{-d^2}`, on the weights :math:`v^-`.

    It runs on the second input as the pair engine runs on a ``P``: each
    stored :math:`v^-_{ij}` is an entry; :math:`\lambda` multiplies its cost
    in :meth:`EEUnit.parts`.
    """

    #: Its kernels' prefix and its C unit (``methods/ee/unit.h``).
    kernel = "ee_repulsion"
    #: The cost of a pair depends on ``v`` and ``d2`` only.
    row_noise = False

    def weight(self, d2):
        r"""The output weight :math:`w = e^{-d^2}`."""
        return np.exp(-d2)

    def coefficient(self, p, d2, noise):
        r"""The pair coefficient :math:`c = \partial f / \partial d^2 = -v\, e^{-d^2}`.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        return -p * np.exp(-d2), None

    def cost_term(self, p, d2, noise):
        r"""The pair's term :math:`f(v, d^2) = v\, e^{-d^2}`."""
        return self.edge_term(p, d2, noise) + self.pair_term(d2, noise)

    def pair_term(self, d2, noise):
        """The term of a pair without a weight: 0."""
        return np.zeros_like(d2)

    def edge_term(self, p, d2, noise):
        r"""What a stored weight :math:`v` adds: :math:`v\, e^{-d^2}`."""
        return p * np.exp(-d2)


class EEUnit(NamedTuple):
    r"""Elastic embedding: attraction along ``P``, repulsion :math:`\lambda v^- w` of a second input.

    Parameters
    ----------
    lam : float
        :math:`\lambda \ge 0`, the repulsion's weight (R smallvis's ``lambda``).
    repulsion_weights : float or ndarray
        :math:`v^-`, the second per-pair input: R smallvis's input distances
        over their sum (``N x N`` in a fit, the new points' ``M x N`` rows
        in a transform), or a number for every pair (R's
        ``neg_weights = FALSE`` is 1).
    """

    lam: float
    repulsion_weights: object

    #: The field that holds the second per-pair input (read by the engines,
    #: :func:`smallvis.methods._common.second_input_triplet`).
    second_input = "repulsion_weights"

    def parts(self):
        r"""``(attraction on P, repulsion on v^-, lambda)``: :math:`C = C_+ + \lambda C_-`."""
        return EEAttractionUnit(), EERepulsionUnit(), float(self.lam)
