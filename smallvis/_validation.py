"""Input checks shared by the public functions.

Every check raises ``ValueError`` or ``TypeError`` with a message that names
the argument and the allowed range.  The Cython kernels run without bounds
checks, so everything they receive passes through here first.
"""

from collections.abc import Mapping
import decimal
import numbers
import os
import re
import sys
import warnings

import numpy as np
import scipy.sparse as sp

from ._numeric import power_of_two_exponent


def _as_array(value, name):
    """``np.asarray`` with a message naming the argument on failure.

    An object array (a pandas frame with object or nullable columns, a list
    mixing ``None`` with numbers) becomes float64 if every element is a real
    number, NaN, ``None`` or ``pd.NA`` (:func:`_objects_as_float`); the
    missing ones become NaN, which the callers refuse as NaN.  Any other
    object array is a ``TypeError`` naming ``name``.
    """
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(
            f"{name} is a masked array; smallvis ignores masks, so fill or drop "
            f"the masked values first (e.g. {name}.filled(...) or {name}.compressed())"
        )
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"{name} cannot be converted to a numeric array (ragged or mixed "
            f"content?): {exc}"
        ) from None
    return _objects_as_float(value, arr, name) if arr.dtype == object else arr


#: Element types of an object array that count as numbers.
_NUMBER_TYPES = (numbers.Real, np.bool_, decimal.Decimal)


def _objects_as_float(value, arr, name):
    """The object array ``arr`` (from ``value``) as float64, missing values as NaN.

    A pandas DataFrame or Series whose columns all have numeric dtypes
    (nullable ``Int64``, ``Float64``, ``boolean`` included) converts
    directly.  Otherwise every element must be a real number (NaN
    included), ``None`` or ``pd.NA``; anything else (strings, objects) is a
    ``TypeError``.  pandas is never imported here: without it loaded, no
    ``pd.NA`` exists.
    """
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, (pandas.DataFrame, pandas.Series)):
        dtypes = value.dtypes if isinstance(value, pandas.DataFrame) else [value.dtype]
        if all(pandas.api.types.is_numeric_dtype(d) for d in dtypes):
            return value.to_numpy(dtype=np.float64, na_value=np.nan)
    missing_na = pandas.NA if pandas is not None else None
    flat = arr.ravel()
    missing = np.fromiter((v is None or v is missing_na for v in flat), bool, flat.size)
    for v in flat[~missing]:
        if not isinstance(v, _NUMBER_TYPES):
            raise TypeError(
                f"{name} must be numeric (integer or floating point); got dtype object "
                f"holding a {type(v).__name__} ({_short_repr(v)}); each element of the "
                "argument must be a real number (not a string, even one that spells a "
                "number), NaN, None or pd.NA"
            )
    try:
        out = np.where(missing, np.nan, flat).astype(np.float64)
    except OverflowError:
        raise ValueError(f"{name} holds an integer too large for float64") from None
    return out.reshape(arr.shape)


def _short_repr(value, width=40):
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


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


def check_data(X, name="X", min_rows=2):
    """Return ``X`` as a C-contiguous float64 2-D array, or raise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Input data.
    name : str, default="X"
        Name used in error messages.
    min_rows : int, default=2
        Minimum number of rows.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    arr = check_real_array(X, name)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); "
            f"got {arr.ndim}-D array of shape {arr.shape}"
        )
    if arr.shape[0] < min_rows:
        raise ValueError(
            f"{name} must have at least {min_rows} rows (samples); got {arr.shape[0]}"
        )
    if arr.shape[1] < 1:
        raise ValueError(f"{name} must have at least 1 column (feature); got 0")
    return check_finite(np.ascontiguousarray(arr, dtype=np.float64), name)


def check_real_array(X, name):
    """Return ``X`` as an array of booleans, integers or floats, or raise ``TypeError``.

    Refused, with a message naming ``name``: scipy sparse matrices, masked
    arrays, strings, objects, dates and complex numbers.
    """
    if sp.issparse(X):
        raise TypeError(
            f"{name} is a scipy sparse matrix; smallvis needs a dense array "
            f"(use {name}.toarray())"
        )
    arr = _as_array(X, name)
    if arr.dtype == object or arr.dtype.kind in "USVOM":
        raise TypeError(
            f"{name} must be numeric (integer or floating point); got dtype {arr.dtype}"
        )
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real-valued; got complex dtype {arr.dtype}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric; got dtype {arr.dtype}")
    return arr


def check_finite(arr, name):
    """Return the numeric array ``arr`` if every value is finite, else raise ``ValueError``."""
    if not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); all values must be finite")
    return arr


def check_number(value, name, *, low=None, high=None, low_open=False, high_open=False):
    """Return ``value`` as float (or int) if it lies in the allowed range.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Argument name used in the message.
    low, high : float or None
        Bounds; None means unbounded.
    low_open, high_open : bool
        Whether the bound itself is excluded.

    Returns
    -------
    float
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"{name} must be a real number; got {value!r}", (name,))
    value = float(value)
    if not np.isfinite(value):
        raise ParameterError(f"{name} must be finite; got {value!r}", (name,))
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        # an absent bound is infinite, and infinity itself is refused above
        lo = "(" if low_open or low is None else "["
        hi = ")" if high_open or high is None else "]"
        lo_s = "-inf" if low is None else f"{low:g}"
        hi_s = "inf" if high is None else f"{high:g}"
        raise ParameterError(f"{name} must be in {lo}{lo_s}, {hi_s}{hi}; got {value!r}",
                             (name,))
    return value


