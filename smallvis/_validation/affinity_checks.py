"""The structure of input affinities ``P`` and of a precomputed kNN pair.

A user's ``P`` (dense or any scipy sparse format) is checked and brought to
the one form the kernels read: square, finite, non-negative, zero
diagonal, a canonical float64 CSR matrix or C-contiguous array, with its
index arrays verified before any scipy operation.  The affinities smallvis
builds itself are checked in place (:func:`check_built_affinities`).
"""

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from .arrays import _as_array, _short_repr


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
