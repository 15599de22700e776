r"""sammon, the NumPy unit (the C side: ``unit.h``): Sammon's stress of one pair.

.. math::

    f(r, d^2) = \frac{(r - d)^2}{r}, \qquad d = \sqrt{d^2},

with :math:`r > 0` the pair's input distance (the stored value of ``P``);
a pair at input distance 0 has no term (Sammon's is undefined there).
"""

from typing import NamedTuple

import numpy as np


class SammonUnit(NamedTuple):
    r"""The relative squared error :math:`(r - d)^2 / r` of an output distance (Sammon 1969).

    No parameters.
    """

    #: Its kernels' prefix and its C unit (``methods/sammon/unit.h``).
    kernel = "sammon"
    #: Whether a pair's cost depends on its row beyond ``r`` and ``d2``.
    row_noise = False

    def coefficient(self, r, d2, noise=None):
        r"""The pair coefficient :math:`c = \partial f / \partial d^2 = (d - r) / (r d)`.

        0 for a pair at input distance 0, which has no term.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        d = np.sqrt(d2)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(r > 0, (d - r) / (r * d), 0.0), None

    def cost_term(self, r, d2, noise=None):
        r""":math:`f(r, d^2) = (r - d)^2 / r` for :math:`r > 0`, else 0."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(r > 0, (r - np.sqrt(d2)) ** 2 / r, 0.0)

    def pair_term(self, d2, noise=None):
        r""":math:`f(0, d^2) = 0`: a pair at input distance 0 has no term."""
        return np.zeros_like(np.asarray(d2, dtype=np.float64))

    def edge_term(self, r, d2, noise=None):
        r""":math:`f(r, d^2) - f(0, d^2) = (r - d)^2 / r`."""
        return self.cost_term(r, d2, noise)