def check_integer(value, name, low=None, high=None, *, why=None):
    """Return ``value`` as an int in ``[low, high]``, or raise naming ``name``.

    The one integer check of the package.  Accepted: Python and NumPy
    integers, and real numbers with an integral value (``15.0``); rejected
    with ``TypeError``: booleans, non-integral or non-finite numbers and
    non-numbers.  A value out of range raises ``ValueError`` with the
    interval, as :func:`check_number` words it.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Argument name used in the message.
    low, high : int or None
        Inclusive bounds; None means unbounded.
    why : str, optional
        Where the bounds come from, for the message (e.g. ``"below
        n_samples / 2 = 75"``).

    Returns
    -------
    int
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(f"{name} must be an integer; got {value!r}", (name,))
    if not isinstance(value, numbers.Integral):
        if not (np.isfinite(value) and float(value).is_integer()):
            raise ParameterTypeError(f"{name} must be an integer; got {value!r}", (name,))
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "(-inf" if low is None else f"[{low}"
        hi = "inf)" if high is None else f"{high}]"
        reason = f" ({why})" if why else ""
        raise ParameterError(f"{name} must be in {lo}, {hi}{reason}; got {value}", (name,))
    return value


#: Largest accepted iteration count (``n_iter``, ``n_epochs``,
#: ``exaggeration_iter``, ``momentum_switch_iter``, ``cost_every``): 100
#: times the longest default run (t-SNE's 1000 iterations, UMAP's 500
#: epochs on small data); a run this long takes hours, a larger count is a
#: typo or a forged file.
MAX_ITERATIONS = 100_000

#: Largest accepted ``transform`` iteration count (``n_iter`` of
#: :meth:`smallvis.transform.Reference.transform`, ``transform_n_iter``):
#: 100 times the default of 100.
MAX_TRANSFORM_ITERATIONS = 10_000

#: Largest accepted ``n_refine`` (rounds of neighbour refinement after an
#: Annoy search): 250 times the default of 4; refinement stops by itself
#: long before when nothing changes.
MAX_REFINE_ROUNDS = 1_000


def check_iterations(value, name, low=0, high=MAX_ITERATIONS):
    """Return an iteration count ``value`` as an int in ``[low, high]``.

    The one bound on every count of iterations, epochs or rounds that a
    caller, an estimator or a model file sets, so that no value makes a run
    that never ends; otherwise as :func:`check_integer`.
    """
    return check_integer(value, name, low=low, high=high,
                         why="the bound keeps a run from never ending")


#: Largest accepted ``n_threads``: every thread gets O(N) scratch buffers.
MAX_THREADS = 1024


def check_threads(n_threads):
    """Return a positive thread count; -1 means every available core.

    Above ``MAX_THREADS`` (1024) is an error.  A count above
    ``os.cpu_count()`` is lowered to it with a ``RuntimeWarning``: extra
    threads only add per-thread scratch memory (O(N) each) and contention.
    Results of the exact optimizer depend on the thread count in the last
    bits only (see :mod:`smallvis.backends._kernels`).
    """
    n_threads = check_integer(n_threads, "n_threads", low=-1, high=MAX_THREADS)
    if n_threads == 0:
        raise ParameterError("n_threads must be a positive integer or -1 (all cores); got 0",
                             ("n_threads",))
    cores = os.cpu_count() or 1
    if n_threads == -1:
        return cores
    if n_threads > cores:
        warnings.warn(
            f"n_threads = {n_threads} is more than the {cores} core(s) of this "
            f"machine (os.cpu_count()); using n_threads = {cores}",
            RuntimeWarning, stacklevel=3,
        )
        return cores
    return n_threads


def check_embedding(Y, n_samples, n_components, name="init"):
    """Return a user-supplied embedding as a float64 C-contiguous copy."""
    if sp.issparse(Y):
        raise TypeError(f"{name} must be a dense array, not a sparse matrix")
    arr = _as_array(Y, name)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} array must be numeric; got dtype {arr.dtype}")
    if arr.shape != (n_samples, n_components):
        raise ValueError(
            f"{name} array must have shape (n_samples, n_components) = "
            f"({n_samples}, {n_components}); got {arr.shape}"
        )
    arr = np.array(arr, dtype=np.float64, order="C", copy=True)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} array contains NaN or infinite values")
    check_coordinate_span(arr, f"{name} array")
    return check_coordinate_resolution(arr, f"{name} array")


def check_random_state(random_state):
    """Return a ``numpy.random.Generator`` from None, an int or a Generator."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ParameterError(
                f"random_state must be a non-negative integer; got {random_state}",
                ("random_state",))
        return np.random.default_rng(int(random_state))
    raise ParameterTypeError(
        f"random_state must be None, a non-negative int or a numpy Generator; got {random_state!r}",
        ("random_state",))


