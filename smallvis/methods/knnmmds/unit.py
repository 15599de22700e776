r"""knnmmds, the NumPy units (the C side: ``unit.h``): a stress with a hinge off the neighbourhoods.

The cost of a pair reads two inputs, its input distance :math:`r` (the
stored value of ``P``) and :math:`t`, the same distance when the pair is
inside a neighbourhood and 0 when it is not (the second per-pair input):

.. math::

    f = \max(0, r - d)^2 + [t > 0] \max(0, d - t)^2 ,

which is the raw stress :math:`(r - d)^2` inside a neighbourhood
(:math:`t = r`) and the one-sided hinge :math:`\max(0, r - d)^2` outside
it: a pair that the map puts farther apart than its input distance costs
nothing.  :class:`KNNMMDSUnit` is the method's unit, with :math:`t` as its
field ``neighbour_distances``; its two parts are pair units, the part
below the input distance (:class:`KNNMMDSBelowUnit`, on ``P``) and the
part above it (:class:`KNNMMDSAboveUnit`, on :math:`t`).
"""

from typing import NamedTuple

import numpy as np


class KNNMMDSBelowUnit(NamedTuple):
    r"""The stress of a pair nearer than its input distance: :math:`f(r, d^2) = \max(0, r - d)^2`, on ``P``."""

    #: Its kernels' prefix and its C unit (``methods/knnmmds/unit.h``).
    kernel = "knnmmds_below"
    #: The cost of a pair depends on ``r`` and ``d2`` only.
    row_noise = False

    def coefficient(self, r, d2, noise=None):
        r"""The pair coefficient :math:`c = \partial f / \partial d^2 = \min(0, 1 - r / d)`.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        return np.minimum(0.0, 1.0 - r / np.sqrt(d2)), None

    def cost_term(self, r, d2, noise=None):
        r""":math:`f(r, d^2) = \max(0, r - d)^2`."""
        return np.maximum(0.0, r - np.sqrt(d2)) ** 2

    def pair_term(self, d2, noise=None):
        r""":math:`f(0, d^2) = 0`: a pair at input distance 0 is never nearer than it."""
        return np.zeros_like(d2)

    def edge_term(self, r, d2, noise=None):
        r"""What a stored ``r`` adds: :math:`\max(0, r - d)^2`."""
        return self.cost_term(r, d2, noise)


class KNNMMDSAboveUnit(NamedTuple):
    r"""The stress of a neighbour farther than its input distance: :math:`f(t, d^2) = [t > 0] \max(0, d - t)^2`, on :math:`t`.

    It runs on the second input as the pair engine runs on a ``P``; a pair
    outside every neighbourhood has :math:`t = 0` and no term.
    """

    #: Its kernels' prefix and its C unit (``methods/knnmmds/unit.h``).
    kernel = "knnmmds_above"
    #: The cost of a pair depends on ``t`` and ``d2`` only.
    row_noise = False

    def coefficient(self, t, d2, noise=None):
        r"""The pair coefficient :math:`c = [t > 0] \max(0, 1 - t / d)`.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        return np.where(t > 0.0, np.maximum(0.0, 1.0 - t / np.sqrt(d2)), 0.0), None

    def cost_term(self, t, d2, noise=None):
        r""":math:`f(t, d^2) = [t > 0] \max(0, d - t)^2`."""
        return np.where(t > 0.0, np.maximum(0.0, np.sqrt(d2) - t) ** 2, 0.0)

    def pair_term(self, d2, noise=None):
        """The term of a pair outside every neighbourhood: 0."""
        return np.zeros_like(d2)

    def edge_term(self, t, d2, noise=None):
        r"""What a stored :math:`t` adds: :math:`[t > 0] \max(0, d - t)^2`."""
        return self.cost_term(t, d2, noise)


class KNNMMDSUnit(NamedTuple):
    r"""kNN-MMDS: the stress below every input distance, and above it inside the neighbourhoods.

    Parameters
    ----------
    neighbour_distances : float or ndarray
        :math:`t`, the second per-pair input: the input distances of the
        pairs inside a neighbourhood, 0 elsewhere, in the units of ``P``
        (``N x N`` in a fit, the new points' ``M x N`` rows in a
        transform), or a number for every pair.
    """

    neighbour_distances: object

    #: The field that holds the second per-pair input (read by the engines,
    #: :func:`smallvis.methods._common.second_input_triplet`).
    second_input = "neighbour_distances"

    def parts(self):
        r"""``(below on P, above on t, 1)``: :math:`C = C_{<} + C_{>}`."""
        return KNNMMDSBelowUnit(), KNNMMDSAboveUnit(), 1.0
