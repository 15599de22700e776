r"""t-SNE over a P that is not symmetric, the NumPy unit (the C side: ``unit.h``).

t-SNE's Cauchy weight :math:`w = 1 / (1 + d^2)` normalised over all pairs,
with the KL divergence, for a ``P`` over all pairs that is not symmetric
(``symmetric_p`` False): the engines sum each ordered pair's coefficient
:math:`c_{ij} = (p_{ij} - q_{ij})\, w_{ij}` at both ends,

.. math::

    \frac{\partial C}{\partial y_i} = 2 \sum_{j \ne i} (c_{ij} + c_{ji}) (y_i - y_j).
"""

from typing import NamedTuple

from .._common import (cauchy_log_weight, cauchy_slope_at, cauchy_weight, kl_cost, kl_force,
                       kl_offset)


class TRMSNEUnit(NamedTuple):
    """The Cauchy weight over all pairs and the KL divergence, ``P`` not symmetric (no parameters)."""

    #: The C unit of the normalised engine (``methods/trmsne/unit.h``).
    c_unit = "trmsne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: ``P`` is not symmetric: the engines sum every ordered pair.
    symmetric_p = False
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