def check_knn_pair(knn, name="knn"):
    """``(indices, distances)`` of a precomputed ``knn``, the one form it takes.

    The pair that :func:`smallvis.inputs.neighbors.nearest_neighbors`
    returns (any two-item sequence: tuple, list, named tuple).  A mapping
    is refused rather than read by its keys: unpacking a dict gives its
    key names, and ``dict[0]`` a bare ``KeyError``.  The arrays themselves
    are checked by :func:`smallvis.inputs.affinities.check_knn`.

    Raises
    ------
    TypeError
        ``knn`` is a mapping, a string, or not a pair; the message names
        ``name`` and the expected form.
    """
    expected = (f"{name} must be a pair (indices, distances), as nearest_neighbors "
                "returns it")
    if isinstance(knn, Mapping):
        keys = ", ".join(map(repr, list(knn)[:4]))
        raise TypeError(f"{expected}; got a dict (keys {keys}): pass "
                        f"{name}=(d['indices'], d['distances'])")
    if isinstance(knn, (str, bytes)):
        raise TypeError(f"{expected}; got {type(knn).__name__} {_short_repr(knn)}")
    try:
        indices, distances = knn
    except (TypeError, ValueError):
        raise TypeError(f"{expected}; got {type(knn).__name__} "
                        f"{_short_repr(knn)}") from None
    return indices, distances


def check_affinities(P, n_samples=None, *, symmetric=False, fuzzy=False, name="P"):
    """Validate input affinities for the kernels.

    Parameters
    ----------
    P : ndarray or sparse matrix of shape (n_samples, n_samples)
        Input affinities: finite, non-negative, zero diagonal, at least one
        positive entry.
    n_samples : int or None
        Expected number of rows.
    symmetric : bool
        Require ``P == P.T`` (to 1e-10 of the largest entry).
    fuzzy : bool
        Require entries at most 1 (fuzzy memberships, umap and tumap).

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix
        A C-contiguous float64 array for dense input; for sparse input a
        canonical CSR matrix (float64, sorted indices, no duplicates, no
        explicit zeros).
    """
    if sp.issparse(P):
        M = _sparse_to_csr(P, name)
        M.sum_duplicates()
        M.sort_indices()
        values = M.data
    else:
        arr = _as_array(P, name)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be a numeric array; got dtype {arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(f"{name} must be a 2-D square matrix; got shape {arr.shape}")
        M = np.ascontiguousarray(arr, dtype=np.float64)
        values = M
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"{name} must be square (n_samples, n_samples); got shape {M.shape}")
    if n_samples is not None and M.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {M.shape[0]} rows but Y has {n_samples}; they must match"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains NaN or infinite values")
    negative = int(np.count_nonzero(values < 0))
    if negative:
        raise ValueError(f"{name} must be non-negative; found {negative} negative entries")
    with np.errstate(over="ignore"):
        total = np.sum(values)
    if not np.isfinite(total):
        raise ValueError(
            f"{name} entries must have a finite sum (they normally sum to 1, or to "
            f"n_samples for asne); got a sum that overflows float64"
        )
    if fuzzy and values.size and values.max() > 1.0:
        raise ValueError(
            f"{name} holds fuzzy memberships for this method and must lie in [0, 1]; "
            f"found a maximum of {values.max():g}"
        )
    if np.any(M.diagonal() != 0):
        raise ValueError(f"{name} must have a zero diagonal (p_ii = 0)")
    if sp.issparse(M):
        M.eliminate_zeros()
    largest = values.max() if values.size else 0.0
    if not largest > 0:
        raise ValueError(f"{name} has no positive entries")
    if symmetric:
        asym = abs(M - M.T)
        worst = asym.max() if sp.issparse(asym) and asym.nnz else (
            0.0 if sp.issparse(asym) else asym.max())
        if worst > 1e-10 * largest:
            raise ValueError(
                f"{name} must be symmetric for this method; symmetrise it, "
                "e.g. with (P + P.T) / 2"
            )
    return M


