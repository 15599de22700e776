r"""ballmmds, the NumPy units (the C side: ``unit.h``): knnmmds's stress and hinge, of a ball.

.. math::

    f = \max(0, r - d)^2 + [t > 0] \max(0, d - t)^2 ,

with :math:`r` the pair's input distance (``P``) and :math:`t` the same
distance inside the ball, 0 outside.  The units are knnmmds's
(:mod:`smallvis.methods.knnmmds.unit`) under their own kernel names; only
the neighbourhoods differ.
"""

from typing import NamedTuple

from ..knnmmds.unit import KNNMMDSAboveUnit, KNNMMDSBelowUnit


class BallMMDSBelowUnit(KNNMMDSBelowUnit):
    r"""knnmmds's part below the input distance, :math:`\max(0, r - d)^2`, on ``P``."""

    __slots__ = ()

    #: Its kernels' prefix and its C unit (``methods/ballmmds/unit.h``).
    kernel = "ballmmds_below"


class BallMMDSAboveUnit(KNNMMDSAboveUnit):
    r"""knnmmds's part above it inside the ball, :math:`[t > 0] \max(0, d - t)^2`, on :math:`t`."""

    __slots__ = ()

    #: Its kernels' prefix and its C unit (``methods/ballmmds/unit.h``).
    kernel = "ballmmds_above"


class BallMMDSUnit(NamedTuple):
    r"""Ball-MMDS: the stress below every input distance, and above it inside the ball.

    Parameters
    ----------
    neighbour_distances : float or ndarray
        :math:`t`, the second per-pair input: the input distances of the
        pairs inside the ball, 0 elsewhere, in the units of ``P`` (``N x
        N`` in a fit, the new points' ``M x N`` rows in a transform), or a
        number for every pair.
    """

    neighbour_distances: object

    #: The field that holds the second per-pair input (read by the engines,
    #: :func:`smallvis.methods._common.second_input_triplet`).
    second_input = "neighbour_distances"

    def parts(self):
        r"""``(below on P, above on t, 1)``: :math:`C = C_{<} + C_{>}`."""
        return BallMMDSBelowUnit(), BallMMDSAboveUnit(), 1.0
