r"""Reverse-KL SNE (Im et al. 2018), the NumPy unit (the C side: ``unit.h``).

The Cauchy weight :math:`w = 1 / (1 + d^2)`, normalised over all pairs,
and the elementwise cost of the normalised engine

.. math::

    f(p, q) = q \log \frac{q}{\max(p, p_\text{floor})},

whose derivative is :math:`\partial f / \partial q = \ell + 1` with
:math:`\ell = \log q - \log \max(p, p_\text{floor})`; the constant 1
drops out of the force (:math:`\sum q = 1`), so the hooks use
:math:`\ell`.  The engine's hooks
(:func:`smallvis.backends.reference.normalised_cost` and its kin): the
offset :math:`S = \sum q \ell` over all pairs, and the pair coefficient
:math:`c = q\, (S - \ell)\, s` with the Cauchy slope :math:`s = w`.  A
term with :math:`q = 0` (the diagonal) is 0, its limit.

:func:`floored_log_ratio`, :func:`reverse_kl_cost` and
:func:`reverse_kl_offset` are the reverse KL divergence's pieces, which
the NeRV units reuse.
"""

from typing import NamedTuple

import numpy as np

from .._common import cauchy_log_weight, cauchy_slope_at, cauchy_weight

#: R smallvis's floor of ``P`` in the reverse KL divergence: machine epsilon.
R_P_FLOOR = float(np.finfo(np.float64).eps)


def floored_log_ratio(P, Q, p_floor):
    r""":math:`\ell = \log q - \log \max(p, p_\text{floor})` where :math:`q > 0`; 0 elsewhere.

    The offset and the force take it from this one expression, as the C
    unit does, so that both twins round it alike.  The difference of logs
    (not the log of the ratio) keeps it finite for any positive floor.
    """
    out = np.zeros(np.shape(Q))
    positive = Q > 0
    out[positive] = np.log(Q[positive]) - np.log(np.maximum(P[positive], p_floor))
    return out


def reverse_kl_cost(P, Q, log_Q, p_floor):
    r"""The reverse KL divergence :math:`\sum_{q > 0} q\, (\log q - \log \max(p, p_\text{floor}))`.

    ``log_Q`` is :math:`\log q` (full precision where ``q`` is tiny).
    """
    positive = Q > 0
    return float(np.sum(Q[positive] * (log_Q[positive]
                                        - np.log(np.maximum(P[positive], p_floor)))))


def reverse_kl_offset(P, Q, p_floor, axis):
    r"""The reverse KL divergence's offset :math:`\sum q \ell` over all pairs or each row.

    ``axis=None`` (all pairs) or ``axis=1`` (each row, kept as a column).
    """
    T = Q * floored_log_ratio(P, Q, p_floor)
    return T.sum(axis=axis, keepdims=axis is not None)


def rkl_cost(unit, P, Q, log_Q):
    r"""The sum of :math:`f(p, q) = q \log(q / \max(p, p_\text{floor}))` over every entry."""
    return reverse_kl_cost(P, Q, log_Q, unit.p_floor)


def rkl_offset(unit, P, Q, mass, axis):
    r"""The offset :math:`S = \sum q \ell` (``mass`` is not needed)."""
    return reverse_kl_offset(P, Q, unit.p_floor, axis)


def rkl_force(unit, P, W, Z, slope, S):
    r"""The pair coefficient :math:`c = \partial C / \partial d^2 = q\, (S - \ell)\, s`.

    :math:`q = W / Z` and ``slope`` :math:`s = -\partial \log w / \partial d^2`.
    """
    Q = W / Z
    K = Q * (S - floored_log_ratio(P, Q, unit.p_floor))
    K *= slope
    return K


class RKLSNEUnit(NamedTuple):
    r"""rklsne: the Cauchy weight normalised over all pairs, the reverse KL divergence.

    Parameters
    ----------
    p_floor : float, default=2.220446049250313e-16
        :math:`p_\text{floor}`, positive: the floor of ``P`` inside the
        log, :math:`q \log(q / \max(p, p_\text{floor}))` (machine epsilon,
        R smallvis's).
    """

    p_floor: float = R_P_FLOOR

    #: The C unit of the normalised engine (``methods/rklsne/unit.h``).
    c_unit = "rklsne"
    #: The normalisation of ``q``: over all pairs.
    normalisation = "total"
    #: The engine normalises ``w`` itself (the Cauchy weight does not underflow).
    log_domain = False

    # the Cauchy weight's hooks: w = 1 / (1 + d^2), log w, and the slope w
    weight = cauchy_weight
    log_weight = cauchy_log_weight
    slope_at = cauchy_slope_at

    cost = rkl_cost
    offset = rkl_offset
    force = rkl_force