def check_built_affinities(P, n_samples, *, symmetric=False, fuzzy=False):
    """Check affinities that smallvis built itself, without copying them.

    :func:`check_affinities` validates a user's ``P``: it copies it into
    canonical form and forms ``|P - P^T|`` to test symmetry, about three
    times the memory of ``P`` at its peak.  The affinity builders of
    :mod:`smallvis.affinities` return a canonical float64 CSR matrix that is
    symmetric by construction (``(A + A^T) / 2``, tested in
    ``tests/test_affinities.py`` and ``tests/test_knn_graph.py``), so for
    their output the values are checked in place (finite, non-negative,
    zero diagonal, a positive entry, at most 1 when ``fuzzy``) and the
    structure is taken as built.

    The dense builders (small data) return a C-contiguous float64 array.
    It is checked in place too, with no N x N temporary: the same value
    checks, and with ``symmetric`` an exact ``P == P^T`` test, strip by
    strip (their ``(A + A^T) / 2`` is exactly symmetric).  When any of these
    fails, :func:`check_affinities` decides: it raises with its message, or
    accepts a ``P`` within its symmetry tolerance.  Anything else (another
    dtype or layout, another sparse format) goes through
    :func:`check_affinities`, with ``symmetric``.

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix
        ``P`` itself when it is a canonical float64 CSR matrix or a valid
        C-contiguous float64 array, otherwise what :func:`check_affinities`
        returns.
    """
    if type(P) is np.ndarray and P.dtype == np.float64 and P.flags.c_contiguous:
        if _dense_is_valid(P, n_samples, symmetric, fuzzy):
            return P
        return check_affinities(P, n_samples, symmetric=symmetric, fuzzy=fuzzy)
    if not (sp.isspmatrix_csr(P) or isinstance(P, sp.csr_array)) \
            or P.dtype != np.float64 or not P.has_canonical_format:
        return check_affinities(P, n_samples, symmetric=symmetric, fuzzy=fuzzy)
    if P.shape != (n_samples, n_samples):
        raise ValueError(f"P has shape {P.shape}; expected ({n_samples}, {n_samples})")
    values = P.data
    # a NaN or an infinity makes the sum non-finite, so a finite sum proves
    # every value finite without a boolean array of the size of P; only a
    # sum that is not (or overflowed) needs the entry-wise test
    with np.errstate(over="ignore"):
        finite_sum = np.isfinite(values.sum())
    if not finite_sum and not np.all(np.isfinite(values)):
        raise ValueError("P contains NaN or infinite values")
    if values.size == 0 or not values.max() > 0 or values.min() < 0:
        raise ValueError("P must be non-negative with at least one positive entry")
    if fuzzy and values.max() > 1.0:
        raise ValueError(f"P holds fuzzy memberships and must lie in [0, 1]; found a "
                         f"maximum of {values.max():g}")
    if np.any(P.diagonal() != 0):
        raise ValueError("P must have a zero diagonal (p_ii = 0)")
    return P


#: Rows per strip of the dense symmetry test.
_SYMMETRY_STRIP = 128


