"""Pure numeric helpers shared by several stages (the ground floor).

Nothing here imports another module of the package, so every layer (the
kNN search, the affinities, the initialisation, the kernels) may use them
without creating an import cycle.
"""

import numpy as np


def power_of_two_exponent(X):
    """Exponent ``e`` with ``max|X| = m 2**e``, ``0.5 <= m < 1`` (0 for X = 0).

    Dividing by ``2**e`` (``np.ldexp(X, -e)``) is exact for every entry that
    stays a normal number, so it changes no digit of the data.
    """
    # max(max X, -min X): the largest |entry| without an |X| copy of X
    top = max(float(np.max(X)), -float(np.min(X))) if X.size else 0.0
    if top == 0.0 or not np.isfinite(top):
        return 0
    return int(np.frexp(top)[1])


def row_exponents(A, default):
    """Per row of ``A``, the exponent ``e`` with ``max|row| = m 2**e``, ``0.5 <= m < 1``.

    ``default`` for rows of zeros (:func:`power_of_two_exponent` row by
    row).
    """
    top = np.abs(A).max(axis=1)
    return np.where(top > 0.0, np.frexp(top)[1], default).astype(np.int64)


def in_units(A, unit):
    """``A / 2**unit`` (exact for normal numbers; ``A`` itself for unit 0)."""
    return np.ldexp(A, -unit) if unit else A


def tie_key(d2):
    """Squared distances snapped to a 40-bit mantissa, for ordering neighbours.

    Distances that are mathematically equal (duplicates, or the many ties of
    data on a grid such as iris) can differ in the last bits depending on
    the order of the floating-point operations.  Ordering by these snapped
    values makes such ties resolve by index, as exact ties do.
    """
    m, e = np.frexp(d2)
    return np.ldexp(np.round(m * 2.0**40), e - 40)
