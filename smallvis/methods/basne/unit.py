r"""Asymmetric SNE with per-row output bandwidths, the NumPy unit (the C side: ``unit.h``).

The weight of the pair ``(i, j)`` is :math:`w_{ij} = \exp(-\beta_i
d_{ij}^2)`, normalised over row ``i``, and the cost is the KL divergence
of each row, as asne's (:mod:`smallvis.methods.asne.unit`).  The
per-row precisions :math:`\beta_i` are the unit's per-point field
``bandwidth`` (``point_fields``): the normalised engines scale row
``i``'s squared distances by :math:`\beta_i` before they call the hooks
below, and the pair coefficients by :math:`\beta_i` after
(:func:`smallvis.methods._common.row_bandwidths`), so the hooks see
:math:`u = \beta_i d_{ij}^2` and are asne's Gaussian in :math:`u`:

.. math::

    \log w = -u, \qquad -\frac{\partial \log w}{\partial u} = 1,
    \qquad
    c_{ij} = \frac{\partial C}{\partial d_{ij}^2}
           = \beta_i \bigl(p_{j|i} - q_{j|i}\bigr).
"""

from typing import NamedTuple

from .._common import kl_cost, kl_force, kl_offset


class BASNEUnit(NamedTuple):
    """asne with each row's Gaussian precision :math:`\\beta_i` (``bandwidth``)."""

    #: :math:`\beta_i`: a positive number (every row) or an array, one per row of ``P``.
    bandwidth: object = 1.0

    #: The C unit of the normalised engine (``methods/basne/unit.h``).
    c_unit = "basne"
    #: The per-point fields, which the engines read (the C unit's loader does not).
    point_fields = ("bandwidth",)
    #: The normalisation of ``q``: over each row.
    normalisation = "rows"
    #: The engine normalises ``log w`` (the Gaussian underflows far from a point).
    log_domain = True
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def log_weight(self, u):
        r"""The log of the output weight at :math:`u = \beta_i d^2`: :math:`\log w = -u`."""
        return -u

    def slope_at(self, u):
        r"""The slope :math:`-\partial \log w / \partial u = 1`."""
        return 1.0
