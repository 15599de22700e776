r"""Dynamic heavy-tailed SSNE, the NumPy unit (the C side: ``unit.h``).

Yang et al.'s weight with the tail :math:`\alpha` as the unit's field,

.. math::

    w = (1 + \alpha d^2)^{-1/\alpha}, \qquad
    \log w = -\frac{1}{\alpha} \mathrm{log1p}(\alpha d^2), \qquad
    -\frac{\partial \log w}{\partial d^2} = \frac{1}{1 + \alpha d^2} = w^{\alpha},

normalised over all pairs in the log domain, and the KL divergence.  It is
t-SNE's heavy-tailed unit at ``dof`` :math:`= 1 / \alpha`
(:class:`smallvis.methods.tsne.unit.TSNEUnit`), whose hooks it calls.
"""

from typing import NamedTuple

from .._common import kl_cost, kl_force, kl_offset
from ..tsne.unit import TSNEUnit


class DHSSNEUnit(NamedTuple):
    r"""dhssne: :math:`(1 + \alpha d^2)^{-1/\alpha}` normalised over all pairs, the KL divergence.

    Parameters
    ----------
    alpha : float
        The tail, :math:`\alpha > 0`: set by the method's search during a
        fit (``method.py``), fixed in the kernels.
    """

    alpha: float

    #: The C unit of the normalised engine (``methods/dhssne/unit.h``).
    c_unit = "dhssne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``log w`` (a light tail, large alpha, underflows).
    log_domain = True

    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def _tail(self):
        """t-SNE's unit at ``dof = 1 / alpha``."""
        return TSNEUnit(1.0 / self.alpha)

    def weight(self, d2, out=None):
        r""":math:`w = (1 + \alpha d^2)^{-1/\alpha}`."""
        return self._tail().weight(d2, out=out)

    def log_weight(self, d2):
        r""":math:`\log w = -\mathrm{log1p}(\alpha d^2) / \alpha`."""
        return self._tail().log_weight(d2)

    def slope_at(self, d2):
        r""":math:`-\partial \log w / \partial d^2 = 1 / (1 + \alpha d^2)`."""
        return self._tail().slope_at(d2)
