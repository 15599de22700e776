r"""Symmetric SNE (Cook et al. 2007), the NumPy unit (the C side: ``unit.h``).

The output weight is the Gaussian :math:`w = \exp(-d^2)`, normalised over
all pairs (docs/theory.md §3.3):

.. math::

    C = \mathrm{KL}(P \| Q) = \sum_{i \ne j} p_{ij} \log \frac{p_{ij}}{q_{ij}},
    \qquad
    q_{ij} = \frac{\exp(-\|y_i - y_j\|^2)}{\sum_{k \ne l} \exp(-\|y_k - y_l\|^2)}.

Since :math:`-\partial \log w / \partial d^2 = 1`, the gradient for a
symmetric ``P`` is

.. math::

    \frac{\partial C}{\partial y_i} = 4 \sum_{j \ne i} (p_{ij} - q_{ij})(y_i - y_j).

A new point placed against fixed rows uses its own row's normalisation
(as openTSNE does for t-SNE), so its cost and gradient are asne's
(:mod:`smallvis.methods.asne`).  Its hooks of the normalised engine are
asne's (see there), over all pairs.
"""

from typing import NamedTuple

from .._common import kl_cost, kl_force, kl_offset


class SSNEUnit(NamedTuple):
    """Symmetric SNE: the Gaussian weight, normalised over all pairs (no parameters)."""

    #: The C unit of the normalised engine (``methods/ssne/unit.h``).
    c_unit = "ssne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``log w`` (the Gaussian underflows far from a point).
    log_domain = True
    #: The cost and its derivative: the KL divergence (:func:`~smallvis.methods._common.kl_cost`).
    cost = staticmethod(kl_cost)
    offset = staticmethod(kl_offset)
    force = staticmethod(kl_force)

    def log_weight(self, d2):
        r"""The log of the output weight, :math:`\log w = -d^2`.

        The engines normalise in the log domain (the weights underflow far
        from a point), shifting by the largest log weight.
        """
        return -d2

    def slope_at(self, d2):
        r"""The slope :math:`-\partial \log w / \partial d^2 = 1`."""
        return 1.0
