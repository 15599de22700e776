r"""Normalised t-UMAP, the NumPy unit (the C side: ``unit.h``).

cetsne's unit (:class:`smallvis.methods.cetsne.unit.CETSNEUnit`: the
Cauchy weight normalised over all pairs and the fuzzy-set cross-entropy's
hooks); the method differs from cetsne in its ``P`` only, UMAP's fuzzy
graph normalised to sum 1.
"""

from ..cetsne.unit import CETSNEUnit


class NTUMAPUnit(CETSNEUnit):
    r"""ntumap: cetsne's unit, the cross-entropy of a normalised ``P`` and ``Q`` (no parameters)."""

    __slots__ = ()

    #: The C unit of the normalised engine (``methods/ntumap/unit.h``).
    c_unit = "ntumap"
