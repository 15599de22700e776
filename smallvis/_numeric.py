"""Pure numeric helpers shared by several stages (the ground floor).

Nothing here imports another module of the package, so every layer (the
kNN search, the affinities, the initialisation, the kernels) may use them
without creating an import cycle.

Units
-----
Data of any size are measured in units of a power of two: every path (dense
and sparse ``X``, precomputed distances, new points in ``transform``) finds
its unit with :func:`power_of_two_exponent` or :func:`row_exponents` and
divides by it with :func:`in_units`, so that no square over- or underflows
and the answer does not depend on the units of the data.  The three accept
dense arrays and ``scipy.sparse`` matrices alike, and give a sparse matrix
the unit of the dense array it stores (its implicit zeros change no
maximum), so the two forms of the same data are searched in the same units,
bit for bit.
"""

import numpy as np
import scipy.sparse as sp


def _stored(X):
    """The entries whose size matters: a sparse matrix's stored values, else ``X``."""
    return X.data if sp.issparse(X) else X


#: Exponents of the largest entry within which data are worked on as they
#: are, without a copy scaled by a power of two: below ``2**SAFE_EXPONENT``
#: and above ``2**-SAFE_EXPONENT`` no square, product or sum of squares of
#: the entries can leave float64's normal range (``2**±1022``).  Outside
#: it, every path measures the data in units of ``2**e``
#: (:func:`power_of_two_exponent`, :func:`in_units`).
SAFE_EXPONENT = 200


def power_of_two_exponent(X):
    """Exponent ``e`` with ``max|X| = m 2**e``, ``0.5 <= m < 1`` (0 for X = 0).

    Dividing by ``2**e`` (``np.ldexp(X, -e)``) is exact for every entry that
    stays a normal number, so it changes no digit of the data.  ``X`` may be
    sparse (its stored entries are read; the implicit zeros change nothing).
    """
    X = _stored(X)
    # max(max X, -min X): the largest |entry| without an |X| copy of X
    top = max(float(np.max(X)), -float(np.min(X))) if X.size else 0.0
    if top == 0.0 or not np.isfinite(top):
        return 0
    return int(np.frexp(top)[1])


def row_exponents(A, default):
    """Per row of ``A``, the exponent ``e`` with ``max|row| = m 2**e``, ``0.5 <= m < 1``.

    ``default`` for rows of zeros (:func:`power_of_two_exponent` row by
    row).  ``A`` may be sparse.
    """
    if sp.issparse(A):
        top = np.asarray(abs(sp.csr_matrix(A)).max(axis=1).todense(), dtype=np.float64).ravel()
    else:
        top = np.abs(A).max(axis=1)
    return np.where(top > 0.0, np.frexp(top)[1], default).astype(np.int64)


def in_units(A, unit):
    """``A / 2**unit`` (exact for normal numbers; ``A`` itself for unit 0).

    A sparse ``A`` gives a new matrix of the same format and structure whose
    stored values are divided (entries that become zero stay stored, as
    explicit zeros: they add nothing to a distance).
    """
    if not unit:
        return A
    if sp.issparse(A):
        scaled = A.copy()
        scaled.data = np.ldexp(A.data, -unit)
        return scaled
    return np.ldexp(A, -unit)


def tie_key(d2):
    """Squared distances snapped to a 40-bit mantissa, for ordering neighbours.

    Distances that are mathematically equal (duplicates, or the many ties of
    data on a grid such as iris) can differ in the last bits depending on
    the order of the floating-point operations.  Ordering by these snapped
    values makes such ties resolve by index, as exact ties do.
    """
    m, e = np.frexp(d2)
    return np.ldexp(np.round(m * 2.0**40), e - 40)
