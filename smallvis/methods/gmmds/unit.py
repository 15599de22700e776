r"""gmmds, the NumPy unit (the C side: ``unit.h``): mmds's raw stress of one pair.

.. math::

    f(r, d^2) = (r - d)^2,

with :math:`r` the pair's geodesic input distance.  The unit is mmds's
(:class:`smallvis.methods.mmds.unit.MMDSUnit`) under its own kernel
name; only the input distances differ.
"""

from ..mmds.unit import MMDSUnit


class GMMDSUnit(MMDSUnit):
    r"""mmds's squared error :math:`(r - d)^2`, of geodesic input distances.

    No parameters.
    """

    __slots__ = ()

    #: Its kernels' prefix and its C unit (``methods/gmmds/unit.h``).
    kernel = "gmmds"
