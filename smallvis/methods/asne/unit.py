r"""Asymmetric SNE (Hinton & Roweis 2002), the NumPy unit (the C side: ``unit.h``).

The output weight is the Gaussian :math:`w = \exp(-d^2)`, normalised per
row (docs/theory.md §3.2):

.. math::

    C = \sum_i \mathrm{KL}(P_i \| Q_i)
      = \sum_i \sum_{j \ne i} p_{j|i} \log \frac{p_{j|i}}{q_{j|i}},
    \qquad
    q_{j|i} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne i} \exp(-\|y_i - y_k\|^2)},

where row ``i`` of ``P`` holds :math:`p_{j|i}`.  Since
:math:`-\partial \log w / \partial d^2 = 1`, the gradient is

.. math::

    \frac{\partial C}{\partial y_i} =
    2 \sum_{j \ne i} \left(p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}\right)(y_i - y_j).

A new point ``s`` placed against fixed rows has the cost of its own row,
:math:`\sum_j p_{j|s} \log(p_{j|s} / q_{j|s})`, and the gradient
:math:`2 \sum_j (p_{j|s} - \pi_s q_{j|s})(y_s - y_j)` with
:math:`\pi_s = \sum_k p_{k|s}` (1 for a calibrated row).

The unit's hooks of the normalised engine
(:func:`smallvis.backends.reference.normalised_cost` and its kin), the
pattern of every normalised unit: ``normalisation`` (``"rows"`` or
``"total"``), ``log_domain`` with ``log_weight`` (or ``weight``),
``slope_at`` (:math:`s = -\partial \log w / \partial d^2`) and, for a
cost :math:`C = \sum f(p, q)`, ``cost(P, Q, log_Q)`` (the sum of
:math:`f`), ``offset(P, Q, mass, axis)`` (:math:`S = \sum q\,
\partial f/\partial q` over each normalisation set) and ``force(P, W, Z,
slope, S)`` (:math:`c = \partial C/\partial d^2 = q (S - \partial
f/\partial q)\, s`, :math:`q = W / Z`).  For the KL divergence
:math:`S = -\text{mass}` and :math:`c = (p + S q)\, s`
(:func:`~smallvis.methods._common.kl_force`).  ``c_unit`` names the C twin
(``asne.h``).
"""

from typing import NamedTuple

from .._common import kl_cost, kl_force, kl_offset


class ASNEUnit(NamedTuple):
    """Asymmetric SNE: the Gaussian weight, normalised over each row (no parameters)."""

    #: The C unit of the normalised engine (``methods/asne/unit.h``).
    c_unit = "asne"
    #: The normalisation of ``q``: over each row.
    normalisation = "rows"
    #: The engine normalises ``log w`` (the Gaussian underflows far from a point).
    log_domain = True
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def log_weight(self, d2):
        r"""The log of the output weight, :math:`\log w = -d^2`.

        The engines normalise in the log domain (the weights underflow far
        from a point), shifting each row by its largest log weight.
        """
        return -d2

    def slope_at(self, d2):
        r"""The slope :math:`-\partial \log w / \partial d^2 = 1`."""
        return 1.0
