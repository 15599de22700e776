r"""SKD t-SNE, the NumPy unit (the C side: ``unit.h``): t-SNE's Cauchy weight and KL divergence.

The Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over all pairs,
and the SNE family's KL hooks (:func:`smallvis.methods._common.kl_cost`),
the numbers of :class:`smallvis.methods.tsne.unit.TSNEUnit` with ``dof = 1``;
the method differs from t-SNE in its ``P`` only.
"""

from typing import NamedTuple

from .._common import (cauchy_log_weight, cauchy_slope_at, cauchy_weight, kl_cost, kl_force,
                       kl_offset)


class SKDTSNEUnit(NamedTuple):
    r"""skdtsne: the Cauchy weight normalised over all pairs, KL(P || Q) (no parameters)."""

    #: The C unit of the normalised engine (``methods/skdtsne/unit.h``).
    c_unit = "skdtsne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False
    #: The cost and its derivative: the KL divergence.
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    # the Cauchy weight's hooks: w = 1 / (1 + d^2), log w, and the slope w
    weight = cauchy_weight
    log_weight = cauchy_log_weight
    slope_at = cauchy_slope_at
