r"""mmds, the NumPy unit (the C side: ``unit.h``): the raw stress of one pair.

.. math::

    f(r, d^2) = (r - d)^2, \qquad d = \sqrt{d^2},

with :math:`r` the pair's input distance (the stored value of ``P``).
"""

from typing import NamedTuple

import numpy as np


class MMDSUnit(NamedTuple):
    r"""The squared error :math:`(r - d)^2` of an output distance, metric MDS.

    No parameters.
    """

    #: Its kernels' prefix and its C unit (``methods/mmds/unit.h``).
    kernel = "mmds"
    #: Whether a pair's cost depends on its row beyond ``r`` and ``d2``.
    row_noise = False

    def coefficient(self, r, d2, noise=None):
        r"""The pair coefficient :math:`c = \partial f / \partial d^2 = 1 - r / d`.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        return (1.0 - r / np.sqrt(d2)), None

    def cost_term(self, r, d2, noise=None):
        r""":math:`f(r, d^2) = (r - d)^2`."""
        return (r - np.sqrt(d2)) ** 2

    def pair_term(self, d2, noise=None):
        r""":math:`f(0, d^2) = d^2`: a pair at input distance 0."""
        return 1.0 * d2

    def edge_term(self, r, d2, noise=None):
        r""":math:`f(r, d^2) - f(0, d^2) = r (r - 2 d)`."""
        return r * (r - 2.0 * np.sqrt(d2))
