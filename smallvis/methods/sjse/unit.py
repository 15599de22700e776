r"""Symmetric Jensen-Shannon embedding, the NumPy unit (the C side: ``unit.h``).

jse's unit (:class:`smallvis.methods.jse.unit.JSEUnit`: the Gaussian weight
and the mixture cost's hooks) with ``q`` normalised over all pairs: the
offset :math:`S = \sum q \log(q / z) / \kappa` runs over every pair.
"""

from ..jse.unit import JSEUnit


class SJSEUnit(JSEUnit):
    r"""sjse: jse's unit with the Gaussian weight normalised over all pairs.

    Parameters
    ----------
    kappa : float, default=0.5
        :math:`\kappa`, strictly between 0 and 1: the weight of ``P`` in the
        mixture :math:`z = \kappa p + (1 - \kappa) q`.
    """

    __slots__ = ()

    #: The C unit of the normalised engine (``methods/sjse/unit.h``).
    c_unit = "sjse"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
