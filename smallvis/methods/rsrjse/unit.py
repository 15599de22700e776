r"""Jensen-Shannon embedding on row-normalised symmetrised affinities, the NumPy unit (the C side: ``unit.h``).

jse's unit (:class:`smallvis.methods.jse.unit.JSEUnit`: the Gaussian
weight normalised over each row and the mixture cost's hooks) unchanged:
only the input ``P`` differs (``method.py``).
"""

from ..jse.unit import JSEUnit


class RSRJSEUnit(JSEUnit):
    r"""rsrjse: jse's unit, the Gaussian weight normalised over each row.

    Parameters
    ----------
    kappa : float, default=0.5
        :math:`\kappa`, strictly between 0 and 1: the weight of ``P`` in the
        mixture :math:`z = \kappa p + (1 - \kappa) q`.
    """

    __slots__ = ()

    #: The C unit of the normalised engine (``methods/rsrjse/unit.h``).
    c_unit = "rsrjse"
