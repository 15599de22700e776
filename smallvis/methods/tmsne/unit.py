r"""t-SNE over the unnormalised Gaussian weights, the NumPy unit (the C side: ``unit.h``).

trmsne's unit (:class:`smallvis.methods.trmsne.unit.TRMSNEUnit`): the
Cauchy weight :math:`w = 1 / (1 + d^2)` normalised over all pairs and the
KL divergence, for a ``P`` over all pairs that is not symmetric; only
``P`` differs (the method's entry).
"""

from ..trmsne.unit import TRMSNEUnit


class TMSNEUnit(TRMSNEUnit):
    """tmsne: trmsne's unit (no parameters)."""

    __slots__ = ()

    #: The C unit of the normalised engine (``methods/tmsne/unit.h``).
    c_unit = "tmsne"
