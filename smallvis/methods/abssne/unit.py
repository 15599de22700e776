r"""Alpha-beta SSNE, the NumPy unit (the C side: ``unit.h``).

absne's alpha-beta divergence (:class:`smallvis.methods.absne.unit.ABSNEUnit`:
the cost's hooks) with ssne's Gaussian weight :math:`w = \exp(-d^2)`,
normalised over all pairs in the log domain, whose slope :math:`s =
-\partial \log w / \partial d^2` is 1.
"""

from ..absne.unit import ABSNEUnit


class ABSSNEUnit(ABSNEUnit):
    r"""abssne: absne's unit with the Gaussian weight normalised over all pairs.

    Parameters
    ----------
    alpha : float, default=1.0
        :math:`\alpha > 0`.
    beta : float, default=0.0
        :math:`\beta \ge 0` (the Gaussian ``q`` underflows; absne's Cauchy
        ``q`` takes :math:`\beta > -\alpha`).
    """

    __slots__ = ()

    #: The C unit of the normalised engine (``methods/abssne/unit.h``).
    c_unit = "abssne"
    #: The engine normalises ``log w`` (the Gaussian underflows far from a point).
    log_domain = True

    def log_weight(self, d2):
        r"""The log of the output weight, :math:`\log w = -d^2`."""
        return -d2

    def slope_at(self, d2):
        r"""The slope :math:`-\partial \log w / \partial d^2 = 1`."""
        return 1.0
