r"""Symmetric NeRV, the NumPy unit (the C side: ``unit.h``).

nerv's elementwise cost (:mod:`smallvis.methods.nerv.unit`)

.. math::

    f(p, q) = \lambda\, p \log \frac{p}{q}
        + (1 - \lambda)\, q \log \frac{q}{\max(p, p_\text{floor})},

with the Gaussian weight :math:`w = \exp(-d^2)` normalised over all pairs:
the offset :math:`S = -\lambda \pi + (1 - \lambda) \sum q (\ell + 1)` is
taken over all pairs (:math:`\pi = \sum p = 1`) and the pair coefficient
is nerv's, :math:`c = (\lambda p + q S - (1 - \lambda) q (\ell + 1))\, s`,
slope :math:`s = 1`.
"""

from ..nerv.unit import NERVUnit


class SNERVUnit(NERVUnit):
    r"""snerv: nerv's unit with the Gaussian normalised over all pairs (``lam = 1`` is ssne).

    Parameters as :class:`~smallvis.methods.nerv.unit.NERVUnit`.
    """

    __slots__ = ()

    #: The C unit of the normalised engine (``methods/snerv/unit.h``).
    c_unit = "snerv"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
