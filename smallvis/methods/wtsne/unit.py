r"""Weighted t-SNE, the NumPy unit (the C side: ``unit.h``).

t-SNE's Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over all
pairs, and the KL divergence.  The per-point field ``importance`` holds
each point's :math:`m_i`; the engines multiply the weight of the pair
``(i, j)`` by :math:`m_i m_j` before they normalise
(:func:`smallvis.methods._common.pair_importances`), so the hooks below
are the plain Cauchy weight's:

.. math::

    q_{ij} = \frac{m_i m_j w_{ij}}{\sum_{k \ne l} m_k m_l w_{kl}},
    \qquad -\frac{\partial \log w}{\partial d^2} = w,
    \qquad c_{ij} = \frac{\partial C}{\partial d_{ij}^2} = (p_{ij} - q_{ij})\, w_{ij}.
"""

from typing import NamedTuple

from .._common import (DEGREES_OF_P, cauchy_log_weight, cauchy_slope_at, cauchy_weight,
                       kl_cost, kl_force, kl_offset)


class WTSNEUnit(NamedTuple):
    """Weighted t-SNE: the Cauchy weight times :math:`m_i m_j` (``importance``), over all pairs."""

    #: :math:`m_i`: ``"input"`` (each point's degree in ``P``), a positive
    #: number (every point) or an array of one per point.
    importance: object = DEGREES_OF_P

    #: The C unit of the normalised engine (``methods/wtsne/unit.h``).
    c_unit = "wtsne"
    #: The per-point fields, which the engines read (the C unit's loader does not).
    point_fields = ("importance",)
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False
    # the Cauchy weight's hooks: w = 1 / (1 + d^2), log w, and the slope w
    weight = cauchy_weight
    log_weight = cauchy_log_weight
    slope_at = cauchy_slope_at
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)
