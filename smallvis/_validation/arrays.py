"""Array arguments turned into NumPy arrays, or refused with a message naming them.

The one conversion of array-likes (pandas frames, object arrays, lists) to
numeric arrays, and the checks of data and user layouts built on it: 2-D,
real, finite, C-contiguous float64.
"""

import decimal
import numbers
import sys

import numpy as np
import scipy.sparse as sp

from .. import _threads
from .spans import check_coordinate_resolution, check_coordinate_span


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


def check_data(X, name="X", min_rows=2, n_threads=None):
    """Return ``X`` as a C-contiguous float64 2-D array, or raise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Input data.
    name : str, default="X"
        Name used in error messages.
    min_rows : int, default=2
        Minimum number of rows.
    n_threads : int or None, default=None
        Threads that copy and check the rows (:func:`float64_rows`), read
        by :func:`smallvis._threads.data_threads` (this check comes before
        that of ``n_threads`` itself); the answer is the same on any number.

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
    return float64_rows(arr, name, _threads.data_threads(n_threads, arr.size))


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


#: Entries :func:`check_finite` tests at a time: a block's mask is small,
#: where one mask of a large data set's size would be a large new array.
_FINITE_BLOCK = 1 << 18


#: Rows :func:`float64_rows` copies and checks at a time.
_ROW_BLOCK = 2048


def float64_rows(arr, name, n_threads=1):
    """The 2-D numeric ``arr`` as a C-contiguous float64 array if it is all finite, else raise.

    ``arr`` itself when it is already one; otherwise a copy, made and
    checked in blocks of :data:`_ROW_BLOCK` rows on up to ``n_threads``
    threads.  Pixels stored as bytes or float32 are the usual case: one
    pass over the data, and each thread touches its own part of the new
    array (the first write to fresh memory is most of the copy's cost).
    The values are those of ``np.ascontiguousarray(arr, dtype=np.float64)``
    on any number of threads; a value beyond float64's range is refused as
    infinite.
    """
    if arr.dtype == np.float64 and arr.flags.c_contiguous:
        out, copy = arr, False
    else:
        out, copy = np.empty(arr.shape, dtype=np.float64), True
    bad = []

    def fill(start):
        block = slice(start, start + _ROW_BLOCK)
        if copy:
            with np.errstate(over="ignore"):  # a float128 beyond range: refused below
                np.copyto(out[block], arr[block], casting="unsafe")
        if not np.isfinite(out[block]).all():
            bad.append(start)

    _threads.each_block(fill, range(0, arr.shape[0], _ROW_BLOCK), n_threads)
    if bad:
        check_finite(out, name)
    return out


def check_finite(arr, name):
    """Return the numeric array ``arr`` if every value is finite, else raise ``ValueError``."""
    flat = arr.reshape(-1)
    if not all(np.isfinite(flat[i:i + _FINITE_BLOCK]).all()
               for i in range(0, flat.size, _FINITE_BLOCK)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); all values must be finite")
    return arr


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
