"""Overflow and underflow of squared distances: the bounds and their messages.

A layout's squared distances are bounded by the sum over columns of the
squared column ranges; these functions test that bound against float64's
largest and smallest normal numbers, so that no kernel squares a distance
into ``inf`` or into zero, and word the message when one would.
"""

import numpy as np

from .._numeric import power_of_two_exponent


#: Squared distances must stay below this (float64 max, about 1.8e308).
MAX_SQUARED_DISTANCE = np.finfo(np.float64).max


def squared_span_bound(Y):
    """Sum over columns of (max - min)^2: an upper bound on every squared distance.

    inf when it overflows float64; 0 for a single row or equal rows.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        span = np.ptp(Y, axis=0) if Y.shape[0] else np.zeros(1)
        return float(np.sum(np.square(span)))


def coordinate_span_overflows(Y):
    """True when a squared distance between rows of ``Y`` could overflow float64.

    The test of :func:`check_coordinate_span`, shared with the divergence
    guard of the exact optimizer (:mod:`smallvis.engines.optim`).
    """
    bound = squared_span_bound(Y)
    return not np.isfinite(bound) or bound >= MAX_SQUARED_DISTANCE


#: Squared distances below this are not normal float64 numbers (about 2.2e-308).
MIN_SQUARED_DISTANCE = np.finfo(np.float64).tiny


def coordinate_span_underflows(Y):
    """True when rows of ``Y`` differ but every squared distance between them underflows.

    The largest squared distance is at most the sum over columns of the
    squared column ranges; below the smallest normal float64 (about
    2.2e-308, i.e. coordinates spanning less than about 1.5e-154) every
    squared distance is zero or subnormal, and the output kernels see all
    the points at one place.
    """
    span = np.ptp(Y, axis=0) if Y.shape[0] else np.zeros(1)
    return bool(np.any(span > 0)) and squared_span_bound(Y) < MIN_SQUARED_DISTANCE


def power_of_two_rescaling(Y, target_exponent=-13):
    """The ``k`` that puts ``2**k`` times the widest column range of ``Y`` in [2**-14, 2**-13).

    That is a standard deviation of about 1e-4, the scale of the "random"
    and "spca" initialisations.  Multiplying by ``2**k`` is exact.
    """
    return target_exponent - power_of_two_exponent(np.ptp(Y, axis=0))


def tiny_span_message(Y, name, *, array=True, remedy=None):
    """The message for an initial layout whose squared distances underflow.

    ``array``: the layout is the user's ``init`` array, so the message gives
    the exact power-of-two rescaling of it; otherwise (a named
    initialisation) it names the initialisations that are scaled for the
    kernels.  ``remedy``: what to do instead, for a layout that ``init``
    does not set.
    """
    head = (f"{name} spans only {float(np.max(np.ptp(Y, axis=0))):.3g}: the squared "
            f"distances between its rows underflow float64 (below "
            f"{MIN_SQUARED_DISTANCE:.3g}), so every output kernel sees its points at one "
            f"place and the embedding would stay there; ")
    if remedy is not None:
        return head + remedy
    named = "init=\"spca\" (the PCA scores scaled to standard deviation 1e-4) or init=\"random\""
    if not array:
        return head + f"use {named}"
    k = power_of_two_rescaling(Y)
    return head + (f"start from the same layout scaled exactly by 2**{k}, "
                   f"np.ldexp(init - init.mean(axis=0), {k}) (standard deviation about "
                   f"1e-4), or use {named}")


def check_coordinate_resolution(Y, name="init array"):
    """Raise when the rows of ``Y`` differ but their squared distances all underflow.

    See :func:`coordinate_span_underflows`.  Rows that are all equal pass
    (they have their own check and message).
    """
    if coordinate_span_underflows(Y):
        raise ValueError(tiny_span_message(Y, name))
    return Y


def check_coordinate_span(Y, name="Y"):
    """Raise unless every squared distance between rows of ``Y`` is finite.

    The largest squared distance is at most the sum over columns of the
    squared column ranges; that bound must not overflow float64, i.e. the
    coordinates must span less than about 1e154.
    """
    if coordinate_span_overflows(Y):
        raise ValueError(
            f"{name} coordinates span too wide a range: squared distances between "
            f"rows would overflow float64 (max {MAX_SQUARED_DISTANCE:.3g}); the sum "
            f"over columns of (max - min)^2 must be finite, i.e. coordinates must "
            f"span less than about 1e154; scale them down"
        )
    return Y
