r"""Weighted symmetric SNE, the NumPy unit (the C side: ``unit.h``).

Symmetric SNE's Gaussian weight :math:`w = \exp(-d^2)`, normalised over
all pairs in the log domain, and the KL divergence.  The per-point field
``importance`` holds each point's :math:`m_i`; the engines multiply the
weight of the pair ``(i, j)`` by :math:`m_i m_j` before they normalise
(:func:`smallvis.methods._common.pair_importances`), so the hooks below
are the plain Gaussian's:

.. math::

    q_{ij} = \frac{m_i m_j e^{-d_{ij}^2}}{\sum_{k \ne l} m_k m_l e^{-d_{kl}^2}},
    \qquad -\frac{\partial \log w}{\partial d^2} = 1,
    \qquad c_{ij} = \frac{\partial C}{\partial d_{ij}^2} = p_{ij} - q_{ij}.
"""

from typing import NamedTuple

from .._common import DEGREES_OF_P, kl_cost, kl_force, kl_offset


class WSSNEUnit(NamedTuple):
    """Weighted SSNE: the Gaussian weight times :math:`m_i m_j` (``importance``), over all pairs."""

    #: :math:`m_i`: ``"input"`` (each point's degree in ``P``), a positive
    #: number (every point) or an array of one per point.
    importance: object = DEGREES_OF_P

    #: The C unit of the normalised engine (``methods/wssne/unit.h``).
    c_unit = "wssne"
    #: The per-point fields, which the engines read (the C unit's loader does not).
    point_fields = ("importance",)
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``log w`` (the Gaussian underflows far from a point).
    log_domain = True
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def log_weight(self, d2):
        r"""The log of the plain output weight, :math:`\log w = -d^2` (the engine adds :math:`\log m_i m_j`)."""
        return -d2

    def slope_at(self, d2):
        r"""The slope :math:`-\partial \log w / \partial d^2 = 1`."""
        return 1.0
