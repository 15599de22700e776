r"""Symmetric SNE with per-row output bandwidths, the NumPy unit (the C side: ``unit.h``).

basne's unit (:mod:`smallvis.methods.basne.unit`: the Gaussian
:math:`w = \exp(-u)` in :math:`u = \beta_i d_{ij}^2`, which the engines
form from the per-point field ``bandwidth``, and the KL divergence) with
``q`` normalised over all pairs.
"""

from ..basne.unit import BASNEUnit


class BSSNEUnit(BASNEUnit):
    """bssne: basne's unit with the weights normalised over all pairs."""

    __slots__ = ()

    #: The C unit of the normalised engine (``methods/bssne/unit.h``).
    c_unit = "bssne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
