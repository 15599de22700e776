r"""smmds, the NumPy unit (the C side: ``unit.h``): the squared-distance stress of one pair.

.. math::

    f(r, d^2) = (r^2 - d^2)^2,

with :math:`r` the pair's input distance (the stored value of ``P``).
"""

from typing import NamedTuple


class SMMDSUnit(NamedTuple):
    r"""The squared error :math:`(r^2 - d^2)^2` of a squared output distance (S-stress).

    No parameters.
    """

    #: Its kernels' prefix and its C unit (``methods/smmds/unit.h``).
    kernel = "smmds"
    #: Whether a pair's cost depends on its row beyond ``r`` and ``d2``.
    row_noise = False

    def coefficient(self, r, d2, noise=None):
        r"""The pair coefficient :math:`c = \partial f / \partial d^2 = 2 (d^2 - r^2)`.

        Returns
        -------
        c : ndarray
        dq : None
            No learned scalar.
        """
        return 2.0 * (d2 - r * r), None

    def cost_term(self, r, d2, noise=None):
        r""":math:`f(r, d^2) = (r^2 - d^2)^2`."""
        return (r * r - d2) ** 2

    def pair_term(self, d2, noise=None):
        r""":math:`f(0, d^2) = d^4`: a pair at input distance 0."""
        return d2 * d2

    def edge_term(self, r, d2, noise=None):
        r""":math:`f(r, d^2) - f(0, d^2) = r^2 (r^2 - 2 d^2)`."""
        return r * r * (r * r - 2.0 * d2)