def _dense_is_valid(P, n_samples, symmetric, fuzzy):
    """True when a dense float64 ``P`` passes every check of :func:`check_affinities`.

    In place, with temporaries of one strip of rows: a finite sum (so every entry is
    finite), no negative entry, a positive one, at most 1 when ``fuzzy``, a
    zero diagonal and, with ``symmetric``, ``P == P^T`` exactly.  False
    means "let :func:`check_affinities` decide".
    """
    if P.ndim != 2 or P.shape != (n_samples, n_samples):
        return False
    with np.errstate(over="ignore", invalid="ignore"):
        total = P.sum()
    if not np.isfinite(total) or P.size == 0 or P.min() < 0:
        return False
    largest = P.max()
    if not largest > 0 or (fuzzy and largest > 1.0) or np.any(P.diagonal() != 0):
        return False
    if symmetric:
        b = _SYMMETRY_STRIP
        for a in range(0, n_samples, b):
            if not np.array_equal(P[a:a + b, a:], P[a:, a:a + b].T):
                return False
    return True


def _sparse_to_csr(P, name):
    """Float64 CSR copy of a scipy sparse matrix whose structure is verified.

    Scipy checks index ranges only on request, and a matrix whose ``indices``
    were edited after construction (or a COO matrix built from out-of-range
    coordinates) converts silently into a CSR matrix that indexes outside its
    rows.  Such indices would reach the unchecked Cython kernels, so the
    structure is verified here before any conversion.
    """
    if P.ndim != 2:
        raise ValueError(f"{name} must be a 2-D square matrix; got shape {P.shape}")
    if P.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must have real numeric (bool, integer or float) entries; "
            f"got dtype {P.dtype}"
        )
    n_rows, n_cols = P.shape
    fmt = P.format
    try:
        if fmt in ("csr", "csc", "bsr"):
            Q = P.copy()
            _check_compressed(Q)
            Q.check_format(full_check=True)
        elif fmt == "coo":
            Q = P.copy()
            row, col = np.asarray(Q.row), np.asarray(Q.col)  # .coords: scipy >= 1.13
            nnz = len(np.asarray(Q.data))
            if row.ndim != 1 or col.ndim != 1 or len(row) != nnz or len(col) != nnz:
                raise ValueError("row, column and data arrays differ in length")
            if row.dtype.kind not in "iu" or col.dtype.kind not in "iu":
                raise ValueError("row and column indices must be integers")
            if nnz and (row.min() < 0 or col.min() < 0
                        or row.max() >= n_rows or col.max() >= n_cols):
                raise ValueError(
                    f"row indices must lie in [0, {n_rows - 1}] and column indices "
                    f"in [0, {n_cols - 1}]"
                )
        else:  # lil, dok, dia: converted by scipy, checked below
            Q = P
        C = sp.csr_matrix(Q, dtype=np.float64, copy=True)
        _check_compressed(C)  # whatever the source format, before any scipy C++ op
    except ValueError as exc:
        raise ValueError(f"{name} is not a valid sparse matrix: {exc}") from None
    return C


def check_dense_memory(kernels, n_samples):
    """Refuse sizes whose dense N x N matrices would exhaust memory.

    A kernel module that needs O(N^2) memory declares ``MAX_DENSE_BYTES``
    and ``DENSE_ARRAYS`` (the NumPy reference does; the Cython kernels need
    O(N) scratch and declare nothing).  The estimate is
    ``DENSE_ARRAYS * n_samples**2 * 8`` bytes; nothing is allocated here.
    """
    limit = getattr(kernels, "MAX_DENSE_BYTES", None)
    if limit is None:
        return
    need = int(kernels.DENSE_ARRAYS) * int(n_samples) ** 2 * 8
    if need > limit:
        n_max = int((limit / (8 * kernels.DENSE_ARRAYS)) ** 0.5)
        raise ValueError(
            f"n_samples = {n_samples} is too large for the NumPy reference path "
            f"(fast=False): it needs O(N^2) memory, about {kernels.DENSE_ARRAYS} dense "
            f"N x N float64 arrays = {need / 1024**3:.1f} GiB, above the limit of "
            f"{limit / 1024**3:.1f} GiB (n_samples <= {n_max}; "
            f"smallvis.backends.reference.MAX_DENSE_BYTES); use fast=True"
        )


