r"""t-ASNE on row-normalised symmetrised affinities, the NumPy unit (the C side: ``unit.h``).

The Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over each row,
and the KL divergence :math:`f(p, q) = p \log(p / q)` with its hooks
(:func:`~smallvis.methods._common.kl_cost` and kin): the offset :math:`S =
-\text{mass}` (-1 over each row of ``P`` in a fit) and the pair
coefficient :math:`c = (p + S q)\, s` with the Cauchy slope :math:`s = w`.
"""

from typing import NamedTuple

from .._common import (cauchy_log_weight, cauchy_slope_at, cauchy_weight, kl_cost, kl_force,
                       kl_offset)


class TRSRSNEUnit(NamedTuple):
    """trsrsne: the Cauchy weight normalised over each row, the KL divergence (no parameters)."""

    #: The C unit of the normalised engine (``methods/trsrsne/unit.h``).
    c_unit = "trsrsne"
    #: The normalisation of ``q``: over each row.
    normalisation = "rows"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    # the Cauchy weight's hooks: w = 1 / (1 + d^2), log w, and the slope w
    weight = cauchy_weight
    log_weight = cauchy_log_weight
    slope_at = cauchy_slope_at
