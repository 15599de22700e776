r"""t-SNE with per-row output bandwidths, the NumPy unit (the C side: ``unit.h``).

btasne's unit (:mod:`smallvis.methods.btasne.unit`: the Cauchy
:math:`w = 1 / (1 + u)` in :math:`u = \beta_i d_{ij}^2`, which the
engines form from the per-point field ``bandwidth``, and the KL
divergence) with ``q`` normalised over all pairs.
"""

from ..btasne.unit import BTASNEUnit


class BTSNEUnit(BTASNEUnit):
    """btsne: btasne's unit with the weights normalised over all pairs."""

    __slots__ = ()

    #: The C unit of the normalised engine (``methods/btsne/unit.h``).
    c_unit = "btsne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
