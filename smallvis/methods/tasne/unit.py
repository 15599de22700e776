r"""t-distributed asymmetric SNE, the NumPy unit (the C side: ``unit.h``).

asne's conditional KL divergence with t-SNE's Cauchy weight in place of the
Gaussian, normalised over each row:

.. math::

    C = \sum_i \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}},
    \qquad
    q_{j|i} = \frac{w_{ij}}{\sum_{k \ne i} w_{ik}},
    \qquad
    w_{ij} = \frac{1}{1 + \|y_i - y_j\|^2}.

Its hooks of the normalised engine are asne's pattern
(:mod:`smallvis.methods.asne.unit`) with the Cauchy weight, whose slope
:math:`-\partial \log w / \partial d^2 = w` turns the KL pair coefficient
into :math:`c = (p_{j|i} - q_{j|i})\, w_{ij}`; the Cauchy weight does not
underflow, so the engine normalises ``w`` itself (``log_domain`` False).
"""

from typing import NamedTuple

from .._common import (cauchy_log_weight, cauchy_slope_at, cauchy_weight, kl_cost, kl_force,
                       kl_offset)


class TASNEUnit(NamedTuple):
    """t-ASNE: the Cauchy weight, normalised over each row, the KL divergence (no parameters)."""

    #: The C unit of the normalised engine (``methods/tasne/unit.h``).
    c_unit = "tasne"
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