def _check_compressed(Q):
    """Index-range checks of a CSR/CSC/BSR matrix (scipy skips some when nnz=0)."""
    block = Q.blocksize if Q.format == "bsr" else (1, 1)
    n_rows, n_cols = Q.shape[0] // block[0], Q.shape[1] // block[1]
    major, minor = (n_cols, n_rows) if Q.format == "csc" else (n_rows, n_cols)
    indptr, indices = np.asarray(Q.indptr), np.asarray(Q.indices)
    if indptr.ndim != 1 or indptr.shape[0] != major + 1:
        raise ValueError(f"indptr must have length {major + 1}; got {indptr.shape}")
    if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu":
        raise ValueError("indptr and indices must be integer arrays")
    if indptr[0] != 0 or np.any(np.diff(indptr) < 0):
        raise ValueError("indptr must start at 0 and be non-decreasing")
    if indptr[-1] != indices.shape[0] or indptr[-1] > np.asarray(Q.data).shape[0]:
        raise ValueError("indptr[-1] must equal the number of stored entries")
    if indices.shape[0] and (indices.min() < 0 or indices.max() >= minor):
        raise ValueError(f"indices must lie in [0, {minor - 1}]")


def check_callback(callback):
    """Return ``callback`` wrapped so that it cannot leave garbage in ``Y``.

    ``callback(iteration, Y, cost)`` receives the live coordinates (no copy,
    so that a callback per iteration stays cheap).  If it writes NaN or an
    infinite value into them, the wrapper raises ``ValueError`` at once,
    naming the iteration, instead of letting the optimizer carry on with (or
    return) non-finite coordinates.  None stays None.
    """
    if callback is None:
        return None
    if not callable(callback):
        raise TypeError(f"callback must be callable; got {callback!r}")

    def checked(iteration, Y, cost):
        stop = callback(iteration, Y, cost)
        if not np.all(np.isfinite(Y)):
            raise ValueError(
                f"callback left NaN or infinite values in Y after iteration "
                f"{iteration}; a callback may read Y (or change it to finite "
                f"values) but must not write NaN or inf into it"
            )
        return stop

    return checked


class ParameterError(ValueError):
    """A bad value of options the user sets; ``options`` names them as keywords.

    Front ends whose options are spelled differently (the command line's
    ``--n-neighbors`` for ``n_neighbors``) rewrite the names with
    :func:`spell_options`.
    """

    def __init__(self, message, options):
        super().__init__(message)
        self.options = tuple(options)


class ParameterTypeError(TypeError):
    """A value of the wrong type for an option the user sets; ``options`` as :class:`ParameterError`.

    So that a front end leads the message with its own spelling of the
    option (``--z-bar: z_bar must be a real number; got 'abc'``), as it does
    for a value out of range.
    """

    def __init__(self, message, options):
        super().__init__(message)
        self.options = tuple(options)


class SmallDataWarning(UserWarning):
    """A default lowered to fit a small data set; ``options`` names what was lowered."""

    def __init__(self, message, options):
        super().__init__(message)
        self.options = tuple(options)


def spell_options(message, options, spell):
    """``message`` with each keyword form ``name=`` of ``options`` written as ``spell(name)``.

    The keyword form is how a message tells the user what to set
    ("pass perplexity= to choose"); the bare name, which says what is
    wrong, stays.  A value written after the keyword (``kernel='exp'``)
    is set off by a space (``--kernel 'exp'``).  Names that ``spell`` maps
    to None stay as they are.
    """
    for name in options:
        text = spell(name)
        if text is not None:
            message = re.sub(rf"(?<![\w-]){re.escape(name)}=(?=(\S?))",
                             lambda match: text + (" " if match.group(1) else ""), message)
    return message


def warn_from_caller(warning):
    """Issue ``warning`` attributed to the first caller outside the smallvis package."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 2  # stacklevel 2: the caller of this function
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(warning, stacklevel=level)


def warn_not_laid_out(Y, n_steps, steps_option, closeness):
    """Warn (from the user's line) that a run ended before its points spread out.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_components)
        The returned layout.
    n_steps : int
        The run's length.
    steps_option : {"n_iter", "n_epochs"}
        The option that sets it.
    closeness : str
        How close every output weight still is to its value at distance 0.
    """
    widest = float(np.max(np.ptp(Y, axis=0)))
    unit = "iterations" if steps_option == "n_iter" else "epochs"
    warn_from_caller(RuntimeWarning(
        f"after {n_steps} {unit} the embedding still spans only {widest:.3g}: every "
        f"output weight {closeness} its value at distance 0, so the points are not laid "
        f"out; start from a wider init (e.g. init=\"spca\" or \"random\", standard "
        f"deviation 1e-4) or run more {unit} ({steps_option})"))
