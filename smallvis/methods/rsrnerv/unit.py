r"""NeRV on the row-normalised symmetrised P, the NumPy unit (the C side: ``unit.h``).

nerv's unit (:class:`smallvis.methods.nerv.unit.NERVUnit`): the Gaussian
weight normalised over each row and

.. math::

    f(p, q) = \lambda\, p \log \frac{p}{q}
        + (1 - \lambda)\, q \log \frac{q}{\max(p, p_\text{floor})};

only ``P`` differs (the method's entry).
"""

from ..nerv.unit import NERVUnit


class RSRNERVUnit(NERVUnit):
    r"""rsrnerv: nerv's unit (the Gaussian per row, NeRV's mixed divergence) on its own P.

    Parameters as :class:`~smallvis.methods.nerv.unit.NERVUnit`.
    """

    __slots__ = ()

    #: The C unit of the normalised engine (``methods/rsrnerv/unit.h``).
    c_unit = "rsrnerv"
